package gojit

import (
	"testing"
	"unsafe"
)

// BenchmarkLookupHit measures what the compile cache adds to a call whose
// signature matches the previous one: the fast-path comparison of the
// arguments' dtypes and shapes against the last entry. Compare with
// BenchmarkRunDirect, the same call without any lookup.
func BenchmarkLookupHit(b *testing.B) {
	f, args := lookupBenchFunc(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := f.lookup(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallIntoHit is a whole cached CallInto on three 16-element
// arrays; BenchmarkRunDirect is the executable's Run on the same buffers.
// Their difference is the Func layer's overhead, lookup included.
func BenchmarkCallIntoHit(b *testing.B) {
	f, args := lookupBenchFunc(b)
	outs := []*Array{New(Float32, 16)}
	b.ReportAllocs()
	for b.Loop() {
		if err := f.CallInto(outs, args...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunDirect(b *testing.B) {
	f, args := lookupBenchFunc(b)
	e, _, err := f.lookup(args)
	if err != nil {
		b.Fatal(err)
	}
	exe := e.exe.Load()
	out := New(Float32, 16)
	ins := []unsafe.Pointer{args[0].(*Array).ptr, args[1].(*Array).ptr, args[2].(*Array).ptr}
	outs := []unsafe.Pointer{out.ptr}
	b.ReportAllocs()
	for b.Loop() {
		if err := exe.Run(ins, outs); err != nil {
			b.Fatal(err)
		}
	}
}

func lookupBenchFunc(b *testing.B) (*Func, []any) {
	f, err := Compile(func(x, y, z *Tensor) *Tensor { return x.Mul(y).Add(z) })
	if err != nil {
		b.Fatal(err)
	}
	args := []any{New(Float32, 16), New(Float32, 16), New(Float32, 16)}
	if _, err := f.Call(args...); err != nil {
		b.Fatal(err)
	}
	return f, args
}

func TestLookupHitAllocatesNothing(t *testing.T) {
	if LLVMVersion() == "" {
		t.Skip("interpreted (no LLVM in this build): the interpreter allocates its intermediates")
	}
	f, err := Compile(func(x *Tensor) *Tensor { return x.Exp() }, WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	args := []any{New(Float32, 4, 3)}
	if _, err := f.Call(args...); err != nil {
		t.Fatal(err)
	}
	outs := []*Array{New(Float32, 4, 3)}
	if n := testing.AllocsPerRun(100, func() {
		if err := f.CallInto(outs, args...); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("cached CallInto with a dynamic dimension allocates %v times", n)
	}
}
