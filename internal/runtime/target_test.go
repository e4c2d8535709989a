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

// TestDivideByInvariant divides rows by a per-row divisor, which the host
// target computes with a reciprocal and a Markstein correction
// (internal/codegen/divide.go), and requires Go's IEEE quotient bit for
// bit: divisors at and beyond the fast path's bounds, zeros, infinities,
// NaN and subnormals, dividends over a sweep of the float32 line plus
// quotients near the midpoint between two floats, where a wrong correction
// would round the other way.
func TestDivideByInvariant(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	divs := []float32{1, 3, 7, 10, 0.1, 1.9999999, 1.0000001, 0.75, 1 << 20, 1 << 21, 1.0 / (1 << 20), 1.0 / (1 << 21),
		1e-30, 1e30, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.Float32frombits(1), math.Float32frombits(0x007fffff), -5.5, 12345.678, 3.4e38}
	rng := uint32(12345)
	next := func() uint32 { rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng }
	for range 40 {
		// Random divisors within the fast path's bounds.
		divs = append(divs, math.Float32frombits(0x35800000+next()%0x0a000000))
	}
	const cols = 1 << 14
	rows := len(divs)
	x := make([]float32, rows*cols)
	d := make([]float32, rows)
	for r, b := range divs {
		d[r] = b
		row := x[r*cols : (r+1)*cols]
		for i := range row {
			switch i % 4 {
			case 0: // anywhere on the line
				row[i] = math.Float32frombits(next())
			case 1: // a quotient near a midpoint
				q := math.Float32frombits(0x30000000 + next()%0x1e000000)
				mid := float64(q) + float64(math.Nextafter32(q, float32(math.Inf(1)))-q)/2
				row[i] = float32(mid * float64(b))
			default: // softmax-like: exp values over a row sum
				row[i] = float32(math.Exp(-float64(next()%4000) / 100))
			}
		}
	}
	checkRowDivision(t, x, d, cols)
}

// TestDivideByInvariant64 is TestDivideByInvariant for float64.
func TestDivideByInvariant64(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	divs := []float64{1, 3, 7, 0.1, 1 - 1.0/(1<<52), 0x1p100, 0x1p101, 0x1p-100, 0x1p-101, 0, math.Inf(1), math.NaN(), 5e-324, 1.7e308}
	rng := uint64(99)
	next := func() uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng }
	for range 40 {
		divs = append(divs, math.Float64frombits(0x3c00000000000000+next()%0x0800000000000000))
	}
	const cols = 1 << 12
	rows := len(divs)
	x := make([]float64, rows*cols)
	for r, b := range divs {
		for i := range cols {
			if i%2 == 0 {
				x[r*cols+i] = math.Float64frombits(next())
			} else {
				q := math.Float64frombits(0x3000000000000000 + next()%0x1000000000000000)
				x[r*cols+i] = (q + (math.Nextafter(q, math.Inf(1))-q)/2) * b
			}
		}
	}
	checkRowDivision(t, x, divs, cols)
}

// checkRowDivision compiles x[r, :] / d[r] for rows of cols elements and
// requires Go's quotient bit for bit, NaN for NaN.
func checkRowDivision[T float32 | float64](t *testing.T, x, d []T, cols int) {
	t.Helper()
	rows := len(d)
	dt, fn := "f32", "gojit.div.float"
	if unsafe.Sizeof(T(0)) == 8 {
		dt, fn = "f64", "gojit.div.double"
	}
	g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : %[1]s[%[2]d,%[3]d]
  %%1 = param 1 : %[1]s[%[2]d,1]
  %%2 = broadcast %%1 : %[1]s[%[2]d,%[3]d]
  %%3 = div %%0, %%2 : %[1]s[%[2]d,%[3]d]
  return %%3
}`, dt, rows, cols))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Build(g, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if Options.target(Options{}).AVX512 && !strings.Contains(exe.Module.Text, fn) {
		t.Fatal("the host module does not use the reciprocal division")
	}
	out := make([]T, rows*cols)
	if err := exe.Run([]unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&d[0])}, []unsafe.Pointer{unsafe.Pointer(&out[0])}); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, got := range out {
		want := x[i] / d[i/cols]
		if got != want && !(got != got && want != want) || got == want && math.Signbit(float64(got)) != math.Signbit(float64(want)) {
			if bad++; bad <= 5 {
				t.Errorf("%g / %g = %g, want %g", x[i], d[i/cols], got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d quotients differ", bad, len(out))
	}
}

// TestExpFloat64 checks float64 exp and sigmoid, portable (libm) and for
// this host (AVX-512's VSCALEF with a degree-13 polynomial), against Go's
// math over a sweep of the float64 line and the ranges where exp
// overflows or turns subnormal: within 2 ulps (the differential tests
// allow transcendental ops 4). Exact values must be exact: exp(0) = 1,
// exp(-Inf) = 0, exp(+Inf) = +Inf, NaN stays NaN.
func TestExpFloat64(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	var xs []float64
	for b := uint64(0); b < 1<<63; b += 1 << 50 {
		xs = append(xs, math.Float64frombits(b), -math.Float64frombits(b))
	}
	for _, c := range []float64{0, 1, 0.5, 0.3465, 20, 700, 709.7, 709.8, 710, -700, -708.4, -720, -744, -745.1, -746} {
		for d := -500; d <= 500; d++ {
			xs = append(xs, c+float64(d)*1e-3)
		}
	}
	xs = append(xs, math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1))
	n := len(xs)
	g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f64[%d]
  %%1 = exp %%0 : f64[%d]
  %%2 = sigmoid %%0 : f64[%d]
  return %%1, %%2
}`, n, n, n))
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{OptLevel: 3, Portable: true}, {OptLevel: 3}} {
		exe, err := Build(g, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !opt.Portable && opt.target().AVX512 && !strings.Contains(exe.Module.Text, "scalef.sd") {
			t.Fatal("host module does not use VSCALEF for float64 exp")
		}
		outs := [2][]float64{make([]float64, n), make([]float64, n)}
		err = exe.Run([]unsafe.Pointer{unsafe.Pointer(&xs[0])}, []unsafe.Pointer{unsafe.Pointer(&outs[0][0]), unsafe.Pointer(&outs[1][0])})
		if err != nil {
			t.Fatal(err)
		}
		// Go's amd64 math.Exp overflows early, from 709.437; the
		// interpreter corrects it the same way (internal/interp exp64).
		exp := func(x float64) float64 {
			if x > 709 && x <= 7.09782712893383973096e+02 {
				return math.Exp(x-1) * math.E
			}
			return math.Exp(x)
		}
		ref := []func(float64) float64{exp, func(x float64) float64 { return 1 / (1 + exp(-x)) }}
		for k, name := range []string{"exp", "sigmoid"} {
			worst, bad := uint64(0), 0
			for i, x := range xs {
				got, want := outs[k][i], ref[k](x)
				if got == want || (got != got && want != want) {
					continue
				}
				d := uint64(math.MaxUint64)
				if got == got && want == want && math.Signbit(got) == math.Signbit(want) {
					a, b := math.Float64bits(math.Abs(got)), math.Float64bits(math.Abs(want))
					d = max(a, b) - min(a, b)
				}
				worst = max(worst, d)
				if d > 2 {
					if bad++; bad <= 5 {
						t.Errorf("portable=%v %s(%v) = %v, want %v", opt.Portable, name, x, got, want)
					}
				}
			}
			t.Logf("portable=%v %s: %d inputs, worst %d ulps", opt.Portable, name, n, worst)
		}
	}
}
