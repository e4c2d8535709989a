package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

func TestNewSlice(t *testing.T) {
	for _, tc := range []struct {
		dt   ir.DType
		want any
	}{
		{ir.Bool, []bool{false, false}},
		{ir.Uint8, []uint8{0, 0}},
		{ir.Int32, []int32{0, 0}},
		{ir.Int64, []int64{0, 0}},
		{ir.Float32, []float32{0, 0}},
		{ir.Float64, []float64{0, 0}},
	} {
		expect(t, tc.dt.String(), NewSlice(tc.dt, 2), tc.want)
	}
	if s := NewSlice(ir.InvalidDType, 2); s != nil {
		t.Errorf("NewSlice(invalid) = %T, want nil", s)
	}
}

func TestInputValidation(t *testing.T) {
	g := mustParse(t, graph("%0 = param 0 : f32[2,2]", "%1 = param 1 : bool[]", "%2 = neg %0 : f32[2,2]", "return %2"))
	good := []float32{1, 2, 3, 4}
	for _, tc := range []struct {
		name   string
		inputs []any
		want   []string // all must appear in the error
	}{
		{"too few", []any{good}, []string{"got 1 inputs", "2 parameters"}},
		{"too many", []any{good, []bool{true}, good}, []string{"got 3 inputs"}},
		{"none", nil, []string{"got 0 inputs"}},
		{"wrong type", []any{[]float64{1, 2, 3, 4}, []bool{true}}, []string{"input 0", "[]float64", "want []float32"}},
		{"wrong type second", []any{good, []uint8{1}}, []string{"input 1", "bool[]", "[]uint8", "want []bool"}},
		{"not a slice", []any{good, true}, []string{"input 1", "got bool"}},
		{"nil", []any{nil, []bool{true}}, []string{"input 0", "<nil>"}},
		{"named slice type", []any{myFloats{1, 2, 3, 4}, []bool{true}}, []string{"input 0", "myFloats"}},
		{"short", []any{good[:3], []bool{true}}, []string{"input 0", "f32[2,2]", "got 3 elements, want 4"}},
		{"long scalar", []any{good, []bool{true, false}}, []string{"input 1", "got 2 elements, want 1"}},
		{"empty scalar", []any{good, []bool{}}, []string{"input 1", "got 0 elements, want 1"}},
	} {
		outs, err := Run(g, tc.inputs)
		if err == nil {
			t.Errorf("%s: no error, outputs %v", tc.name, outs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
	if _, err := Run(g, []any{good, []bool{true}}); err != nil {
		t.Errorf("valid inputs: %v", err)
	}
}

type myFloats []float32

func TestInvalidGraph(t *testing.T) {
	if _, err := Run(nil, nil); err == nil {
		t.Error("nil graph: no error")
	}
	// Recorded shape disagrees with what the op infers.
	g := &ir.Graph{
		Nodes: []ir.Node{
			{Op: ir.OpParam, DType: ir.Float32, Shape: ir.Shape{4}},
			{Op: ir.OpExp, DType: ir.Float32, Shape: ir.Shape{5}, Args: []ir.Value{0}},
		},
		Params:  []ir.Value{0},
		Outputs: []ir.Value{1},
	}
	if _, err := Run(g, []any{make([]float32, 4)}); err == nil || !strings.Contains(err.Error(), "invalid graph") {
		t.Errorf("bad shape: error %v", err)
	}
	// An operand from the future, which would index past vals.
	g = &ir.Graph{
		Nodes: []ir.Node{
			{Op: ir.OpNeg, DType: ir.Float32, Shape: ir.Shape{4}, Args: []ir.Value{1}},
			{Op: ir.OpConst, DType: ir.Float32, Shape: ir.Shape{4}},
		},
		Outputs: []ir.Value{0},
	}
	if _, err := Run(g, nil); err == nil {
		t.Error("forward reference: no error")
	}
	if err := RunInto(g, nil, []any{make([]float32, 4)}); err == nil {
		t.Error("RunInto forward reference: no error")
	}
	// No outputs.
	g = &ir.Graph{Nodes: []ir.Node{{Op: ir.OpConst, DType: ir.Float32}}}
	if _, err := Run(g, nil); err == nil {
		t.Error("no outputs: no error")
	}
}

// TestInternalPanicRecovered uses a graph that passes Verify but whose
// output is too large to allocate, so make panics inside an op.
func TestInternalPanicRecovered(t *testing.T) {
	// A shape this large no longer passes the IR's checks, so the graph is
	// corrupted after parsing and given to run, which trusts Verify.
	g := mustParse(t, graph("%0 = const 1 : f32[2]", "%1 = neg %0 : f32[2]", "return %1"))
	g.Nodes[0].Shape = ir.Shape{1 << 61}
	g.Nodes[1].Shape = ir.Shape{1 << 61}
	outs, err := run(g, nil)
	if err == nil {
		t.Fatalf("no error, %d outputs", len(outs))
	}
	if !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "const") {
		t.Errorf("error %q does not name the failing node", err)
	}
}

// TestOutputsAreFresh checks that results never alias the inputs or each
// other, including outputs that are params, reshapes of params, or the
// same value returned twice.
func TestOutputsAreFresh(t *testing.T) {
	g := mustParse(t, graph(
		"%0 = param 0 : i32[2,2]",
		"%1 = reshape %0 : i32[4]",
		"%2 = neg %0 : i32[2,2]",
		"%3 = reshape %2 : i32[4]",
		"return %0, %1, %2, %3, %2, %0"))
	in := []int32{1, 2, 3, 4}
	outs, err := Run(g, []any{in})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{1, 2, 3, 4}, {1, 2, 3, 4}, {-1, -2, -3, -4}, {-1, -2, -3, -4}, {-1, -2, -3, -4}, {1, 2, 3, 4}}
	for i, w := range want {
		expect(t, fmt.Sprintf("output %d", i), outs[i], w)
	}
	// Writing to each output must change nothing else.
	for i := range outs {
		outs[i].([]int32)[0] = int32(100 + i)
	}
	expect(t, "input after writes", in, []int32{1, 2, 3, 4})
	for i := range outs {
		if got := outs[i].([]int32)[0]; got != int32(100+i) {
			t.Errorf("output %d shares memory: element 0 = %d", i, got)
		}
	}
}

func TestRunInto(t *testing.T) {
	g := mustParse(t, graph(
		"%0 = param 0 : f32[3]",
		"%1 = param 1 : f32[3]",
		"%2 = add %0, %1 : f32[3]",
		"%3 = gt %0, %1 : bool[3]",
		"return %2, %3"))
	a, b := []float32{1, 2, 3}, []float32{10, 0, 30}
	sum, gt := make([]float32, 3), make([]bool, 3)
	if err := RunInto(g, []any{a, b}, []any{sum, gt}); err != nil {
		t.Fatal(err)
	}
	expect(t, "sum", sum, []float32{11, 2, 33})
	expect(t, "gt", gt, []bool{false, true, false})

	// In place: the output buffer is also an input.
	if err := RunInto(g, []any{a, b}, []any{a, gt}); err != nil {
		t.Fatal(err)
	}
	expect(t, "in place", a, []float32{11, 2, 33})

	for _, tc := range []struct {
		name string
		outs []any
		want string
	}{
		{"count", []any{sum}, "got 1 output slices"},
		{"type", []any{sum, make([]uint8, 3)}, "output 1"},
		{"length", []any{make([]float32, 4), gt}, "got 4 elements, want 3"},
		{"nil", []any{nil, gt}, "output 0"},
	} {
		before := append([]float32{}, sum...)
		err := RunInto(g, []any{a, b}, tc.outs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
		expect(t, tc.name+": outputs untouched", sum, before)
	}
	if err := RunInto(g, []any{a}, []any{sum, gt}); err == nil {
		t.Error("RunInto with a missing input: no error")
	}
}

// TestChain runs a graph mixing kinds, so values flow between kernels of
// different dtypes and intermediates get released along the way.
func TestChain(t *testing.T) {
	// softmax over rows, then the argmax and a rounded cast.
	g := mustParse(t, graph(
		"%0 = param 0 : f64[2,3]",
		"%1 = reduce_max %0 axes=[1] : f64[2]",
		"%2 = reshape %1 : f64[2,1]",
		"%3 = broadcast %2 : f64[2,3]",
		"%4 = sub %0, %3 : f64[2,3]",
		"%5 = exp %4 : f64[2,3]",
		"%6 = reduce_sum %5 axes=[1] : f64[2]",
		"%7 = reshape %6 : f64[2,1]",
		"%8 = broadcast %7 : f64[2,3]",
		"%9 = div %5, %8 : f64[2,3]",
		"%10 = argmax %9 axes=[1] : i64[2]",
		"%11 = const 100 : f64[2,3]",
		"%12 = mul %9, %11 : f64[2,3]",
		"%13 = round %12 : f64[2,3]",
		"%14 = cast %13 : u8[2,3]",
		"return %10, %14"))
	outs, err := Run(g, []any{[]float64{0, 0, 0, 1, 3, 1}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "argmax", outs[0], []int64{0, 1})
	// e^2/(2+e^2) = 0.7869, 1/(2+e^2) = 0.1065.
	expect(t, "percent", outs[1], []uint8{33, 33, 33, 11, 79, 11})
}

func ExampleRun() {
	g, err := ir.Parse(`graph {
  %0 = param 0 : f32[4]
  %1 = const 0 : f32[4]
  %2 = max %0, %1 : f32[4]
  %3 = reduce_sum %2 axes=[0] : f32[]
  return %2, %3
}`)
	if err != nil {
		panic(err)
	}
	outs, err := Run(g, []any{[]float32{-1, 2, -3, 4}})
	if err != nil {
		panic(err)
	}
	fmt.Println(outs[0], outs[1])
	// Output: [0 2 0 4] [6]
}

func BenchmarkAddF32(b *testing.B) {
	const n = 1 << 20
	g := mustParse(b, graph(
		fmt.Sprintf("%%0 = param 0 : f32[%d]", n),
		fmt.Sprintf("%%1 = param 1 : f32[%d]", n),
		fmt.Sprintf("%%2 = add %%0, %%1 : f32[%d]", n),
		"return %2"))
	x, y := make([]float32, n), make([]float32, n)
	b.SetBytes(3 * 4 * n)
	for b.Loop() {
		if _, err := Run(g, []any{x, y}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReduceSumAxis0F32(b *testing.B) {
	g := mustParse(b, graph("%0 = param 0 : f32[1024,1024]", "%1 = reduce_sum %0 axes=[0] : f32[1024]", "return %1"))
	x := make([]float32, 1<<20)
	for b.Loop() {
		if _, err := Run(g, []any{x}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransposeF32(b *testing.B) {
	g := mustParse(b, graph("%0 = param 0 : f32[1024,1024]", "%1 = transpose %0 axes=[1,0] : f32[1024,1024]", "return %1"))
	x := make([]float32, 1<<20)
	for b.Loop() {
		if _, err := Run(g, []any{x}); err != nil {
			b.Fatal(err)
		}
	}
}
