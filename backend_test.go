package gojit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/runtime"
)

// TestQuickBackendSameBits compiles random programs (the fuzz target's
// generator, over its seeds and pseudo-random inputs) with the backend
// at its O0 level and at O3's, as codegen.Module.Tiny chooses between
// them, and checks that every result is the same bits, and every error
// the same.
func TestQuickBackendSameBits(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM")
	}
	t.Setenv("GOJIT_CACHE", "off")
	n := 160
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(15, 23))
	programs := fuzzSeedInputs()
	for len(programs) < n {
		b := make([]byte, 8+rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		programs = append(programs, b)
	}
	compared := 0
	for i, data := range programs {
		args, fn, _, listing := fuzzProgram(data)
		run := func(level int) ([]*gojit.Array, error) {
			f, err := gojit.Compile(fn, gojit.WithBackend(level))
			if err != nil {
				return nil, err
			}
			return f.Call(anyArgs(args)...)
		}
		quick, qerr := run(runtime.BackendQuick)
		full, ferr := run(runtime.BackendFull)
		if (qerr == nil) != (ferr == nil) || qerr != nil && firstLines(qerr, 1) != firstLines(ferr, 1) {
			t.Fatalf("program %d: errors differ: quick %v, full %v\n%v", i, qerr, ferr, *listing)
		}
		if len(quick) != len(full) {
			t.Fatalf("program %d: %d results, %d", i, len(quick), len(full))
		}
		for k := range quick {
			if d := rawBitsDiff(quick[k], full[k]); d != "" {
				t.Fatalf("program %d, result %d: quick backend %s\n%v", i, k, d, *listing)
			}
		}
		if qerr == nil {
			compared++
		}
	}
	if compared < len(programs)/3 {
		t.Fatalf("only %d of %d programs ran", compared, len(programs))
	}
}

// rawBitsDiff compares two arrays of any dtype bit for bit (NaNs of
// either payload being equal), or describes the first difference.
func rawBitsDiff(got, want *gojit.Array) string {
	if got.DType() != want.DType() || fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := reflect.ValueOf(got.Data()), reflect.ValueOf(want.Data())
	for i := range g.Len() {
		a, b := g.Index(i).Interface(), w.Index(i).Interface()
		switch x := a.(type) {
		case float32:
			y := b.(float32)
			if math.Float32bits(x) == math.Float32bits(y) || x != x && y != y {
				continue
			}
		case float64:
			y := b.(float64)
			if math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y) {
				continue
			}
		default:
			if a == b {
				continue
			}
		}
		return fmt.Sprintf("element %d is %v, want %v", i, a, b)
	}
	return ""
}

// TestQuickBackendSameIR checks what TestQuickBackendSameBits relies on:
// the backend level changes the machine code only, after the same
// optimized IR. It also checks that the 6-op function is Tiny over 16
// elements and not over 1,024.
func TestQuickBackendSameIR(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM")
	}
	t.Setenv("GOJIT_CACHE", "off")
	six := func(x, y *gojit.Tensor) *gojit.Tensor {
		return x.Add(y).Mul(x).Sub(gojit.Scalar(3.0)).Exp().Maximum(y).Sqrt()
	}
	// lower returns the stages' text with the kernel's name, which
	// depends on the options, replaced by K.
	lower := func(n int, opts ...gojit.Option) *gojit.Lowered {
		f, err := gojit.Compile(six, opts...)
		if err != nil {
			t.Fatal(err)
		}
		x := gojit.New(gojit.Float32, n)
		l, err := f.Lower(x, x)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(strings.SplitN(l.LLVM, "\n", 2)[0], "; gojit module ")
		l.Optimized = strings.ReplaceAll(l.Optimized, name, "K")
		l.Assembly = strings.ReplaceAll(l.Assembly, name, "K")
		return l
	}
	quick, full := lower(16, gojit.WithBackend(runtime.BackendQuick)), lower(16, gojit.WithBackend(runtime.BackendFull))
	if quick.Optimized != full.Optimized {
		t.Errorf("the optimized IR depends on the backend level")
	}
	if quick.Assembly == full.Assembly {
		t.Errorf("the same assembly at both backend levels: the level is not applied")
	}
	if auto := lower(16); auto.Assembly != quick.Assembly {
		t.Errorf("over 16 elements the module is not compiled with the quick backend")
	}
	if auto, full := lower(1024), lower(1024, gojit.WithBackend(runtime.BackendFull)); auto.Assembly != full.Assembly {
		t.Errorf("over 1,024 elements the module is compiled with the quick backend")
	}
}

// BenchmarkCompileBackends compiles the 6-op function of
// BenchmarkColdCompile (a new graph every time, first call included)
// with the backend level each module chooses (auto) and with the full
// one, alternating in one loop. auto-ms and full-ms are the process's
// CPU time per compile, ratio their quotient: over 16 elements the
// module is Tiny (quick backend), over 1,024 it is not (ratio 1).
func BenchmarkCompileBackends(b *testing.B) {
	b.Setenv("GOJIT_CACHE", "off")
	var seq float64
	for _, n := range []int{16, 1024} {
		x := gojit.FromFloat32(make([]float32, n))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var cpu [2]int64
			for b.Loop() {
				for i, level := range []int{0, runtime.BackendFull} {
					seq++
					k := seq
					t0 := procCPU()
					f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
						return x.Add(y).Mul(x).Sub(gojit.Scalar(k)).Exp().Maximum(y).Sqrt()
					}, gojit.WithBackend(level))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := f.Call(x, x); err != nil {
						b.Fatal(err)
					}
					cpu[i] += procCPU() - t0
				}
			}
			b.ReportMetric(float64(cpu[0])/1e6/float64(b.N), "auto-ms")
			b.ReportMetric(float64(cpu[1])/1e6/float64(b.N), "full-ms")
			b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "ratio")
		})
	}
}

// BenchmarkTinyKernelCall is the price of the quick backend: the 6-op
// function and the 5-op chain compiled at both backend levels, called
// through CallInto in alternating blocks of calls. quick-ns and full-ns
// are the wall time per call, ratio their quotient.
func BenchmarkTinyKernelCall(b *testing.B) {
	b.Setenv("GOJIT_CACHE", "off")
	six := func(x, y *gojit.Tensor) *gojit.Tensor {
		return x.Add(y).Mul(x).Sub(gojit.Scalar(3.0)).Exp().Maximum(y).Sqrt()
	}
	for _, c := range []struct {
		name string
		fn   any
	}{{"six", six}, {"chain5", bench.Chain5}} {
		for _, n := range []int{16, 256, 1000, 4096} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				x := gojit.FromFloat32(bench.RandFloat32(n, 1))
				out := []*gojit.Array{gojit.New(gojit.Float32, n)}
				var fs [2]*gojit.Func
				for i, level := range []int{runtime.BackendQuick, runtime.BackendFull} {
					f, err := gojit.Compile(c.fn, gojit.WithBackend(level))
					if err != nil {
						b.Fatal(err)
					}
					if err := f.CallInto(out, x, x); err != nil {
						b.Fatal(err)
					}
					fs[i] = f
				}
				var ns [2]int64
				calls := 0
				for b.Loop() {
					for i, f := range fs {
						t0 := time.Now()
						for range 200 {
							if err := f.CallInto(out, x, x); err != nil {
								b.Fatal(err)
							}
						}
						ns[i] += time.Since(t0).Nanoseconds()
					}
					calls += 200
				}
				b.ReportMetric(float64(ns[0])/float64(calls), "quick-ns")
				b.ReportMetric(float64(ns[1])/float64(calls), "full-ns")
				b.ReportMetric(float64(ns[0])/float64(ns[1]), "ratio")
			})
		}
	}
}
