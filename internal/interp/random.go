package interp

import (
	"math"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/philox"
)

// Random ops. A key is an i32[2] tensor holding the bits of a Philox-4x32
// key's two words (philox.Key). Every value is a pure function of the key,
// the op and the element's row-major position p, computed with Philox-4x32-10
// on the counter (block, 0... see below) as package philox defines it:
//
//   - random_uniform f32: element p is philox.Float32 of word p%4 of the
//     block at counter (p/4, stream 0): philox.Uint32(key, 0, p).
//   - random_uniform f64: element p is philox.Float64(w[2p], w[2p+1]) with
//     w[i] = philox.Uint32(key, 0, i).
//   - random_normal: element p uses the four words w0..w3 of the block at
//     counter (p, stream 1), through Box-Muller (Normal64).
//   - split_key: key j of the result is words 0 and 1 of the block at
//     counter (j, 0, 0xFFFFFFFF, 0xFFFFFFFF): philox.Split.
//
// So a value never depends on how many threads compute the tensor or how
// the work is chunked; Uniform over a longer shape extends a shorter one.

// Streams of the random ops: a key drives independent streams for uniform
// and normal draws.
const (
	StreamUniform = 0
	StreamNormal  = 1
)

// KeyOf reads a key tensor's two words.
func KeyOf(k []int32) philox.Key { return philox.Key{uint32(k[0]), uint32(k[1])} }

func random(n *ir.Node, key []int32) any {
	k := KeyOf(key)
	size := n.Shape.Size()
	switch n.Op {
	case ir.OpSplitKey:
		out := make([]int32, size)
		for j, s := range philox.Split(k, size/2) {
			out[2*j], out[2*j+1] = int32(s[0]), int32(s[1])
		}
		return out
	case ir.OpRandomUniform:
		if n.DType == ir.Float32 {
			out := make([]float32, size)
			for p := range out {
				out[p] = philox.Float32(philox.Uint32(k, StreamUniform, uint64(p)))
			}
			return out
		}
		out := make([]float64, size)
		for p := range out {
			w := philox.Uint32s(k, StreamUniform, uint64(2*p)&^3)
			j := (2 * p) & 3
			out[p] = philox.Float64(w[j], w[j+1])
		}
		return out
	}
	if n.DType == ir.Float32 {
		out := make([]float32, size)
		for p := range out {
			out[p] = float32(Normal(k, uint64(p), false))
		}
		return out
	}
	out := make([]float64, size)
	for p := range out {
		out[p] = Normal(k, uint64(p), true)
	}
	return out
}

// Normal is element p of a standard normal tensor drawn with key k: the
// Box-Muller transform z = sqrt(-2 log u1) * cos(2 pi u2) of the words
// w0..w3 of the block at counter (p, stream 1). For float64 results u1 and
// u2 take 53 bits each, u1 = (hi:lo>>11 + 1) * 2^-53 from (w0, w1) and u2 =
// (hi:lo>>11) * 2^-53 from (w2, w3); for float32 results 32 bits each,
// u1 = (w0+1) * 2^-32 and u2 = w1 * 2^-32 (the caller rounds z to
// float32). u1 lies in (0, 1], so the logarithm is finite.
//
// log and cos are Log01 and Cos2Pi, polynomials written with IEEE
// operations only (no library calls, no fused multiply-adds), which the
// code generator emits operation for operation: compiled and interpreted
// draws are equal bit for bit.
func Normal(k philox.Key, p uint64, f64 bool) float64 {
	w := philox.Block(philox.Counter{uint32(p), uint32(p >> 32), StreamNormal, 0}, k)
	var u1, u2 float64
	if f64 {
		a := (uint64(w[0])<<32 | uint64(w[1])) >> 11
		b := (uint64(w[2])<<32 | uint64(w[3])) >> 11
		u1 = float64(a+1) * 0x1p-53
		u2 = float64(b) * 0x1p-53
	} else {
		u1 = float64(uint64(w[0])+1) * 0x1p-32
		u2 = float64(w[1]) * 0x1p-32
	}
	r := math.Sqrt(-2 * Log01(u1))
	return r * Cos2Pi(u2)
}

// LogCoeffs are the coefficients 2/(2k+1) of log(m) = 2 atanh(s),
// s = (m-1)/(m+1): log(m) = s * (c0 + s2*(c1 + s2*(c2 + ...))), s2 = s*s.
var LogCoeffs = [...]float64{2, 2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9, 2.0 / 11, 2.0 / 13, 2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23}

// Log01 is the natural logarithm of a normal positive float64 (the random
// ops use it on (0, 1]), within a few ulps. u = m * 2^e with m in
// [sqrt(1/2), sqrt(2)) (exact bit manipulation), then log u = e*ln2 +
// 2 atanh((m-1)/(m+1)) by the series LogCoeffs, evaluated by Horner's
// rule. Every product is rounded before it is added (float64(...)), which
// forbids Go from fusing it into a multiply-add: the code generator emits
// the same separately rounded operations.
func Log01(u float64) float64 {
	b := math.Float64bits(u)
	e := int64(b>>52) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	if m > math.Sqrt2 {
		m = float64(m * 0.5)
		e++
	}
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	c := LogCoeffs
	poly := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		poly = c[i] + float64(s2*poly)
	}
	return float64(float64(e)*math.Ln2) + float64(s*poly)
}

// CosCoeffs and SinCoeffs are the Taylor coefficients (-1)^k/(2k)! and
// (-1)^k/(2k+1)! used by Cos2Pi on |x| <= pi/4.
var (
	CosCoeffs = [...]float64{1, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600,
		-1.0 / 87178291200, 1.0 / 20922789888000, -1.0 / 6402373705728000}
	SinCoeffs = [...]float64{1, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800,
		1.0 / 6227020800, -1.0 / 1307674368000, 1.0 / 355687428096000, -1.0 / 121645100408832000}
)

// Cos2Pi is cos(2*pi*t) for t in [0, 1) that is a multiple of 2^-53: t is
// reduced exactly to r = t - q/4 with q = floor(4t + 1/2), |r| <= 1/8,
// x = r*2pi, and the result is cos x, -sin x, -cos x or sin x for q mod 4 =
// 0, 1, 2, 3, each a Taylor polynomial in x*x evaluated by Horner's rule
// with separately rounded operations (see Log01).
func Cos2Pi(t float64) float64 {
	q := math.Floor(float64(t*4) + 0.5)
	r := t - float64(q*0.25)
	x := float64(r * (2 * math.Pi))
	x2 := float64(x * x)
	cp := CosCoeffs[len(CosCoeffs)-1]
	for i := len(CosCoeffs) - 2; i >= 0; i-- {
		cp = CosCoeffs[i] + float64(x2*cp)
	}
	sp := SinCoeffs[len(SinCoeffs)-1]
	for i := len(SinCoeffs) - 2; i >= 0; i-- {
		sp = SinCoeffs[i] + float64(x2*sp)
	}
	sp = float64(x * sp)
	switch int64(q) & 3 {
	case 1:
		return -sp
	case 2:
		return -cp
	case 3:
		return sp
	}
	return cp
}
