package codegen

import "testing"

// TestTargetString checks that every field that changes the emitted code
// shows in the signature text, and that the zero values leave it as it
// was before the field existed, so that default kernels keep their names.
func TestTargetString(t *testing.T) {
	cases := []struct {
		t    Target
		want string
	}{
		{Target{}, "portable"},
		{Target{AVX512: true}, "avx512"},
		{Target{AVX512: true, StreamBytes: 1 << 20}, "avx512 stream>=1048576"},
		{Target{SumRows: SumRows{Rows: 2, Vectors: 4}}, "portable sumrows=2x4"},
	}
	for _, c := range cases {
		if got := c.t.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.t, got, c.want)
		}
	}
	if (Target{}).sumRows() != (SumRows{Rows: reduceRowsAt, Vectors: reduceRowsVectors}) {
		t.Errorf("the zero Target's row-sum shape is %+v", Target{}.sumRows())
	}
}
