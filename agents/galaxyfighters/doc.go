// Package galaxyfighters holds the agents of Galaxy Fighters
// (galaxy-fighters-v1): the heuristic, registered as "heuristic" for the
// game's environment.
package galaxyfighters
