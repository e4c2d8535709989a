package passes

import "testing"

func TestCSE(t *testing.T) {
	runCases(t, CSE, []rewriteCase{
		{
			name: "duplicated expressions merge whole",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = exp %0 : f32[4]",
				"%2 = neg %1 : f32[4]",
				"%3 = exp %0 : f32[4]",
				"%4 = neg %3 : f32[4]",
				"%5 = add %2, %4 : f32[4]",
				"return %5"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = exp %0 : f32[4]",
				"%2 = neg %1 : f32[4]",
				"%3 = add %2, %2 : f32[4]",
				"return %3"),
		},
		{
			name: "commutative operands in either order; sub is not commutative",
			in: graphText(
				"%0 = param 0 : i32[4]",
				"%1 = param 1 : i32[4]",
				"%2 = mul %0, %1 : i32[4]",
				"%3 = mul %1, %0 : i32[4]",
				"%4 = sub %0, %1 : i32[4]",
				"%5 = sub %1, %0 : i32[4]",
				"return %2, %3, %4, %5"),
			want: graphText(
				"%0 = param 0 : i32[4]",
				"%1 = param 1 : i32[4]",
				"%2 = mul %0, %1 : i32[4]",
				"%3 = sub %0, %1 : i32[4]",
				"%4 = sub %1, %0 : i32[4]",
				"return %2, %2, %3, %4"),
		},
		{
			name: "constants merge by value: f32 rounding, all NaNs; never +0 with -0",
			in: graphText(
				"%0 = const 0.1 : f32[2]",
				"%1 = const 0.10000000149011612 : f32[2]",
				"%2 = const nan : f32[2]",
				"%3 = const nan : f32[2]",
				"%4 = const 0 : f32[2]",
				"%5 = const -0 : f32[2]",
				"%6 = const 0 : f32[3]",
				"%7 = const 0 : i32[2]",
				"return %0, %1, %2, %3, %4, %5, %6, %7"),
			want: graphText(
				"%0 = const 0.1 : f32[2]",
				"%1 = const nan : f32[2]",
				"%2 = const 0 : f32[2]",
				"%3 = const -0 : f32[2]",
				"%4 = const 0 : f32[3]",
				"%5 = const 0 : i32[2]",
				"return %0, %0, %1, %1, %2, %3, %4, %5"),
		},
		{
			name: "attributes and result types distinguish; params never merge",
			in: graphText(
				"%0 = param 0 : f32[2,3]",
				"%1 = param 1 : f32[2,3]",
				"%2 = reduce_sum %0 axes=[0] : f32[3]",
				"%3 = reduce_sum %0 axes=[1] : f32[2]",
				"%4 = reshape %0 : f32[6]",
				"%5 = reshape %0 : f32[3,2]",
				"%6 = cast %0 : i32[2,3]",
				"%7 = cast %0 : u8[2,3]",
				"%8 = slice %0 starts=[0,0] steps=[1,1] : f32[1,3]",
				"%9 = slice %0 starts=[1,0] steps=[1,1] : f32[1,3]",
				"return %1, %2, %3, %4, %5, %6, %7, %8, %9"),
			want: graphText(
				"%0 = param 0 : f32[2,3]",
				"%1 = param 1 : f32[2,3]",
				"%2 = reduce_sum %0 axes=[0] : f32[3]",
				"%3 = reduce_sum %0 axes=[1] : f32[2]",
				"%4 = reshape %0 : f32[6]",
				"%5 = reshape %0 : f32[3,2]",
				"%6 = cast %0 : i32[2,3]",
				"%7 = cast %0 : u8[2,3]",
				"%8 = slice %0 starts=[0,0] steps=[1,1] : f32[1,3]",
				"%9 = slice %0 starts=[1,0] steps=[1,1] : f32[1,3]",
				"return %1, %2, %3, %4, %5, %6, %7, %8, %9"),
		},
	})
}
