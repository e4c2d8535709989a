package kernels

import "math"

// Every construct here is supported: check must accept all of it.

type celsius float64

type samples []float32

const (
	limit = 100
	half  = 0.5
)

func F(a, b []float64, xs samples, n int, t celsius, on bool) (float64, int) {
	s := 0.0
	count := 0
outer:
	for i := 0; i < min(len(a), len(b)); i++ {
		for j := range n {
			if j > limit {
				break outer
			}
			if j%2 == 0 {
				continue
			}
			s += a[i] * b[i] * float64(j)
		}
	}
	for i, v := range xs {
		xs[i] = float32(math.Sqrt(float64(v))) + float32(half)
		count += int(v)
	}
	for range 3 {
		count++
	}
	i := 0
	for i < len(a) {
		i++
	}
	for {
		break
	}
	switch {
	case s > 10:
		s = math.Max(s, 1)
		fallthrough
	case s < -10:
		s = math.Pow(s, 2) + math.Inf(1)
	default:
		s = -s
	}
	switch n {
	case 1, 2:
		count <<= 1
	}
	if n < 0 {
		panic("F: negative n")
	}
	if on && !math.IsNaN(s) {
		return s, count
	}
	sub := a[1:n:cap(a)]
	s += float64(len(sub)) + float64(t) + sq(max(s, 2))
	var u uint8 = 255
	u += uint8(count) ^ 3
	return s + float64(u), count &^ 1
}

func sq(v float64) float64 { return v * v }

// G uses local arrays: declared, filled by a literal, indexed, ranged over
// and sliced.
func G(x []int) int {
	var a [4]int
	b := [3]float64{1, 2, 3}
	var grid [2][2]int32
	for i, v := range x {
		a[i%4] += v
		grid[i%2][0]++
	}
	s := 0
	for i, v := range a {
		s += i * v
	}
	for _, w := range b[1:] {
		s += int(w)
	}
	return s + int(grid[1][0])
}

// H: named results with a bare return, several results from a callee,
// small and unsigned integer types, variable shifts, bool slices, labeled
// continue, math constants and conversions through float32.
func H(flags []bool, v []int8, shift uint, p uintptr) (total int64, any bool) {
	q, r := divmod(int64(len(v)), 3)
	total = q + r
rows:
	for i := range flags {
		if !flags[i] {
			continue rows
		}
		any = true
		total += int64(v[i%len(v)]) << (shift % 8)
		total ^= int64(p) >> 1
	}
	f := float32(math.Pi) * float32(total%7)
	total += int64(math.Floor(float64(f)))
	var u16 uint16 = 65535
	u16++
	total += int64(u16)
	return
}

func divmod(a, b int64) (int64, int64) { return a / b, a % b }
