package interp

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

// Values the tables use often. Negative zero needs Copysign: the constant
// -0.0 is +0 in Go.
var (
	nan32  = float32(math.NaN())
	inf32  = float32(math.Inf(1))
	nz32   = float32(math.Copysign(0, -1))
	nan64  = math.NaN()
	inf64  = math.Inf(1)
	nz64   = math.Copysign(0, -1)
	minI32 = int32(math.MinInt32)
	maxI32 = int32(math.MaxInt32)
	minI64 = int64(math.MinInt64)
	maxI64 = int64(math.MaxInt64)
)

func mustParse(t testing.TB, text string) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(text)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	return g
}

// graph wraps node lines in the graph text syntax.
func graph(lines ...string) string {
	return "graph {\n  " + strings.Join(lines, "\n  ") + "\n}\n"
}

// dtName is the IR name of the dtype whose Go slice type x has, written out
// here rather than taken from the package so a mix-up there cannot hide.
func dtName(x any) string {
	switch x.(type) {
	case []bool:
		return "bool"
	case []uint8:
		return "u8"
	case []int32:
		return "i32"
	case []int64:
		return "i64"
	case []float32:
		return "f32"
	case []float64:
		return "f64"
	}
	panic(fmt.Sprintf("no dtype for %T", x))
}

func vecType(x any) string {
	return fmt.Sprintf("%s[%d]", dtName(x), reflect.ValueOf(x).Len())
}

func run1(t *testing.T, text string, inputs ...any) any {
	t.Helper()
	outs, err := Run(mustParse(t, text), inputs)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, text)
	}
	if len(outs) != 1 {
		t.Fatalf("Run returned %d outputs, want 1", len(outs))
	}
	return outs[0]
}

// same compares element by element. Floats must match bit for bit (so -0
// and +0 differ), except that any NaN matches any NaN: payloads are not
// part of the semantics.
func same(got, want any) bool {
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		return false
	}
	switch w := want.(type) {
	case []float32:
		g := got.([]float32)
		if len(g) != len(w) {
			return false
		}
		for i := range w {
			if !(g[i] != g[i] && w[i] != w[i]) && math.Float32bits(g[i]) != math.Float32bits(w[i]) {
				return false
			}
		}
		return true
	case []float64:
		g := got.([]float64)
		if len(g) != len(w) {
			return false
		}
		for i := range w {
			if !(g[i] != g[i] && w[i] != w[i]) && math.Float64bits(g[i]) != math.Float64bits(w[i]) {
				return false
			}
		}
		return true
	}
	return reflect.ValueOf(got).Len() == reflect.ValueOf(want).Len() &&
		(reflect.ValueOf(want).Len() == 0 || reflect.DeepEqual(got, want))
}

// show prints floats with their sign of zero visible.
func show(x any) string {
	switch s := x.(type) {
	case []float32:
		parts := make([]string, len(s))
		for i, v := range s {
			parts[i] = fmt.Sprintf("%v(%08x)", v, math.Float32bits(v))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case []float64:
		parts := make([]string, len(s))
		for i, v := range s {
			parts[i] = fmt.Sprintf("%v(%016x)", v, math.Float64bits(v))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprintf("%T%v", x, x)
}

func expect(t *testing.T, name string, got, want any) {
	t.Helper()
	if !same(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", name, show(got), show(want))
	}
}

// TestSame makes sure the comparison the tables rely on can fail.
func TestSame(t *testing.T) {
	for _, tc := range []struct {
		a, b any
		eq   bool
	}{
		{[]float32{0}, []float32{nz32}, false},
		{[]float32{nan32}, []float32{float32(math.Copysign(math.NaN(), -1))}, true},
		{[]float32{1}, []float64{1}, false},
		{[]float64{1, 2}, []float64{1}, false},
		{[]int32{}, []int32(nil), true},
		{[]bool{true}, []bool{false}, false},
		{[]uint8{1, 2}, []uint8{1, 2}, true},
	} {
		if same(tc.a, tc.b) != tc.eq {
			t.Errorf("same(%v, %v) = %v", tc.a, tc.b, !tc.eq)
		}
	}
}
