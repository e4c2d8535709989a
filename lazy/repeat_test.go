package lazy

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
)

// sameGraph must say "same" exactly when key encodes two graphs the same:
// a change to any field key encodes makes them differ, a change to a
// position does not.
func TestSameGraphAgreesWithKey(t *testing.T) {
	base := func() *ir.Graph {
		return &ir.Graph{
			Nodes: []ir.Node{
				{Op: ir.OpParam, DType: ir.Float32, Shape: ir.Shape{4, 3}, Index: 0},
				{Op: ir.OpParam, DType: ir.Float32, Shape: ir.Shape{4, 3}, Index: 1},
				{Op: ir.OpAdd, DType: ir.Float32, Shape: ir.Shape{4, 3}, Args: []ir.Value{0, 1}},
				{Op: ir.OpConst, DType: ir.Float32, Shape: ir.Shape{}, Const: ir.Const{F: 0.5}},
				{Op: ir.OpReduceSum, DType: ir.Float32, Shape: ir.Shape{4}, Args: []ir.Value{2}, Axes: []int{1}},
			},
			Params:  []ir.Value{0, 1},
			Outputs: []ir.Value{4},
		}
	}
	edits := []struct {
		name string
		edit func(g *ir.Graph)
		same bool
	}{
		{"nothing", func(g *ir.Graph) {}, true},
		{"position", func(g *ir.Graph) { g.Nodes[2].Pos, g.Nodes[2].Call = "x.go:3", "Add" }, true},
		{"op", func(g *ir.Graph) { g.Nodes[2].Op = ir.OpMul }, false},
		{"dtype", func(g *ir.Graph) { g.Nodes[3].DType = ir.Float64 }, false},
		{"shape", func(g *ir.Graph) { g.Nodes[0].Shape = ir.Shape{3, 4} }, false},
		{"wiring", func(g *ir.Graph) { g.Nodes[2].Args = []ir.Value{0, 0} }, false},
		{"axes", func(g *ir.Graph) { g.Nodes[4].Axes = []int{0} }, false},
		{"starts", func(g *ir.Graph) { g.Nodes[4].Starts = []int{1} }, false},
		{"steps", func(g *ir.Graph) { g.Nodes[4].Steps = []int{2} }, false},
		{"constant", func(g *ir.Graph) { g.Nodes[3].Const.F = 0.25 }, false},
		{"integer constant", func(g *ir.Graph) { g.Nodes[3].Const.I = 1 }, false},
		{"param index", func(g *ir.Graph) { g.Nodes[0].Index, g.Nodes[1].Index = 1, 0 }, false},
		{"outputs", func(g *ir.Graph) { g.Outputs = []ir.Value{2, 4} }, false},
		{"nodes", func(g *ir.Graph) { g.Nodes = g.Nodes[:4]; g.Outputs = []ir.Value{2} }, false},
		{"regions", func(g *ir.Graph) { g.Nodes[4].Regions = []*ir.Graph{{}} }, false},
	}
	for _, e := range edits {
		a, b := base(), base()
		e.edit(b)
		if got := sameGraph(a, b); got != e.same {
			t.Errorf("%s: sameGraph = %v, want %v", e.name, got, e.same)
		}
		if e.same != (string(key(nil, a, true)) == string(key(nil, b, true))) && e.name != "regions" {
			t.Errorf("%s: key disagrees with the expected answer", e.name)
		}
	}
}

// A batch that alternates with another of the same op names and a
// different wiring is never run with the other's kernel (GT2's bug, now
// against the last-batch shortcut).
func TestRepeatShortcutKeepsWiring(t *testing.T) {
	c := newCtx(t)
	a, b := []float32{1, 2, 3}, []float32{10, 20, 30}
	for i := range 6 {
		x, y := c.FromFloat32(a), c.FromFloat32(b)
		var got []float32
		var want [3]float32
		if i%2 == 0 {
			got = mustF32(t, x.Add(y).Mul(x))
			for j := range want {
				want[j] = (a[j] + b[j]) * a[j]
			}
		} else {
			got = mustF32(t, x.Add(y).Mul(y))
			for j := range want {
				want[j] = (a[j] + b[j]) * b[j]
			}
		}
		if [3]float32(got) != want {
			t.Fatalf("iteration %d: %v, want %v", i, got, want)
		}
	}
}

// Values the user can still reach are never overwritten by later
// iterations: tensors kept from earlier iterations (inputs made from host
// slices the caller then changes, and results), the slices Float32
// returned and the Arrays Array returned keep their values through many
// iterations of the GT2 pattern with collections among them, and kept
// tensors used in later ops give the values they had.
func TestKeptValuesStayIntact(t *testing.T) {
	c := newCtx(t)
	const n = 100
	iters := 300
	if testing.Short() {
		iters = 60
	}
	r := rand.New(rand.NewPCG(11, 12))
	a, b := randData(r, n*n), randData(r, n*n) // the caller's slices, changed every iteration
	type kept struct {
		x, y, z  *Tensor // inputs and (x+y)*x, not read until the end
		xs, ys   []float32
		zs       []float32 // what Float32 returned
		zArr     *gojit.Array
		zArrData []float32 // a copy of zArr's contents when it was returned
		mean     float64
	}
	var keep []kept
	shared := Stats().InputsShared
	for i := range iters {
		switch {
		case i%3 == 1: // unchanged: the inputs share the last copies
		case i%5 == 2: // one element changed, the last one
			a[len(a)-1] += 1
			b[len(b)-1] -= 1
		default: // new host data, in the same slices
			for j := range a {
				a[j] = float32(r.NormFloat64())
				b[j] = float32(r.NormFloat64())
			}
		}
		x, y := c.FromFloat32(a, n, n), c.FromFloat32(b, n, n)
		z := x.Add(y).Mul(x)
		mean, err := z.MatMul(y).Relu().Mean().Item()
		if err != nil {
			t.Fatal(err)
		}
		if want := gt2Ref(a, b, n); !closeRel(mean, want, 1e-4) {
			t.Fatalf("iteration %d: mean %v, want %v", i, mean, want)
		}
		k := kept{x: x, y: y, z: z, xs: append([]float32(nil), a...), ys: append([]float32(nil), b...), mean: mean}
		if i%3 == 0 {
			k.zs = mustF32(t, z)
		}
		if i%5 == 0 {
			if k.zArr, err = z.Array(); err != nil {
				t.Fatal(err)
			}
			k.zArrData = append([]float32(nil), k.zArr.Float32()...)
		}
		if i%4 == 0 {
			keep = append(keep, k)
		}
		if i%7 == 0 && len(keep) > 1 {
			// An old input in a new op: its value is still there.
			old := keep[len(keep)/2]
			s := mustF32(t, old.x.Add(x))
			for j := range s {
				if s[j] != old.xs[j]+a[j] {
					t.Fatalf("iteration %d: old x + x [%d] = %v, want %v", i, j, s[j], old.xs[j]+a[j])
				}
			}
		}
		if i%25 == 0 {
			runtime.GC()
		}
	}
	if Stats().InputsShared == shared {
		t.Error("no input shared an unchanged copy: the test does not check that case")
	}
	for i, k := range keep {
		check := func(what string, got, want []float32) {
			t.Helper()
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("kept %d: %s[%d] = %v, want %v: memory the user can reach was reused", i, what, j, got[j], want[j])
				}
			}
		}
		check("x", mustF32(t, k.x), k.xs)
		check("y", mustF32(t, k.y), k.ys)
		wantZ := make([]float32, n*n)
		for j := range wantZ {
			wantZ[j] = (k.xs[j] + k.ys[j]) * k.xs[j]
		}
		check("z", mustF32(t, k.z), wantZ)
		if k.zs != nil {
			check("z's Float32 slice", k.zs, wantZ)
		}
		if k.zArr != nil {
			check("z's Array", k.zArr.Float32(), k.zArrData)
			check("z's Array", k.zArrData, wantZ)
		}
	}
}

func closeRel(a, b, tol float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := b
	if m < 0 {
		m = -m
	}
	return d <= tol*max(m, 1e-6)
}

// A tensor made from a host slice that did not change shares the copy
// made before; a change anywhere, another shape or another slice makes a
// new copy, and the earlier tensors keep their values.
func TestUnchangedHostDataShared(t *testing.T) {
	c := newCtx(t)
	const n = 10000 // 40 KB: copied outside the heap
	a := make([]float32, n)
	want := 0.0
	for i := range a {
		a[i] = float32(i % 7) // sums exact in float32
		want += float64(i % 7)
	}
	sum := func(x *Tensor) float64 {
		t.Helper()
		v, err := x.Sum().Item()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	s0 := Stats().InputsShared
	x1 := c.FromFloat32(a, 100, 100)
	x2 := c.FromFloat32(a, 100, 100)
	if got := Stats().InputsShared - s0; got != 1 {
		t.Fatalf("InputsShared grew by %d, want 1", got)
	}
	a[n-1]++ // the last element only
	x3 := c.FromFloat32(a, 100, 100)
	x4 := c.FromFloat32(a, n)                                   // another shape
	x5 := c.FromFloat32(append([]float32(nil), a...), 100, 100) // another slice
	if got := Stats().InputsShared - s0; got != 1 {
		t.Fatalf("InputsShared grew by %d, want 1: a changed slice, a new shape or a new slice shared a copy", got)
	}
	for i, c := range []struct {
		x    *Tensor
		want float64
	}{{x1, want}, {x2, want}, {x3, want + 1}, {x4, want + 1}, {x5, want + 1}} {
		if got := sum(c.x); got != c.want {
			t.Errorf("x%d: sum %v, want %v", i+1, got, c.want)
		}
	}
	// The user's Array of a shared input is a copy of its own: changing
	// it (which the documentation forbids) does not reach the other.
	arr, err := x1.Array()
	if err != nil {
		t.Fatal(err)
	}
	arr.Float32()[0] = 1e9
	if got := sum(x2); got != want {
		t.Errorf("x2 after writing x1's Array: sum %v, want %v", got, want)
	}
	runtime.KeepAlive(x2)
}

// Goroutines sharing a Context make tensors from one shared slice that
// never changes and from slices of their own that do: the shared one is
// copied once and shared, and every value is right (run under -race).
func TestUnchangedHostDataAcrossGoroutines(t *testing.T) {
	c := newCtx(t)
	const n = 10000
	common := make([]float32, n)
	for i := range common {
		common[i] = float32(i % 5)
	}
	var wantCommon float64
	for _, v := range common {
		wantCommon += float64(v)
	}
	iters := 40
	if testing.Short() {
		iters = 10
	}
	shared := Stats().InputsShared
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			own := make([]float32, n)
			for it := range iters {
				for i := range own {
					own[i] = float32((i + it + w) % 3)
				}
				var wantOwn float64
				for _, v := range own {
					wantOwn += float64(v)
				}
				x, y := c.FromFloat32(common, 100, 100), c.FromFloat32(own, 100, 100)
				sx, err := x.Sum().Item()
				if err == nil && sx != wantCommon {
					err = fmt.Errorf("worker %d iteration %d: common sum %v, want %v", w, it, sx, wantCommon)
				}
				if err == nil {
					var sy float64
					if sy, err = y.Sum().Item(); err == nil && sy != wantOwn {
						err = fmt.Errorf("worker %d iteration %d: own sum %v, want %v", w, it, sy, wantOwn)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if Stats().InputsShared == shared {
		t.Error("the common slice was never shared: the test checks nothing of that")
	}
}
