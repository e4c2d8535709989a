// Package exprpeer measures source.Formula against github.com/expr-lang/expr,
// the bytecode interpreter Go programs commonly use to evaluate user-written
// formulas one row at a time.
//
// It is a module of its own (with its own go.mod) so that gojit does not
// depend on expr: `go test ./...` and `go vet ./...` from the repository
// root do not enter it. Run it with `make bench-formula`, which needs the
// network once to download expr.
package exprpeer
