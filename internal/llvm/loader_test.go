//go:build cgo && !nollvm

package llvm

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// memsetKernel zeroes out[0..*n) (an llvm.memset, which becomes a call to
// the process's memset) and then writes a[i]*2 at every third element;
// args = {a, b, out, n}.
const memsetKernel = `
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define void @%s(ptr %%args) {
entry:
  %%a = load ptr, ptr %%args
  %%po = getelementptr ptr, ptr %%args, i64 2
  %%out = load ptr, ptr %%po
  %%pn = getelementptr ptr, ptr %%args, i64 3
  %%np = load ptr, ptr %%pn
  %%n = load i64, ptr %%np
  %%bytes = mul i64 %%n, 4
  call void @llvm.memset.p0.i64(ptr %%out, i8 0, i64 %%bytes, i1 false)
  %%empty = icmp sle i64 %%n, 0
  br i1 %%empty, label %%done, label %%loop
loop:
  %%i = phi i64 [ 0, %%entry ], [ %%next, %%loop ]
  %%ai = getelementptr float, ptr %%a, i64 %%i
  %%x = load float, ptr %%ai
  %%y = fmul float %%x, 2.0
  %%oi = getelementptr float, ptr %%out, i64 %%i
  store float %%y, ptr %%oi
  %%next = add nuw nsw i64 %%i, 3
  %%more = icmp slt i64 %%next, %%n
  br i1 %%more, label %%loop, label %%done
done:
  ret void
}
`

// switchKernel computes out[i] from a[i] by one of eight formulas chosen
// by i mod 8 (a jump table or a table of constants in .rodata, both
// relocated); args = {a, b, out, n}.
const switchKernel = `
@tab = private unnamed_addr constant [8 x float] [float 1.5, float -2.0, float 3.25, float 0.5, float 7.0, float -0.125, float 9.0, float 11.0]

define void @%s(ptr %%args) {
entry:
  %%a = load ptr, ptr %%args
  %%po = getelementptr ptr, ptr %%args, i64 2
  %%out = load ptr, ptr %%po
  %%pn = getelementptr ptr, ptr %%args, i64 3
  %%np = load ptr, ptr %%pn
  %%n = load i64, ptr %%np
  %%empty = icmp sle i64 %%n, 0
  br i1 %%empty, label %%done, label %%loop
loop:
  %%i = phi i64 [ 0, %%entry ], [ %%next, %%join ]
  %%ai = getelementptr float, ptr %%a, i64 %%i
  %%x = load float, ptr %%ai
  %%k = and i64 %%i, 7
  %%ti = getelementptr [8 x float], ptr @tab, i64 0, i64 %%k
  %%c = load float, ptr %%ti
  switch i64 %%k, label %%c7 [ i64 0, label %%c0  i64 1, label %%c1  i64 2, label %%c2  i64 3, label %%c3  i64 4, label %%c4  i64 5, label %%c5  i64 6, label %%c6 ]
c0:
  %%v0 = fadd float %%x, %%c
  br label %%join
c1:
  %%v1 = fmul float %%x, %%c
  br label %%join
c2:
  %%v2 = fsub float %%c, %%x
  br label %%join
c3:
  %%v3 = fdiv float %%x, %%c
  br label %%join
c4:
  %%m = fmul float %%x, %%x
  %%v4 = fadd float %%m, %%c
  br label %%join
c5:
  %%v5 = fneg float %%x
  br label %%join
c6:
  %%v6 = fmul float %%c, 0.25
  br label %%join
c7:
  %%s = fadd float %%x, 1.0
  %%v7 = fmul float %%s, %%c
  br label %%join
join:
  %%v = phi float [ %%v0, %%c0 ], [ %%v1, %%c1 ], [ %%v2, %%c2 ], [ %%v3, %%c3 ], [ %%v4, %%c4 ], [ %%v5, %%c5 ], [ %%v6, %%c6 ], [ %%v7, %%c7 ]
  %%oi = getelementptr float, ptr %%out, i64 %%i
  store float %%v, ptr %%oi
  %%next = add nuw nsw i64 %%i, 1
  %%more = icmp slt i64 %%next, %%n
  br i1 %%more, label %%loop, label %%done
done:
  ret void
}
`

// runFloat calls a kernel of the {in..., out..., n} form on copies of
// ins and returns its outputs.
func runFloat(t *testing.T, k *Kernel, ins [][]float32, nOut, n int) [][]float32 {
	t.Helper()
	outs := make([][]float32, nOut)
	var p argPack
	for _, in := range ins {
		p.floats(slices.Clone(in))
	}
	for i := range outs {
		outs[i] = make([]float32, max(n, 1))
		for j := range outs[i] {
			outs[i][j] = float32(math.NaN())
		}
		p.floats(outs[i])
	}
	nn := int64(n)
	p.int64(&nn)
	k.Call(p.args())
	p.unpin()
	return outs
}

// Every test kernel, at every optimization level, computes bit for bit
// the same through objload as through ORC; together the objects contain
// each relocation the loader applies to real kernels (PC32 into code and
// constants, PLT32 to libm and memset, relocations inside .rodata).
func TestLoadersAgree(t *testing.T) {
	kernels := []struct {
		name, ir  string
		ins, nOut int
		lo, hi    float32
	}{
		{"add", addKernel, 2, 1, -100, 100},
		{"math", mathKernel, 2, 3, 0.01, 5},
		{"memset", memsetKernel, 2, 1, -100, 100},
		{"switch", switchKernel, 2, 1, -100, 100},
	}
	seen := map[string]bool{}
	r := rand.New(rand.NewPCG(3, 4))
	for _, kk := range kernels {
		for lvl := 0; lvl <= 3; lvl++ {
			sym := fmt.Sprintf("gojit_test_loaders_%s_O%d", kk.name, lvl)
			c, err := Compile(sym, fmt.Sprintf(kk.ir, sym), Options{OptLevel: lvl})
			if err != nil {
				t.Fatal(err)
			}
			recordRelocs(t, c.Object, seen)
			for _, n := range []int{0, 1, 7, 64, 1001} {
				ins := make([][]float32, kk.ins)
				for i := range ins {
					ins[i] = randFloats(r, max(n, 1), kk.lo, kk.hi)
				}
				var results [2][][]float32
				for li, how := range []Loader{LoaderORC, LoaderNative} {
					k, err := LoadWith(c.Object, sym, how)
					if err != nil {
						t.Fatalf("%s O%d %v: %v", kk.name, lvl, how, err)
					}
					results[li] = runFloat(t, k, ins, kk.nOut, n)
					if err := k.Free(); err != nil {
						t.Fatal(err)
					}
				}
				for o := range results[0] {
					for i := range n {
						a, b := results[0][o][i], results[1][o][i]
						if math.Float32bits(a) != math.Float32bits(b) {
							t.Fatalf("%s O%d n=%d out%d[%d]: ORC %v, objload %v", kk.name, lvl, n, o, i, a, b)
						}
					}
				}
				if kk.name == "switch" && n > 0 && results[1][0][0] != ins[0][0]+1.5 {
					t.Fatalf("switch out[0] = %v, want %v", results[1][0][0], ins[0][0]+1.5)
				}
			}
		}
	}
	for _, want := range []string{"R_X86_64_PC32 .text", "R_X86_64_PC32 .rodata", "R_X86_64_PLT32 external", "in .rodata"} {
		if !seen[want] {
			t.Errorf("no test object has %q; seen %v", want, seen)
		}
	}
}

// recordRelocs notes which kinds of relocation obj contains.
func recordRelocs(t *testing.T, obj []byte, seen map[string]bool) {
	f, err := elf.NewFile(bytesReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		target := f.Sections[s.Info].Name
		if len(target) >= 7 && target[:7] == ".rodata" {
			seen["in .rodata"] = true
		}
		data, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		for ; len(data) >= 24; data = data[24:] {
			info := le64(data[8:])
			typ := elf.R_X86_64(uint32(info))
			sym := syms[info>>32-1]
			where := "external"
			if sym.Section != elf.SHN_UNDEF {
				where = f.Sections[sym.Section].Name
				if len(where) > 7 && where[:7] == ".rodata" {
					where = ".rodata"
				}
			}
			seen[typ.String()+" "+where] = true
		}
	}
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// Available must not load libLLVM when the library is where Debian puts
// it; the first Compile must. Loading is per process, so this runs in a
// fresh one.
func TestAvailableDoesNotLoad(t *testing.T) {
	if os.Getenv("GOJIT_TEST_AVAILABLE") == "1" {
		if !Available() {
			t.Fatal("Available() = false")
		}
		fmt.Printf("after Available: loaded=%t\n", Loaded())
		if _, err := Compile("k", addIR("gojit_test_avail"), Options{OptLevel: 1}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("after Compile: loaded=%t\n", Loaded())
		return
	}
	found := false
	for _, p := range libraryPaths {
		_, err := os.Stat(p)
		found = found || err == nil
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAvailableDoesNotLoad$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOJIT_TEST_AVAILABLE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Off Debian's layout Available loads the library to search for it.
	want := fmt.Sprintf("after Available: loaded=%t\nafter Compile: loaded=true\n", !found)
	if !strings.Contains(string(out), want) {
		t.Fatalf("want %q in\n%s", want, out)
	}
	// The library's major.minor must be the headers' (dl.c refuses any
	// other); the patch level may differ.
	v, path, err := LibraryVersion()
	majorMinor := func(v string) string { p := strings.SplitN(v, ".", 3); return strings.Join(p[:min(2, len(p))], ".") }
	if err != nil || majorMinor(v) != majorMinor(Version()) || path == "" {
		t.Errorf("LibraryVersion() = %q, %q, %v; headers say %s", v, path, err, Version())
	}
	t.Logf("LLVM %s from %s", v, path)
}

// BenchmarkLoadFree links and frees one kernel object through each loader
// (the JIT already exists for ORC; creating it is a further one-time cost,
// see Init).
func BenchmarkLoadFree(b *testing.B) {
	const sym = "gojit_bench_loadfree"
	c, err := Compile(sym, fmt.Sprintf(switchKernel, sym), Options{OptLevel: 3})
	if err != nil {
		b.Fatal(err)
	}
	if err := Init(); err != nil {
		b.Fatal(err)
	}
	for _, how := range []Loader{LoaderORC, LoaderNative} {
		b.Run(how.String(), func(b *testing.B) {
			for b.Loop() {
				k, err := LoadWith(c.Object, sym, how)
				if err != nil {
					b.Fatal(err)
				}
				if err := k.Free(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Without the library, Available is false, compiling fails with an error
// that matches ErrUnavailable and names every file tried, ORC is
// unavailable, and a cached object still links with objload. Runs in a
// fresh process, whose library paths point nowhere.
func TestMissingLibrary(t *testing.T) {
	missing := []string{"/nonexistent/gojit/libLLVM.so.19.1", "libgojit-no-such-llvm.so"}
	if os.Getenv("GOJIT_TEST_NOLIB") == "1" {
		useLibraryPaths(missing)
		if Available() {
			t.Fatal("Available() = true without a library")
		}
		_, err := Compile("k", addIR("gojit_test_nolib"), Options{OptLevel: 1})
		t.Log(err)
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Compile: %v, want ErrUnavailable", err)
		}
		for _, p := range missing {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error does not name %s: %v", p, err)
			}
		}
		obj, err := os.ReadFile("objload/testdata/memset.o")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadWith(obj, "gojit_1a1224e061f431bd", LoaderORC); !errors.Is(err, ErrUnavailable) {
			t.Errorf("ORC load without LLVM: %v", err)
		}
		k, err := Load(obj, "gojit_1a1224e061f431bd")
		if err != nil {
			t.Fatalf("objload without LLVM: %v", err)
		}
		k.Free()
		if Loaded() {
			t.Error("Loaded() = true")
		}
		fmt.Println("nolib: ok")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMissingLibrary$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GOJIT_TEST_NOLIB=1", LoaderEnv+"=auto")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nolib: ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}
