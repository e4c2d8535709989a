package ir

import (
	"strings"
	"testing"
)

// The ops and dtypes of issue 10 in the text form: printing and parsing
// round-trip, and the verifier's checks.

const sample10 = `graph {
  %0 = param 0 : f32[4,5]
  %1 = param 1 : i32[4,5]
  %2 = log1p %0 : f32[4,5]
  %3 = expm1 %2 : f32[4,5]
  %4 = erf %3 : f32[4,5]
  %5 = mod %1, %1 : i32[4,5]
  %6 = cumsum %4 axes=[1] : f32[4,5]
  %7 = cumprod %5 axes=[0] : i32[4,5]
  %8 = sort %6 axes=[1] : f32[4,5]
  %9 = argsort %7 axes=[0] : i64[4,5]
  %10 = slice %8 starts=[3,4] steps=[-1,-2] : f32[4,3]
  %11 = cast %10 : f16[4,3]
  %12 = cast %10 : bf16[4,3]
  %13 = const 0.1 : f16[4,3]
  %14 = transpose %11 axes=[1,0] : f16[3,4]
  %15 = lt %10, %10 : bool[4,3]
  %16 = where %15, %11, %13 : f16[4,3]
  return %9, %12, %14, %16
}
`

func TestPrintParseRoundTrip10(t *testing.T) {
	g, err := Parse(sample10)
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(g, true); got != sample10 {
		t.Errorf("round trip differs:\n got:\n%s\nwant:\n%s", got, sample10)
	}
	if err := Verify(g); err != nil {
		t.Error(err)
	}
}

func TestInferErrors10(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"%0 = param 0 : i32[4]\n%1 = log1p %0 : i32[4]", "needs a float"},
		{"%0 = param 0 : bool[4]\n%1 = mod %0, %0 : bool[4]", "bool"},
		{"%0 = param 0 : f32[4]\n%1 = cumsum %0 axes=[1] : f32[4]", "out of range"},
		{"%0 = param 0 : f32[4]\n%1 = cumsum %0 : f32[4]", "out of range"},
		{"%0 = param 0 : f32[4]\n%1 = sort %0 axes=[0] : i64[4]", "recorded type"},
		{"%0 = param 0 : f32[4]\n%1 = argsort %0 axes=[0] : f32[4]", "recorded type"},
		{"%0 = param 0 : f32[4]\n%1 = slice %0 starts=[1] steps=[-1] : f32[3]", "out of range"},
		{"%0 = param 0 : f32[4]\n%1 = slice %0 starts=[0] steps=[0] : f32[1]", "must not be 0"},
		{"%0 = param 0 : f16[4]\n%1 = add %0, %0 : f16[4]", "storage dtype"},
		{"%0 = param 0 : bf16[4]\n%1 = reduce_sum %0 axes=[0] : bf16[]", "storage dtype"},
		{"%0 = iota axes=[0] : f16[4]", "does not produce f16"},
	} {
		_, err := Parse("graph {\n" + tc.text + "\nreturn %0\n}\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.text, err, tc.want)
		}
	}
}
