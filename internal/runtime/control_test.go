package runtime

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// loopGraph is a while over (x f32[N], i i32[]) with a capture c: five
// times x = x*c + 1. With nested, the body picks x*c+1 or x-c by i's
// parity with a cond.
func loopGraph(n int, nested bool) string {
	body := `    %3 = mul %0, %2 : f32[N]
    %4 = const 1 : f32[N]
    %5 = add %3, %4 : f32[N]
    %6 = const 1 : i32[]
    %7 = add %1, %6 : i32[]
    return %5, %7`
	if nested {
		body = `    %3 = const 2 : i32[]
    %4 = lt %1, %3 : bool[]
    %5 = cond %4, %0, %2 : (f32[N]) {
      %0 = param 0 : f32[N]
      %1 = param 1 : f32[N]
      %2 = mul %0, %1 : f32[N]
      %3 = const 1 : f32[N]
      %4 = add %2, %3 : f32[N]
      return %4
    } {
      %0 = param 0 : f32[N]
      %1 = param 1 : f32[N]
      %2 = sub %0, %1 : f32[N]
      return %2
    }
    %6 = get %5 0 : f32[N]
    %7 = const 1 : i32[]
    %8 = add %1, %7 : i32[]
    return %6, %8`
	}
	text := `graph {
  %0 = param 0 : f32[N]
  %1 = param 1 : f32[N]
  %2 = const 0 : i32[]
  %3 = while %0, %2, %1 : (f32[N], i32[]) {
    %0 = param 0 : f32[N]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[N]
    %3 = const 5 : i32[]
    %4 = lt %1, %3 : bool[]
    return %4
  } {
    %0 = param 0 : f32[N]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[N]
` + body + `
  }
  %4 = get %3 0 : f32[N]
  %5 = get %3 1 : i32[]
  return %4, %5, %4
}`
	return strings.ReplaceAll(text, "N", fmt.Sprint(n))
}

// buildLoop parses loopGraph(n, nested) and builds it as a staged
// executable.
func buildLoop(t *testing.T, n int, nested bool) (*ir.Graph, *Executable) {
	t.Helper()
	g, err := ir.Parse(loopGraph(n, nested))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Build(g, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if exe.staged == nil {
		t.Fatal("not staged")
	}
	return g, exe
}

// TestWhilePaths runs loops through the generated loop driver (small
// bodies) and through the Go-driven loop (a body split across threads, or
// a body with a nested cond), from several goroutines, and compares with
// the interpreter.
func TestWhilePaths(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	for _, tc := range []struct {
		n      int
		nested bool
		native bool
	}{
		{8, false, true},
		{1000, false, true},
		{300_000, false, false},
		{8, true, true},
		{300_000, true, false},
	} {
		t.Run(fmt.Sprintf("n=%d,nested=%t", tc.n, tc.nested), func(t *testing.T) {
			g, exe := buildLoop(t, tc.n, tc.nested)
			var w *step
			for i := range exe.staged.steps {
				if exe.staged.steps[i].kind == stepWhile {
					w = &exe.staged.steps[i]
				}
			}
			ce, _ := w.exes[0].acquire()
			be, _ := w.exes[1].acquire()
			if got := nativeLoop(ce, be); got != tc.native {
				t.Errorf("nativeLoop = %t, want %t (body parallel %t)", got, tc.native, be.parallel)
			}
			ce.Release()
			be.Release()
			x, c := make([]float32, tc.n), make([]float32, tc.n)
			for i := range x {
				x[i], c[i] = float32(i%5)-2, float32(i%3)*0.5
			}
			want, err := interp.Run(g, []any{x, c})
			if err != nil {
				t.Fatal(err)
			}
			if got := nativeOK(exe); got != tc.native {
				t.Errorf("nativeOK = %t, want %t", got, tc.native)
			}
			// Both ways of running it: the whole graph in generated code
			// when it can (Run), and step by step from Go (run).
			stepwise := func(ins, outs []unsafe.Pointer) error { return exe.staged.run(ins, outs, RunOptions{}) }
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o0, o1, o2 := make([]float32, tc.n), make([]int32, 1), make([]float32, tc.n)
					run := exe.Run
					if g%2 == 1 {
						run = stepwise
					}
					for range 3 {
						err := run([]unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&c[0])},
							[]unsafe.Pointer{unsafe.Pointer(&o0[0]), unsafe.Pointer(&o1[0]), unsafe.Pointer(&o2[0])})
						if err != nil {
							t.Error(err)
							return
						}
						for i, got := range []any{o0, o1, o2} {
							if ok, diff := sameResult(got, want[i]); !ok {
								t.Errorf("output %d: %s", i, diff)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

func sameResult(got, want any) (bool, string) {
	switch w := want.(type) {
	case []float32:
		g := got.([]float32)
		for i := range w {
			if g[i] != w[i] {
				return false, fmt.Sprintf("element %d = %g, want %g", i, g[i], w[i])
			}
		}
	case []int32:
		g := got.([]int32)
		for i := range w {
			if g[i] != w[i] {
				return false, fmt.Sprintf("element %d = %d, want %d", i, g[i], w[i])
			}
		}
	}
	return true, ""
}

// TestWhileSurvivesEviction: the executables of a staged graph's steps
// and regions are evicted from a cache that holds one kernel, and purged
// concurrently; every run still succeeds (a step rebuilds what was
// evicted) and matches the interpreter.
func TestWhileSurvivesEviction(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	if err := withConfig(t, Config{MaxEntries: 1}); err != nil {
		t.Fatal(err)
	}
	g, err := ir.Parse(loopGraph(16, true))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Build(g, Options{OptLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	x, c := make([]float32, 16), make([]float32, 16)
	for i := range x {
		x[i], c[i] = float32(i)-7, 0.25
	}
	want, err := interp.Run(g, []any{x, c})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var purger sync.WaitGroup
	purger.Add(1)
	go func() {
		defer purger.Done()
		for {
			select {
			case <-stop:
				return
			default:
				Purge()
			}
		}
	}()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o0, o1, o2 := make([]float32, 16), make([]int32, 1), make([]float32, 16)
			for range 3 {
				err := exe.Run([]unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&c[0])},
					[]unsafe.Pointer{unsafe.Pointer(&o0[0]), unsafe.Pointer(&o1[0]), unsafe.Pointer(&o2[0])})
				if err != nil {
					t.Error(err)
					return
				}
				for i, got := range []any{o0, o1, o2} {
					if ok, diff := sameResult(got, want[i]); !ok {
						t.Errorf("output %d: %s", i, diff)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	purger.Wait()
}

// TestWhileIndexErrorNative: a loop whose condition gathers from a table
// with the loop counter runs in the generated drivers although its
// kernels check indices. The kernels clamp a bad index and go on, so with
// a table of non-zeros and no other exit the loop would never end: the
// drivers must stop at the first call that records the error, and the
// run must report the interpreter's error. A table with a zero ends the
// loop normally, with the interpreter's results.
func TestWhileIndexErrorNative(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	g, err := ir.Parse(`graph {
  %0 = param 0 : f32[4]
  %1 = param 1 : i32[4]
  %2 = const 0 : i32[]
  %3 = while %2, %0, %1 : (i32[]) {
    %0 = param 0 : i32[]
    %1 = param 1 : f32[4]
    %2 = param 2 : i32[4]
    %3 = take %2, %0 axes=[0] : i32[]
    %4 = const 0 : i32[]
    %5 = gt %3, %4 : bool[]
    return %5
  } {
    %0 = param 0 : i32[]
    %1 = param 1 : f32[4]
    %2 = param 2 : i32[4]
    %3 = const 1 : i32[]
    %4 = add %0, %3 : i32[]
    return %4
  }
  %4 = get %3 0 : i32[]
  %5 = take %0, %4 axes=[0] : f32[]
  return %4, %5
}`)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Build(g, Options{OptLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !nativeOK(exe) {
		t.Fatal("a loop over kernels that check indices does not run in the drivers")
	}
	x := []float32{10, 20, 30, 40}
	for _, table := range [][]int32{{1, 1, 0, 1}, {1, 1, 1, 0}, {1, 1, 1, 1}} {
		want, werr := interp.Run(g, []any{x, table})
		n, v := make([]int32, 1), make([]float32, 1)
		done := make(chan error, 1)
		go func() {
			done <- exe.Run([]unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&table[0])},
				[]unsafe.Pointer{unsafe.Pointer(&n[0]), unsafe.Pointer(&v[0])})
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("table %v: the loop did not stop at the out-of-range index", table)
		}
		switch {
		case werr != nil:
			if err == nil || err.Error() != werr.Error() {
				t.Errorf("table %v: error %v, want the interpreter's %v", table, err, werr)
			}
		case err != nil:
			t.Errorf("table %v: %v", table, err)
		case n[0] != want[0].([]int32)[0] || v[0] != want[1].([]float32)[0]:
			t.Errorf("table %v: got %d %g, want %v", table, n[0], v[0], want)
		}
	}
}

// TestWhileRegionsFullBackend: a while's regions run once per iteration,
// so they are compiled with the full backend even over a few elements
// (codegen.Module.Tiny weighs one run), and so is a cond nested in the
// body; the steps around the loop keep the module's own choice.
func TestWhileRegionsFullBackend(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build: nothing is compiled")
	}
	_, exe := buildLoop(t, 8, true)
	var found bool
	for _, s := range exe.staged.steps {
		for _, x := range s.exes {
			want := 0
			if s.kind == stepWhile {
				want, found = BackendFull, true
			}
			if x.opt.Backend != want {
				t.Errorf("step kind %d: region backend %d, want %d", s.kind, x.opt.Backend, want)
			}
		}
		if s.kind != stepWhile {
			continue
		}
		body, err := s.exes[1].acquire()
		if err != nil {
			t.Fatal(err)
		}
		if body.staged == nil {
			t.Fatal("the body with a cond is not staged")
		}
		for _, bs := range body.staged.steps {
			for _, x := range bs.exes {
				if x.opt.Backend != BackendFull {
					t.Errorf("in the body, step kind %d: backend %d, want the full one", bs.kind, x.opt.Backend)
				}
			}
		}
		body.Release()
	}
	if !found {
		t.Fatal("no while step")
	}
}
