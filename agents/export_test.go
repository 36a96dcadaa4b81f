package agents

// Internal helpers for the external tests (package agents_test), which can
// import the games' agent packages.
var BenchmarkPolicyActOn = benchmarkPolicyAct
var BenchmarkPolicyFileOn = benchmarkPolicyFile
