// Package half converts between float32 and the two 16-bit storage
// formats gojit supports: IEEE 754 binary16 (Float16) and bfloat16
// (BFloat16, the upper half of a float32). Conversions to 16 bits round to
// nearest, ties to even, overflow to ±Inf, and keep NaNs NaN (quiet, with
// the upper payload bits); conversions to float32 are exact.
package half

import (
	"math"
	"strconv"
)

// Float16 is an IEEE 754 binary16 value, as its bits.
type Float16 uint16

// BFloat16 is a bfloat16 value, as its bits: the upper 16 bits of the
// float32 it stands for.
type BFloat16 uint16

// Float16From rounds f to the nearest Float16 (ties to even).
func Float16From(f float32) Float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b >> 23 & 0xff)
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return Float16(sign | 0x7e00 | uint16(man>>13))
		}
		return Float16(sign | 0x7c00)
	}
	e := exp - 127 + 15 // the binary16 biased exponent
	switch {
	case e >= 31:
		return Float16(sign | 0x7c00)
	case e <= 0:
		if e < -10 { // below 2**-25, half the smallest subnormal: 0
			return Float16(sign)
		}
		m := man | 0x800000
		shift := uint(14 - e)
		q := m >> shift
		rem, half := m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && q&1 == 1 {
			q++ // may become the smallest normal, which is the right encoding
		}
		return Float16(sign | uint16(q))
	}
	q := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && q&1 == 1 {
		q++ // a carry into the exponent, up to +Inf, is the right encoding
	}
	return Float16(sign | uint16(q))
}

// Float32 returns h exactly.
func (h Float16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch exp {
	case 0:
		v := float32(man) * (1.0 / (1 << 24)) // subnormal: man * 2**-24, exact
		return math.Float32frombits(math.Float32bits(v) | sign)
	case 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// BFloat16From rounds f to the nearest BFloat16 (ties to even).
func BFloat16From(f float32) BFloat16 {
	b := math.Float32bits(f)
	if f != f {
		return BFloat16(b>>16 | 0x40)
	}
	b += 0x7fff + (b>>16)&1
	return BFloat16(b >> 16)
}

// Float32 returns h exactly.
func (h BFloat16) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }

// String formats h as the shortest decimal that reads back as its float32.
func (h Float16) String() string { return strconv.FormatFloat(float64(h.Float32()), 'g', -1, 32) }

// String formats h as the shortest decimal that reads back as its float32.
func (h BFloat16) String() string { return strconv.FormatFloat(float64(h.Float32()), 'g', -1, 32) }
