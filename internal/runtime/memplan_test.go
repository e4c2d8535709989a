package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// TestPlanArenaNeverSharesLiveBytes places random temporaries and checks
// the one property that matters: two temporaries live at the same time
// never share a byte, and the arena holds them all.
func TestPlanArenaNeverSharesLiveBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 1 + r.IntN(12)
		sizes := make([]int, n)
		live := make([]interval, n)
		sum := 0
		for i := range n {
			sizes[i] = r.IntN(5000)
			def := r.IntN(10)
			live[i] = interval{def, def + r.IntN(4)}
			sum += alignUp(sizes[i])
		}
		offsets, size := planArena(sizes, live)
		if size > sum {
			t.Fatalf("trial %d: arena %d bytes for %d bytes of temporaries", trial, size, sum)
		}
		for i := range n {
			if offsets[i]%arenaAlign != 0 || offsets[i]+sizes[i] > size {
				t.Fatalf("trial %d: temporary %d at %d (+%d) in a %d-byte arena", trial, i, offsets[i], sizes[i], size)
			}
			for j := range i {
				disjoint := offsets[i]+sizes[i] <= offsets[j] || offsets[j]+sizes[j] <= offsets[i]
				if live[i].overlaps(live[j]) && !disjoint && sizes[i] > 0 && sizes[j] > 0 {
					t.Fatalf("trial %d: temporaries %d %v and %d %v are live together and share bytes (offsets %d, %d; sizes %d, %d)",
						trial, i, live[i], j, live[j], offsets[i], offsets[j], sizes[i], sizes[j])
				}
			}
		}
	}
	// A chain where each temporary is read only by the next nest needs two
	// blocks, however long it is.
	sizes := []int{1000, 1000, 1000, 1000, 1000}
	live := []interval{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}
	if _, size := planArena(sizes, live); size != 2*alignUp(1000) {
		t.Errorf("chain of 5: arena %d bytes, want %d", size, 2*alignUp(1000))
	}
}

// matmulChain is x·w1·w2·w3·w4: three temporaries, the first and the third
// never live at the same time.
const matmulChain = `graph {
  %0 = param 0 : f32[64,64]
  %1 = param 1 : f32[64,64]
  %2 = matmul %0, %1 : f32[64,64]
  %3 = matmul %2, %1 : f32[64,64]
  %4 = matmul %3, %1 : f32[64,64]
  %5 = matmul %4, %1 : f32[64,64]
  return %5
}`

func TestArenaSharesDeadTemporaries(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	g, err := ir.Parse(matmulChain)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Build(g, Options{OptLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Each matmul's B is packed into a scratch buffer (a block) live
	// during its own nest only: at most two temporaries and one packed B
	// are live at a time.
	block := 64 * 64 * 4
	if e.TempBytes != 3*block || e.ArenaBytes != 3*block {
		t.Errorf("temporaries %d bytes in an arena of %d; want %d in %d", e.TempBytes, e.ArenaBytes, 3*block, 3*block)
	}
	fr := e.frames.Get().(*frame)
	if !fr.tempsOverlap(0, 2) || fr.tempsOverlap(0, 1) || fr.tempsOverlap(1, 2) {
		t.Error("the arena does not share exactly the first and third temporaries")
	}
	e.frames.Put(fr)
	x, w := make([]float32, 64*64), make([]float32, 64*64)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
		w[i] = float32(math.Cos(float64(i))) * 0.2
	}
	want, err := interp.Run(e.Graph, []any{x, w})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 64*64)
	for range 3 { // reused frames
		if err := e.Run([]unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&w[0])}, []unsafe.Pointer{unsafe.Pointer(&out[0])}); err != nil {
			t.Fatal(err)
		}
		for i, v := range want[0].([]float32) {
			if d := math.Abs(float64(out[i] - v)); d > 1e-3*(1+math.Abs(float64(v))) {
				t.Fatalf("out[%d] = %v, interpreter %v", i, out[i], v)
			}
		}
	}
}

// tempsOverlap reports whether f's temporaries i and j share bytes.
func (fr *frame) tempsOverlap(i, j int) bool {
	a, b := fr.temps[i], fr.temps[j]
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b))*8 && pb < pa+uintptr(len(a))*8
}
