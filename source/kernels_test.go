package source

import "math"

// Test kernels: compiled by CompileFunc and compared with the same
// functions run by Go. This file imports only math, so the loader can
// type-check it alone.

func saxpy(a float32, x, y []float32) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func sumInts(x []int64) int64 {
	var s int64
	for _, v := range x {
		s += v
	}
	return s
}

func divmod(a, b int64) (int64, int64) { return a / b, a % b }

func divmod32(a, b int32) (int32, int32) { return a / b, a % b }

func udiv(a, b uint16) (uint16, uint16) { return a / b, a % b }

func shifts(x int32, s int, u uint8, t uint64) (int32, int32, uint8, uint8, int32) {
	return x << s, x >> s, u << t, u >> t, x >> t
}

func arith(a, b int8) (int8, int8, int8, int8, int8, int8, int8) {
	return a + b, a - b, a * b, a & b, a | b, a ^ b, a &^ b
}

func compare(a, b float64, c, d uint32) (bool, bool, bool, bool, bool, bool, bool, bool) {
	return a < b, a <= b, a == b, a != b, c < d, c >= d, a > b, !(c == d)
}

func f2i(x float64) (int8, int16, int32, int64, uint8, uint16, uint32, uint64, int) {
	return int8(x), int16(x), int32(x), int64(x), uint8(x), uint16(x), uint32(x), uint64(x), int(x)
}

func f32toi(x float32) (int8, int32, int64, uint32, uint64) {
	return int8(x), int32(x), int64(x), uint32(x), uint64(x)
}

func i2f(a int64, b uint64, c int8, d uint32) (float64, float32, float64, float32, float64, float32) {
	return float64(a), float32(a), float64(b), float32(b), float64(c), float32(d)
}

func intConv(a int64, b uint8, c int16) (int8, uint16, int32, uint64, int64, uint32) {
	return int8(a), uint16(a), int32(c), uint64(c), int64(b), uint32(c)
}

func mathExact(x, y, z float64) (float64, float64, float64, float64, float64, float64, float64, float64, float64, float64) {
	return math.Sqrt(x), math.Abs(x), math.Floor(x), math.Ceil(x), math.Trunc(x), math.Max(x, y), math.Min(x, y), math.FMA(x, y, z), math.Round(x), math.Copysign(x, y)
}

func mathMisc(x float64, s int) (float64, bool, bool, float64, uint64, float64, float64) {
	return math.Inf(s), math.IsNaN(x), math.IsInf(x, s), math.NaN(), math.Float64bits(x), max(x, 1, -x), min(x, 0.5)
}

func minmaxInt(a, b, c int, u, v uint8) (int, int, uint8, uint8) {
	return min(a, b, c), max(a, b), min(u, v), max(u, v)
}

func mathLibm(x, y float64) (float64, float64, float64, float64, float64, float64) {
	return math.Exp(x), math.Log(math.Abs(x)), math.Sin(x), math.Cos(x), math.Pow(math.Abs(x), y), math.Tanh(x)
}

// control exercises if/else, switch, labeled break/continue and early
// return.
func control(x []int, lim int) int {
	s := 0
outer:
	for i := 0; i < len(x); i++ {
		switch {
		case x[i] < 0:
			continue
		case x[i] > lim:
			break outer
		case x[i] == 7:
			return -s
		}
		for j := 0; ; j++ {
			if j >= 3 {
				continue outer
			}
			if x[i]%2 == 0 && j == 1 {
				break
			}
			s += x[i] * j
		}
		switch x[i] % 4 {
		case 0:
			s++
		case 1, 2:
			s += 2
		default:
			s--
		}
	}
	return s
}

func whileLoop(n uint64) int {
	steps := 0
	for n != 1 && steps < 1000 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

func helper(a, b float64) float64 { return a*a + b }

func twoResults(x float64) (float64, bool) { return x * 2, x > 0 }

func callsHelpers(x []float64) float64 {
	s := 0.0
	for i := range x {
		d, pos := twoResults(x[i])
		if pos {
			s += helper(d, 1)
		}
	}
	return s
}

func index(x []float32, i int) float32 { return x[i] }

func sliceSum(x []float64, lo, hi int) float64 {
	s := 0.0
	for _, v := range x[lo:hi] {
		s += v
	}
	return s
}

func localArray(x []int) int {
	var a [4]int
	for i, v := range x {
		a[i%4] += v
	}
	return a[0]*1 + a[1]*2 + a[2]*3 + a[3]*4
}

func boolSlice(b []bool, x []int32) int32 {
	var s int32
	for i := range b {
		if b[i] {
			s += x[i]
		}
		b[i] = !b[i]
	}
	return s
}

// pairwise computes the squared distances between the n points of dim d
// in x (row-major) into out (n*n).
func pairwise(x []float32, n, d int, out []float32) {
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for k := 0; k < d; k++ {
				t := x[i*d+k] - x[j*d+k]
				s += t * t
			}
			out[i*n+j] = s
		}
	}
}

// newton computes the square root of each x by Newton's iteration.
func newton(x, out []float64) {
	for i, v := range x {
		r := v
		if r < 1 {
			r = 1
		}
		for it := 0; it < 100; it++ {
			nr := 0.5 * (r + v/r)
			if math.Abs(nr-r) <= 1e-12*nr {
				r = nr
				break
			}
			r = nr
		}
		out[i] = r
	}
}

// rangeInt is a range over an integer (a loop go/ssa rotates: its test is
// last) indexing two slices.
func rangeInt(x, y []float64, n int) {
	for i := range n {
		y[i] = x[i] * 2
	}
	for i := range n - 1 {
		y[i+1] += x[i]
	}
}

func loopVariants(x []int32, lo, hi int) int32 {
	var s int32
	for i := lo; i < hi; i++ {
		s += x[i] ^ x[i-lo]
	}
	for i := 0; i < len(x)-1; i++ {
		s += x[i+1] - x[i]
	}
	return s
}

// Dot is the dot product of x and y (the examples' kernel).
func Dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// Axpy sets y[i] += a*x[i] (the examples' kernel).
func Axpy(a float32, x, y []float32) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func mathMore(x, y float64) (float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64) {
	return math.Atan(x), math.Asin(y / 10), math.Acos(y / 10), math.Atan2(x, y), math.Sinh(y), math.Cosh(y), math.Cbrt(x),
		math.Log1p(math.Abs(x)), math.Expm1(y), math.Exp2(y), math.Log2(math.Abs(x)), math.Log10(math.Abs(x)), math.Mod(x, y), math.Tan(x), math.Hypot(x, y)
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func fibs(n uint8) int { return fib(int(n % 20)) }

// getAt fails inside a callee: the error names the callee's line.
func getAt(x []int, i int) int { return x[i] * 2 }

func sumAt(x []int, idx []int) int {
	s := 0
	for _, i := range idx {
		s += getAt(x, i)
	}
	return s
}

func countDown(n uint16, x []uint16) (uint16, bool) {
	var s uint16
	for i := n; i > 0; i-- {
		if int(i) < len(x) {
			s += x[i] >> (i % 17)
		}
	}
	return s, s%2 == 0
}

func threeIndex(x []int32, a, b, c int) int {
	y := x[a:b:c]
	return len(y)*1000 + cap(y)
}
