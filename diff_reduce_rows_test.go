package gojit_test

import (
	"math"
	"testing"

	"github.com/gojit/gojit"
)

// checkAlone is checkDiff for one case compiled alone: its bound is
// computed by the interpreter in a function of its own, since computing
// it in the same function adds reductions that share the case's loop
// nest, which then no longer takes the path under test.
func checkAlone(t *testing.T, c dcase, args ...*gojit.Array) {
	t.Helper()
	comp, ref, cerr, rerr := runBoth(t, casesFn(len(args), []dcase{{name: c.name, f: c.f}}), anyArgs(args))
	if cerr != nil || rerr != nil {
		t.Fatalf("compiled: %v; interpreter: %v", cerr, rerr)
	}
	var bound *gojit.Array
	if c.bound != nil {
		b, err := interpret(t, casesFn(len(args), []dcase{{name: "bound", f: c.bound}}), anyArgs(args))
		if err != nil {
			t.Fatalf("bound: %v", err)
		}
		bound = b[0]
	}
	if d := compareCase(c, comp[0], ref[0], bound); d != "" {
		t.Errorf("%s: compiled differs from interpreter: %s", c.name, d)
	}
}

// TestDiffReduceRows covers sums over a long last axis, which the
// compiled code computes several rows at a time (internal/codegen
// reduce_rows.go): row counts that leave rows over after the blocks, a
// range split across threads at a row that is not a multiple of the
// block, more than one kept axis, integer and float64 operands, and
// producers fused into the sum. Each case is compiled alone, so that its
// sum is a loop nest of its own.
func TestDiffReduceRows(t *testing.T) {
	sum := func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(-1) }
	bound := func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(in[0], gojit.ReduceSum, false, -1) }
	cases := []struct {
		dt    gojit.DType
		shape []int
	}{
		{gojit.Float32, []int{7, 300}},
		{gojit.Float32, []int{4, 256}},
		{gojit.Float32, []int{1003, 300}}, // split across threads at row 501
		{gojit.Float32, []int{2, 5, 260}},
		{gojit.Float32, []int{3, 1, 2, 400}},
		{gojit.Float64, []int{9, 130}},
		{gojit.Int32, []int{6, 256}},
		{gojit.Int64, []int{5, 128}},
		{gojit.Uint8, []int{5, 1024}}, // summed as int64
	}
	for i, c := range cases {
		t.Run(c.dt.String()+"_"+shapeName(c.shape), func(t *testing.T) {
			x := randArray(c.dt, uint64(900+i), 0.01, c.shape...)
			dc := dcase{name: "sum", f: sum}
			if c.dt.IsFloat() {
				dc.bound = bound
			}
			checkAlone(t, dc, x)
		})
	}
	rows, cols := 37, 520
	x := randArray(gojit.Float32, 950, 0, rows, cols)
	w := randArray(gojit.Float32, 951, 0, cols)
	b := randArray(gojit.Float32, 952, 0, rows, 1)
	fused := []struct {
		name    string
		kind    gojit.ReduceKind
		operand func(in []*gojit.Tensor) *gojit.Tensor
	}{
		{"square", gojit.ReduceSum, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(in[0]) }},
		{"weighted", gojit.ReduceSum, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(in[1]) }},
		{"shifted_mean", gojit.ReduceMean, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sub(in[2]) }},
		{"exp", gojit.ReduceSum, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(gojit.Scalar(0.01)).Exp() }},
	}
	for _, c := range fused {
		t.Run("fused_"+c.name, func(t *testing.T) {
			checkAlone(t, dcase{
				name:  c.name,
				f:     func(in []*gojit.Tensor) *gojit.Tensor { return c.operand(in).Reduce(c.kind, false, -1) },
				bound: func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(c.operand(in), c.kind, false, -1) },
			}, x, w, b)
		})
	}
	// Producers that read the kept coordinates of a rank-3 operand.
	t.Run("fused_rank3", func(t *testing.T) {
		x := randArray(gojit.Float32, 955, 0, 3, 5, 260)
		m := randArray(gojit.Float32, 956, 0, 5, 1)
		op := func(in []*gojit.Tensor) *gojit.Tensor {
			i := gojit.Iota(gojit.Float32, 0, 3, 5, 260)
			return in[0].Sub(in[1]).Mul(i.Add(gojit.Scalar(1)))
		}
		checkAlone(t, dcase{
			name:  "sub_iota",
			f:     func(in []*gojit.Tensor) *gojit.Tensor { return op(in).Sum(-1) },
			bound: func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(op(in), gojit.ReduceSum, false, -1) },
		}, x, m)
	})
	// Against a float64 Go loop: the plain row sum, split across threads.
	t.Run("go_loop", func(t *testing.T) {
		const r, c = 1001, 2048
		x := randArray(gojit.Float32, 960, 0, r, c)
		f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Sum(-1) })
		if err != nil {
			t.Fatal(err)
		}
		out := gojit.New(gojit.Float32, r)
		if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
			t.Fatal(err)
		}
		xs, got := x.Float32(), out.Float32()
		for i := range r {
			s, abs := 0.0, 0.0
			for _, v := range xs[i*c : (i+1)*c] {
				s += float64(v)
				abs += math.Abs(float64(v))
			}
			if d := math.Abs(float64(got[i]) - s); d > 2*c*0x1p-24*abs+1e-30 {
				t.Fatalf("row %d: got %v, want %v (|diff| %g)", i, got[i], s, d)
			}
		}
	})
}
