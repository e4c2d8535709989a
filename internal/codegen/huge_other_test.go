//go:build !linux && cgo && !nollvm

package codegen

import "testing"

// hugeFloats returns n zeros; only Linux is asked for 2 MiB pages.
func hugeFloats(_ testing.TB, n int) []float32 { return make([]float32, n) }
