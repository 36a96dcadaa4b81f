// Package all links every galaxygym game into the binary: import it for its
// side effect. This is the one greppable list of games.
package all

import (
	_ "github.com/galaxygym/galaxygym/env/express"          // express-v1 (players 2-6)
	_ "github.com/galaxygym/galaxygym/env/galaxyexpress"    // galaxy-express-v1
	_ "github.com/galaxygym/galaxygym/env/galaxyfighters"   // galaxy-fighters-v2, galaxy-fighters-v1 (players 2-4)
	_ "github.com/galaxygym/galaxygym/env/pilotsofgallaxia" // pilots-of-gallaxia-v1 (players 2-6)
)
