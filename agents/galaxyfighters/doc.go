// Package galaxyfighters holds the agents of Galaxy Fighters
// (galaxy-fighters-v2, and the legacy galaxy-fighters-v1): the heuristic,
// registered as "heuristic" for both environments.
package galaxyfighters
