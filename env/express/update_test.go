package express

import "flag"

// The -update flag (go test ./env/express -update) rewrites this package's
// golden files instead of comparing with them; envtest.Golden and
// envtest.Updating read it. It is declared here, where it is used.
var _ = flag.Bool("update", false, "rewrite golden files")
