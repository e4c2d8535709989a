package main

import (
	"bytes"
	"os"
	"testing"
)

// ops_gen.go must be what genops writes from the root package today: an op
// added to gojit.Tensor without `go generate ./lazy` fails here.
func TestOpsGenIsCurrent(t *testing.T) {
	want, err := generate("../../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../ops_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("lazy/ops_gen.go is stale: run go generate ./lazy")
	}
}
