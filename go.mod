module github.com/gojit/gojit

go 1.26
