package half

import (
	"math"
	"sort"
	"testing"
)

// nearest finds, by brute force over all finite values of a 16-bit format
// (given as float64s with their bits), the one nearest x, ties to the even
// bit pattern; beyond the largest finite value by half an ulp or more it
// is ±Inf (the IEEE overflow rule).
type table struct {
	vals []float64
	bits []uint16
	max  float64 // largest finite
	ulp  float64 // ulp at the largest finite
	inf  uint16
}

func newTable(conv func(uint16) float32, expBits uint) table {
	var t table
	type pair struct {
		v float64
		b uint16
	}
	var ps []pair
	for b := 0; b < 1<<16; b++ {
		v := float64(conv(uint16(b)))
		if math.IsNaN(v) || math.IsInf(v, 0) || (v == 0 && math.Signbit(v)) {
			continue
		}
		ps = append(ps, pair{v, uint16(b)})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].v < ps[j].v })
	for _, p := range ps {
		t.vals = append(t.vals, p.v)
		t.bits = append(t.bits, p.b)
	}
	t.max = t.vals[len(t.vals)-1]
	t.ulp = t.max - t.vals[len(t.vals)-2]
	t.inf = uint16(((1 << expBits) - 1) << (15 - expBits))
	return t
}

func (t table) nearest(x float64) uint16 {
	ax := math.Abs(x)
	var b uint16
	if ax >= t.max+t.ulp/2 {
		b = t.inf
	} else {
		i := sort.SearchFloat64s(t.vals, ax)
		switch {
		case i == len(t.vals):
			b = t.bits[i-1]
		case t.vals[i] == ax || i == 0:
			b = t.bits[i]
		default:
			lo, hi := t.vals[i-1], t.vals[i]
			switch {
			case ax-lo < hi-ax:
				b = t.bits[i-1]
			case ax-lo > hi-ax:
				b = t.bits[i]
			case t.bits[i-1]&1 == 0:
				b = t.bits[i-1]
			default:
				b = t.bits[i]
			}
		}
	}
	if math.Signbit(x) {
		b |= 0x8000
	}
	return b
}

func samples() []float32 {
	var xs []float32
	for b := uint32(0); b < 1<<31; b += 4093 {
		xs = append(xs, math.Float32frombits(b), math.Float32frombits(b|1<<31))
	}
	// Every midpoint and neighbour of binary16 values.
	for h := 0; h < 0x7c00; h++ {
		v := Float16(h).Float32()
		n := Float16(h + 1).Float32()
		mid := float32((float64(v) + float64(n)) / 2)
		xs = append(xs, v, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e9), -mid)
	}
	return xs
}

func TestFloat16Exhaustive(t *testing.T) {
	tab := newTable(func(b uint16) float32 { return Float16(b).Float32() }, 5)
	// Decoding: every pattern against the formula (-1)^s 2^(e-15) (1+m/1024).
	for b := 0; b < 1<<16; b++ {
		s, e, m := b>>15, (b>>10)&31, b&1023
		var want float64
		switch e {
		case 0:
			want = math.Ldexp(float64(m), -24)
		case 31:
			want = math.Inf(1)
			if m != 0 {
				want = math.NaN()
			}
		default:
			want = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		got := float64(Float16(b).Float32())
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("Float16(0x%04x) = %v, want %v", b, got, want)
		}
	}
	for _, x := range samples() {
		got := Float16From(x)
		if x != x {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("Float16From(NaN 0x%08x) = 0x%04x, not a NaN", math.Float32bits(x), got)
			}
			continue
		}
		if want := tab.nearest(float64(x)); uint16(got) != want {
			t.Fatalf("Float16From(%g) = 0x%04x, want 0x%04x", x, got, want)
		}
	}
}

func TestBFloat16Exhaustive(t *testing.T) {
	tab := newTable(func(b uint16) float32 { return BFloat16(b).Float32() }, 8)
	for _, x := range samples() {
		got := BFloat16From(x)
		if x != x {
			if got&0x7f80 != 0x7f80 || got&0x7f == 0 {
				t.Fatalf("BFloat16From(NaN) = 0x%04x, not a NaN", got)
			}
			continue
		}
		if want := tab.nearest(float64(x)); uint16(got) != want {
			t.Fatalf("BFloat16From(%g) = 0x%04x, want 0x%04x", x, got, want)
		}
	}
}
