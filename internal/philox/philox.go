// Package philox is the counter-based random number generator gojit uses
// everywhere a random value is drawn: Philox-4x32 with 10 rounds (Salmon,
// Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the generator behind JAX's and PyTorch's counter-based streams.
//
// A draw is a pure function of a 64-bit key and a 128-bit counter, so a
// value depends only on where it sits (which sample, which element), never
// on how many threads computed it or in what order. Generated kernels and
// the pipeline's per-sample draws implement the same function; this package
// is the reference they are tested against, and it passes the published
// known-answer vectors of the Random123 library.
package philox

import (
	"math"
	"math/bits"
)

// Round constants of Philox-4x32 (the multipliers and the Weyl sequence
// increments of the key schedule).
const (
	M0 = 0xD2511F53
	M1 = 0xCD9E8D57
	W0 = 0x9E3779B9
	W1 = 0xBB67AE85
)

// Rounds is the number of rounds, the recommended 10.
const Rounds = 10

// Key is a Philox-4x32 key: two 32-bit words.
type Key [2]uint32

// Counter is a Philox-4x32 counter: four 32-bit words.
type Counter [4]uint32

// KeyOf returns the key for a 64-bit seed: its low word, then its high word.
func KeyOf(seed int64) Key { return Key{uint32(seed), uint32(uint64(seed) >> 32)} }

// Block returns the four random words for counter c under key k.
func Block(c Counter, k Key) [4]uint32 {
	c0, c1, c2, c3 := c[0], c[1], c[2], c[3]
	k0, k1 := k[0], k[1]
	for r := 0; r < Rounds; r++ {
		if r > 0 {
			k0 += W0
			k1 += W1
		}
		hi0, lo0 := bits.Mul32(M0, c0)
		hi1, lo1 := bits.Mul32(M1, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
	}
	return [4]uint32{c0, c1, c2, c3}
}

// Uint32s returns the random words at positions pos..pos+3 of the stream
// (key, stream): word i of the stream is word i%4 of the block whose counter
// is (i/4 low word, i/4 high word, stream low word, stream high word).
// pos must be a multiple of 4.
func Uint32s(k Key, stream uint64, pos uint64) [4]uint32 {
	b := pos / 4
	return Block(Counter{uint32(b), uint32(b >> 32), uint32(stream), uint32(stream >> 32)}, k)
}

// Uint32 returns word i of the stream (key, stream).
func Uint32(k Key, stream uint64, i uint64) uint32 {
	return Uint32s(k, stream, i&^3)[i&3]
}

// Float32 maps a random word to a float32 in [0, 1): its top 24 bits times
// 2^-24, so every value is an exact multiple of 2^-24 and 1 is never reached.
func Float32(w uint32) float32 { return float32(w>>8) * (1.0 / (1 << 24)) }

// Float64 maps two random words to a float64 in [0, 1): the top 53 bits of
// hi:lo times 2^-53.
func Float64(hi, lo uint32) float64 {
	return float64((uint64(hi)<<32|uint64(lo))>>11) * (1.0 / (1 << 53))
}

// Split derives n independent keys from k: key j is the first two words of
// the block at counter (j, 0, 0xFFFFFFFF, 0xFFFFFFFF), a counter no stream
// of the key reaches unless it draws 2^66 values from stream 2^64-1.
func Split(k Key, n int) []Key {
	out := make([]Key, n)
	for j := range out {
		w := Block(Counter{uint32(j), uint32(uint64(j) >> 32), math.MaxUint32, math.MaxUint32}, k)
		out[j] = Key{w[0], w[1]}
	}
	return out
}
