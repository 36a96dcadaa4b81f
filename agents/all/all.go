// Package all registers every agent: importing it for its side effect
// makes each game's own agents (agents/<game>) resolvable by name through
// [agents.New], beside the generic agents of package agents. It is to
// agents what env/all is to the games: a program that resolves agents by
// name imports both.
//
//	import (
//		_ "github.com/galaxygym/galaxygym/agents/all"
//		_ "github.com/galaxygym/galaxygym/env/all"
//	)
package all

import (
	_ "github.com/galaxygym/galaxygym/agents/express"          // heuristic for express-v1
	_ "github.com/galaxygym/galaxygym/agents/galaxyexpress"    // heuristic for galaxy-express-v1
	_ "github.com/galaxygym/galaxygym/agents/galaxyfighters"   // heuristic for galaxy-fighters-v1
	_ "github.com/galaxygym/galaxygym/agents/pilotsofgallaxia" // heuristic for pilots-of-gallaxia-v1 and -v2
)
