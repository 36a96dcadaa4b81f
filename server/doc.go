// Package server serves galaxygym environments over websockets: the
// protocol of docs/protocol.md, version [Version].
//
// One connection is one session. After a JSON hello that states the
// protocol version, a session makes a batch of N environments of one id
// (make), resets them with per-environment seeds or serialized states
// (reset), and steps them all at once with binary frames: N int32 actions
// in, and out N observations of the player to act, N legal-action masks,
// every player's reward, terminated, truncated, the current player and a
// compact info (score, outcome, episode steps), in a fixed little-endian
// [Layout] that a client maps with numpy.frombuffer. Finished episodes are
// reset following Gymnasium's autoreset modes ([AutoresetMode]) with seeds
// derived deterministically from each environment's seed ([EpisodeSeed]).
//
// Bad input gets a typed error reply ([Error], [Code]) and leaves every
// environment as it was; protocol violations close the connection with the
// matching close code. The [Server] enforces the [Config] limits, checks an
// optional bearer token and the browser Origin, serves /healthz and
// Prometheus /metrics, and on [Server.Shutdown] finishes the steps in
// flight and closes every session with 1001 (going away).
//
// The step path reuses per-session buffers: a step request is decoded into
// the batch's action slice and the reply encoded into the batch's reply
// buffer, and batches of at least 256 environments are stepped on
// [Config.Workers] goroutines (the results do not depend on it).
package server
