package lazy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gojit/gojit"
)

// Random programs of elementwise ops over a pool of tensors, with reads,
// Frees and Syncs at random points and operands taken from any earlier
// step (so values cross flushes and retired graphs), checked element by
// element against the same ops in plain Go (the ops are exact in float32,
// so the comparison is exact). Small batch sizes cut the programs
// everywhere.
func TestRandomProgramsMatchPlainGo(t *testing.T) {
	const n = 6
	type val struct {
		t    *Tensor
		want []float32
	}
	binary := []struct {
		name string
		op   func(a, b *Tensor) *Tensor
		f    func(x, y float32) float32
	}{
		{"Add", (*Tensor).Add, func(x, y float32) float32 { return x + y }},
		{"Sub", (*Tensor).Sub, func(x, y float32) float32 { return x - y }},
		{"Mul", (*Tensor).Mul, func(x, y float32) float32 { return x * y }},
		{"Maximum", (*Tensor).Maximum, func(x, y float32) float32 { return max(x, y) }},
	}
	unary := []struct {
		name string
		op   func(a *Tensor) *Tensor
		f    func(x float32) float32
	}{
		{"Neg", (*Tensor).Neg, func(x float32) float32 { return -x }},
		{"Abs", (*Tensor).Abs, func(x float32) float32 { return max(x, -x) }},
		{"Half", func(a *Tensor) *Tensor { return a.Mul(Scalar(0.5)) }, func(x float32) float32 { return x * 0.5 }},
		{"Clip", func(a *Tensor) *Tensor { return a.Minimum(Scalar(8)).Maximum(Scalar(-8)) }, func(x float32) float32 { return max(min(x, 8), -8) }},
	}
	for _, batch := range []int{2, 3, 5, 8, 1000} {
		for seed := range uint64(4) {
			name := fmt.Sprintf("batch%d/seed%d", batch, seed)
			r := rand.New(rand.NewPCG(seed, uint64(batch)))
			// The interpreter keeps the test quick (every random batch
			// would be a new kernel); one configuration compiles.
			opts := []Option{WithBatchSize(batch)}
			if batch != 5 || seed != 0 {
				opts = append(opts, WithInterpreter())
			}
			c := newCtx(t, opts...)
			var pool []val
			add := func() {
				data := make([]float32, n)
				for i := range data {
					data[i] = float32(r.IntN(9) - 4)
				}
				pool = append(pool, val{c.FromFloat32(data), data})
			}
			check := func(v val, step int) {
				t.Helper()
				got, err := v.t.Float32()
				if err != nil {
					t.Fatalf("%s step %d: %v", name, step, err)
				}
				for i := range got {
					if got[i] != v.want[i] {
						t.Fatalf("%s step %d: got %v, want %v", name, step, got, v.want)
					}
				}
			}
			add()
			add()
			for step := range 120 {
				switch k := r.IntN(20); {
				case k < 8:
					op := binary[r.IntN(len(binary))]
					a, b := pool[r.IntN(len(pool))], pool[r.IntN(len(pool))]
					w := make([]float32, n)
					for i := range w {
						w[i] = op.f(a.want[i], b.want[i])
					}
					pool = append(pool, val{op.op(a.t, b.t), w})
				case k < 15:
					op := unary[r.IntN(len(unary))]
					a := pool[r.IntN(len(pool))]
					w := make([]float32, n)
					for i := range w {
						w[i] = op.f(a.want[i])
					}
					pool = append(pool, val{op.op(a.t), w})
				case k < 16:
					add()
				case k < 18:
					check(pool[r.IntN(len(pool))], step)
				case k < 19 && len(pool) > 3:
					i := r.IntN(len(pool))
					pool[i].t.Free()
					pool = append(pool[:i], pool[i+1:]...)
				default:
					if err := c.Sync(); err != nil {
						t.Fatalf("%s step %d: Sync: %v", name, step, err)
					}
				}
			}
			for _, v := range pool {
				check(v, -1)
			}
		}
	}
}

// One program over many leading sizes in random order, each result
// checked against plain Go: the family's dynamic kernel must serve sizes
// below, between and above the two it was built from.
func TestRandomSizesOneProgram(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	c := newCtx(t)
	a := []float32{0.5, -1, 2, 0.25, -0.75}
	b := []float32{1, 0, -1, 2, 0.5}
	before := Stats()
	sizes := []int{17, 9, 1, 33, 2, 40, 5, 0, 23, 3}
	for _, n := range sizes {
		x := make([]float32, n*5)
		for i := range x {
			x[i] = float32(r.IntN(17) - 8)
		}
		xt := c.FromFloat32(x, n, 5)
		y := xt.Mul(c.FromFloat32(a)).Add(c.FromFloat32(b)).Relu().Sum(1).Add(xt.Max(1))
		got, err := y.Float32()
		if err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		if len(got) != n {
			t.Fatalf("size %d: %d results", n, len(got))
		}
		for i := range n {
			s, m := float32(0), x[i*5]
			for j := range 5 {
				s += max(x[i*5+j]*a[j]+b[j], 0)
				m = max(m, x[i*5+j])
			}
			if d := got[i] - (s + m); d > 1e-4 || d < -1e-4 {
				t.Fatalf("size %d row %d: %v, want %v", n, i, got[i], s+m)
			}
		}
	}
	s := Stats()
	misses, dyn := s.CacheMisses-before.CacheMisses, s.DynamicKernels-before.DynamicKernels
	t.Logf("%d sizes: %d misses, %d dynamic kernels", len(sizes), misses, dyn)
	if gojit.LLVMVersion() != "" && !c.interpret && (misses > 2 || dyn != 1) {
		t.Fatalf("%d sizes compiled %d kernels (%d dynamic), want at most 2 (1 dynamic)", len(sizes), misses, dyn)
	}
}
