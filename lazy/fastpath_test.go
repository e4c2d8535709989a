package lazy

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// tookFastPath reports whether t was recorded by a fast path
// (recordFast), which makes no core tensor.
func tookFastPath(t *Tensor) bool { return t.fast }

// The binary fast path records the node gojit.Tensor's method would, and
// leaves to the method every case that needs promotion, broadcasting or
// an error.
func TestFastBinarySameNode(t *testing.T) {
	c, _ := NewContext(WithBatchSize(1 << 20))
	f := c.FromFloat32(make([]float32, 6), 2, 3)
	f2 := c.FromFloat32(make([]float32, 6), 2, 3)
	row := c.FromFloat32(make([]float32, 3), 3)
	i := c.FromInt32(make([]int32, 6), 2, 3)
	bl := c.FromBool(make([]bool, 6), 2, 3)
	type op struct {
		name string
		lazy func(a, b *Tensor) *Tensor
		core func(a, b *gojit.Tensor) *gojit.Tensor
	}
	ops := []op{
		{"Add", (*Tensor).Add, (*gojit.Tensor).Add},
		{"Sub", (*Tensor).Sub, (*gojit.Tensor).Sub},
		{"Mul", (*Tensor).Mul, (*gojit.Tensor).Mul},
		{"Div", (*Tensor).Div, (*gojit.Tensor).Div},
		{"Pow", (*Tensor).Pow, (*gojit.Tensor).Pow},
		{"Mod", (*Tensor).Mod, (*gojit.Tensor).Mod},
		{"Maximum", (*Tensor).Maximum, (*gojit.Tensor).Maximum},
		{"Less", (*Tensor).Less, (*gojit.Tensor).Less},
		{"Equal", (*Tensor).Equal, (*gojit.Tensor).Equal},
	}
	pairs := []struct {
		name string
		a, b *Tensor
		fast bool
	}{
		{"f32", f, f2, true},
		{"f32-row", f, row, true}, // broadcast
		{"i32", i, i, true},
		{"f32-i32", f, i, false},
		{"bool", bl, bl, true},
	}
	for _, o := range ops {
		for _, p := range pairs {
			got := o.lazy(p.a, p.b)
			c.mu.Lock()
			want := c.record(o.core(c.use(p.a), c.use(p.b)), p.a, p.b)
			c.mu.Unlock()
			fast := tookFastPath(got)
			if (got.err == nil) != (want.err == nil) {
				t.Fatalf("%s %s: error %v, the method's %v", o.name, p.name, got.err, want.err)
			}
			if got.err != nil {
				if fast {
					t.Errorf("%s %s: failed op took the fast path", o.name, p.name)
				}
				continue
			}
			if fast && !p.fast {
				t.Errorf("%s %s: took the fast path", o.name, p.name)
			}
			if p.name == "f32" && !fast {
				t.Errorf("%s %s: did not take the fast path", o.name, p.name)
			}
			g := c.gen.g
			gn, wn := g.Nodes[got.v], g.Nodes[want.v]
			same := func(a, b ir.Node) bool {
				return a.Op == b.Op && a.DType == b.DType && a.Shape.Equal(b.Shape) && len(a.Args) == len(b.Args)
			}
			ok := same(gn, wn)
			for k := 0; ok && k < len(gn.Args); k++ {
				// The same operands, or conversions made the same way
				// from the same operands (the method's run makes its own).
				ga, wa := gn.Args[k], wn.Args[k]
				ok = ga == wa || (same(g.Nodes[ga], g.Nodes[wa]) && slices.Equal(g.Nodes[ga].Args, g.Nodes[wa].Args))
			}
			if !ok {
				t.Errorf("%s %s: fast node %v %v %v %v, method's %v %v %v %v", o.name, p.name,
					gn.Op, gn.DType, gn.Shape, gn.Args, wn.Op, wn.DType, wn.Shape, wn.Args)
			}
		}
	}
	if err := c.Sync(); err != nil && !strings.Contains(err.Error(), "fastpath_test.go") {
		t.Errorf("Sync: %v does not name this file", err)
	}
}

// A node recorded by the fast path is positioned at the user's line and
// named with the user's call, as through gojit.Tensor's method.
func TestFastBinarySite(t *testing.T) {
	c, _ := NewContext()
	x := c.FromFloat32(make([]float32, 4))
	y := x.Sub(x)
	_, _, line, _ := runtime.Caller(0)
	if !tookFastPath(y) {
		t.Fatal("Sub of two pending float32 tensors did not take the fast path")
	}
	c.mu.Lock()
	pos, call := lazycore.H.Site(y.gen.tr, y.v)
	c.mu.Unlock()
	if want := fmt.Sprintf("lazy/fastpath_test.go:%d", line-1); pos != want || call != "Sub" {
		t.Errorf("site %q %q, want %q %q", pos, call, want, "Sub")
	}
}

// The unary fast path, as TestFastBinarySameNode.
func TestFastUnarySameNode(t *testing.T) {
	c, _ := NewContext(WithBatchSize(1 << 20))
	ins := []struct {
		name string
		x    *Tensor
		fast bool // at least for Neg
	}{
		{"f32", c.FromFloat32(make([]float32, 6), 2, 3), true},
		{"f64", c.FromFloat64(make([]float64, 3)), true},
		{"i32", c.FromInt32(make([]int32, 6), 2, 3), true},
		{"bool", c.FromBool(make([]bool, 2)), false},
	}
	ops := []struct {
		name string
		lazy func(*Tensor) *Tensor
		core func(*gojit.Tensor) *gojit.Tensor
	}{
		{"Neg", (*Tensor).Neg, (*gojit.Tensor).Neg},
		{"Abs", (*Tensor).Abs, (*gojit.Tensor).Abs},
		{"Exp", (*Tensor).Exp, (*gojit.Tensor).Exp},
		{"Sqrt", (*Tensor).Sqrt, (*gojit.Tensor).Sqrt},
		{"Floor", (*Tensor).Floor, (*gojit.Tensor).Floor},
		{"Erf", (*Tensor).Erf, (*gojit.Tensor).Erf},
	}
	for _, o := range ops {
		for _, in := range ins {
			got := o.lazy(in.x)
			c.mu.Lock()
			want := c.record(o.core(c.use(in.x)), in.x)
			c.mu.Unlock()
			fast := tookFastPath(got)
			if (got.err == nil) != (want.err == nil) {
				t.Fatalf("%s %s: error %v, the method's %v", o.name, in.name, got.err, want.err)
			}
			if got.err != nil {
				if fast {
					t.Errorf("%s %s: failed op took the fast path", o.name, in.name)
				}
				continue
			}
			if o.name == "Neg" && fast != in.fast {
				t.Errorf("%s %s: fast path %v", o.name, in.name, fast)
			}
			g := c.gen.g
			gn, wn := g.Nodes[got.v], g.Nodes[want.v]
			same := func(a, b ir.Node) bool {
				return a.Op == b.Op && a.DType == b.DType && a.Shape.Equal(b.Shape) && len(a.Args) == len(b.Args)
			}
			ok := same(gn, wn)
			if ok {
				ga, wa := gn.Args[0], wn.Args[0]
				ok = ga == wa || (same(g.Nodes[ga], g.Nodes[wa]) && slices.Equal(g.Nodes[ga].Args, g.Nodes[wa].Args))
			}
			if !ok {
				t.Errorf("%s %s: fast node %v %v %v %v, method's %v %v %v %v", o.name, in.name,
					gn.Op, gn.DType, gn.Shape, gn.Args, wn.Op, wn.DType, wn.Shape, wn.Args)
			}
		}
	}
	x := ins[0].x
	y := x.Tanh()
	_, _, line, _ := runtime.Caller(0)
	if !tookFastPath(y) {
		t.Fatal("Tanh of a pending float32 tensor did not take the fast path")
	}
	c.mu.Lock()
	pos, call := lazycore.H.Site(y.gen.tr, y.v)
	c.mu.Unlock()
	if want := fmt.Sprintf("lazy/fastpath_test.go:%d", line-1); pos != want || call != "Tanh" {
		t.Errorf("site %q %q, want %q %q", pos, call, want, "Tanh")
	}
}
