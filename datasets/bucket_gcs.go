//go:build gcs

package datasets

import _ "gocloud.dev/blob/gcsblob" // gs://
