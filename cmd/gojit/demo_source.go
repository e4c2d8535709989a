package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/source"
)

// demoNewtonSrc is the Go source the demo compiles with package source: an
// ordinary loop with a data-dependent inner loop, which Go runs one element
// at a time and gojit runs 8 elements per vector.
const demoNewtonSrc = `package demo

// Sqrts sets out[i] to the square root of x[i] by Newton's iteration.
func Sqrts(x, out []float64) {
	for i := range x {
		v := x[i]
		r := v
		for k := 0; k < 60; k++ {
			next := 0.5 * (r + v/r)
			if next == r {
				break
			}
			r = next
		}
		out[i] = r
	}
}
`

// demoNewtonGo is demoNewtonSrc's function compiled by Go, the baseline.
func demoNewtonGo(x, out []float64) {
	for i := range x {
		v := x[i]
		r := v
		for k := 0; k < 60; k++ {
			next := 0.5 * (r + v/r)
			if next == r {
				break
			}
			r = next
		}
		out[i] = r
	}
}

// sourceDemo is the figures of the demo's package-source part.
type sourceDemo struct {
	N          int     `json:"n"`
	CompileNs  int64   `json:"compile_ns"`
	CompiledNs float64 `json:"compiled_ns"`
	GoNs       float64 `json:"go_ns"`
	VsGo       float64 `json:"speedup_vs_go"`
	Mismatches int     `json:"mismatches"` // elements whose bits differ from Go's
	Skipped    string  `json:"skipped,omitempty"`
}

const demoSourceN = 200000

// demoGoSource compiles demoNewtonSrc, runs it and the Go function on the
// same inputs, and compares their results bit for bit.
func demoGoSource() (*sourceDemo, error) {
	d := &sourceDemo{N: demoSourceN}
	start := time.Now()
	f, err := source.Compile(demoNewtonSrc, "Sqrts", source.WithFilename("demo.go"))
	if errors.Is(err, llvm.ErrUnavailable) {
		d.Skipped = "no LLVM in this build"
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	d.CompileNs = time.Since(start).Nanoseconds()
	var sqrts func([]float64, []float64) error
	if err := source.Bind2(f, &sqrts); err != nil {
		return nil, err
	}
	x := make([]float64, d.N)
	for i := range x {
		x[i] = 1 + float64(i%1000)*37.5
	}
	got, want := make([]float64, d.N), make([]float64, d.N)
	if d.CompiledNs, err = perCall(func() error { return sqrts(x, got) }); err != nil {
		return nil, err
	}
	d.GoNs, _ = perCall(func() error { demoNewtonGo(x, want); return nil })
	d.VsGo = d.GoNs / d.CompiledNs
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			d.Mismatches++
		}
	}
	return d, nil
}

// printSourceDemo writes the package-source part of the text report.
func printSourceDemo(w io.Writer, d *sourceDemo) {
	section(w, "7. A Go loop compiled from its source (package source)")
	fmt.Fprint(w, indent(demoNewtonSrc))
	if d.Skipped != "" {
		fmt.Fprintf(w, "\n  skipped: %s\n", d.Skipped)
		return
	}
	fmt.Fprintf(w, "\n  source.Compile: %s (parse, type-check, go/ssa, then LLVM, or the object from the disk cache)\n", fmtDur(time.Duration(d.CompileNs)))
	fmt.Fprintf(w, "  %s elements: compiled %s, Go %s: %.2fx faster than Go\n",
		thousands(d.N), fmtDur(time.Duration(d.CompiledNs)), fmtDur(time.Duration(d.GoNs)), d.VsGo)
	verdict := "bit for bit the same as Go's"
	if d.Mismatches > 0 {
		verdict = fmt.Sprintf("MISMATCH: %d elements differ from Go's", d.Mismatches)
	}
	fmt.Fprintf(w, "  results: %s\n", verdict)
}
