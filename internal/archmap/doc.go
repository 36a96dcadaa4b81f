// Package archmap holds the tests that keep the house in order. It has no
// code of its own.
//
//   - TestMapNamesEveryPackage keeps docs/architecture.md the true map of
//     the module: it fails when `go list ./...` lists a package that the
//     map's package table does not name, or the table names a package that
//     does not exist.
//   - TestNoExportedVariables fails on an exported package-level var in any
//     non-test file (error sentinels made by errors.New excepted).
//   - TestNoLongFunctions fails on a function of a non-test file that spans
//     more than 150 lines (play/conn.go's handle excepted for now).
package archmap
