package lazy

//go:generate go run ./internal/genops -root .. -o ops_gen.go
