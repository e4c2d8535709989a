module github.com/gojit/gojit/internal/bench/exprpeer

go 1.26.0

require (
	github.com/expr-lang/expr v1.17.8
	github.com/gojit/gojit v0.0.0
)

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

replace github.com/gojit/gojit => ../../..
