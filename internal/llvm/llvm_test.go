//go:build cgo && !nollvm

package llvm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// addKernel is out[i] = a[i] + b[i] for i < *n, with args = {a, b, out, n}.
const addKernel = `
define void @%s(ptr %%args) {
entry:
  %%a = load ptr, ptr %%args
  %%pb = getelementptr ptr, ptr %%args, i64 1
  %%b = load ptr, ptr %%pb
  %%po = getelementptr ptr, ptr %%args, i64 2
  %%o = load ptr, ptr %%po
  %%pn = getelementptr ptr, ptr %%args, i64 3
  %%np = load ptr, ptr %%pn
  %%n = load i64, ptr %%np
  %%empty = icmp sle i64 %%n, 0
  br i1 %%empty, label %%done, label %%loop

loop:
  %%i = phi i64 [ 0, %%entry ], [ %%next, %%loop ]
  %%ai = getelementptr float, ptr %%a, i64 %%i
  %%bi = getelementptr float, ptr %%b, i64 %%i
  %%oi = getelementptr float, ptr %%o, i64 %%i
  %%x = load float, ptr %%ai
  %%y = load float, ptr %%bi
  %%s = fadd float %%x, %%y
  store float %%s, ptr %%oi
  %%next = add nuw nsw i64 %%i, 1
  %%more = icmp slt i64 %%next, %%n
  br i1 %%more, label %%loop, label %%done

done:
  ret void
}
`

func addIR(sym string) string { return fmt.Sprintf(addKernel, sym) }

// mathKernel computes, for i < *n: e[i] = expf(a[i]), t[i] = tanhf(a[i]),
// p[i] = powf(a[i], b[i]); args = {a, b, e, t, p, n}.
const mathKernel = `
declare float @expf(float)
declare float @tanhf(float)
declare float @powf(float, float)

define void @%s(ptr %%args) {
entry:
  %%a = load ptr, ptr %%args
  %%pb = getelementptr ptr, ptr %%args, i64 1
  %%b = load ptr, ptr %%pb
  %%pe = getelementptr ptr, ptr %%args, i64 2
  %%e = load ptr, ptr %%pe
  %%pt = getelementptr ptr, ptr %%args, i64 3
  %%t = load ptr, ptr %%pt
  %%pp = getelementptr ptr, ptr %%args, i64 4
  %%p = load ptr, ptr %%pp
  %%pn = getelementptr ptr, ptr %%args, i64 5
  %%np = load ptr, ptr %%pn
  %%n = load i64, ptr %%np
  %%empty = icmp sle i64 %%n, 0
  br i1 %%empty, label %%done, label %%loop

loop:
  %%i = phi i64 [ 0, %%entry ], [ %%next, %%loop ]
  %%ai = getelementptr float, ptr %%a, i64 %%i
  %%bi = getelementptr float, ptr %%b, i64 %%i
  %%x = load float, ptr %%ai
  %%y = load float, ptr %%bi
  %%ex = call float @expf(float %%x)
  %%th = call float @tanhf(float %%x)
  %%pw = call float @powf(float %%x, float %%y)
  %%ei = getelementptr float, ptr %%e, i64 %%i
  %%ti = getelementptr float, ptr %%t, i64 %%i
  %%pi = getelementptr float, ptr %%p, i64 %%i
  store float %%ex, ptr %%ei
  store float %%th, ptr %%ti
  store float %%pw, ptr %%pi
  %%next = add nuw nsw i64 %%i, 1
  %%more = icmp slt i64 %%next, %%n
  br i1 %%more, label %%loop, label %%done

done:
  ret void
}
`

// argPack builds a void** argument array for a kernel and pins everything
// it points to, as the cgo pointer rules require.
type argPack struct {
	pin  runtime.Pinner
	ptrs []unsafe.Pointer
}

func (p *argPack) floats(s []float32) {
	p.pin.Pin(&s[0])
	p.ptrs = append(p.ptrs, unsafe.Pointer(&s[0]))
}

func (p *argPack) int64(v *int64) {
	p.pin.Pin(v)
	p.ptrs = append(p.ptrs, unsafe.Pointer(v))
}

// args pins the pointer array itself and returns it; call after the last
// floats/int64.
func (p *argPack) args() unsafe.Pointer {
	p.pin.Pin(&p.ptrs[0])
	return unsafe.Pointer(&p.ptrs[0])
}

func (p *argPack) unpin() { p.pin.Unpin() }

func compileLoad(t testing.TB, name, ir, sym string) *Kernel {
	t.Helper()
	c, err := Compile(name, ir, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	k, err := Load(c.Object, sym)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func randFloats(r *rand.Rand, n int, lo, hi float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = lo + (hi-lo)*r.Float32()
	}
	return s
}

// runAdd calls an add kernel on fresh random data and checks it exactly
// against Go (one rounding per element on both sides).
func runAdd(t testing.TB, k *Kernel, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	a, b := randFloats(r, n, -100, 100), randFloats(r, n, -100, 100)
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	nn := int64(n)
	var p argPack
	p.floats(a)
	p.floats(b)
	p.floats(out)
	p.int64(&nn)
	k.Call(p.args())
	p.unpin()
	for i := range n {
		if want := a[i] + b[i]; out[i] != want {
			t.Fatalf("out[%d] = %v, want %v (%v + %v)", i, out[i], want, a[i], b[i])
		}
	}
}

func TestVersionAndHost(t *testing.T) {
	if !Available() {
		t.Fatal("Available() = false in an LLVM build")
	}
	if v := Version(); !strings.HasPrefix(v, "19.") {
		t.Errorf("Version() = %q, want 19.x", v)
	}
	name, feats := HostCPU()
	if name == "" || !strings.Contains(feats, "+") {
		t.Errorf("HostCPU() = %q, %q", name, feats)
	}
	t.Logf("LLVM %s, host CPU %s", Version(), name)
}

func TestAddKernel(t *testing.T) {
	k := compileLoad(t, "add", addIR("gojit_test_add"), "gojit_test_add")
	defer k.Free()
	if k.Addr() == 0 {
		t.Fatal("Addr() = 0")
	}
	// Sizes straddle the vector width and remainder loops, plus empty.
	for _, n := range []int{1, 3, 15, 16, 17, 64, 1000, 4099} {
		runAdd(t, k, n, uint64(n))
	}
	zero := int64(0)
	var p argPack
	p.floats([]float32{1})
	p.floats([]float32{2})
	out := []float32{42}
	p.floats(out)
	p.int64(&zero)
	k.Call(p.args())
	p.unpin()
	if out[0] != 42 {
		t.Fatalf("n=0 wrote out[0] = %v", out[0])
	}
}

func TestAllOptLevels(t *testing.T) {
	for lvl := 0; lvl <= 3; lvl++ {
		sym := fmt.Sprintf("gojit_test_add_O%d", lvl)
		c, err := Compile(sym, addIR(sym), Options{OptLevel: lvl})
		if err != nil {
			t.Fatalf("O%d: %v", lvl, err)
		}
		k, err := Load(c.Object, sym)
		if err != nil {
			t.Fatalf("O%d: %v", lvl, err)
		}
		runAdd(t, k, 1001, uint64(lvl))
		if err := k.Free(); err != nil {
			t.Fatal(err)
		}
	}
	for _, lvl := range []int{-1, 4} {
		if _, err := Compile("bad", addIR("k"), Options{OptLevel: lvl}); err == nil ||
			!strings.Contains(err.Error(), "OptLevel") {
			t.Errorf("OptLevel %d: err = %v, want range error", lvl, err)
		}
	}
}

func TestLibmCalls(t *testing.T) {
	k := compileLoad(t, "math", fmt.Sprintf(mathKernel, "gojit_test_math"), "gojit_test_math")
	defer k.Free()
	const n = 257
	r := rand.New(rand.NewPCG(7, 7))
	a, b := randFloats(r, n, 0.01, 5), randFloats(r, n, -2, 2)
	e, th, pw := make([]float32, n), make([]float32, n), make([]float32, n)
	nn := int64(n)
	var p argPack
	for _, s := range [][]float32{a, b, e, th, pw} {
		p.floats(s)
	}
	p.int64(&nn)
	k.Call(p.args())
	p.unpin()
	check := func(what string, i int, got float32, want float64) {
		t.Helper()
		if d := math.Abs(float64(got) - want); d > 1e-5*math.Max(1, math.Abs(want)) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got, want)
		}
	}
	for i := range n {
		x, y := float64(a[i]), float64(b[i])
		check("expf", i, e[i], math.Exp(x))
		check("tanhf", i, th[i], math.Tanh(x))
		check("powf", i, pw[i], math.Pow(x, y))
	}
}

func TestParseError(t *testing.T) {
	ir := "define void @k(ptr %args) {\nentry:\n  %x = fadd float 1.0\n  ret void\n}\n"
	_, err := Compile("syntax.ll", ir, Options{OptLevel: 3})
	if err == nil {
		t.Fatal("Compile accepted malformed IR")
	}
	msg := err.Error()
	for _, want := range []string{`llvm: compile "syntax.ll": parse:`, "syntax.ll:4:", "expected ','"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	t.Log(msg)

	// The result-type mismatch is caught by the parser, not the verifier.
	_, err = Compile("ret.ll", "define void @k() {\n  ret i32 0\n}\n", Options{OptLevel: 3})
	if err == nil || !strings.Contains(err.Error(), "function result type") {
		t.Fatalf("ret i32 in void function: err = %v", err)
	}
	t.Log(err)

	if _, err := Compile("empty.ll", "", Options{}); err != nil {
		t.Errorf("empty module: %v", err)
	}
}

func TestVerifyError(t *testing.T) {
	// %y is used in entry but defined in a later block: well-formed
	// syntax that only the verifier rejects.
	ir := `
define i32 @k(i1 %c) {
entry:
  %x = add i32 %y, 1
  br label %next
next:
  %y = add i32 1, 2
  ret i32 %x
}
`
	for _, f := range []func(string, string, Options) (string, error){
		OptimizedIR, Assembly,
		func(n, ir string, o Options) (string, error) { _, err := Compile(n, ir, o); return "", err },
	} {
		_, err := f("dom.ll", ir, Options{OptLevel: 3})
		if err == nil {
			t.Fatal("accepted IR with a non-dominating use")
		}
		if msg := err.Error(); !strings.Contains(msg, "verify:") ||
			!strings.Contains(msg, "does not dominate") {
			t.Fatalf("error %q lacks verifier message", msg)
		}
	}
}

// TestFlatPipeline compiles the add loop with the short pipeline of flat
// elementwise modules: it must compute the same, still be vectorized, and
// every compile reports the CPU time of its three stages.
func TestFlatPipeline(t *testing.T) {
	for lvl := 0; lvl <= 3; lvl++ {
		sym := fmt.Sprintf("gojit_test_flat_O%d", lvl)
		c, err := Compile(sym, addIR(sym), Options{OptLevel: lvl, Flat: true})
		if err != nil {
			t.Fatalf("O%d: %v", lvl, err)
		}
		if c.CPU.Parse <= 0 || c.CPU.Optimize <= 0 || c.CPU.Emit <= 0 {
			t.Errorf("O%d: stage times %+v, want all positive", lvl, c.CPU)
		}
		k, err := Load(c.Object, sym)
		if err != nil {
			t.Fatalf("O%d: %v", lvl, err)
		}
		runAdd(t, k, 1001, uint64(lvl))
		runAdd(t, k, 7, uint64(lvl))
		if err := k.Free(); err != nil {
			t.Fatal(err)
		}
	}
	asm, err := Assembly("add", addIR("gojit_test_flat_asm"), Options{OptLevel: 3, Flat: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, feats := HostCPU(); hasVectorISA(feats) && !strings.Contains(asm, "ymm") && !strings.Contains(asm, "zmm") {
		t.Fatalf("the short pipeline did not vectorize the add loop:\n%s", asm)
	}
}

func hasVectorISA(feats string) bool {
	return strings.Contains(feats, "+avx512f") || strings.Contains(feats, "+avx2")
}

func TestAssemblyVectorizes(t *testing.T) {
	asm, err := Assembly("add", addIR("gojit_test_asm"), Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(asm, "gojit_test_asm:") {
		t.Fatalf("assembly lacks the function label:\n%s", asm)
	}
	name, feats := HostCPU()
	t.Logf("host CPU %s", name)
	if !hasVectorISA(feats) {
		t.Skipf("host %s has neither AVX2 nor AVX-512", name)
	}
	if !strings.Contains(asm, "ymm") && !strings.Contains(asm, "zmm") {
		t.Fatalf("O3 assembly for a float loop uses no ymm/zmm registers:\n%s", asm)
	}
}

func TestOptimizedIR(t *testing.T) {
	out, err := OptimizedIR("add", addIR("gojit_test_ir"), Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"define void @gojit_test_ir", "fadd", "target triple", "<"} {
		if !strings.Contains(out, want) {
			t.Errorf("optimized IR lacks %q:\n%s", want, out)
		}
	}
}

func TestFreeAndDuplicateSymbol(t *testing.T) {
	const sym = "gojit_test_dup"
	c, err := Compile("dup", addIR(sym), Options{OptLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []Loader{LoaderORC, LoaderNative} {
		t.Run(how.String(), func(t *testing.T) {
			k1, err := LoadWith(c.Object, sym, how)
			if err != nil {
				t.Fatal(err)
			}
			runAdd(t, k1, 100, 1)

			// ORC: while k1 is live its name is taken. objload: each
			// kernel is an image of its own, so a second copy loads
			// and outlives the first.
			k, err := LoadWith(c.Object, sym, how)
			switch {
			case how == LoaderORC && err == nil:
				k.Free()
				t.Fatal("second Load of a live symbol succeeded")
			case how == LoaderORC && !strings.Contains(err.Error(), "Duplicate definition"):
				t.Fatalf("duplicate load: %v", err)
			case how == LoaderORC:
				t.Log(err)
			case err != nil:
				t.Fatalf("second native load: %v", err)
			default:
				if k.Addr() == k1.Addr() {
					t.Fatal("two native loads share an address")
				}
				runAdd(t, k, 100, 4)
				defer func() {
					runAdd(t, k, 100, 5) // still there after k1's Free
					k.Free()
				}()
			}
			runAdd(t, k1, 100, 2) // the second load must not disturb k1

			if err := k1.Free(); err != nil {
				t.Fatal(err)
			}
			if k1.Addr() != 0 {
				t.Error("Addr() != 0 after Free")
			}
			if err := k1.Free(); err != nil {
				t.Fatalf("second Free: %v", err)
			}

			// After Free the same object loads again.
			k2, err := LoadWith(c.Object, sym, how)
			if err != nil {
				t.Fatalf("reload after Free: %v", err)
			}
			runAdd(t, k2, 100, 3)
			if err := k2.Free(); err != nil {
				t.Fatal(err)
			}

			func() {
				defer func() {
					if recover() == nil {
						t.Error("Call after Free did not panic")
					}
				}()
				k2.Call(nil)
			}()
		})
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(nil, "x"); err == nil {
		t.Error("Load(nil) succeeded")
	}
	if _, err := Load([]byte("definitely not an object file"), "x"); err == nil {
		t.Error("Load(garbage) succeeded")
	} else {
		t.Log(err)
	}

	// A symbol the object does not define.
	c, err := Compile("nosym", addIR("gojit_test_nosym"), Options{OptLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(c.Object, "gojit_test_nosym_missing"); err == nil {
		t.Error("lookup of an undefined symbol succeeded")
	} else {
		t.Log(err)
	}
	// The failed load must not leave the real symbol behind.
	k, err := Load(c.Object, "gojit_test_nosym")
	if err != nil {
		t.Fatalf("load after failed lookup: %v", err)
	}
	k.Free()

	// An external the process cannot provide: linking fails at lookup.
	ir := `
declare void @gojit_no_such_function()
define void @gojit_test_unresolved(ptr %args) {
  call void @gojit_no_such_function()
  ret void
}
`
	c, err = Compile("unresolved", ir, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(c.Object, "gojit_test_unresolved")
	if err == nil {
		t.Fatal("Load with an unresolved external succeeded")
	}
	if !strings.Contains(err.Error(), "gojit_no_such_function") {
		t.Errorf("unresolved-symbol error does not name the symbol: %v", err)
	}
	t.Log(err)
	// Retrying with the same name must fail the same way, not with a
	// duplicate definition left over from the first attempt.
	if _, err := Load(c.Object, "gojit_test_unresolved"); err == nil ||
		strings.Contains(err.Error(), "Duplicate") {
		t.Errorf("retry after unresolved load: %v", err)
	}
}

func TestConcurrent(t *testing.T) {
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				sym := fmt.Sprintf("gojit_test_conc_%d_%d", w, round)
				c, err := Compile(sym, addIR(sym), Options{OptLevel: 3})
				if err != nil {
					errs <- err
					return
				}
				k, err := Load(c.Object, sym)
				if err != nil {
					errs <- err
					return
				}
				runAdd(t, k, 513+w, uint64(w*10+round))
				if err := k.Free(); err != nil {
					errs <- err
					return
				}
				// Link errors are reported off to the side by ORC;
				// each failing Load must get its own, not a
				// neighbour's.
				missing := fmt.Sprintf("gojit_missing_%d_%d", w, round)
				bad := fmt.Sprintf("declare void @%s()\ndefine void @%s_u(ptr %%a) {\n  call void @%s()\n  ret void\n}\n",
					missing, sym, missing)
				c, err = Compile(sym+"_u", bad, Options{OptLevel: 1})
				if err != nil {
					errs <- err
					return
				}
				// The load must fail. Which symbol was missing is reported
				// by ORC to a session-wide reporter, from whichever thread
				// materializes the object; under concurrency that can be
				// another Load's thread, so the detail is checked only in the
				// single-threaded test.
				if _, err := Load(c.Object, sym+"_u"); err == nil || !strings.Contains(err.Error(), sym+"_u") {
					errs <- fmt.Errorf("unresolved %s: got %v", missing, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

const trivialKernel = `
define void @%s(ptr %%args) {
  ret void
}
`

func BenchmarkCallOverhead(b *testing.B) {
	k := compileLoad(b, "trivial", fmt.Sprintf(trivialKernel, "gojit_bench_trivial"), "gojit_bench_trivial")
	defer k.Free()
	var p argPack
	x := []float32{1}
	p.floats(x)
	args := p.args()
	defer p.unpin()
	b.ReportAllocs()
	for b.Loop() {
		k.Call(args)
	}
}

func BenchmarkCompile(b *testing.B) {
	ir := addIR("gojit_bench_compile")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("bench", ir, Options{OptLevel: 3}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileLoadFree(b *testing.B) {
	ir := addIR("gojit_bench_clf")
	for b.Loop() {
		c, err := Compile("bench", ir, Options{OptLevel: 3})
		if err != nil {
			b.Fatal(err)
		}
		k, err := Load(c.Object, "gojit_bench_clf")
		if err != nil {
			b.Fatal(err)
		}
		if err := k.Free(); err != nil {
			b.Fatal(err)
		}
	}
}
