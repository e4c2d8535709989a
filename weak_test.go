package gojit_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

var inf = math.Inf(1)

// weakCase is one op between a tensor and a weak scalar, with the answer
// worked out by hand (or by a plain Go loop in float64, which holds every
// value here exactly).
type weakCase struct {
	name string
	in   *gojit.Array
	f    func(x *gojit.Tensor) *gojit.Tensor
	want *gojit.Array
}

func ai32(v ...int32) *gojit.Array   { return gojit.FromInt32(v) }
func ai64(v ...int64) *gojit.Array   { return gojit.FromInt64(v) }
func au8(v ...uint8) *gojit.Array    { return gojit.FromUint8(v) }
func abool(v ...bool) *gojit.Array   { return gojit.FromBool(v) }
func af32(v ...float32) *gojit.Array { return gojit.FromFloat32(v) }

// Before the fix, a weak scalar that the tensor's integer dtype cannot hold
// was converted into that dtype anyway (int64(+Inf) and friends), giving
// wrong answers without an error, compiled and interpreted alike.
func TestWeakScalarNotRepresentable(t *testing.T) {
	s := gojit.Scalar
	x := ai32(-5, 0, 7)
	cases := []weakCase{
		// The examples of the report.
		{"i32<+Inf", x, func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(inf)) }, abool(true, true, true)},
		{"i32_min_+Inf", x, func(x *gojit.Tensor) *gojit.Tensor { return x.Minimum(s(inf)) }, af32(-5, 0, 7)},
		{"u8>-1", au8(0, 5), func(x *gojit.Tensor) *gojit.Tensor { return x.Greater(s(-1)) }, abool(true, true)},
		{"i64<1e19", ai64(0, 5), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(1e19)) }, abool(true, true)},
		{"where_-Inf", x, func(x *gojit.Tensor) *gojit.Tensor { return gojit.Where(x.Greater(s(0)), x, s(-inf)) }, af32(float32(-inf), float32(-inf), 7)},
		{"i32+3e9", ai32(1, -1), func(x *gojit.Tensor) *gojit.Tensor { return x.Add(s(3e9)) }, af32(float32(3e9)+1, float32(3e9)-1)},
		// Comparisons are exact, on either side.
		{"i32<2.5", ai32(1, 2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(2.5)) }, abool(true, true, false)},
		{"i32<=2.5", ai32(1, 2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.LessEqual(s(2.5)) }, abool(true, true, false)},
		{"i32>2.5", ai32(1, 2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.Greater(s(2.5)) }, abool(false, false, true)},
		{"i32>=2.5", ai32(1, 2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.GreaterEqual(s(2.5)) }, abool(false, false, true)},
		{"2.5<i32", ai32(1, 2, 3), func(x *gojit.Tensor) *gojit.Tensor { return s(2.5).Less(x) }, abool(false, false, true)},
		{"2.5>=i32", ai32(1, 2, 3), func(x *gojit.Tensor) *gojit.Tensor { return s(2.5).GreaterEqual(x) }, abool(true, true, false)},
		{"i32<-2.5", ai32(-3, -2), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(-2.5)) }, abool(true, false)},
		{"i32==2.5", ai32(2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.Equal(s(2.5)) }, abool(false, false)},
		{"i32!=2.5", ai32(2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.NotEqual(s(2.5)) }, abool(true, true)},
		{"i32==NaN", x, func(x *gojit.Tensor) *gojit.Tensor { return x.Equal(s(math.NaN())) }, abool(false, false, false)},
		{"i32!=NaN", x, func(x *gojit.Tensor) *gojit.Tensor { return x.NotEqual(s(math.NaN())) }, abool(true, true, true)},
		{"NaN<i32", x, func(x *gojit.Tensor) *gojit.Tensor { return s(math.NaN()).Less(x) }, abool(false, false, false)},
		{"i32>-Inf", x, func(x *gojit.Tensor) *gojit.Tensor { return x.Greater(s(-inf)) }, abool(true, true, true)},
		{"i32<=-Inf", x, func(x *gojit.Tensor) *gojit.Tensor { return x.LessEqual(s(-inf)) }, abool(false, false, false)},
		{"-Inf<i32", x, func(x *gojit.Tensor) *gojit.Tensor { return s(-inf).Less(x) }, abool(true, true, true)},
		{"i32==3e9", ai32(math.MaxInt32), func(x *gojit.Tensor) *gojit.Tensor { return x.Equal(s(3e9)) }, abool(false)},
		{"u8<256", au8(0, 255), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(256)) }, abool(true, true)},
		{"u8>=-0.5", au8(0, 255), func(x *gojit.Tensor) *gojit.Tensor { return x.GreaterEqual(s(-0.5)) }, abool(true, true)},
		{"u8==-0", au8(0, 255), func(x *gojit.Tensor) *gojit.Tensor { return x.Equal(s(math.Copysign(0, -1))) }, abool(true, false)},
		// 2^63 is one more than MaxInt64: converting it to int64 would
		// make the comparison false.
		{"i64<2^63", ai64(math.MaxInt64, math.MinInt64), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(1 << 63)) }, abool(true, true)},
		{"i64>=-2^63", ai64(math.MinInt64), func(x *gojit.Tensor) *gojit.Tensor { return x.GreaterEqual(s(-(1 << 63))) }, abool(true)},
		{"bool<0.5", abool(false, true), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(0.5)) }, abool(true, false)},
		{"bool>0.5", abool(false, true), func(x *gojit.Tensor) *gojit.Tensor { return x.Greater(s(0.5)) }, abool(false, true)},
		{"bool==2", abool(false, true), func(x *gojit.Tensor) *gojit.Tensor { return x.Equal(s(2)) }, abool(false, false)},
		{"bool==1", abool(false, true), func(x *gojit.Tensor) *gojit.Tensor { return x.Equal(s(1)) }, abool(false, true)},
		// Other ops go to Float32.
		{"u8+300", au8(0, 200), func(x *gojit.Tensor) *gojit.Tensor { return x.Add(s(300)) }, af32(300, 500)},
		{"i32*0.5", ai32(3, -3), func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(s(0.5)) }, af32(1.5, -1.5)},
		{"i32_max_NaN", ai32(3), func(x *gojit.Tensor) *gojit.Tensor { return x.Maximum(s(math.NaN())) }, af32(float32(math.NaN()))},
		{"i64-1e19", ai64(0), func(x *gojit.Tensor) *gojit.Tensor { return x.Sub(s(1e19)) }, af32(-1e19)},
		{"where_bool_2", abool(false, true), func(x *gojit.Tensor) *gojit.Tensor { return gojit.Where(x, x, s(2)) }, af32(2, 1)},
		// Representable scalars keep the tensor's dtype, as before.
		{"i32+2", ai32(math.MaxInt32), func(x *gojit.Tensor) *gojit.Tensor { return x.Add(s(2)) }, ai32(math.MinInt32 + 1)},
		{"u8*2", au8(200), func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(s(2)) }, au8(144)},
		{"i32<3", ai32(2, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(3)) }, abool(true, false)},
		{"f32<1e40", af32(3e38, float32(inf)), func(x *gojit.Tensor) *gojit.Tensor { return x.Less(s(1e40)) }, abool(true, false)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
				f, err := gojit.Compile(c.f, opts...)
				if err != nil {
					t.Fatal(err)
				}
				out, err := f.Call(c.in)
				if err != nil {
					t.Fatalf("%v", err)
				}
				if got, want := fmt.Sprint(out[0]), fmt.Sprint(c.want); got != want {
					t.Errorf("interpreted=%v: got %s, want %s", len(opts) > 0, got, want)
				}
			}
		})
	}
}

// Bool tensors still take part in no arithmetic, with or without a weak
// scalar.
func TestWeakScalarBoolArithmetic(t *testing.T) {
	fn := func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(gojit.Scalar(2)) }
	checkTraceError(t, fn, []any{abool(true)}, ": Mul: does not accept bool operands")
}

func TestFullValueChecked(t *testing.T) {
	for _, c := range []struct {
		dt   gojit.DType
		v    float64
		want string
	}{
		{gojit.Int32, 2.5, "2.5 is not a i32 value"},
		{gojit.Uint8, 300, "300 is not a u8 value"},
		{gojit.Uint8, -1, "-1 is not a u8 value"},
		{gojit.Int64, math.Inf(1), "+Inf is not a i64 value"},
		{gojit.Int32, math.NaN(), "NaN is not a i32 value"},
		{gojit.Bool, 2, "2 is not a bool value"},
	} {
		fn := func(x *gojit.Tensor) *gojit.Tensor { return x.Add(gojit.Full(c.dt, c.v, 2)) }
		checkTraceError(t, fn, []any{af32(1, 2)}, "weak_test.go:", ": Full: "+c.want)
	}
	// Exact values are fine, and Float32 rounds like a cast.
	f, _ := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
		return x.Add(gojit.Full(gojit.Int64, -(1 << 62), 2)), gojit.Full(gojit.Float32, 0.1, 1).Add(x.Cast(gojit.Float32))
	})
	out, err := f.Call(ai64(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(out[0], out[1]), fmt.Sprint(ai64(-(1<<62)+1, -(1<<62)+2), af32(1.1, 2.1)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// Scalar(v).Cast converts like Cast: saturating, NaN to 0.
func TestWeakScalarCast(t *testing.T) {
	f, _ := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
		return []*gojit.Tensor{
			x.Add(gojit.Scalar(300).Cast(gojit.Uint8)),
			x.Add(gojit.Scalar(-2.7).Cast(gojit.Uint8)),
			x.Cast(gojit.Int64).Add(gojit.Scalar(1e30).Cast(gojit.Int64)),
			x.Cast(gojit.Int64).Add(gojit.Scalar(math.NaN()).Cast(gojit.Int64)),
			x.Cast(gojit.Int32).Add(gojit.Scalar(-2.7).Cast(gojit.Int32)),
		}
	})
	out, err := f.Call(au8(0))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]*gojit.Array{au8(255), au8(0), ai64(math.MaxInt64), ai64(0), ai32(-2)})
	if got := fmt.Sprint(out); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestScalarArray(t *testing.T) {
	for _, c := range []struct {
		v    float64
		dt   gojit.DType
		want string
	}{
		{2, gojit.Int32, "i32[] [2]"},
		{-3, gojit.Int64, "i64[] [-3]"},
		{255, gojit.Uint8, "u8[] [255]"},
		{1, gojit.Bool, "bool[] [true]"},
		{0.1, gojit.Float32, "f32[] [0.1]"},
		{0.1, gojit.Float64, "f64[] [0.1]"},
	} {
		a := gojit.ScalarArray(c.v, c.dt)
		if a.Err() != nil || a.String() != c.want || len(a.Shape()) != 0 || a.Size() != 1 {
			t.Errorf("ScalarArray(%v, %s) = %s (err %v, shape %v), want %s", c.v, c.dt, a, a.Err(), a.Shape(), c.want)
		}
	}
	for _, c := range []struct {
		v  float64
		dt gojit.DType
	}{{2.5, gojit.Int32}, {256, gojit.Uint8}, {math.Inf(1), gojit.Int64}, {2, gojit.Bool}, {1, gojit.DType(42)}} {
		if a := gojit.ScalarArray(c.v, c.dt); a.Err() == nil {
			t.Errorf("ScalarArray(%v, %s) = %s, want an error", c.v, c.dt, a)
		}
	}
	// A scalar argument broadcasts in a call.
	f, _ := gojit.Compile(func(x, s *gojit.Tensor) *gojit.Tensor { return x.Mul(s) })
	out, err := f.Call(af32(1, 2), gojit.ScalarArray(3, gojit.Float32))
	if err != nil || fmt.Sprint(out[0]) != "f32[2] [3 6]" {
		t.Errorf("x * ScalarArray(3) = %v, %v", out, err)
	}
}

// The sums NumPy users expect: small integers accumulate in Int64, integer
// means are exact and Int64 means are Float64, reductions with no identity
// refuse empty axes.
func TestReductionSemantics(t *testing.T) {
	cases := []struct {
		name string
		in   *gojit.Array
		f    func(x *gojit.Tensor) *gojit.Tensor
		want string
	}{
		{"sum_u8", au8(200, 200, 100), func(x *gojit.Tensor) *gojit.Tensor { return x.Sum() }, "i64[] [500]"},
		{"sum_bool", abool(true, true, false), func(x *gojit.Tensor) *gojit.Tensor { return x.Sum() }, "i64[] [2]"},
		{"prod_u8", au8(200, 200), func(x *gojit.Tensor) *gojit.Tensor { return x.Prod() }, "i64[] [40000]"},
		{"sum_i32_wraps", ai32(math.MaxInt32, 1), func(x *gojit.Tensor) *gojit.Tensor { return x.Sum() }, "i32[] [-2147483648]"},
		// (2^41 + 1) / 2 needs Float64 (it was Float32).
		{"mean_i64", ai64(1<<40+1, 1<<40), func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, fmt.Sprintf("f64[] [%v]", 1099511627776.5)},
		{"mean_i64_big", ai64(math.MaxInt64/2, math.MaxInt64/2), func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, "f64[] [4.611686018427388e+18]"},
		{"mean_i32", ai32(1<<30, 1<<30, 1<<30), func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, "f32[] [1.0737418e+09]"},
		{"mean_u8", au8(255, 255, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, "f32[] [170]"},
		{"mean_bool", abool(true, false, false, false), func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, "f32[] [0.25]"},
		{"mean_empty", gojit.New(gojit.Int32, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, "f32[] [NaN]"},
		{"sum_empty", gojit.New(gojit.Float32, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Sum() }, "f32[] [0]"},
		{"prod_empty", gojit.New(gojit.Int32, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Prod() }, "i32[] [1]"},
		{"max_nonempty_axis", gojit.New(gojit.Float32, 0, 3), func(x *gojit.Tensor) *gojit.Tensor { return x.Max(1) }, "f32[0] []"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
				f, _ := gojit.Compile(c.f, opts...)
				out, err := f.Call(c.in)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(out[0]); got != c.want {
					t.Errorf("interpreted=%v: got %s, want %s", len(opts) > 0, got, c.want)
				}
			}
		})
	}
	empty := []struct {
		name string
		in   *gojit.Array
		f    func(x *gojit.Tensor) *gojit.Tensor
		want string
	}{
		{"max", gojit.New(gojit.Float32, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Max() }, ": Max: axis 0 of shape [0] is empty"},
		{"min_axis", gojit.New(gojit.Int32, 2, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Min(1) }, ": Min: axis 1 of shape [2,0] is empty"},
		{"argmax", gojit.New(gojit.Float32, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.ArgMax() }, ": ArgMax: axis 0 of shape [0] is empty"},
		{"argmin_axis", gojit.New(gojit.Float32, 0, 2), func(x *gojit.Tensor) *gojit.Tensor { return x.ArgMin(0) }, ": ArgMin: axis 0 of shape [0,2] is empty"},
		{"reduce_max_keep", gojit.New(gojit.Float64, 3, 0), func(x *gojit.Tensor) *gojit.Tensor { return x.Reduce(gojit.ReduceMax, true, -1) }, ": Reduce: axis 1 of shape [3,0] is empty"},
	}
	for _, c := range empty {
		t.Run("empty_"+c.name, func(t *testing.T) { checkTraceError(t, c.f, []any{c.in}, "weak_test.go:", c.want) })
	}
}

// A static parameter accepts any Go number that converts to its type
// exactly, and the converted value is the signature.
func TestStaticNumberConversion(t *testing.T) {
	scale := func(x *gojit.Tensor, k float64) *gojit.Tensor { return x.Mul(gojit.Scalar(k)) }
	f, err := gojit.Compile(scale)
	if err != nil {
		t.Fatal(err)
	}
	x := af32(1, 2)
	for _, k := range []any{2, 2.0, int8(2), uint(2), float32(2)} {
		out, err := f.Call(x, k)
		if err != nil {
			t.Fatalf("Call(x, %T(%v)): %v", k, k, err)
		}
		if got := fmt.Sprint(out[0]); got != "f32[2] [2 4]" {
			t.Errorf("Call(x, %T(%v)) = %s", k, k, got)
		}
	}
	if st := f.Stats(); st.Traces != 1 {
		t.Errorf("%d traces for one value given as five types, want 1", st.Traces)
	}
	shift := func(x *gojit.Tensor, n int32, u uint8, g float32) *gojit.Tensor {
		return x.Add(gojit.Scalar(float64(n) + float64(u) + float64(g)))
	}
	g, _ := gojit.Compile(shift)
	if _, err := g.Call(x, 3.0, 4, 0.5); err != nil {
		t.Errorf("Call(x, 3.0, 4, 0.5): %v", err)
	}
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{x, 2.5, 4, 0.5}, "argument 1: float64 2.5 does not convert exactly to int32"},
		{[]any{x, 3, 300, 0.5}, "argument 2: int 300 does not convert exactly to uint8"},
		{[]any{x, 3, -1, 0.5}, "argument 2: int -1 does not convert exactly to uint8"},
		{[]any{x, 3, 4, 0.1}, "argument 3: float64 0.1 does not convert exactly to float32"},
		{[]any{x, 1 << 40, 4, 0.5}, "argument 1: int 1099511627776 does not convert exactly to int32"},
		{[]any{x, "3", 4, 0.5}, "argument 1: is string, want int32"},
	} {
		_, err := g.Call(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Call(%v) error %v, want %q", c.args[1:], err, c.want)
		}
	}
}
