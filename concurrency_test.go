package gojit_test

// Concurrency tests: many goroutines compile and call shared and private
// Funcs with several signatures at once, and every result is checked
// against a plain Go loop. Run them under the race detector:
//
//	go test -race -run Concurrent .

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/gojit/gojit"
)

const (
	concGoroutines = 16
	concIterations = 24
)

// concSizes are the lengths the goroutines pick from: several signatures
// per Func, including one large enough (>= 2**16 elements) for the runtime
// to split its loops across threads.
var concSizes = []int{1, 7, 64, 1000, 70000}

func f32s(p *prng, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(p.intn(2001)-1000) / 8 // exact in float32, sums stay exact
	}
	return s
}

func f64s(p *prng, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = p.float()*200 - 100
	}
	return s
}

func TestConcurrentCallsAndCompiles(t *testing.T) {
	// Shared Funcs, each called with several signatures from every
	// goroutine, so first calls of a signature race each other.
	axpy, err := gojit.Compile(func(a, x, y *gojit.Tensor) *gojit.Tensor { return a.Mul(x).Add(y) })
	if err != nil {
		t.Fatal(err)
	}
	rowStats, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
		return x.Sum(-1), x.Max(-1)
	})
	if err != nil {
		t.Fatal(err)
	}
	scale, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor {
		return x.Mul(gojit.Scalar(float64(k))).Sub(gojit.Scalar(3))
	})
	if err != nil {
		t.Fatal(err)
	}
	scaleInterp, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor {
		return x.Mul(gojit.Scalar(float64(k))).Sub(gojit.Scalar(3))
	}, gojit.WithInterpreter())
	if err != nil {
		t.Fatal(err)
	}
	matvec, err := gojit.Compile(func(m, v *gojit.Tensor) *gojit.Tensor { return m.MatMul(v).Relu() })
	if err != nil {
		t.Fatal(err)
	}

	type sig struct {
		f   string
		key string
	}
	var (
		mu   sync.Mutex
		sigs = map[sig]bool{}
		used = map[string]int64{} // successful calls per shared Func
	)
	record := func(f, key string) {
		mu.Lock()
		sigs[sig{f, key}] = true
		used[f]++
		mu.Unlock()
	}

	var wg sync.WaitGroup
	for g := range concGoroutines {
		wg.Go(func() {
			p := newPRNG(uint64(1000 + g))
			// A private Func per goroutine: a graph of its own (the
			// constant depends on g) compiled while others compile too.
			own, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
				return x.Add(gojit.Scalar(float64(g))).Abs()
			})
			if err != nil {
				t.Errorf("goroutine %d: Compile: %v", g, err)
				return
			}
			var out1 *gojit.Array // reused by CallInto
			for it := range concIterations {
				n := concSizes[p.intn(len(concSizes))]
				if n == 70000 && p.intn(3) != 0 {
					n = 1000 // keep the large case a minority under -race
				}
				switch it % 6 {
				case 0: // axpy with a scalar-shaped a, Call
					a := float32(p.intn(9) - 4)
					x, y := f32s(p, n), f32s(p, n)
					res, err := axpy.Call(gojit.FromFloat32([]float32{a}, []int{}...), gojit.FromFloat32(x), gojit.FromFloat32(y))
					if err != nil {
						t.Errorf("goroutine %d: axpy: %v", g, err)
						continue
					}
					record("axpy", fmt.Sprint(n))
					got := res[0].Float32()
					for i := range x {
						if want := a*x[i] + y[i]; got[i] != want {
							t.Errorf("goroutine %d: axpy n=%d [%d] = %v, want %v", g, n, i, got[i], want)
							break
						}
					}
				case 1: // axpy in place with CallInto: y = a*x + y
					a := float32(p.intn(9) - 4)
					x, y := f32s(p, n), f32s(p, n)
					want := make([]float32, n)
					for i := range x {
						want[i] = a*x[i] + y[i]
					}
					ya := gojit.FromFloat32(y)
					if err := axpy.CallInto([]*gojit.Array{ya}, gojit.FromFloat32([]float32{a}, []int{}...), gojit.FromFloat32(x), ya); err != nil {
						t.Errorf("goroutine %d: axpy CallInto: %v", g, err)
						continue
					}
					record("axpy", fmt.Sprint(n))
					if !slices.Equal(y, want) {
						t.Errorf("goroutine %d: in-place axpy n=%d differs", g, n)
					}
				case 2: // row sums and maxima of an f64 matrix, CallInto
					rows := 1 + p.intn(4)
					cols := max(n/rows, 1)
					x := f64s(p, rows*cols)
					sums, maxs := gojit.New(gojit.Float64, rows), gojit.New(gojit.Float64, rows)
					if err := rowStats.CallInto([]*gojit.Array{sums, maxs}, gojit.FromFloat64(x, rows, cols)); err != nil {
						t.Errorf("goroutine %d: rowStats: %v", g, err)
						continue
					}
					record("rowStats", fmt.Sprint(rows, cols))
					for r := range rows {
						// Sums are reassociated: within cols*eps*Σ|x| of the
						// sequential sum (diff_test.go, sumBound).
						s, abs, m := 0.0, 0.0, math.Inf(-1)
						for _, v := range x[r*cols : (r+1)*cols] {
							s += v
							abs += math.Abs(v)
							m = max(m, v)
						}
						if math.Abs(sums.Float64()[r]-s) > float64(cols)*0x1p-52*abs || maxs.Float64()[r] != m {
							t.Errorf("goroutine %d: row %d of %dx%d: got %v, %v want %v, %v", g, r, rows, cols, sums.Float64()[r], maxs.Float64()[r], s, m)
						}
					}
				case 3: // static argument, compiled and interpreted
					k := 1 + p.intn(3)
					x := make([]int32, n)
					for i := range x {
						x[i] = int32(p.intn(1<<20)) - 1<<19
					}
					f, name := scale, "scale"
					if p.intn(2) == 0 {
						f, name = scaleInterp, "scaleInterp"
					}
					res, err := f.Call(gojit.FromInt32(x), k)
					if err != nil {
						t.Errorf("goroutine %d: %s: %v", g, name, err)
						continue
					}
					record(name, fmt.Sprint(n, k))
					for i, v := range res[0].Int32() {
						if want := x[i]*int32(k) - 3; v != want {
							t.Errorf("goroutine %d: %s k=%d [%d] = %d, want %d", g, name, k, i, v, want)
							break
						}
					}
				case 4: // matrix-vector product
					rows := 1 + p.intn(8)
					cols := 1 + p.intn(16)
					m, v := f32s(p, rows*cols), f32s(p, cols)
					res, err := matvec.Call(gojit.FromFloat32(m, rows, cols), gojit.FromFloat32(v))
					if err != nil {
						t.Errorf("goroutine %d: matvec: %v", g, err)
						continue
					}
					record("matvec", fmt.Sprint(rows, cols))
					for r := range rows {
						var s float32
						for c := range cols {
							s += m[r*cols+c] * v[c]
						}
						if got := res[0].Float32()[r]; got != max(s, 0) {
							t.Errorf("goroutine %d: matvec %dx%d row %d = %v, want %v", g, rows, cols, r, got, max(s, 0))
						}
					}
				case 5: // the private Func, with a reused output array
					x := f64s(p, n)
					if out1 == nil || out1.Size() != n {
						out1 = gojit.New(gojit.Float64, n)
					}
					if err := own.CallInto([]*gojit.Array{out1}, gojit.FromFloat64(x)); err != nil {
						t.Errorf("goroutine %d: own: %v", g, err)
						continue
					}
					for i, v := range out1.Float64() {
						if want := math.Abs(x[i] + float64(g)); v != want {
							t.Errorf("goroutine %d: own [%d] = %v, want %v", g, i, v, want)
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()

	// Each signature was traced exactly once, however many goroutines
	// asked for it at the same time, and every successful call counted.
	count := map[string]int64{}
	for s := range sigs {
		count[s.f]++
	}
	for name, f := range map[string]*gojit.Func{"axpy": axpy, "rowStats": rowStats, "scale": scale, "scaleInterp": scaleInterp, "matvec": matvec} {
		st := f.Stats()
		if st.Traces != count[name] || st.Calls != used[name] || int64(st.Signatures) != count[name] {
			t.Errorf("%s: Stats %+v, want %d traces and signatures, %d calls", name, st, count[name], used[name])
		}
	}
}

// TestConcurrentIdenticalCompiles: goroutines compiling separate Funcs
// whose traces are the same graph share one kernel, compiled once.
func TestConcurrentIdenticalCompiles(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("builds without LLVM interpret every graph: there is no compile cache to share")
	}
	const c = 0.8125 // a constant no other test uses, so the graph is new
	before := gojit.CacheStats()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range concGoroutines {
		wg.Go(func() {
			f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
				return x.Mul(gojit.Scalar(c)).Sub(y).Sum(0)
			})
			if err != nil {
				t.Errorf("Compile: %v", err)
				return
			}
			p := newPRNG(uint64(g))
			x, y := f32s(p, 3*5), f32s(p, 3*5)
			<-start
			res, err := f.Call(gojit.FromFloat32(x, 3, 5), gojit.FromFloat32(y, 3, 5))
			if err != nil {
				t.Errorf("goroutine %d: %v", g, err)
				return
			}
			for j := range 5 {
				var s float32
				for i := range 3 {
					s += x[i*5+j]*c - y[i*5+j]
				}
				if got := res[0].Float32()[j]; got != s {
					t.Errorf("goroutine %d: [%d] = %v, want %v", g, j, got, s)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	after := gojit.CacheStats()
	if d := after.Compiles - before.Compiles; d > 1 {
		t.Errorf("%d goroutines compiling one graph made %d compilations, want at most 1", concGoroutines, d)
	}
	if d := (after.Hits + after.Misses) - (before.Hits + before.Misses); d != concGoroutines {
		t.Errorf("cache lookups went up by %d, want %d", d, concGoroutines)
	}
}

// TestConcurrentSharedFuncSameSignature: the first Call of one signature
// from many goroutines at once traces it once; all get the right result.
func TestConcurrentSharedFuncSameSignature(t *testing.T) {
	for _, interp := range []bool{false, true} {
		t.Run(fmt.Sprintf("interp=%v", interp), func(t *testing.T) {
			var opts []gojit.Option
			if interp {
				opts = append(opts, gojit.WithInterpreter())
			}
			f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
				return x.Transpose().Mul(gojit.Scalar(2)), x.ArgMax(1)
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.FromInt64([]int64{5, 1, 9, 2, 8, 3}, 2, 3)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range concGoroutines {
				wg.Go(func() {
					<-start
					for range 10 {
						res, err := f.Call(x)
						if err != nil {
							t.Errorf("Call: %v", err)
							return
						}
						if !slices.Equal(res[0].Int64(), []int64{10, 4, 2, 16, 18, 6}) || !slices.Equal(res[1].Int64(), []int64{2, 1}) {
							t.Errorf("got %v and %v", res[0], res[1])
							return
						}
					}
				})
			}
			close(start)
			wg.Wait()
			if st := f.Stats(); st.Traces != 1 || st.Calls != concGoroutines*10 {
				t.Errorf("Stats %+v, want 1 trace and %d calls", st, concGoroutines*10)
			}
		})
	}
}
