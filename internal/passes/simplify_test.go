package passes

import (
	"math"
	"testing"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
)

// unchanged is a case whose graph Simplify must leave as it is: each is an
// identity that fails for some input, named in the case.
func unchanged(name string, lines ...string) rewriteCase {
	text := graphText(lines...)
	return rewriteCase{name: name, in: text, want: text}
}

func TestSimplifyArithmetic(t *testing.T) {
	runCases(t, Simplify, []rewriteCase{
		{
			name: "x*1 and 1*x",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 1 : f32[4]",
				"%2 = mul %0, %1 : f32[4]",
				"%3 = mul %1, %2 : f32[4]",
				"%4 = exp %3 : f32[4]",
				"return %4"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = exp %0 : f32[4]",
				"return %1"),
		},
		{
			name: "float x + -0 and x - +0; integer x + 0",
			in: graphText(
				"%0 = param 0 : f64[4]",
				"%1 = const -0 : f64[4]",
				"%2 = add %0, %1 : f64[4]",
				"%3 = const 0 : f64[4]",
				"%4 = sub %2, %3 : f64[4]",
				"%5 = param 1 : i32[4]",
				"%6 = const 0 : i32[4]",
				"%7 = add %6, %5 : i32[4]",
				"return %4, %7"),
			want: graphText(
				"%0 = param 0 : f64[4]",
				"%1 = param 1 : i32[4]",
				"return %0, %1"),
		},
		unchanged("float x + +0 (-0 + +0 = +0)",
			"%0 = param 0 : f32[4]",
			"%1 = const 0 : f32[4]",
			"%2 = add %0, %1 : f32[4]",
			"return %2"),
		unchanged("float x - -0, x*0 and 0 - x (NaN, Inf, signed zeros)",
			"%0 = param 0 : f32[4]",
			"%1 = const -0 : f32[4]",
			"%2 = sub %0, %1 : f32[4]",
			"%3 = const 0 : f32[4]",
			"%4 = mul %2, %3 : f32[4]",
			"%5 = sub %3, %4 : f32[4]",
			"return %5"),
		{
			name: "-0 - x, x * -1 and x / -1 are neg x",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const -0 : f32[4]",
				"%2 = sub %1, %0 : f32[4]",
				"%3 = const -1 : f32[4]",
				"%4 = mul %0, %3 : f32[4]",
				"%5 = div %0, %3 : f32[4]",
				"return %2, %4, %5"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = neg %0 : f32[4]",
				"%2 = neg %0 : f32[4]",
				"%3 = neg %0 : f32[4]",
				"return %1, %2, %3"),
		},
		{
			name: "integer identities: x*0, x-x, 0-x, u8 x*255",
			in: graphText(
				"%0 = param 0 : i64[3]",
				"%1 = const 0 : i64[3]",
				"%2 = mul %0, %1 : i64[3]",
				"%3 = sub %0, %0 : i64[3]",
				"%4 = sub %1, %0 : i64[3]",
				"%5 = param 1 : u8[3]",
				"%6 = const 255 : u8[3]",
				"%7 = mul %5, %6 : u8[3]",
				"return %2, %3, %4, %7"),
			want: graphText(
				"%0 = param 0 : i64[3]",
				"%1 = const 0 : i64[3]",
				"%2 = const 0 : i64[3]",
				"%3 = neg %0 : i64[3]",
				"%4 = param 1 : u8[3]",
				"%5 = neg %4 : u8[3]",
				"return %1, %2, %3, %5"),
		},
		unchanged("u8 x / 255 is unsigned division, not neg",
			"%0 = param 0 : u8[3]",
			"%1 = const 255 : u8[3]",
			"%2 = div %0, %1 : u8[3]",
			"return %2"),
		{
			name: "division by a power of two is multiplication by its reciprocal",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 8 : f32[4]",
				"%2 = div %0, %1 : f32[4]",
				"%3 = const -0.25 : f32[4]",
				"%4 = div %2, %3 : f32[4]",
				"return %4"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 0.125 : f32[4]",
				"%2 = mul %0, %1 : f32[4]",
				"%3 = const -4 : f32[4]",
				"%4 = mul %2, %3 : f32[4]",
				"return %4"),
		},
		unchanged("division by 3 or by a power of two whose reciprocal is subnormal",
			"%0 = param 0 : f32[4]",
			"%1 = const 3 : f32[4]",
			"%2 = div %0, %1 : f32[4]",
			"%3 = const 1.7014118346046923e+38 : f32[4]", // 2^127: 2^-127 is subnormal in f32
			"%4 = div %2, %3 : f32[4]",
			"return %4"),
		{
			name: "pow(x, 1) = x and pow(x, 0) = 1, even for NaN",
			in: graphText(
				"%0 = param 0 : f64[4]",
				"%1 = const 1 : f64[4]",
				"%2 = pow %0, %1 : f64[4]",
				"%3 = const -0 : f64[4]",
				"%4 = pow %2, %3 : f64[4]",
				"return %2, %4"),
			want: graphText(
				"%0 = param 0 : f64[4]",
				"%1 = const 1 : f64[4]",
				"return %0, %1"),
		},
		{
			name: "max(x, x), where with equal branches or a constant condition",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = param 1 : bool[4]",
				"%2 = max %0, %0 : f32[4]",
				"%3 = where %1, %2, %2 : f32[4]",
				"%4 = const true : bool[4]",
				"%5 = neg %0 : f32[4]",
				"%6 = where %4, %5, %3 : f32[4]",
				"%7 = const false : bool[4]",
				"%8 = where %7, %5, %3 : f32[4]",
				"return %6, %8"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = param 1 : bool[4]",
				"%2 = neg %0 : f32[4]",
				"return %2, %0"),
		},
		{
			name: "integer x == x; float x == x is false for NaN",
			in: graphText(
				"%0 = param 0 : i32[4]",
				"%1 = le %0, %0 : bool[4]",
				"%2 = lt %0, %0 : bool[4]",
				"%3 = param 1 : f32[4]",
				"%4 = eq %3, %3 : bool[4]",
				"return %1, %2, %4"),
			want: graphText(
				"%0 = param 0 : i32[4]",
				"%1 = const true : bool[4]",
				"%2 = const false : bool[4]",
				"%3 = param 1 : f32[4]",
				"%4 = eq %3, %3 : bool[4]",
				"return %1, %2, %4"),
		},
		{
			name: "constants go second in commutative ops",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 2 : f32[4]",
				"%2 = add %1, %0 : f32[4]",
				"%3 = sub %1, %2 : f32[4]",
				"return %3"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 2 : f32[4]",
				"%2 = add %0, %1 : f32[4]",
				"%3 = sub %1, %2 : f32[4]",
				"return %3"),
		},
	})
}

func TestSimplifyUnary(t *testing.T) {
	runCases(t, Simplify, []rewriteCase{
		{
			name: "neg neg, abs neg, abs abs, floor of round",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = neg %0 : f32[4]",
				"%2 = neg %1 : f32[4]",
				"%3 = abs %1 : f32[4]",
				"%4 = abs %3 : f32[4]",
				"%5 = round %0 : f32[4]",
				"%6 = floor %5 : f32[4]",
				"return %2, %4, %6"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = abs %0 : f32[4]",
				"%2 = round %0 : f32[4]",
				"return %0, %1, %2"),
		},
		{
			name: "abs and rounding are the identity on u8, rounding on integers",
			in: graphText(
				"%0 = param 0 : u8[4]",
				"%1 = abs %0 : u8[4]",
				"%2 = param 1 : i64[4]",
				"%3 = ceil %2 : i64[4]",
				"return %1, %3"),
			want: graphText(
				"%0 = param 0 : u8[4]",
				"%1 = param 1 : i64[4]",
				"return %0, %1"),
		},
		unchanged("abs of neg on u8 is neg (256-x), not x",
			"%0 = param 0 : u8[4]",
			"%1 = neg %0 : u8[4]",
			"%2 = cast %1 : i32[4]",
			"%3 = abs %2 : i32[4]",
			"return %3"),
		{
			name: "casts: to the same dtype, and lossless round trips",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = cast %0 : f32[4]",
				"%2 = cast %1 : f64[4]",
				"%3 = cast %2 : f32[4]",
				"%4 = param 1 : u8[4]",
				"%5 = cast %4 : i32[4]",
				"%6 = cast %5 : u8[4]",
				"return %3, %6"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = param 1 : u8[4]",
				"return %0, %1"),
		},
		unchanged("i32 through f32 loses bits above 2^24; f32 through i32 truncates",
			"%0 = param 0 : i32[4]",
			"%1 = cast %0 : f32[4]",
			"%2 = cast %1 : i32[4]",
			"%3 = cast %2 : f32[4]",
			"return %2, %3"),
	})
}

func TestSimplifyLayout(t *testing.T) {
	runCases(t, Simplify, []rewriteCase{
		{
			name: "transposes compose and cancel",
			in: graphText(
				"%0 = param 0 : f32[2,3,4]",
				"%1 = transpose %0 axes=[1,2,0] : f32[3,4,2]",
				"%2 = transpose %1 axes=[2,0,1] : f32[2,3,4]",
				"%3 = transpose %1 axes=[1,0,2] : f32[4,3,2]",
				"%4 = transpose %0 axes=[0,1,2] : f32[2,3,4]",
				"return %2, %3, %4"),
			want: graphText(
				"%0 = param 0 : f32[2,3,4]",
				"%1 = transpose %0 axes=[2,1,0] : f32[4,3,2]",
				"return %0, %1, %0"),
		},
		{
			name: "reshapes and broadcasts compose; identities vanish",
			in: graphText(
				"%0 = param 0 : f32[2,3]",
				"%1 = reshape %0 : f32[6]",
				"%2 = reshape %1 : f32[3,2]",
				"%3 = reshape %2 : f32[2,3]",
				"%4 = param 1 : f32[3,1]",
				"%5 = broadcast %4 : f32[3,4]",
				"%6 = broadcast %5 : f32[2,3,4]",
				"%7 = broadcast %6 : f32[2,3,4]",
				"return %2, %3, %7"),
			want: graphText(
				"%0 = param 0 : f32[2,3]",
				"%1 = reshape %0 : f32[3,2]",
				"%2 = param 1 : f32[3,1]",
				"%3 = broadcast %2 : f32[2,3,4]",
				"return %1, %0, %3"),
		},
		{
			name: "slices compose; a whole slice and a one-operand concat vanish",
			in: graphText(
				"%0 = param 0 : f32[10,4]",
				"%1 = slice %0 starts=[1,0] steps=[2,1] : f32[5,4]",
				"%2 = slice %1 starts=[1,0] steps=[2,1] : f32[2,4]",
				"%3 = slice %0 starts=[0,0] steps=[1,1] : f32[10,4]",
				"%4 = concat %3 axes=[1] : f32[10,4]",
				"return %2, %4"),
			want: graphText(
				"%0 = param 0 : f32[10,4]",
				"%1 = slice %0 starts=[3,0] steps=[4,1] : f32[2,4]",
				"return %1, %0"),
		},
		{
			name: "reductions over unit axes: a reshape, plus +0 for a float sum",
			in: graphText(
				"%0 = param 0 : f32[3,1]",
				"%1 = reduce_max %0 axes=[1] : f32[3]",
				"%2 = reduce_sum %0 axes=[1] : f32[3]",
				"%3 = reduce_prod %0 axes=[] : f32[3,1]",
				"%4 = argmin %0 axes=[1] : i64[3]",
				"%5 = param 1 : i32[1,1]",
				"%6 = reduce_sum %5 axes=[0,1] : i32[]",
				"return %1, %2, %3, %4, %6"),
			want: graphText(
				"%0 = param 0 : f32[3,1]",
				"%1 = reshape %0 : f32[3]",
				"%2 = reshape %0 : f32[3]",
				"%3 = const 0 : f32[3]",
				"%4 = add %2, %3 : f32[3]",
				"%5 = const 0 : i64[3]",
				"%6 = param 1 : i32[1,1]",
				"%7 = reshape %6 : i32[]",
				"return %1, %4, %0, %5, %7"),
		},
		{
			name: "a float sum over no axes is x + +0 (it turns -0 into +0)",
			in: graphText(
				"%0 = param 0 : f32[3]",
				"%1 = reduce_sum %0 axes=[] : f32[3]",
				"%2 = reduce_sum %0 axes=[0] : f32[]",
				"return %1, %2"),
			want: graphText(
				"%0 = param 0 : f32[3]",
				"%1 = const 0 : f32[3]",
				"%2 = add %0, %1 : f32[3]",
				"%3 = reduce_sum %0 axes=[0] : f32[]",
				"return %2, %3"),
		},
	})
}

// TestLossless checks the cast table against the interpreter: every pair
// it calls lossless round-trips every test value, and every other pair
// loses some value.
func TestLossless(t *testing.T) {
	for _, src := range allDTypes {
		data := genInput(randFor(uint64(src)), src, 400)
		switch x := data.(type) { // values near the edges of the other dtypes
		case []int32:
			x[0], x[1], x[2] = 1<<24+1, -1, 300
		case []int64:
			x[0], x[1] = 1<<53+1, 1<<40
		case []float32:
			x[0], x[1] = 0.5, 1e-45
		case []float64:
			x[0], x[1] = 1+1e-15, 1e300
		case []uint8:
			x[0], x[1] = 255, 0
		case []bool:
			x[0], x[1] = true, false
		}
		for _, mid := range allDTypes {
			if mid == src {
				continue
			}
			g := mustParse(t, graphText(
				"%0 = param 0 : "+src.String()+"[400]",
				"%1 = cast %0 : "+mid.String()+"[400]",
				"%2 = cast %1 : "+src.String()+"[400]",
				"return %2"))
			out, err := interp.Run(g, []any{data})
			if err != nil {
				t.Fatal(err)
			}
			same, _ := sameBits(data, out[0])
			if same != lossless(src, mid) {
				t.Errorf("%s -> %s -> %s: round trip exact %v, lossless says %v", src, mid, src, same, lossless(src, mid))
			}
		}
	}
}

// TestExactReciprocal checks the power-of-two rule against math.Frexp's
// definition of a power of two and the dtype's normal range.
func TestExactReciprocal(t *testing.T) {
	r := &rewriter{dst: &ir.Graph{}}
	for _, tc := range []struct {
		dt   ir.DType
		c    float64
		want float64 // 0: not applicable
	}{
		{ir.Float32, 2, 0.5}, {ir.Float32, -0.5, -2}, {ir.Float32, 3, 0}, {ir.Float32, 0, 0},
		{ir.Float32, math.Inf(1), 0}, {ir.Float32, math.NaN(), 0}, {ir.Float32, 0x1p126, 0x1p-126},
		{ir.Float32, 0x1p127, 0}, {ir.Float32, 0x1p-127, 0}, {ir.Float64, 0x1p127, 0x1p-127},
		{ir.Float64, 0x1p1023, 0}, {ir.Float64, 0x1p-1022, 0x1p1022},
	} {
		v, err := r.emit(ir.Node{Op: ir.OpConst, DType: tc.dt, Const: ir.Const{F: tc.c}})
		if err != nil {
			t.Fatal(err)
		}
		inv, ok := exactReciprocal(tc.dt, r, v)
		if ok != (tc.want != 0) || (ok && inv.F != tc.want) {
			t.Errorf("%s 1/%v: got %v, %v; want %v", tc.dt, tc.c, inv.F, ok, tc.want)
		}
	}
}
