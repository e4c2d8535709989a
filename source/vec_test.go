package source

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// Tests of outer-loop vectorization (lower_vec.go): the vectorized
// kernels must give Go's results bit for bit, for lengths that are not a
// multiple of the vector width, 0 and 1 elements, and lanes leaving inner
// loops at different iterations.

func sameF32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, Go gives %v", what, i, got[i], want[i])
		}
	}
}

func sameF64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, Go gives %v", what, i, got[i], want[i])
		}
	}
}

// mustVectorize fails unless fn's generated code has a vector loop.
func mustVectorize(t *testing.T, fn any) {
	t.Helper()
	ll, err := compileT(t, fn).Code(StageLLVM)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ll, "\nvb") || !strings.Contains(ll, "<8 x i1>") {
		t.Fatalf("no vector loop in\n%s", ll)
	}
}

func TestVecPairwise(t *testing.T) {
	mustVectorize(t, pairwise)
	mustVectorize(t, newton)
	var g func([]float32, int, int, []float32) error
	if err := Bind4(compileT(t, pairwise), &g); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, nd := range [][2]int{{0, 3}, {1, 1}, {1, 0}, {7, 3}, {8, 5}, {9, 1}, {17, 64}, {33, 7}, {100, 13}} {
		n, d := nd[0], nd[1]
		x := randF32(n*d, r.Uint64())
		got, want := make([]float32, n*n), make([]float32, n*n)
		pairwise(x, n, d, want)
		if err := g(x, n, d, got); err != nil {
			t.Fatal(err)
		}
		sameF32(t, "pairwise", got, want)
	}
}

func TestVecNewton(t *testing.T) {
	var g func([]float64, []float64) error
	if err := Bind2(compileT(t, newton), &g); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 100, 1001} {
		x := make([]float64, n)
		for i := range x {
			// Magnitudes from 1e-300 to 1e300, some 0, Inf and NaN: lanes
			// converge after very different numbers of iterations.
			switch r.IntN(20) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = math.Inf(1)
			case 2:
				x[i] = math.NaN()
			default:
				x[i] = math.Pow(10, r.Float64()*600-300) * r.Float64()
			}
		}
		got, want := make([]float64, n), make([]float64, n)
		newton(x, want)
		if err := g(x, got); err != nil {
			t.Fatal(err)
		}
		sameF64(t, "newton", got, want)
	}
}

func TestVecDifferential(t *testing.T) {
	small := func(idx ...int) func([]reflect.Value) {
		return func(a []reflect.Value) {
			for _, i := range idx {
				v := a[i].Int() % 24
				if v < 0 {
					v = -v
				}
				a[i].SetInt(v)
			}
		}
	}
	for _, tc := range []struct {
		name string
		fn   any
		fix  func([]reflect.Value)
	}{
		{"vecGather", vecGather, func(a []reflect.Value) {
			small(3)(a)
			for i := range a[1].Len() {
				a[1].Index(i).SetInt(a[1].Index(i).Int() % int64(a[0].Len()+1))
			}
		}},
		{"vecSteps", vecSteps, small(2)},
		{"vecNested", vecNested, small(2)},
		{"vecInPlace", vecInPlace, small(1)},
		{"vecInts", vecInts, small(2)},
		{"vecRows", vecRows, small(2, 3)},
		{"vecSearch", vecSearch, func(a []reflect.Value) {
			small(2)(a)
			a[1].SetFloat(float64(float32(a[1].Float() / 1e3)))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustVectorize(t, tc.fn)
			differential(t, tc.fn, 400, 40, tc.fix)
		})
	}
}

// TestVecAlias: written slices overlapping read ones make the loop run
// scalar, in Go's order.
func TestVecAlias(t *testing.T) {
	var g func([]float32, []float32, int, int) error
	if err := Bind4(compileT(t, vecRows), &g); err != nil {
		t.Fatal(err)
	}
	const n, d = 40, 3
	for _, off := range []int{0, 1, 5, 60, 80} {
		want := randF32(n*d+off, 9)
		got := append([]float32(nil), want...)
		vecRows(want[:n*d], want[off:], n, d)
		if err := g(got[:n*d], got[off:], n, d); err != nil {
			t.Fatal(err)
		}
		sameF32(t, "vecRows, out after x", got, want)
		vecRows(want[off:], want, n, d)
		if err := g(got[off:], got, n, d); err != nil {
			t.Fatal(err)
		}
		sameF32(t, "vecRows, out before x", got, want)
	}
}

// TestVecParallel: the loop of a parallel chunk is vectorized too (its
// results are checked against Go by TestParallel*).
func TestVecParallel(t *testing.T) {
	for _, name := range []string{"Newton", "Pairwise"} {
		ll, err := compileParT(t, name).Code(StageLLVM)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ll, "\nvb") {
			t.Errorf("%s: no vector loop in\n%s", name, ll)
		}
	}
}

// TestVecParallelNewton runs the parallel Newton kernel, whose chunk loop
// (tested last: for i := range Range(n)) is vectorized, over lengths
// around the vector width and chunk sizes, with 1 and 2 threads.
func TestVecParallelNewton(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for _, threads := range []int{1, 2} {
		var g func([]float64, []float64) error
		if err := Bind2(compileParT(t, "Newton", WithThreads(threads)), &g); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 16, 17, 100, 4095, 4096, 4097, 20001} {
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Pow(10, r.Float64()*40-20)
				if r.IntN(50) == 0 {
					x[i] = math.Inf(1)
				}
			}
			got, want := make([]float64, n), make([]float64, n)
			newton(x, want)
			if err := g(x, got); err != nil {
				t.Fatal(err)
			}
			sameF64(t, "parallel newton", got, want)
		}
	}
}

// mustNotVectorize fails if fn's generated code has a vector loop.
func mustNotVectorize(t *testing.T, fn any) {
	t.Helper()
	ll, err := compileT(t, fn).Code(StageLLVM)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ll, "\nvb") {
		t.Fatalf("vectorized:\n%s", ll)
	}
}

// TestVecStoreFirst: a store ahead of a read of the same slice keeps the
// loop scalar, and right.
func TestVecStoreFirst(t *testing.T) {
	mustNotVectorize(t, vecStoreFirst)
	differential(t, vecStoreFirst, 200, 40, func(a []reflect.Value) {
		for i := range a[1].Len() {
			a[1].Index(i).SetInt(a[1].Index(i).Int() % int64(a[0].Len()+1))
		}
	})
}

// TestVecNotWorth: an integer row sum is left to LLVM, which vectorizes
// it along the row (one run: 60 us against 114 us by lanes of rows).
func TestVecNotWorth(t *testing.T) {
	mustNotVectorize(t, vecRowsInt)
	differential(t, vecRowsInt, 100, 40, func(a []reflect.Value) {
		for _, i := range []int{2, 3} {
			a[i].SetInt((a[i].Int()%8 + 8) % 8)
		}
	})
}

// TestVecBoundsPartial: an index out of range in row r fails as in Go,
// with rows before r written and the rest untouched, wherever r falls in
// a group of lanes.
func TestVecBoundsPartial(t *testing.T) {
	var g func([]float64, []int, []float64, int) error
	if err := Bind4(compileT(t, vecGather), &g); err != nil {
		t.Fatal(err)
	}
	const n, d = 37, 3
	x := randF64(100, 11)
	for r := 0; r < n; r++ {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = (i * 13) % (len(x) - d)
		}
		idx[r] = len(x) - 1 // x[idx+1] is out of range
		want, got := make([]float64, n), make([]float64, n)
		func() {
			defer func() { _ = recover() }()
			vecGather(x, idx, want, d)
			t.Fatal("Go did not panic")
		}()
		err := g(x, idx, got, d)
		var re *RuntimeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "index out of range [100] with length 100") {
			t.Fatalf("row %d: error %v", r, err)
		}
		sameF64(t, "vecGather before the failure", got, want)
	}
}
