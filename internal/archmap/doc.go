// Package archmap holds the test that keeps docs/architecture.md the true
// map of the module: TestMapNamesEveryPackage fails when `go list ./...`
// lists a package that the map's package table does not name, or the table
// names a package that does not exist. It has no code of its own.
package archmap
