package gojit_test

import (
	"fmt"
	"testing"

	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkChain5 compares the compiled 5-op chain with a fused Go loop and
// with op-by-op Go at several sizes; compare the sub-benchmarks' ns/op
// within one run (or use `gojit bench`, which prints the ratios).
func BenchmarkChain5(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000, 10_000_000} {
		cases, err := bench.ChainCases(n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d/gojit", n), cases[0].Run)
		b.Run(fmt.Sprintf("n=%d/go-fused", n), cases[0].Base)
		b.Run(fmt.Sprintf("n=%d/go-op-by-op", n), cases[1].Base)
	}
}

// BenchmarkCallOverhead is a cached CallInto with three 16-element inputs.
func BenchmarkCallOverhead(b *testing.B) {
	run, err := bench.CallOverhead()
	if err != nil {
		b.Fatal(err)
	}
	run(b)
}

// BenchmarkColdCompile traces and compiles a new 6-op function per op.
func BenchmarkColdCompile(b *testing.B) { bench.ColdCompile()(b) }
