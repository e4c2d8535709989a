package passes

import (
	"testing"
)

func TestFuseIndexing(t *testing.T) {
	for _, tc := range []struct {
		name, graph string
		want        string // Plan.String()
	}{
		{
			name: "a gather fuses into its elementwise consumer",
			graph: graphText(
				"%0 = param 0 : f32[10,4]",
				"%1 = param 1 : i32[6]",
				"%2 = take %0, %1 axes=[0] : f32[6,4]",
				"%3 = exp %2 : f32[6,4]",
				"return %3"),
			want: "group 0 -> %3 (exp): %2 %3\n",
		},
		{
			name: "a computed table is materialized, the gather is not",
			graph: graphText(
				"%0 = param 0 : f32[10,4]",
				"%1 = param 1 : i32[6]",
				"%2 = exp %0 : f32[10,4]",
				"%3 = take %2, %1 axes=[0] : f32[6,4]",
				"%4 = neg %3 : f32[6,4]",
				"return %4"),
			want: "group 0 -> %2 (exp): %2\ngroup 1 -> %4 (neg): %3 %4\n",
		},
		{
			name: "a gather read only in part is materialized, so every index is checked",
			graph: graphText(
				"%0 = param 0 : f32[10,4]",
				"%1 = param 1 : i32[6]",
				"%2 = take %0, %1 axes=[0] : f32[6,4]",
				"%3 = neg %2 : f32[6,4]",
				"%4 = slice %3 starts=[0,0] steps=[2,1] : f32[3,4]",
				"return %4"),
			want: "group 0 -> %2 (take): %2\ngroup 1 -> %4 (slice): %3 %4\n",
		},
		{
			name: "indices computed in the gather's loop",
			graph: graphText(
				"%0 = param 0 : f32[10,4]",
				"%1 = param 1 : i32[6]",
				"%2 = const 1 : i32[6]",
				"%3 = add %1, %2 : i32[6]",
				"%4 = take %0, %3 axes=[0] : f32[6,4]",
				"return %4"),
			want: "group 0 -> %4 (take): %3 %4\n",
		},
		{
			name: "scatter_add is a group of its own; its operands fuse into it",
			graph: graphText(
				"%0 = param 0 : f32[5,3]",
				"%1 = param 1 : i64[4]",
				"%2 = param 2 : f32[4,3]",
				"%3 = neg %2 : f32[4,3]",
				"%4 = scatter_add %0, %1, %3 axes=[0] : f32[5,3]",
				"%5 = exp %4 : f32[5,3]",
				"return %5"),
			want: "group 0 -> %4 (scatter_add): %3 %4\ngroup 1 -> %5 (exp): %5\n",
		},
		{
			name: "a random op's key and a gather's table are materialized; the draw fuses",
			graph: graphText(
				"%0 = param 0 : i32[2]",
				"%1 = split_key %0 : i32[3,2]",
				"%2 = const 1 : i64[]",
				"%3 = take %1, %2 axes=[0] : i32[2]",
				"%4 = random_normal %3 : f32[8]",
				"%5 = param 1 : f32[8]",
				"%6 = add %4, %5 : f32[8]",
				"return %6"),
			want: "group 0 -> %1 (split_key): %1\ngroup 1 -> %3 (take): %3\ngroup 2 -> %6 (add): %4 %6\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Fuse(mustParse(t, tc.graph))
			if got := p.String(); got != tc.want {
				t.Errorf("plan:\n%swant:\n%s", got, tc.want)
			}
		})
	}
}

// TestFoldIndexing: folding never computes a random op or a gather (their
// values are not splats, and a gather's indices must still be checked at
// run time), even from constant operands; an empty result folds.
func TestFoldIndexing(t *testing.T) {
	runCases(t, Fold, []rewriteCase{
		unchanged("random from a constant key",
			"%0 = const 7 : i32[2]",
			"%1 = random_uniform %0 : f32[5]",
			"%2 = random_normal %0 : f64[5]",
			"%3 = split_key %0 : i32[2,2]",
			"return %1, %2, %3"),
		unchanged("a gather from a constant table",
			"%0 = const 3 : f32[4,2]",
			"%1 = iota axes=[0] : i32[3]",
			"%2 = take %0, %1 axes=[0] : f32[3,2]",
			"return %2"),
		{
			name: "an empty gather is an empty constant",
			in: graphText(
				"%0 = const 3 : f32[4,0]",
				"%1 = iota axes=[0] : i32[3]",
				"%2 = take %0, %1 axes=[0] : f32[3,0]",
				"return %2"),
			want: graphText(
				"%0 = const 0 : f32[3,0]",
				"return %0"),
		},
	})
}

// TestCSEIndexing: random ops are pure functions of their key, so two
// identical draws are one.
func TestCSEIndexing(t *testing.T) {
	runCases(t, CSE, []rewriteCase{
		{
			name: "identical draws merge; other shapes and ops do not",
			in: graphText(
				"%0 = const 7 : i32[2]",
				"%1 = random_uniform %0 : f32[5]",
				"%2 = random_uniform %0 : f32[5]",
				"%3 = random_uniform %0 : f32[6]",
				"%4 = random_normal %0 : f32[5]",
				"%5 = add %1, %2 : f32[5]",
				"return %5, %3, %4"),
			want: graphText(
				"%0 = const 7 : i32[2]",
				"%1 = random_uniform %0 : f32[5]",
				"%2 = random_uniform %0 : f32[6]",
				"%3 = random_normal %0 : f32[5]",
				"%4 = add %1, %1 : f32[5]",
				"return %4, %2, %3"),
		},
	})
}
