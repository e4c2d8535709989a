package interp

import (
	"math"
	"slices"
	"testing"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// run10 parses text and runs it on inputs, failing t on any error.
func run10(t *testing.T, text string, inputs ...any) []any {
	t.Helper()
	g, err := ir.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMod checks mod against Python's % (the values are Python's).
func TestMod(t *testing.T) {
	out := run10(t, `graph {
  %0 = param 0 : i32[8]
  %1 = param 1 : i32[8]
  %2 = mod %0, %1 : i32[8]
  %3 = param 2 : f64[6]
  %4 = param 3 : f64[6]
  %5 = mod %3, %4 : f64[6]
  %6 = param 4 : u8[3]
  %7 = mod %6, %6 : u8[3]
  return %2, %5, %7
}`, []int32{-7, 7, -7, 7, 0, 5, math.MinInt32, 13}, []int32{3, -3, -3, 3, 4, 0, -1, 5},
		[]float64{-7, 7, 5.5, -1, 0, math.Inf(1)}, []float64{3, -3, -2, math.Inf(1), -2, 3},
		[]uint8{0, 7, 200})
	if got, want := out[0].([]int32), []int32{2, -2, -1, 1, 0, 0, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("int mod = %v, want %v", got, want)
	}
	got := out[1].([]float64)
	want := []float64{2, -2, -0.5, math.Inf(1), math.Copysign(0, -1), math.NaN()}
	for i := range want {
		if !(got[i] == want[i] && math.Signbit(got[i]) == math.Signbit(want[i])) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Errorf("float mod [%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := out[2].([]uint8); !slices.Equal(got, []uint8{0, 0, 0}) {
		t.Errorf("u8 x mod x = %v, want zeros (0 mod 0 = 0)", got)
	}
}

func TestScanAndSort(t *testing.T) {
	nan := math.NaN()
	out := run10(t, `graph {
  %0 = param 0 : f32[2,3]
  %1 = cumsum %0 axes=[1] : f32[2,3]
  %2 = cumprod %0 axes=[0] : f32[2,3]
  %3 = param 1 : f64[6]
  %4 = sort %3 axes=[0] : f64[6]
  %5 = argsort %3 axes=[0] : i64[6]
  return %1, %2, %4, %5
}`, []float32{1, 2, 3, 4, 5, 6}, []float64{2, nan, math.Copysign(0, -1), 0, -1, 2})
	if got := out[0].([]float32); !slices.Equal(got, []float32{1, 3, 6, 4, 9, 15}) {
		t.Errorf("cumsum = %v", got)
	}
	if got := out[1].([]float32); !slices.Equal(got, []float32{1, 2, 3, 4, 10, 18}) {
		t.Errorf("cumprod = %v", got)
	}
	s := out[2].([]float64)
	if s[0] != -1 || !math.Signbit(s[1]) || s[2] != 0 || math.Signbit(s[2]) || s[3] != 2 || s[4] != 2 || s[5] == s[5] {
		t.Errorf("sort = %v, want [-1 -0 0 2 2 NaN]", s)
	}
	if got := out[3].([]int64); !slices.Equal(got, []int64{4, 2, 3, 0, 5, 1}) {
		t.Errorf("argsort = %v, want [4 2 3 0 5 1] (stable)", got)
	}
}

func TestHalfCastAndLayout(t *testing.T) {
	out := run10(t, `graph {
  %0 = param 0 : f32[4]
  %1 = cast %0 : f16[4]
  %2 = cast %0 : bf16[4]
  %3 = slice %1 starts=[3] steps=[-1] : f16[4]
  %4 = cast %3 : f64[4]
  %5 = const 65520 : f16[2]
  %6 = cast %2 : i32[4]
  return %4, %5, %6
}`, []float32{1, 0.1, -70000, 2.5})
	h01 := float64(half.Float16From(0.1).Float32())
	if got, want := out[0].([]float64), []float64{2.5, math.Inf(-1), h01, 1}; !slices.Equal(got, want) {
		t.Errorf("flipped f16 = %v, want %v", got, want)
	}
	if got := out[1].([]half.Float16); got[0] != 0x7c00 {
		t.Errorf("const 65520 in f16 = 0x%04x, want +Inf (0x7c00: it rounds up)", uint16(got[0]))
	}
	if got := out[2].([]int32); !slices.Equal(got, []int32{1, 0, -70144, 2}) {
		t.Errorf("bf16 to i32 = %v, want [1 0 -70144 2]", got)
	}
}
