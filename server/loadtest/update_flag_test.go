package loadtest

// The shared -update flag (go test ./... -update regenerates golden files)
// is registered by envtest; every test binary must know it.
import _ "github.com/galaxygym/galaxygym/env/envtest"
