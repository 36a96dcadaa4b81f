//go:build azure

package datasets

import _ "gocloud.dev/blob/azureblob" // azblob://
