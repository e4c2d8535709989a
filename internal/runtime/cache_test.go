package runtime

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// scaledGraph is a small graph, x*k + 1, distinct for every k.
func scaledGraph(t testing.TB, k int, n int) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32[%d]
  %%1 = const %d : f32[]
  %%2 = broadcast %%1 : f32[%d]
  %%3 = mul %%0, %%2 : f32[%d]
  %%4 = const 1 : f32[]
  %%5 = broadcast %%4 : f32[%d]
  %%6 = add %%3, %%5 : f32[%d]
  return %%6
}`, n, k, n, n, n, n))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkRun runs e on 0, 1, 2, ... and compares with the interpreter.
func checkRun(t testing.TB, e *Executable) error {
	return checkRunWith(t, e, e.Run)
}

// checkRunWith is checkRun calling e through run. A difference from the
// interpreter is reported with t.Errorf, which other goroutines may call;
// run's error is returned.
func checkRunWith(t testing.TB, e *Executable, run func(ins, outs []unsafe.Pointer) error) error {
	n := e.Graph.Node(e.Graph.Params[0]).Shape.Size()
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	want, err := interp.Run(e.Graph, []any{in})
	if err != nil {
		t.Errorf("interpreter: %v", err)
		return nil
	}
	out := make([]float32, n)
	if err := run([]unsafe.Pointer{unsafe.Pointer(&in[0])}, []unsafe.Pointer{unsafe.Pointer(&out[0])}); err != nil {
		return err
	}
	for i, w := range want[0].([]float32) {
		if out[i] != w {
			t.Errorf("out[%d] = %v, interpreter %v", i, out[i], w)
			break
		}
	}
	return nil
}

// withConfig installs c for one test and restores the default after it,
// dropping the kernels the test built.
func withConfig(t *testing.T, c Config) error {
	t.Helper()
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	t.Cleanup(func() {
		Configure(Config{})
		Purge()
	})
	Purge()
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return Configure(c)
}

func build(t testing.TB, g *ir.Graph) *Executable {
	t.Helper()
	e, err := Build(g, Options{OptLevel: 1, Name: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	if err := withConfig(t, Config{MaxEntries: 2}); err != nil {
		t.Fatal(err)
	}
	before := ReadStats()
	e1 := build(t, scaledGraph(t, 1, 8))
	e2 := build(t, scaledGraph(t, 2, 8))
	if again := build(t, scaledGraph(t, 1, 8)); again != e1 {
		t.Fatal("a cached graph was built again")
	}
	e3 := build(t, scaledGraph(t, 3, 8)) // evicts e2, the least recently used
	if e1.Evicted() || !e2.Evicted() || e3.Evicted() {
		t.Fatalf("evicted: e1 %v e2 %v e3 %v; want only e2", e1.Evicted(), e2.Evicted(), e3.Evicted())
	}
	if err := checkRun(t, e2); !errors.Is(err, ErrEvicted) {
		t.Fatalf("Run on an evicted kernel: %v, want ErrEvicted", err)
	}
	e2 = build(t, scaledGraph(t, 2, 8)) // evicts e1
	if !e1.Evicted() {
		t.Error("e1 not evicted by rebuilding e2")
	}
	for _, e := range []*Executable{e2, e3} {
		if err := checkRun(t, e); err != nil {
			t.Fatal(err)
		}
	}
	s := ReadStats()
	if d := s.Evictions - before.Evictions; d != 2 {
		t.Errorf("%d evictions, want 2 (e2, then e1)", d)
	}
	if d := s.Compiles - before.Compiles; d != 4 {
		t.Errorf("%d compiles, want 4", d)
	}
	if s.Kernels != before.Kernels+2 {
		t.Errorf("%d kernels loaded, want %d", s.Kernels, before.Kernels+2)
	}
}

func TestCacheByteLimit(t *testing.T) {
	if err := withConfig(t, Config{MaxBytes: 1}); err != nil {
		t.Fatal(err)
	}
	// Every kernel is larger than the limit: the newest always stays, so
	// what was just built can run.
	var prev *Executable
	for k := range 3 {
		e := build(t, scaledGraph(t, 10+k, 16))
		if err := checkRun(t, e); err != nil {
			t.Fatal(err)
		}
		if prev != nil && !prev.Evicted() {
			t.Errorf("kernel %d not evicted under a 1-byte limit", k-1)
		}
		prev = e
	}
}

// TestEvictionDuringCallsRace has goroutines running kernels while another
// evicts them: a kernel must not be freed under a running call, and every
// call either computes the right answer or reports ErrEvicted.
func TestEvictionDuringCallsRace(t *testing.T) {
	if err := withConfig(t, Config{}); err != nil {
		t.Fatal(err)
	}
	const n = 1 << 14
	g := scaledGraph(t, 7, n)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := build(t, g)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := checkRun(t, e); errors.Is(err, ErrEvicted) {
					e = build(t, g)
				} else if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 30 {
		Purge()
		build(t, g)
	}
	close(stop)
	wg.Wait()
}

func TestDiskCacheRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gojit")
	if err := withConfig(t, Config{DiskDir: dir}); err != nil {
		t.Fatal(err)
	}
	g := scaledGraph(t, 5, 32)
	s0 := ReadStats()
	e := build(t, g)
	s1 := ReadStats()
	if e.FromDisk || s1.Compiles != s0.Compiles+1 || s1.DiskWrites != s0.DiskWrites+1 {
		t.Fatalf("first build: FromDisk %v, compiles +%d, disk writes +%d; want a compile and a write",
			e.FromDisk, s1.Compiles-s0.Compiles, s1.DiskWrites-s0.DiskWrites)
	}
	Purge() // as if a new process started
	e = build(t, g)
	s2 := ReadStats()
	if !e.FromDisk || s2.Compiles != s1.Compiles || s2.DiskHits != s1.DiskHits+1 {
		t.Fatalf("second build: FromDisk %v, compiles +%d, disk hits +%d; want a disk hit",
			e.FromDisk, s2.Compiles-s1.Compiles, s2.DiskHits-s1.DiskHits)
	}
	if err := checkRun(t, e); err != nil {
		t.Fatal(err)
	}
	infos, err := Disk().List()
	if err != nil || len(infos) != 1 || infos[0].Meta.Name != t.Name() || infos[0].Meta.Symbol != SymbolName(e.Signature) {
		t.Errorf("List = %+v, %v", infos, err)
	}
}

// TestDiskCacheRejectsBadEntries damages the entry a build wrote in three
// ways; each time the next build must compile (never load) and repair it.
func TestDiskCacheRejectsBadEntries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gojit")
	if err := withConfig(t, Config{DiskDir: dir}); err != nil {
		t.Fatal(err)
	}
	g := scaledGraph(t, 6, 32)
	e := build(t, g)
	path := filepath.Join(dir, fmt.Sprintf("%x.gjo", e.Signature))
	damage := map[string]func(){
		"flipped byte": func() {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			os.WriteFile(path, b, 0o600)
		},
		"truncated": func() {
			b, _ := os.ReadFile(path)
			os.WriteFile(path, b[:len(b)-40], 0o600)
		},
		"group-writable": func() { os.Chmod(path, 0o660) },
		"another code generator": func() {
			err := Disk().Put(&diskcache.Entry{Key: e.Signature, Object: []byte("not an object"),
				Meta: diskcache.Meta{Version: "gojit-codegen-0", Symbol: SymbolName(e.Signature)}})
			if err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			f()
			Purge()
			before := ReadStats()
			e := build(t, g)
			after := ReadStats()
			if e.FromDisk || after.Compiles != before.Compiles+1 {
				t.Fatalf("FromDisk %v, compiles +%d; want a fresh compile", e.FromDisk, after.Compiles-before.Compiles)
			}
			if after.DiskErrors+after.DiskStale == before.DiskErrors+before.DiskStale {
				t.Error("the bad entry was not counted")
			}
			if err := checkRun(t, e); err != nil {
				t.Fatal(err)
			}
			if _, err := Disk().Get(e.Signature); err != nil {
				t.Errorf("entry not repaired: %v", err)
			}
		})
	}
}

func TestDiskCacheInsecureDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777) // past the umask
	err := withConfig(t, Config{DiskDir: dir})
	if !errors.Is(err, diskcache.ErrInsecure) {
		t.Fatalf("Configure = %v, want ErrInsecure", err)
	}
	if c := CurrentConfig(); c.DiskDir != "" || Disk() != nil {
		t.Fatalf("disk cache still on: %+v", c)
	}
	e := build(t, scaledGraph(t, 8, 8)) // in memory only
	if err := checkRun(t, e); err != nil {
		t.Fatal(err)
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("wrote %d files into an insecure directory", len(des))
	}
}

func TestFastMathModule(t *testing.T) {
	g, err := ir.Parse(largeGraph)
	if err != nil {
		t.Fatal(err)
	}
	if Signature(g, Options{OptLevel: 3}) == Signature(g, Options{OptLevel: 3, FastMath: true}) {
		t.Fatal("fast-math does not change the signature")
	}
	if !llvm.Available() {
		return
	}
	e, err := Build(g, Options{OptLevel: 3, FastMath: true})
	if err != nil {
		t.Fatal(err)
	}
	text := e.Module.Text
	for _, want := range []string{"fmul fast ", "fadd fast "} {
		if !strings.Contains(text, want) {
			t.Errorf("fast-math module lacks %q", want)
		}
	}
	for _, plain := range []string{"= fmul float", "= fadd float", "= fsub float"} {
		if strings.Contains(text, plain) {
			t.Errorf("fast-math module has %q without flags", plain)
		}
	}
	// Finite inputs: results agree with the interpreter to rounding.
	a := make([]float32, 512*300)
	b := make([]float32, 300)
	for i := range a {
		a[i] = float32(i%97)*0.001 - 0.05
	}
	for i := range b {
		b[i] = float32(i%5) - 2
	}
	want, err := interp.Run(e.Graph, []any{a, b})
	if err != nil {
		t.Fatal(err)
	}
	outs := []any{make([]float32, 512), make([]float32, 300), make([]float32, 512*300)}
	ptrs := make([]unsafe.Pointer, len(outs))
	for i, o := range outs {
		ptrs[i] = unsafe.Pointer(&o.([]float32)[0])
	}
	if err := e.Run([]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])}, ptrs); err != nil {
		t.Fatal(err)
	}
	for i := range outs {
		got, ref := outs[i].([]float32), want[i].([]float32)
		for k := range ref {
			if d := math.Abs(float64(got[k] - ref[k])); d > 1e-4*math.Abs(float64(ref[k]))+1e-6 {
				t.Fatalf("output %d[%d] = %v, interpreter %v", i, k, got[k], ref[k])
			}
		}
	}
}

// TestSignatureSeesWiring is GT2's bug as a test: a*b+c and a*c+b have the
// same ops in the same order and differ only in which value feeds which
// operand; their kernels must not be confused.
func TestSignatureSeesWiring(t *testing.T) {
	parse := func(x, y string) *ir.Graph {
		g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32[8]
  %%1 = param 1 : f32[8]
  %%2 = param 2 : f32[8]
  %%3 = mul %%0, %s : f32[8]
  %%4 = add %%3, %s : f32[8]
  return %%4
}`, x, y))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	abc, acb := parse("%1", "%2"), parse("%2", "%1")
	if Signature(abc, Options{OptLevel: 3}) == Signature(acb, Options{OptLevel: 3}) {
		t.Fatal("a*b+c and a*c+b have the same signature")
	}
	if Signature(abc, Options{OptLevel: 3}) != Signature(parse("%1", "%2"), Options{OptLevel: 3, Name: "other"}) {
		t.Error("the same graph got two signatures (the name must not count)")
	}
}
