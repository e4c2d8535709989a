package philox

import (
	"math"
	"testing"
)

// The known-answer vectors of Random123 (kat_vectors, philox4x32 with 10
// rounds): counter, key, expected output.
func TestKnownAnswers(t *testing.T) {
	cases := []struct {
		c    Counter
		k    Key
		want [4]uint32
	}{
		{Counter{0, 0, 0, 0}, Key{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{Counter{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, Key{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{Counter{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, Key{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	}
	for _, c := range cases {
		if got := Block(c.c, c.k); got != c.want {
			t.Errorf("Block(%08x, %08x) = %08x, want %08x", c.c, c.k, got, c.want)
		}
	}
}

func TestStreamPositions(t *testing.T) {
	k := KeyOf(42)
	blk := Uint32s(k, 7, 8)
	for i := range 4 {
		if got := Uint32(k, 7, 8+uint64(i)); got != blk[i] {
			t.Fatalf("Uint32(pos %d) = %08x, want word %d of the block, %08x", 8+i, got, i, blk[i])
		}
	}
	if Uint32(k, 7, 0) == Uint32(k, 8, 0) {
		t.Fatal("streams 7 and 8 start with the same word")
	}
}

func TestFloatRanges(t *testing.T) {
	if Float32(0) != 0 || Float32(math.MaxUint32) >= 1 || Float32(math.MaxUint32) != 1-1.0/(1<<24) {
		t.Fatalf("Float32 range: %v %v", Float32(0), Float32(math.MaxUint32))
	}
	if Float64(0, 0) != 0 || Float64(math.MaxUint32, math.MaxUint32) >= 1 {
		t.Fatal("Float64 range")
	}
}

// Moments and a chi-square test on 64 buckets of 2^20 uniform draws.
func TestUniformStatistics(t *testing.T) {
	const n, buckets = 1 << 20, 64
	k := KeyOf(2026)
	var sum, sum2 float64
	var count [buckets]int
	for i := uint64(0); i < n; i += 4 {
		for _, w := range Uint32s(k, 0, i) {
			u := float64(Float32(w))
			sum += u
			sum2 += u * u
			count[int(u*buckets)]++
		}
	}
	mean, vr := sum/n, sum2/n-(sum/n)*(sum/n)
	// Standard errors: 1/sqrt(12n) for the mean, about 1/sqrt(180n) for the variance.
	if math.Abs(mean-0.5) > 5/math.Sqrt(12*n) || math.Abs(vr-1.0/12) > 5/math.Sqrt(180*n) {
		t.Fatalf("mean %v, variance %v; want 0.5 and 1/12", mean, vr)
	}
	var chi2 float64
	e := float64(n) / buckets
	for _, c := range count {
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	// 63 degrees of freedom: P(chi2 > 110) is about 2e-4.
	if chi2 > 110 {
		t.Fatalf("chi-square over %d buckets = %.1f (63 degrees of freedom)", buckets, chi2)
	}
}

func TestSplitKeysDiffer(t *testing.T) {
	keys := Split(KeyOf(1), 100)
	seen := map[Key]bool{KeyOf(1): true}
	for _, k := range keys {
		if seen[k] {
			t.Fatalf("Split produced a repeated key %08x", k)
		}
		seen[k] = true
	}
	if Split(KeyOf(1), 3)[2] != keys[2] {
		t.Fatal("Split is not a pure function of (key, j)")
	}
}

func BenchmarkBlock(b *testing.B) {
	k := KeyOf(1)
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Block(Counter{uint32(i)}, k)[0]
	}
	if s == 1 {
		b.Log(s)
	}
}
