package interp

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

type unaryCase struct {
	op       string
	in, want any
}

func TestUnary(t *testing.T) {
	f32 := func(xs ...float32) []float32 { return xs }
	f64 := func(xs ...float64) []float64 { return xs }
	// sigmoid(2) in float32 is 1/(1+float32(e^-2)) in float32 arithmetic,
	// which is one ulp below the correctly rounded 0x3f617beb.
	sig2 := math.Float32frombits(0x3f617bea)
	rs2 := float32(1)
	rs2 /= float32(math.Sqrt2)
	// Likewise 1/sqrt(2) in float64 is a division by the rounded root, one
	// ulp below the correctly rounded reciprocal a constant would give.
	rs2d := 1.0
	rs2d /= math.Sqrt2
	for _, tc := range []unaryCase{
		{"neg", []uint8{0, 1, 255, 128}, []uint8{0, 255, 1, 128}},
		{"neg", []int32{1, -2, minI32, 0}, []int32{-1, 2, minI32, 0}},
		{"neg", []int64{1, -2, minI64, maxI64}, []int64{-1, 2, minI64, -maxI64}},
		{"neg", f32(1.5, 0, nz32, nan32, inf32), f32(-1.5, nz32, 0, nan32, -inf32)},
		{"neg", f64(1.5, 0, nz64, nan64, -inf64), f64(-1.5, nz64, 0, nan64, inf64)},

		{"abs", []uint8{200, 0, 1}, []uint8{200, 0, 1}},
		{"abs", []int32{-3, 3, minI32, 0}, []int32{3, 3, minI32, 0}},
		{"abs", []int64{-3, minI64, maxI64}, []int64{3, minI64, maxI64}},
		{"abs", f32(nz32, -2.5, nan32, -inf32, 1), f32(0, 2.5, nan32, inf32, 1)},
		{"abs", f64(nz64, -2.5, nan64, -inf64), f64(0, 2.5, nan64, inf64)},

		// exp(89) fits a float64 but not a float32.
		{"exp", f32(0, 1, float32(math.Inf(-1)), nan32, 89), f32(1, float32(math.E), 0, nan32, inf32)},
		{"exp", f64(0, 89, math.Inf(-1), nan64, 710), f64(1, math.Exp(89), 0, nan64, inf64)},
		{"log", f32(1, 0, -1, inf32, nan32, 0.5), f32(0, -inf32, nan32, inf32, nan32, float32(-math.Ln2))},
		{"log", f64(1, 0, -1, math.E, 0.5), f64(0, -inf64, nan64, 1, -math.Ln2)},
		{"sqrt", f32(4, 2, -1, nz32, inf32, 0), f32(2, float32(math.Sqrt2), nan32, nz32, inf32, 0)},
		{"sqrt", f64(4, 2, -1, nz64, 0.25), f64(2, math.Sqrt2, nan64, nz64, 0.5)},
		{"rsqrt", f32(4, 0, inf32, -1, 2, nz32), f32(0.5, inf32, 0, nan32, rs2, -inf32)},
		{"rsqrt", f64(4, 0, 0.25, 2), f64(0.5, inf64, 2, rs2d)},
		// sin of float32(π/2) is 1 - 1.9e-15, which rounds to 1 in float32.
		{"sin", f32(0, nz32, float32(math.Pi/2), inf32, nan32), f32(0, nz32, 1, nan32, nan32)},
		{"sin", f64(0, nz64, math.Pi/2, inf64), f64(0, nz64, 1, nan64)},
		{"cos", f32(0, float32(math.Pi), nan32), f32(1, -1, nan32)},
		{"cos", f64(0, math.Pi, inf64), f64(1, -1, nan64)},
		{"tanh", f32(0, nz32, inf32, -inf32, 0.5), f32(0, nz32, 1, -1, 0.46211717)},
		{"tanh", f64(0, inf64, -inf64, nan64, 20), f64(0, 1, -1, nan64, 1)},
		// exp(100) overflows float32, so sigmoid(-100) is exactly 0 there
		// but not in float64.
		{"sigmoid", f32(0, -inf32, inf32, -100, nan32, 2, 1), f32(0.5, 0, 1, 0, nan32, sig2, 0.7310586)},
		{"sigmoid", f64(0, -inf64, inf64, nan64), f64(0.5, 0, 1, nan64)},

		{"floor", f32(-1.5, -0.5, 0.5, 1.5, 2.5, -2.5, 2.7, -2.7, nz32, inf32, nan32, 1e30),
			f32(-2, -1, 0, 1, 2, -3, 2, -3, nz32, inf32, nan32, 1e30)},
		{"floor", f64(-1.5, -0.5, 0.5, 2.7, -2.7, 4503599627370497.0), f64(-2, -1, 0, 2, -3, 4503599627370497.0)},
		{"ceil", f32(-1.5, -0.5, 0.5, 1.5, 2.5, -2.5, 2.7, -2.7, -inf32),
			f32(-1, nz32, 1, 2, 3, -2, 3, -2, -inf32)},
		{"ceil", f64(-1.5, -0.5, 0.5, 2.7, nan64), f64(-1, nz64, 1, 3, nan64)},
		{"round", f32(-1.5, -0.5, 0.5, 1.5, 2.5, -2.5, 2.7, -2.7, 3.5, 0.49999997, inf32, nan32),
			f32(-2, nz32, 0, 2, 2, -2, 3, -3, 4, 0, inf32, nan32)},
		{"round", f64(0.5, 1.5, 2.5, -2.5, -0.5, 0.49999999999999994), f64(0, 2, 2, -2, nz64, 0)},
		{"floor", []uint8{0, 7, 255}, []uint8{0, 7, 255}},
		{"ceil", []int32{-7, minI32}, []int32{-7, minI32}},
		{"round", []int64{-7, maxI64}, []int64{-7, maxI64}},
		{"round", []uint8{3}, []uint8{3}},
		{"floor", []int64{-1}, []int64{-1}},
		{"ceil", []uint8{9}, []uint8{9}},
		{"round", []int32{-5}, []int32{-5}},
	} {
		typ := vecType(tc.in)
		text := graph("%0 = param 0 : "+typ, "%1 = "+tc.op+" %0 : "+typ, "return %1")
		expect(t, fmt.Sprintf("%s %s %v", tc.op, typ, tc.in), run1(t, text, tc.in), tc.want)
	}
}

type binaryCase struct {
	op         string
	a, b, want any
}

func TestBinary(t *testing.T) {
	f32 := func(xs ...float32) []float32 { return xs }
	f64 := func(xs ...float64) []float64 { return xs }
	third32 := float32(1)
	third32 /= 3
	for _, tc := range []binaryCase{
		{"add", []uint8{250, 1}, []uint8{10, 2}, []uint8{4, 3}},
		{"add", []int32{maxI32, -5}, []int32{1, 3}, []int32{minI32, -2}},
		{"add", []int64{maxI64, -5}, []int64{1, 3}, []int64{minI64, -2}},
		// 2^24 + 1 is not a float32: the sum is done in float32.
		{"add", f32(16777216, 0.5, nz32, nz32, inf32), f32(1, 0.25, 0, nz32, -inf32),
			f32(16777216, 0.75, 0, nz32, nan32)},
		{"add", f64(16777216, 1e308), f64(1, 1e308), f64(16777217, inf64)},
		{"sub", []uint8{3, 10}, []uint8{5, 3}, []uint8{254, 7}},
		{"sub", []int32{minI32, 5}, []int32{1, 7}, []int32{maxI32, -2}},
		{"sub", []int64{minI64, 5}, []int64{1, 7}, []int64{maxI64, -2}},
		{"sub", f32(0, nz32, 1, 16777216), f32(0, 0, 3, -1), f32(0, nz32, -2, 16777216)},
		{"sub", f64(0, nz64, 1), f64(0, 0, 3), f64(0, nz64, -2)},
		{"mul", []uint8{16, 15, 3}, []uint8{16, 17, 5}, []uint8{0, 255, 15}},
		{"mul", []int32{65536, -3, 46341}, []int32{65536, 7, 46341}, []int32{0, -21, -2147479015}},
		{"mul", []int64{1 << 32, -3}, []int64{1 << 32, 7}, []int64{0, -21}},
		{"mul", f32(1e20, 3, -2, 0), f32(1e20, third32, 0, inf32), f32(inf32, 1, nz32, nan32)},
		{"mul", f64(1e20, -2), f64(1e20, 0), f64(1e40, nz64)},

		{"div", []uint8{200, 7, 5, 0, 255}, []uint8{3, 2, 0, 0, 255}, []uint8{66, 3, 0, 0, 1}},
		{"div", []int32{7, -7, 7, -7, 5, minI32, 0, -5}, []int32{2, 2, -2, -2, 0, -1, 0, 0},
			[]int32{3, -3, -3, 3, 0, minI32, 0, 0}},
		{"div", []int64{7, -7, minI64, 9, minI64}, []int64{-2, 2, -1, 0, 1}, []int64{-3, -3, minI64, 0, minI64}},
		{"div", f32(1, -1, 0, 1, 1, nan32), f32(0, 0, 0, nz32, 3, 1), f32(inf32, -inf32, nan32, -inf32, third32, nan32)},
		{"div", f64(1, -1, 0, 1), f64(0, 0, 0, 3), f64(inf64, -inf64, nan64, 1.0/3)},

		{"pow", f32(2, 2, 0, -8, nan32, 1, 2), f32(10, 0.5, -1, 1.0/3, 0, nan32, 200),
			f32(1024, float32(math.Sqrt2), inf32, nan32, 1, 1, inf32)},
		{"pow", f64(2, 2, 0, -8, 2), f64(10, 0.5, -1, 1.0/3, 200), f64(1024, math.Sqrt2, inf64, nan64, 0x1p200)},

		{"max", []uint8{200, 3}, []uint8{100, 4}, []uint8{200, 4}},
		{"max", []int32{minI32, 5}, []int32{0, -5}, []int32{0, 5}},
		{"max", []int64{minI64, 5}, []int64{maxI64, -5}, []int64{maxI64, 5}},
		{"max", f32(1, nan32, 2, nz32, 0, -inf32), f32(2, 1, nan32, 0, nz32, 3), f32(2, nan32, nan32, 0, 0, 3)},
		{"max", f64(1, nan64, 2, nz64, 0), f64(2, 1, nan64, 0, nz64), f64(2, nan64, nan64, 0, 0)},
		{"min", []uint8{200, 3}, []uint8{100, 4}, []uint8{100, 3}},
		{"min", []int32{minI32, 5}, []int32{0, -5}, []int32{minI32, -5}},
		{"min", []int64{minI64, 5}, []int64{maxI64, -5}, []int64{minI64, -5}},
		{"min", f32(1, nan32, 2, nz32, 0, -inf32), f32(2, 1, nan32, 0, nz32, 3), f32(1, nan32, nan32, nz32, nz32, -inf32)},
		{"min", f64(1, nan64, 2, nz64, 0), f64(2, 1, nan64, 0, nz64), f64(1, nan64, nan64, nz64, nz64)},
	} {
		typ := vecType(tc.a)
		text := graph("%0 = param 0 : "+typ, "%1 = param 1 : "+typ, "%2 = "+tc.op+" %0, %1 : "+typ, "return %2")
		got, err := Run(mustParse(t, text), []any{tc.a, tc.b})
		if err != nil {
			t.Fatal(err)
		}
		expect(t, fmt.Sprintf("%s %s %v %v", tc.op, typ, tc.a, tc.b), got[0], tc.want)
	}
}

func TestCompare(t *testing.T) {
	const T, F = true, false
	ops := []string{"eq", "ne", "lt", "le", "gt", "ge"}
	for _, tc := range []struct {
		a, b any
		want [6][]bool // in the order of ops
	}{
		{[]float32{1, 2, nan32, 1, nz32, nan32}, []float32{2, 2, 1, nan32, 0, nan32}, [6][]bool{
			{F, T, F, F, T, F}, {T, F, T, T, F, T}, {T, F, F, F, F, F},
			{T, T, F, F, T, F}, {F, F, F, F, F, F}, {F, T, F, F, T, F}}},
		{[]float64{1, 2, nan64, -inf64}, []float64{2, 2, 1, -inf64}, [6][]bool{
			{F, T, F, T}, {T, F, T, F}, {T, F, F, F}, {T, T, F, T}, {F, F, F, F}, {F, T, F, T}}},
		// 200 > 100 only if compared unsigned.
		{[]uint8{200, 1, 5}, []uint8{100, 1, 6}, [6][]bool{
			{F, T, F}, {T, F, T}, {F, F, T}, {F, T, T}, {T, F, F}, {T, T, F}}},
		{[]int32{-1, 0, 3}, []int32{1, 0, 2}, [6][]bool{
			{F, T, F}, {T, F, T}, {T, F, F}, {T, T, F}, {F, F, T}, {F, T, T}}},
		{[]int64{minI64, 0, maxI64}, []int64{maxI64, 0, minI64}, [6][]bool{
			{F, T, F}, {T, F, T}, {T, F, F}, {T, T, F}, {F, F, T}, {F, T, T}}},
		{[]bool{F, F, T, T}, []bool{F, T, F, T}, [6][]bool{
			{T, F, F, T}, {F, T, T, F}, {F, T, F, F}, {T, T, F, T}, {F, F, T, F}, {T, F, T, T}}},
	} {
		typ := vecType(tc.a)
		for i, op := range ops {
			text := graph("%0 = param 0 : "+typ, "%1 = param 1 : "+typ,
				fmt.Sprintf("%%2 = %s %%0, %%1 : bool[%d]", op, len(tc.want[i])), "return %2")
			got, err := Run(mustParse(t, text), []any{tc.a, tc.b})
			if err != nil {
				t.Fatal(err)
			}
			expect(t, fmt.Sprintf("%s %s %v %v", op, typ, tc.a, tc.b), got[0], tc.want[i])
		}
	}
}

func TestWhere(t *testing.T) {
	c := []bool{true, false, false, true}
	for _, tc := range []struct{ a, b, want any }{
		{[]bool{true, true, false, false}, []bool{false, true, true, true}, []bool{true, true, true, false}},
		{[]uint8{1, 2, 3, 4}, []uint8{5, 6, 7, 8}, []uint8{1, 6, 7, 4}},
		{[]int32{1, 2, 3, 4}, []int32{-5, -6, -7, -8}, []int32{1, -6, -7, 4}},
		{[]int64{1, 2, 3, 4}, []int64{-5, -6, -7, -8}, []int64{1, -6, -7, 4}},
		{[]float32{nan32, 2, 3, nz32}, []float32{5, nan32, 7, 8}, []float32{nan32, nan32, 7, nz32}},
		{[]float64{1, 2, 3, 4}, []float64{5, 6, nz64, 8}, []float64{1, 6, nz64, 4}},
	} {
		typ := vecType(tc.a)
		text := graph("%0 = param 0 : bool[4]", "%1 = param 1 : "+typ, "%2 = param 2 : "+typ,
			"%3 = where %0, %1, %2 : "+typ, "return %3")
		got, err := Run(mustParse(t, text), []any{c, tc.a, tc.b})
		if err != nil {
			t.Fatal(err)
		}
		expect(t, "where "+typ, got[0], tc.want)
	}
}

func TestCast(t *testing.T) {
	const T, F = true, false
	f32 := func(xs ...float32) []float32 { return xs }
	f64 := func(xs ...float64) []float64 { return xs }
	for _, tc := range []struct {
		to       string
		in, want any
	}{
		// float to int32: truncate, saturate, NaN -> 0. 2147483520 is the
		// largest float32 below 2^31.
		{"i32", f32(1.9, -1.9, 3e9, -3e9, nan32, inf32, -inf32, nz32, 2147483520, 2147483648, -2147483648),
			[]int32{1, -1, maxI32, minI32, 0, maxI32, minI32, 0, 2147483520, maxI32, minI32}},
		{"i32", f64(2147483647.9, -2147483648.9, 2147483648, -2147483649, nan64, -0.99),
			[]int32{maxI32, minI32, maxI32, minI32, 0, 0}},
		{"i64", f64(1e19, -1e19, nan64, 9.2e18, -9223372036854775808, inf64, -inf64, -2.5),
			[]int64{maxI64, minI64, 0, 9200000000000000000, minI64, maxI64, minI64, -2}},
		{"i64", f32(1e19, -1e19, -2.5, nan32, 9223372036854775808), []int64{maxI64, minI64, -2, 0, maxI64}},
		{"u8", f32(-1, -0.5, 0.5, 255.5, 256, 300, nan32, inf32, -inf32, 127.9, 1),
			[]uint8{0, 0, 0, 255, 255, 255, 0, 255, 0, 127, 1}},
		{"u8", f64(254.99, -1e10, 1e10, nan64, 128.5), []uint8{254, 0, 255, 0, 128}},
		{"bool", f32(0, nz32, nan32, 0.1, -inf32), []bool{F, F, T, T, T}},
		{"bool", f64(0, nz64, nan64, 1e-300), []bool{F, F, T, T}},
		{"bool", []int32{0, -1, 2}, []bool{F, T, T}},
		{"bool", []uint8{0, 255}, []bool{F, T}},
		{"bool", []int64{0, minI64, 1 << 40}, []bool{F, T, T}},
		{"bool", []bool{T, F}, []bool{T, F}},
		{"f32", []bool{F, T}, f32(0, 1)},
		{"f64", []bool{T, F}, f64(1, 0)},
		{"i32", []bool{F, T}, []int32{0, 1}},
		{"i64", []bool{T, T}, []int64{1, 1}},
		{"u8", []bool{T, F}, []uint8{1, 0}},
		// Integer narrowing wraps; widening extends by the source's sign.
		{"i32", []int64{1<<32 + 5, -1, 1 << 31}, []int32{5, -1, minI32}},
		{"u8", []int32{256, -1, 300}, []uint8{0, 255, 44}},
		{"u8", []int64{-256, 511}, []uint8{0, 255}},
		{"i64", []int32{-1, minI32}, []int64{-1, -2147483648}},
		{"i32", []uint8{255, 128}, []int32{255, 128}},
		{"i64", []uint8{255}, []int64{255}},
		{"u8", []uint8{7}, []uint8{7}},
		{"i32", []int32{-7}, []int32{-7}},
		{"i64", []int64{minI64}, []int64{minI64}},
		// Integer to float rounds once, to nearest even: 2^60+2^36+1 is just
		// above a float32 tie, which rounding through float64 would turn
		// into an exact tie and round down to 2^60.
		{"f32", []int64{1<<60 + 1<<36 + 1, 16777217, -16777219, maxI64}, f32(1<<60+1<<37, 16777216, -16777220, 9223372036854775808)},
		{"f64", []int64{1<<53 + 1, 1<<53 + 3, minI64}, f64(1<<53, 1<<53+4, -9223372036854775808)},
		{"f32", []int32{16777217, maxI32, minI32}, f32(16777216, 2147483648, -2147483648)},
		{"f64", []int32{maxI32}, f64(2147483647)},
		{"f32", []uint8{255, 0}, f32(255, 0)},
		{"f64", []uint8{200}, f64(200)},
		// 1+2^-24 is a tie between 1 and 1+2^-23: to even.
		{"f32", f64(0.1, 1e40, -1e-50, nan64, 1+0x1p-24, 1+0x1p-24+0x1p-50, -inf64),
			f32(float32(0.1), inf32, nz32, nan32, 1, 1+0x1p-23, -inf32)},
		{"f64", f32(0.1, nz32, inf32), f64(0.10000000149011612, nz64, inf64)},
		{"f32", f32(nz32, nan32, 3), f32(nz32, nan32, 3)},
		{"f64", f64(nz64, 3), f64(nz64, 3)},
	} {
		typ := vecType(tc.in)
		text := graph("%0 = param 0 : "+typ, fmt.Sprintf("%%1 = cast %%0 : %s[%d]", tc.to, reflect.ValueOf(tc.in).Len()), "return %1")
		expect(t, fmt.Sprintf("cast %s %v to %s", typ, tc.in, tc.to), run1(t, text, tc.in), tc.want)
	}
}

func TestConst(t *testing.T) {
	for _, tc := range []struct {
		node string
		want any
	}{
		{"const 0.1 : f32[2]", []float32{float32(0.1), float32(0.1)}},
		{"const 1e40 : f32[1]", []float32{inf32}},
		{"const -0 : f32[]", []float32{nz32}},
		{"const nan : f64[]", []float64{nan64}},
		{"const -inf : f64[2]", []float64{-inf64, -inf64}},
		{"const 0.1 : f64[1]", []float64{0.1}},
		{"const 3000000000 : i32[1]", []int32{-1294967296}},
		{"const -7 : i32[2,1]", []int32{-7, -7}},
		{"const 300 : u8[2]", []uint8{44, 44}},
		{"const -1 : u8[1]", []uint8{255}},
		{"const -3 : i64[2,2]", []int64{-3, -3, -3, -3}},
		{"const true : bool[3]", []bool{true, true, true}},
		{"const false : bool[]", []bool{false}},
		{"const 2 : f32[0,3]", []float32{}},
		{"const 2 : i64[3,0]", []int64{}},
	} {
		text := graph("%0 = "+tc.node, "return %0")
		expect(t, tc.node, run1(t, text), tc.want)
	}
}

func TestIota(t *testing.T) {
	u8s := make([]uint8, 300)
	for i := range u8s {
		u8s[i] = uint8(i % 256)
	}
	for _, tc := range []struct {
		node string
		want any
	}{
		{"iota axes=[1] : i32[2,3]", []int32{0, 1, 2, 0, 1, 2}},
		{"iota axes=[0] : i32[2,3]", []int32{0, 0, 0, 1, 1, 1}},
		{"iota axes=[0] : u8[300]", u8s},
		{"iota axes=[2] : f32[1,2,2]", []float32{0, 1, 0, 1}},
		{"iota axes=[1] : f64[2,2,1]", []float64{0, 1, 0, 1}},
		{"iota axes=[0] : i64[3]", []int64{0, 1, 2}},
		{"iota axes=[1] : i64[0,3]", []int64{}},
		{"iota axes=[0] : i32[4,0]", []int32{}},
	} {
		text := graph("%0 = "+tc.node, "return %0")
		expect(t, tc.node, run1(t, text), tc.want)
	}
}

// TestElementwiseScalarAndEmpty covers 0-d and zero-size operands going
// through the elementwise kernels.
func TestElementwiseScalarAndEmpty(t *testing.T) {
	text := graph("%0 = param 0 : f32[]", "%1 = param 1 : f32[]", "%2 = mul %0, %1 : f32[]",
		"%3 = exp %2 : f32[]", "%4 = lt %2, %3 : bool[]", "return %2, %3, %4")
	outs, err := Run(mustParse(t, text), []any{[]float32{2}, []float32{nz32}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "scalar mul", outs[0], []float32{nz32})
	expect(t, "scalar exp", outs[1], []float32{1})
	expect(t, "scalar lt", outs[2], []bool{true})

	text = graph("%0 = param 0 : i32[2,0]", "%1 = div %0, %0 : i32[2,0]", "%2 = cast %1 : f64[2,0]",
		"%3 = ge %2, %2 : bool[2,0]", "%4 = where %3, %2, %2 : f64[2,0]", "return %4")
	expect(t, "empty chain", run1(t, text, []int32{}), []float64{})
}

// TestExpNearOverflow: exp64 stays finite up to the true overflow point,
// within 2 ulps of glibc's exp (the known answers below).
func TestExpNearOverflow(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{709.437, 1.2722555614585495e+308},
		{709.5, 1.3549863193146328e+308},
		{709.78, 1.7928227943945155e+308},
		{709.79, math.Inf(1)},
		{700, math.Exp(700)},
	} {
		got := exp64(c.x)
		if math.IsInf(c.want, 1) {
			if !math.IsInf(got, 1) {
				t.Errorf("exp64(%v) = %v, want +Inf", c.x, got)
			}
			continue
		}
		a, b := math.Float64bits(got), math.Float64bits(c.want)
		if max(a, b)-min(a, b) > 2 {
			t.Errorf("exp64(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
