package agents

// Internal helpers for the external tests (package agents_test), which can
// import the games' agent packages.
var BenchmarkPolicyActOn = benchmarkPolicyAct
var BenchmarkPolicyFileOn = benchmarkPolicyFile

// WithValueHeadForTest copies a weights file as format version 3 with a
// seeded random value head (mcts_guided_test.go's withValueHead).
var WithValueHeadForTest = withValueHead
