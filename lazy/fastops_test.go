package lazy

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// recordedGraph records prog in a new Context, with or without the fast
// paths, and returns the pending graph printed, with each node's site
// (the user's file:line and call), and the result. Constants that no
// node uses are left out (a weak scalar's method records one, the fast
// path does not); the count of those left out is printed.
func recordedGraph(t *testing.T, prog func(c *Context) *Tensor, fast bool) (string, *Tensor) {
	t.Helper()
	noFastPaths = !fast
	defer func() { noFastPaths = false }()
	c, _ := NewContext(WithBatchSize(1 << 20))
	r := prog(c)
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gen
	used := make([]bool, len(g.g.Nodes))
	for _, n := range g.g.Nodes {
		for _, a := range n.Args {
			used[a] = true
		}
	}
	if r.gen == g {
		used[r.v] = true
	}
	var live ir.Graph
	remap := make([]ir.Value, len(g.g.Nodes))
	var kept []int
	for v, n := range g.g.Nodes {
		if n.Op == ir.OpConst && !used[v] {
			continue
		}
		n.Args = slices.Clone(n.Args)
		for i, a := range n.Args {
			n.Args[i] = remap[a]
		}
		remap[v] = ir.Value(len(live.Nodes))
		live.Nodes = append(live.Nodes, n)
		kept = append(kept, v)
	}
	s := ir.Print(&live, false)
	for i, v := range kept {
		pos, call := lazycore.H.Site(g.tr, ir.Value(v))
		s += fmt.Sprintf("%%%d at %s %s\n", i, pos, call)
	}
	return s, r
}

// The fast paths of MatMul, Relu, Sum, Mean, broadcasting binary ops and
// ops with a weak scalar record exactly the nodes, at the same sites,
// that gojit.Tensor's methods record, and compute the same values; the
// cases they leave to the methods (other dtypes, errors) still work.
func TestFastPathsRecordTheMethodsNodes(t *testing.T) {
	f32 := func(c *Context, shape ...int) *Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%7) - 2.5
		}
		return c.FromFloat32(x, shape...)
	}
	f64 := func(c *Context, shape ...int) *Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i%5) - 1.25
		}
		return c.FromFloat64(x, shape...)
	}
	cases := []struct {
		name string
		prog func(c *Context) *Tensor
		fast bool // the last op takes a fast path
		err  bool
	}{
		{"relu", func(c *Context) *Tensor { return f32(c, 2, 3).Relu() }, true, false},
		{"relu-scalar", func(c *Context) *Tensor { return f32(c).Relu() }, true, false},
		{"relu-f64", func(c *Context) *Tensor { return f64(c, 4).Relu() }, true, false},
		{"relu-i32", func(c *Context) *Tensor { return c.FromInt32([]int32{-1, 2}).Relu() }, false, false},
		{"matmul", func(c *Context) *Tensor { return f32(c, 2, 3).MatMul(f32(c, 3, 4)) }, true, false},
		{"matmul-batch", func(c *Context) *Tensor { return f64(c, 2, 2, 3).MatMul(f64(c, 2, 3, 2)) }, true, false},
		{"matmul-vector", func(c *Context) *Tensor { return f32(c, 2, 3).MatMul(f32(c, 3)) }, false, false},
		{"matmul-bcast", func(c *Context) *Tensor { return f32(c, 2, 2, 3).MatMul(f32(c, 3, 2)) }, false, false},
		{"matmul-mismatch", func(c *Context) *Tensor { return f32(c, 2, 3).MatMul(f32(c, 2, 3)) }, false, true},
		{"matmul-mixed", func(c *Context) *Tensor { return f32(c, 2, 3).MatMul(f64(c, 3, 2)) }, false, false},
		{"mean", func(c *Context) *Tensor { return f32(c, 2, 3).Mean() }, true, false},
		{"mean-axis", func(c *Context) *Tensor { return f32(c, 2, 3, 4).Mean(-1, 0) }, true, false},
		{"mean-scalar", func(c *Context) *Tensor { return f32(c).Mean() }, true, false},
		{"mean-f64", func(c *Context) *Tensor { return f64(c, 5).Mean(0) }, true, false},
		{"mean-i32", func(c *Context) *Tensor { return c.FromInt32([]int32{1, 2}).Mean() }, false, false},
		{"mean-bad-axis", func(c *Context) *Tensor { return f32(c, 2, 3).Mean(2) }, false, true},
		{"mean-repeated-axis", func(c *Context) *Tensor { return f32(c, 2, 3).Mean(1, -1) }, false, true},
		{"sum", func(c *Context) *Tensor { return f32(c, 2, 3).Sum() }, true, false},
		{"sum-axis", func(c *Context) *Tensor { return f64(c, 2, 3).Sum(1) }, true, false},
		{"sum-empty", func(c *Context) *Tensor { return f32(c, 0, 3).Sum(0) }, true, false},
		{"add-row", func(c *Context) *Tensor { return f32(c, 2, 3).Add(f32(c, 3)) }, true, false},
		{"add-outer", func(c *Context) *Tensor { return f32(c, 2, 1).Add(f32(c, 1, 3)) }, true, false},
		{"add-bad-shapes", func(c *Context) *Tensor { return f32(c, 2, 3).Add(f32(c, 2)) }, false, true},
		{"less-col", func(c *Context) *Tensor { return f64(c, 3, 1).Less(f64(c, 3, 4)) }, true, false},
		{"mul-scalar", func(c *Context) *Tensor { return f32(c, 2, 3).Mul(Scalar(1.5)) }, true, false},
		{"sub-scalar-0d", func(c *Context) *Tensor { return f32(c).Sub(Scalar(0.5)) }, true, false},
		{"less-scalar", func(c *Context) *Tensor { return f64(c, 4).Less(Scalar(0)) }, true, false},
		{"div-scalar-nan", func(c *Context) *Tensor { return f32(c, 3).Div(Scalar(math.NaN())) }, true, false},
		{"mul-scalar-i32", func(c *Context) *Tensor { return c.FromInt32([]int32{1, 2}).Mul(Scalar(1.5)) }, false, false},
		{"gt2", func(c *Context) *Tensor {
			x, y := f32(c, 5, 5), f32(c, 5, 5)
			return x.Add(y).Mul(x).MatMul(y).Relu().Mean()
		}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, gr := recordedGraph(t, tc.prog, true)
			want, wr := recordedGraph(t, tc.prog, false)
			if got != want {
				t.Fatalf("fast paths recorded\n%s\nthe methods\n%s", got, want)
			}
			if tookFastPath(gr) != tc.fast {
				t.Errorf("fast path taken: %v, want %v", tookFastPath(gr), tc.fast)
			}
			if (gr.Err() != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", gr.Err(), tc.err)
			}
			if tc.err {
				if gr.Err().Error() != wr.Err().Error() {
					t.Errorf("error %q, the methods' %q", gr.Err(), wr.Err())
				}
				return
			}
			ga, err := gr.Array()
			if err != nil {
				t.Fatal(err)
			}
			wa, err := wr.Array()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ga.Shape(), wa.Shape()) || fmt.Sprint(ga.Data()) != fmt.Sprint(wa.Data()) {
				t.Errorf("value %v %v, the methods' %v %v", ga.Shape(), ga.Data(), wa.Shape(), wa.Data())
			}
		})
	}
}

// Relu, Mean and MatMul through the fast paths against plain Go loops.
func TestFastPathsValues(t *testing.T) {
	c := newCtx(t)
	a := []float32{1, -2, 3, -4, 5, -6}
	b := []float32{0.5, -1, 2, 0.25, -3, 1}
	x, y := c.FromFloat32(a, 2, 3), c.FromFloat32(b, 3, 2)
	r := x.Relu()
	m := x.MatMul(y)
	mean := x.Mean(1)
	row := x.Add(c.FromFloat32([]float32{10, 20, 30}, 3))
	for _, tt := range []*Tensor{r, m, mean, row} {
		if !tookFastPath(tt) {
			t.Fatalf("%v did not take a fast path", tt)
		}
	}
	var wr, wm, wmean, wrow []float32
	for _, v := range a {
		wr = append(wr, max(v, 0))
	}
	for i := range 2 {
		for j := range 2 {
			var s float32
			for k := range 3 {
				s += a[i*3+k] * b[k*2+j]
			}
			wm = append(wm, s)
		}
		wmean = append(wmean, (a[i*3]+a[i*3+1]+a[i*3+2])/3)
		for k := range 3 {
			wrow = append(wrow, a[i*3+k]+float32(10*(k+1)))
		}
	}
	for i, p := range []struct {
		got  *Tensor
		want []float32
	}{{r, wr}, {m, wm}, {mean, wmean}, {row, wrow}} {
		got := mustF32(t, p.got)
		for k := range p.want {
			if math.Abs(float64(got[k]-p.want[k])) > 1e-5 {
				t.Errorf("case %d: %v, want %v", i, got, p.want)
				break
			}
		}
	}
}
