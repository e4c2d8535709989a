package runtime

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// TestTargetsAgree compiles float32 exp and sigmoid twice, portable and for
// this host (AVX-512's VSCALEF when it has it), and requires the same bits
// over a sweep of the float32 line, at lengths that leave scalar tails
// after 16-, 8- and 4-lane loops. The two definitions are documented to be
// bit-identical (internal/codegen/vecmath_avx512.go); TestVecMathF32 holds
// both to Go's math.
func TestTargetsAgree(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	host := Options{OptLevel: 3}.target()
	t.Logf("host target: %s", host)
	var xs []float32
	for b := uint32(0); b < 1<<31; b += 4099 * 97 {
		xs = append(xs, math.Float32frombits(b), math.Float32frombits(b|1<<31))
	}
	for _, c := range []float32{88.72, 89, -87.33, -103.97, -104, -126 * math.Ln2, 0} {
		for d := -300; d <= 300; d++ {
			xs = append(xs, c+float32(d)*1e-3)
		}
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	for _, n := range []int{len(xs), 1, 3, 7, 15, 17, 33, 101} {
		x := xs[:n]
		g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32[%d]
  %%1 = exp %%0 : f32[%d]
  %%2 = sigmoid %%0 : f32[%d]
  return %%1, %%2
}`, n, n, n))
		if err != nil {
			t.Fatal(err)
		}
		var outs [2][2][]float32
		for k, opt := range []Options{{OptLevel: 3, Portable: true}, {OptLevel: 3}} {
			exe, err := Build(g, opt)
			if err != nil {
				t.Fatal(err)
			}
			if k == 1 && host.AVX512 && !strings.Contains(exe.Module.Text, "scalef") {
				t.Fatal("host module does not use VSCALEF")
			}
			outs[k] = [2][]float32{make([]float32, n), make([]float32, n)}
			err = exe.Run([]unsafe.Pointer{unsafe.Pointer(&x[0])},
				[]unsafe.Pointer{unsafe.Pointer(&outs[k][0][0]), unsafe.Pointer(&outs[k][1][0])})
			if err != nil {
				t.Fatal(err)
			}
		}
		bad := 0
		for o, name := range []string{"exp", "sigmoid"} {
			for i := range x {
				p, h := outs[0][o][i], outs[1][o][i]
				if math.Float32bits(p) != math.Float32bits(h) && !(p != p && h != h) {
					if bad++; bad <= 5 {
						t.Errorf("n=%d %s(%g): portable %g (0x%08x), host %g (0x%08x)", n, name, x[i], p, math.Float32bits(p), h, math.Float32bits(h))
					}
				}
			}
		}
	}
}
