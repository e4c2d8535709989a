package interp

import (
	"fmt"
	"testing"
)

type layoutCase struct {
	name  string
	lines []string // the graph body; param 0 gets in
	in    any
	want  any
}

func seqF32(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(i)
	}
	return s
}

func TestLayout(t *testing.T) {
	// transpose [2,3,4] by [2,0,1]: out[k][i][j] = in[i][j][k].
	in234 := seqF32(24)
	tr := make([]float32, 0, 24)
	for k := range 4 {
		for i := range 2 {
			for j := range 3 {
				tr = append(tr, in234[i*12+j*4+k])
			}
		}
	}
	// transpose [2,3,4] by [1,2,0]: out[j][k][i] = in[i][j][k].
	tr2 := make([]float32, 0, 24)
	for j := range 3 {
		for k := range 4 {
			for i := range 2 {
				tr2 = append(tr2, in234[i*12+j*4+k])
			}
		}
	}
	b234 := make([]int32, 0, 24)
	for range 6 {
		b234 = append(b234, 1, 2, 3, 4)
	}
	// rows 1 and 3, columns 0, 2, 4 of a [4,5] iota-like matrix.
	sl := []float32{5, 7, 9, 15, 17, 19}

	for _, tc := range []layoutCase{
		{"reshape", []string{"%0 = param 0 : i32[2,3]", "%1 = reshape %0 : i32[3,2]", "return %1"},
			[]int32{1, 2, 3, 4, 5, 6}, []int32{1, 2, 3, 4, 5, 6}},
		{"reshape to scalar", []string{"%0 = param 0 : f64[1,1]", "%1 = reshape %0 : f64[]", "return %1"},
			[]float64{nz64}, []float64{nz64}},
		{"transpose 2d", []string{"%0 = param 0 : f32[2,3]", "%1 = transpose %0 axes=[1,0] : f32[3,2]", "return %1"},
			[]float32{1, 2, 3, 4, 5, 6}, []float32{1, 4, 2, 5, 3, 6}},
		{"transpose rank 3", []string{"%0 = param 0 : f32[2,3,4]", "%1 = transpose %0 axes=[2,0,1] : f32[4,2,3]", "return %1"},
			in234, tr},
		{"transpose rank 3 other", []string{"%0 = param 0 : f32[2,3,4]", "%1 = transpose %0 axes=[1,2,0] : f32[3,4,2]", "return %1"},
			in234, tr2},
		{"transpose bool", []string{"%0 = param 0 : bool[2,2]", "%1 = transpose %0 axes=[1,0] : bool[2,2]", "return %1"},
			[]bool{true, false, true, true}, []bool{true, true, false, true}},
		{"transpose empty", []string{"%0 = param 0 : u8[0,3]", "%1 = transpose %0 axes=[1,0] : u8[3,0]", "return %1"},
			[]uint8{}, []uint8{}},
		{"transpose scalar", []string{"%0 = param 0 : i64[]", "%1 = transpose %0 axes=[] : i64[]", "return %1"},
			[]int64{9}, []int64{9}},
		{"broadcast [3,1] to [3,4]", []string{"%0 = param 0 : f32[3,1]", "%1 = broadcast %0 : f32[3,4]", "return %1"},
			[]float32{1, 2, 3}, []float32{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}},
		{"broadcast [4] to [2,3,4]", []string{"%0 = param 0 : i32[4]", "%1 = broadcast %0 : i32[2,3,4]", "return %1"},
			[]int32{1, 2, 3, 4}, b234},
		{"broadcast scalar", []string{"%0 = param 0 : u8[]", "%1 = broadcast %0 : u8[2,2]", "return %1"},
			[]uint8{7}, []uint8{7, 7, 7, 7}},
		{"broadcast [2,1,3] to [2,2,3]", []string{"%0 = param 0 : i64[2,1,3]", "%1 = broadcast %0 : i64[2,2,3]", "return %1"},
			[]int64{1, 2, 3, 4, 5, 6}, []int64{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}},
		{"broadcast [1,2] to [3,2] bool", []string{"%0 = param 0 : bool[1,2]", "%1 = broadcast %0 : bool[3,2]", "return %1"},
			[]bool{true, false}, []bool{true, false, true, false, true, false}},
		{"broadcast to empty", []string{"%0 = param 0 : f64[1]", "%1 = broadcast %0 : f64[0,1]", "return %1"},
			[]float64{1}, []float64{}},
		{"slice step 2", []string{"%0 = param 0 : f32[10]", "%1 = slice %0 starts=[1] steps=[2] : f32[5]", "return %1"},
			seqF32(10), []float32{1, 3, 5, 7, 9}},
		{"slice 2d steps", []string{"%0 = param 0 : f32[4,5]", "%1 = slice %0 starts=[1,0] steps=[2,2] : f32[2,3]", "return %1"},
			seqF32(20), sl},
		{"slice contiguous", []string{"%0 = param 0 : i32[2,4]", "%1 = slice %0 starts=[1,1] steps=[1,1] : i32[1,2]", "return %1"},
			[]int32{0, 1, 2, 3, 4, 5, 6, 7}, []int32{5, 6}},
		{"slice empty at end", []string{"%0 = param 0 : f32[5]", "%1 = slice %0 starts=[5] steps=[1] : f32[0]", "return %1"},
			seqF32(5), []float32{}},
		{"slice bool", []string{"%0 = param 0 : bool[4]", "%1 = slice %0 starts=[0] steps=[3] : bool[2]", "return %1"},
			[]bool{true, false, false, false}, []bool{true, false}},
	} {
		expect(t, tc.name, run1(t, graph(tc.lines...), tc.in), tc.want)
	}
}

func TestConcat(t *testing.T) {
	run := func(text string, in ...any) any {
		t.Helper()
		outs, err := Run(mustParse(t, text), in)
		if err != nil {
			t.Fatal(err)
		}
		return outs[0]
	}
	// Three operands along axis 0.
	got := run(graph("%0 = param 0 : f32[1,2]", "%1 = param 1 : f32[2,2]", "%2 = param 2 : f32[1,2]",
		"%3 = concat %0, %1, %2 axes=[0] : f32[4,2]", "return %3"),
		[]float32{1, 2}, []float32{3, 4, 5, 6}, []float32{7, 8})
	expect(t, "concat axis 0", got, []float32{1, 2, 3, 4, 5, 6, 7, 8})

	// Three along axis 1, one of them empty.
	got = run(graph("%0 = param 0 : i32[2,1]", "%1 = param 1 : i32[2,2]", "%2 = param 2 : i32[2,0]",
		"%3 = concat %0, %1, %2, %0 axes=[1] : i32[2,4]", "return %3"),
		[]int32{1, 2}, []int32{3, 4, 5, 6}, []int32{})
	expect(t, "concat axis 1", got, []int32{1, 3, 4, 1, 2, 5, 6, 2})

	// The middle axis of rank 3.
	got = run(graph("%0 = param 0 : u8[2,1,2]", "%1 = param 1 : u8[2,2,2]",
		"%2 = concat %0, %1 axes=[1] : u8[2,3,2]", "return %2"),
		[]uint8{1, 2, 3, 4}, []uint8{10, 11, 12, 13, 14, 15, 16, 17})
	expect(t, "concat middle axis", got, []uint8{1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17})

	got = run(graph("%0 = param 0 : bool[2]", "%1 = param 1 : bool[1]", "%2 = concat %0, %1, %0 axes=[0] : bool[5]", "return %2"),
		[]bool{true, false}, []bool{false})
	expect(t, "concat bool", got, []bool{true, false, false, true, false})

	got = run(graph("%0 = param 0 : i64[1]", "%1 = concat %0 axes=[0] : i64[1]", "return %1"), []int64{-4})
	expect(t, "concat one", got, []int64{-4})

	got = run(graph("%0 = param 0 : f64[0,2]", "%1 = concat %0, %0, %0 axes=[1] : f64[0,6]", "return %1"), []float64{})
	expect(t, "concat empty", got, []float64{})
}

func TestReduce(t *testing.T) {
	for _, tc := range []layoutCase{
		{"sum axis 1", []string{"%0 = param 0 : f32[2,3]", "%1 = reduce_sum %0 axes=[1] : f32[2]", "return %1"},
			[]float32{1, 2, 3, 4, 5, 6}, []float32{6, 15}},
		{"sum axis 0", []string{"%0 = param 0 : f32[2,3]", "%1 = reduce_sum %0 axes=[0] : f32[3]", "return %1"},
			[]float32{1, 2, 3, 4, 5, 6}, []float32{5, 7, 9}},
		{"sum all", []string{"%0 = param 0 : f64[2,3]", "%1 = reduce_sum %0 axes=[0,1] : f64[]", "return %1"},
			[]float64{1, 2, 3, 4, 5, 6}, []float64{21}},
		// A sequential float32 sum loses each +1; a float64 or pairwise sum would not.
		{"sum f32 sequential", []string{"%0 = param 0 : f32[3]", "%1 = reduce_sum %0 axes=[0] : f32[]", "return %1"},
			[]float32{16777216, 1, 1}, []float32{16777216}},
		{"sum f32 order", []string{"%0 = param 0 : f32[4]", "%1 = reduce_sum %0 axes=[0] : f32[]", "return %1"},
			[]float32{1e8, 1, -1e8, 1}, []float32{1}},
		// Column sums with the order mattering: 1e8, 1, -1e8, 1 down column 0.
		{"sum f32 order kept last", []string{"%0 = param 0 : f32[4,2]", "%1 = reduce_sum %0 axes=[0] : f32[2]", "return %1"},
			[]float32{1e8, 2, 1, 2, -1e8, 2, 1, 2}, []float32{1, 8}},
		// Reduced axes 0 and 2 of [2,2,2] visit (i0,i2) = (0,0),(0,1),(1,0),(1,1)
		// for each i1: 1e8, 1, -1e8, 1 gives 1, where i2-major order would give 2.
		{"sum f32 order two axes", []string{"%0 = param 0 : f32[2,2,2]", "%1 = reduce_sum %0 axes=[0,2] : f32[2]", "return %1"},
			[]float32{1e8, 1, 0, 0, -1e8, 1, 0, 0}, []float32{1, 0}},
		{"sum of -0 is +0", []string{"%0 = param 0 : f32[2]", "%1 = reduce_sum %0 axes=[0] : f32[]", "return %1"},
			[]float32{nz32, nz32}, []float32{0}},
		{"sum no axes", []string{"%0 = param 0 : f64[2]", "%1 = reduce_sum %0 axes=[] : f64[2]", "return %1"},
			[]float64{nz64, 3}, []float64{0, 3}},
		{"sum scalar", []string{"%0 = param 0 : f32[]", "%1 = reduce_sum %0 axes=[] : f32[]", "return %1"},
			[]float32{nz32}, []float32{0}},
		{"sum i32 wraps", []string{"%0 = param 0 : i32[2]", "%1 = reduce_sum %0 axes=[0] : i32[]", "return %1"},
			[]int32{maxI32, 1}, []int32{minI32}},
		{"sum u8 wraps", []string{"%0 = param 0 : u8[2]", "%1 = reduce_sum %0 axes=[0] : u8[]", "return %1"},
			[]uint8{200, 100}, []uint8{44}},
		{"sum i64", []string{"%0 = param 0 : i64[2,2]", "%1 = reduce_sum %0 axes=[1] : i64[2]", "return %1"},
			[]int64{maxI64, 1, -5, 2}, []int64{minI64, -3}},
		{"sum empty axis", []string{"%0 = param 0 : f32[3,0]", "%1 = reduce_sum %0 axes=[1] : f32[3]", "return %1"},
			[]float32{}, []float32{0, 0, 0}},
		{"sum empty kept", []string{"%0 = param 0 : f32[3,0]", "%1 = reduce_sum %0 axes=[0] : f32[0]", "return %1"},
			[]float32{}, []float32{}},

		{"prod f32", []string{"%0 = param 0 : f32[3]", "%1 = reduce_prod %0 axes=[0] : f32[]", "return %1"},
			[]float32{2, 3, 4}, []float32{24}},
		{"prod f64 rows", []string{"%0 = param 0 : f64[2,2]", "%1 = reduce_prod %0 axes=[1] : f64[2]", "return %1"},
			[]float64{2, 0.5, -3, 0}, []float64{1, nz64}},
		{"prod i32 wraps", []string{"%0 = param 0 : i32[2]", "%1 = reduce_prod %0 axes=[0] : i32[]", "return %1"},
			[]int32{65536, 65536}, []int32{0}},
		{"prod u8 wraps", []string{"%0 = param 0 : u8[2]", "%1 = reduce_prod %0 axes=[0] : u8[]", "return %1"},
			[]uint8{16, 17}, []uint8{16}},
		{"prod i64", []string{"%0 = param 0 : i64[3]", "%1 = reduce_prod %0 axes=[0] : i64[]", "return %1"},
			[]int64{-2, 3, 1 << 40}, []int64{-6 << 40}},
		{"prod cols", []string{"%0 = param 0 : f32[2,3]", "%1 = reduce_prod %0 axes=[0] : f32[3]", "return %1"},
			[]float32{2, 1e30, nz32, 3, 1e30, nz32}, []float32{6, inf32, 0}},
		{"min cols", []string{"%0 = param 0 : f32[3,3]", "%1 = reduce_min %0 axes=[0] : f32[3]", "return %1"},
			[]float32{0, 1, nan32, nz32, nan32, 1, 0, 2, -inf32}, []float32{nz32, nan32, nan32}},
		{"max cols NaN", []string{"%0 = param 0 : f64[2,2]", "%1 = reduce_max %0 axes=[0] : f64[2]", "return %1"},
			[]float64{nan64, nz64, 1, 0}, []float64{nan64, 0}},
		{"prod empty", []string{"%0 = param 0 : i32[0,2]", "%1 = reduce_prod %0 axes=[0] : i32[2]", "return %1"},
			[]int32{}, []int32{1, 1}},

		{"max NaN first", []string{"%0 = param 0 : f32[2,3]", "%1 = reduce_max %0 axes=[1] : f32[2]", "return %1"},
			[]float32{nan32, 1, 3, 1, nan32, 3}, []float32{nan32, nan32}},
		{"max NaN last", []string{"%0 = param 0 : f64[3]", "%1 = reduce_max %0 axes=[0] : f64[]", "return %1"},
			[]float64{1, 5, nan64}, []float64{nan64}},
		{"max zeros", []string{"%0 = param 0 : f32[3,2]", "%1 = reduce_max %0 axes=[1] : f32[3]", "return %1"},
			[]float32{nz32, 0, 0, nz32, nz32, nz32}, []float32{0, 0, nz32}},
		{"max -inf", []string{"%0 = param 0 : f32[1]", "%1 = reduce_max %0 axes=[0] : f32[]", "return %1"},
			[]float32{-inf32}, []float32{-inf32}},
		{"max empty f32", []string{"%0 = param 0 : f32[0]", "%1 = reduce_max %0 axes=[0] : f32[]", "return %1"},
			[]float32{}, []float32{-inf32}},
		{"max empty i32", []string{"%0 = param 0 : i32[2,0]", "%1 = reduce_max %0 axes=[1] : i32[2]", "return %1"},
			[]int32{}, []int32{minI32, minI32}},
		{"max empty u8", []string{"%0 = param 0 : u8[0]", "%1 = reduce_max %0 axes=[0] : u8[]", "return %1"},
			[]uint8{}, []uint8{0}},
		{"max empty i64", []string{"%0 = param 0 : i64[0]", "%1 = reduce_max %0 axes=[0] : i64[]", "return %1"},
			[]int64{}, []int64{minI64}},
		{"max u8", []string{"%0 = param 0 : u8[3]", "%1 = reduce_max %0 axes=[0] : u8[]", "return %1"},
			[]uint8{100, 200, 3}, []uint8{200}},
		{"max i32 cols", []string{"%0 = param 0 : i32[2,2]", "%1 = reduce_max %0 axes=[0] : i32[2]", "return %1"},
			[]int32{-5, 7, -3, minI32}, []int32{-3, 7}},
		{"max i64", []string{"%0 = param 0 : i64[2]", "%1 = reduce_max %0 axes=[0] : i64[]", "return %1"},
			[]int64{minI64, -1}, []int64{-1}},
		{"min zeros", []string{"%0 = param 0 : f32[2]", "%1 = reduce_min %0 axes=[0] : f32[]", "return %1"},
			[]float32{0, nz32}, []float32{nz32}},
		{"min NaN", []string{"%0 = param 0 : f32[3]", "%1 = reduce_min %0 axes=[0] : f32[]", "return %1"},
			[]float32{1, nan32, -inf32}, []float32{nan32}},
		{"min empty f64", []string{"%0 = param 0 : f64[0,2]", "%1 = reduce_min %0 axes=[0] : f64[2]", "return %1"},
			[]float64{}, []float64{inf64, inf64}},
		{"min f64", []string{"%0 = param 0 : f64[3]", "%1 = reduce_min %0 axes=[0] : f64[]", "return %1"},
			[]float64{3, -2, 5}, []float64{-2}},
		{"min empty u8", []string{"%0 = param 0 : u8[0]", "%1 = reduce_min %0 axes=[0] : u8[]", "return %1"},
			[]uint8{}, []uint8{255}},
		{"min empty i32", []string{"%0 = param 0 : i32[0]", "%1 = reduce_min %0 axes=[0] : i32[]", "return %1"},
			[]int32{}, []int32{maxI32}},
		{"min empty i64", []string{"%0 = param 0 : i64[0]", "%1 = reduce_min %0 axes=[0] : i64[]", "return %1"},
			[]int64{}, []int64{maxI64}},
		{"min u8", []string{"%0 = param 0 : u8[3]", "%1 = reduce_min %0 axes=[0] : u8[]", "return %1"},
			[]uint8{100, 200, 3}, []uint8{3}},
		{"min i64 rank 3", []string{"%0 = param 0 : i64[2,2,2]", "%1 = reduce_min %0 axes=[1,2] : i64[2]", "return %1"},
			[]int64{4, 3, 9, 8, -1, 0, 5, minI64}, []int64{3, minI64}},
	} {
		expect(t, tc.name, run1(t, graph(tc.lines...), tc.in), tc.want)
	}
}

func TestArgReduce(t *testing.T) {
	for _, tc := range []layoutCase{
		// Rows: ties keep the first; the first NaN wins; -0 and +0 tie.
		{"argmax f32", []string{"%0 = param 0 : f32[5,4]", "%1 = argmax %0 axes=[1] : i64[5]", "return %1"},
			[]float32{
				1, 3, 3, 2,
				nan32, 5, nan32, 1,
				1, nan32, 5, nan32,
				nz32, 0, 0, -1,
				-inf32, -inf32, -inf32, -inf32,
			}, []int64{1, 0, 1, 0, 0}},
		{"argmin f32", []string{"%0 = param 0 : f32[4,4]", "%1 = argmin %0 axes=[1] : i64[4]", "return %1"},
			[]float32{
				3, 1, 1, 2,
				5, nan32, -inf32, nan32,
				-inf32, -inf32, 0, 0,
				0, nz32, -1, -1,
			}, []int64{1, 1, 0, 2}},
		{"argmax f64 axis 0", []string{"%0 = param 0 : f64[3,2]", "%1 = argmax %0 axes=[0] : i64[2]", "return %1"},
			[]float64{1, 2, 3, nan64, 3, 9}, []int64{1, 1}},
		{"argmin f64", []string{"%0 = param 0 : f64[3]", "%1 = argmin %0 axes=[0] : i64[]", "return %1"},
			[]float64{2, 1, 1}, []int64{1}},
		{"argmax u8 unsigned", []string{"%0 = param 0 : u8[3]", "%1 = argmax %0 axes=[0] : i64[]", "return %1"},
			[]uint8{0, 255, 128}, []int64{1}},
		{"argmin u8", []string{"%0 = param 0 : u8[3]", "%1 = argmin %0 axes=[0] : i64[]", "return %1"},
			[]uint8{200, 255, 128}, []int64{2}},
		{"argmax i32 axis 0", []string{"%0 = param 0 : i32[2,3]", "%1 = argmax %0 axes=[0] : i64[3]", "return %1"},
			[]int32{1, 5, -1, 2, 5, minI32}, []int64{1, 0, 0}},
		{"argmin i32", []string{"%0 = param 0 : i32[2,3]", "%1 = argmin %0 axes=[1] : i64[2]", "return %1"},
			[]int32{1, 5, -1, 2, minI32, minI32}, []int64{2, 1}},
		{"argmax i64 middle axis", []string{"%0 = param 0 : i64[2,3,2]", "%1 = argmax %0 axes=[1] : i64[2,2]", "return %1"},
			[]int64{0, 9, 4, 9, 2, 1, minI64, minI64, minI64, minI64, -1, 7}, []int64{1, 0, 2, 2}},
		{"argmin i64", []string{"%0 = param 0 : i64[2]", "%1 = argmin %0 axes=[0] : i64[]", "return %1"},
			[]int64{maxI64, minI64}, []int64{1}},
		{"argmax empty axis", []string{"%0 = param 0 : f32[2,0]", "%1 = argmax %0 axes=[1] : i64[2]", "return %1"},
			[]float32{}, []int64{0, 0}},
		{"argmin empty axis", []string{"%0 = param 0 : i32[0,3]", "%1 = argmin %0 axes=[0] : i64[3]", "return %1"},
			[]int32{}, []int64{0, 0, 0}},
		{"argmax empty result", []string{"%0 = param 0 : f32[0,3]", "%1 = argmax %0 axes=[1] : i64[0]", "return %1"},
			[]float32{}, []int64{}},
	} {
		expect(t, tc.name, run1(t, graph(tc.lines...), tc.in), tc.want)
	}
}

func TestMatMul(t *testing.T) {
	mm := func(ta, tb, tout string, a, b any) any {
		t.Helper()
		text := graph("%0 = param 0 : "+ta, "%1 = param 1 : "+tb, "%2 = matmul %0, %1 : "+tout, "return %2")
		outs, err := Run(mustParse(t, text), []any{a, b})
		if err != nil {
			t.Fatal(err)
		}
		return outs[0]
	}
	expect(t, "f32 2x3x2", mm("f32[2,3]", "f32[3,2]", "f32[2,2]",
		[]float32{1, 2, 3, 4, 5, 6}, []float32{7, 8, 9, 10, 11, 12}), []float32{58, 64, 139, 154})
	expect(t, "f64 2x3x2", mm("f64[2,3]", "f64[3,2]", "f64[2,2]",
		[]float64{1, 2, 3, 4, 5, 6}, []float64{7, 8, 9, 10, 11, 12}), []float64{58, 64, 139, 154})
	// Batch 0: [[1,2],[3,4]]·[5,6]ᵀ = [17,39]; batch 1: [[-1,0],[2,1]]·[1,1]ᵀ = [-1,3].
	expect(t, "i32 batched", mm("i32[2,2,2]", "i32[2,2,1]", "i32[2,2,1]",
		[]int32{1, 2, 3, 4, -1, 0, 2, 1}, []int32{5, 6, 1, 1}), []int32{17, 39, -1, 3})
	// Two batch dimensions of 1x2x2 each.
	expect(t, "i64 batched rank 4", mm("i64[2,1,1,2]", "i64[2,1,2,2]", "i64[2,1,1,2]",
		[]int64{1, 2, 3, 4}, []int64{1, 0, 0, 1, 2, 1, 1, 2}), []int64{1, 2, 10, 11})
	expect(t, "u8 wraps", mm("u8[1,2]", "u8[2,1]", "u8[1,1]",
		[]uint8{16, 1}, []uint8{16, 5}), []uint8{5})
	expect(t, "i32 wraps", mm("i32[1,2]", "i32[2,1]", "i32[1,1]",
		[]int32{65536, maxI32}, []int32{65536, 1}), []int32{maxI32})
	expect(t, "f32 batched", mm("f32[2,1,2]", "f32[2,2,1]", "f32[2,1,1]",
		[]float32{1, 2, 3, 4}, []float32{5, 6, 7, 8}), []float32{17, 53})

	// The product is rounded before the add: x = 1+2^-12, x*x = 1+2^-11+2^-24
	// rounds to 1+2^-11, and -1 + that is 2^-11. A fused multiply-add would
	// keep the 2^-24.
	x32 := float32(1 + 0x1p-12)
	expect(t, "f32 no fma", mm("f32[1,2]", "f32[2,1]", "f32[1,1]",
		[]float32{1, x32}, []float32{-1, x32}), []float32{0x1p-11})
	x64 := 1 + 0x1p-27
	expect(t, "f64 no fma", mm("f64[1,2]", "f64[2,1]", "f64[1,1]",
		[]float64{1, x64}, []float64{-1, x64}), []float64{0x1p-26})
	// k ascending: 1 + 1e8 loses the 1, then -1e8 gives 0 (descending would give 1).
	expect(t, "f32 k order", mm("f32[1,3]", "f32[3,1]", "f32[1,1]",
		[]float32{1, 1e8, -1e8}, []float32{1, 1, 1}), []float32{0})
	// The accumulator starts at +0, so a single -0 product gives +0.
	expect(t, "f32 -0 product", mm("f32[1,1]", "f32[1,1]", "f32[1,1]",
		[]float32{-1}, []float32{0}), []float32{0})
	expect(t, "f64 NaN", mm("f64[1,2]", "f64[2,1]", "f64[1,1]",
		[]float64{inf64, 1}, []float64{0, 1}), []float64{nan64})
	// Zero-size: K = 0 gives zeros, M = 0 gives nothing.
	expect(t, "k=0", mm("f32[2,0]", "f32[0,3]", "f32[2,3]",
		[]float32{}, []float32{}), []float32{0, 0, 0, 0, 0, 0})
	expect(t, "m=0", mm("i32[0,2]", "i32[2,3]", "i32[0,3]",
		[]int32{}, []int32{1, 2, 3, 4, 5, 6}), []int32{})
	expect(t, "batch=0", mm("i64[0,2,2]", "i64[0,2,2]", "i64[0,2,2]",
		[]int64{}, []int64{}), []int64{})

	// A bigger product against the textbook triple loop.
	const m, k, n = 5, 7, 3
	a, b := make([]float64, m*k), make([]float64, k*n)
	for i := range a {
		a[i] = float64(i%5) - 1.5
	}
	for i := range b {
		b[i] = float64(i%4) * 0.25
	}
	want := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for kk := range k {
				s += a[i*k+kk] * b[kk*n+j]
			}
			want[i*n+j] = s
		}
	}
	expect(t, "f64 5x7x3", mm(fmt.Sprintf("f64[%d,%d]", m, k), fmt.Sprintf("f64[%d,%d]", k, n),
		fmt.Sprintf("f64[%d,%d]", m, n), a, b), want)
}

// TestLayoutLarge checks shapes bigger than the transpose tile (and not
// multiples of it) against index arithmetic written out per element.
func TestLayoutLarge(t *testing.T) {
	const d0, d1, d2 = 3, 40, 70
	in := make([]int32, d0*d1*d2)
	for i := range in {
		in[i] = int32(i*7 + 1)
	}
	at := func(i, j, k int) int32 { return in[(i*d1+j)*d2+k] }

	tr := make([]int32, 0, len(in)) // axes=[2,0,1]: out[k][i][j]
	for k := range d2 {
		for i := range d0 {
			for j := range d1 {
				tr = append(tr, at(i, j, k))
			}
		}
	}
	sl := make([]int32, 0) // starts=[1,3,2] steps=[1,3,5] : [2,13,14]
	for i := range 2 {
		for j := range 13 {
			for k := range 14 {
				sl = append(sl, at(1+i, 3+j*3, 2+k*5))
			}
		}
	}
	sum := make([]int32, d0*d2) // reduce_sum axes=[1]
	mx := make([]int32, d1)     // reduce_max axes=[0,2]
	for i := range mx {
		mx[i] = minI32
	}
	for i := range d0 {
		for j := range d1 {
			for k := range d2 {
				sum[i*d2+k] += at(i, j, k)
				mx[j] = max(mx[j], at(i, j, k))
			}
		}
	}
	typ := fmt.Sprintf("i32[%d,%d,%d]", d0, d1, d2)
	for _, tc := range []struct {
		node string
		want []int32
	}{
		{fmt.Sprintf("transpose %%0 axes=[2,0,1] : i32[%d,%d,%d]", d2, d0, d1), tr},
		{"slice %0 starts=[1,3,2] steps=[1,3,5] : i32[2,13,14]", sl},
		{fmt.Sprintf("reduce_sum %%0 axes=[1] : i32[%d,%d]", d0, d2), sum},
		{fmt.Sprintf("reduce_max %%0 axes=[0,2] : i32[%d]", d1), mx},
	} {
		got := run1(t, graph("%0 = param 0 : "+typ, "%1 = "+tc.node, "return %1"), in)
		expect(t, tc.node, got, tc.want)
	}
}
