package gojit

import (
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/philox"
	"math"
)

// Random numbers (docs/random.md). They are counter-based, as in JAX: a key
// names a stream of Philox-4x32-10 blocks, and every value is a pure
// function of its key and its position in the result, so it never depends
// on the number of threads, on how work is split, or on what else the
// function computes. Compiled and interpreted runs give the same bits.
//
// A key is an Int32 array of shape [2] holding the two 32-bit words of a
// Philox key (word 0 first, as bit patterns). Make one on the host with
// RandomKey and pass it as an argument; inside traced code derive new
// independent keys with SplitKey. Drawing twice with one key gives the
// same numbers: split it first.

// RandomKey returns the key for seed: an Int32 array of shape [2] holding
// the seed's low 32 bits, then its high 32 bits.
func RandomKey(seed int64) *Array {
	k := philox.KeyOf(seed)
	return FromInt32([]int32{int32(k[0]), int32(k[1])}, 2)
}

// SplitKey derives n new keys from key, as an Int32 tensor of shape
// [n, 2]: row j is key j (keys.Take(Scalar(j), 0) extracts it). The keys
// are the Philox blocks of key at counters no draw uses, so they and the
// draws from key are independent.
func SplitKey(key *Tensor, n int) *Tensor {
	pcs := callers()
	tr, k, ok := randomKey("SplitKey", pcs, key)
	if !ok {
		return failed(tr, "SplitKey")
	}
	if n < 0 {
		return tr.fail("SplitKey", pcs, "negative number of keys %d", n)
	}
	return tr.add(ir.Node{Op: ir.OpSplitKey, Args: []ir.Value{k.v}, DType: ir.Int32, Shape: ir.Shape{n, 2}}, pcs)
}

// Uniform draws values uniformly distributed in [0, 1) of dtype dt
// and the given shape. A Float32 value is a multiple of 2^-24 (the top 24
// bits of a random word), a Float64 one of 2^-53; a Float16 one is the
// Float32 draw truncated to a multiple of 2^-11, a BFloat16 one to a
// multiple of 2^-8.
// Element p (row-major) depends only on key and p, so Uniform over a longer
// shape extends a shorter one.
func Uniform(key *Tensor, dt DType, shape ...int) *Tensor {
	return randomFloat(ir.OpRandomUniform, "Uniform", key, dt, shape, callers())
}

// Normal draws standard normal values (mean 0, variance 1) of dtype dt
// (a float dtype; Float16 and BFloat16 are drawn in Float32 and rounded)
// and the given shape, by the Box-Muller transform
// (docs/random.md).
func Normal(key *Tensor, dt DType, shape ...int) *Tensor {
	return randomFloat(ir.OpRandomNormal, "Normal", key, dt, shape, callers())
}

func randomFloat(op ir.Op, name string, key *Tensor, dt DType, shape []int, pcs callStack) *Tensor {
	tr, k, ok := randomKey(name, pcs, key)
	if !ok {
		return failed(tr, name)
	}
	if !dt.IsFloat() {
		return tr.fail(name, pcs, "dtype must be a float dtype, got %s", dt)
	}
	if dt.ir().IsHalf() {
		// Storage dtypes: drawn in Float32 and rounded once, as every
		// op computes them.
		f := tr.add(ir.Node{Op: op, Args: []ir.Value{k.v}, DType: ir.Float32, Shape: ir.Shape(shape).Clone()}, pcs)
		if f.v == poison {
			return f
		}
		if op == ir.OpRandomUniform {
			// Rounding could reach 1: truncate to the half's grid of
			// [0, 1) instead (multiples of 2^-11, or 2^-8 for BFloat16),
			// which the cast then keeps exactly.
			bits := 11.0
			if dt == BFloat16 {
				bits = 8
			}
			scale := math.Ldexp(1, int(bits))
			f = f.Mul(Scalar(scale)).Floor().Mul(Scalar(1 / scale))
		}
		return tr.add(ir.Node{Op: ir.OpCast, Args: []ir.Value{f.v}, DType: dt.ir(), Shape: ir.Shape(shape).Clone()}, pcs)
	}
	return tr.add(ir.Node{Op: op, Args: []ir.Value{k.v}, DType: dt.ir(), Shape: ir.Shape(shape).Clone()}, pcs)
}

// Bernoulli draws Bool values of the given shape, each true with
// probability p: Uniform(key, ...) < p, with Uniform of p's dtype (Float32
// for a Scalar or an integer p). p broadcasts to shape, so a per-sample
// probability is a tensor of shape [batch, 1, ...].
func Bernoulli(key *Tensor, p *Tensor, shape ...int) *Tensor {
	pcs := callers()
	tr, ts, ok := unify("Bernoulli", pcs, key, p)
	if !ok {
		return failed(tr, "Bernoulli")
	}
	dt := ir.Float32
	if !ts[1].weak && tr.node(ts[1].v).DType == ir.Float64 {
		dt = ir.Float64
	}
	if !ts[1].weak {
		if s, ok := ir.BroadcastShapes(tr.node(ts[1].v).Shape, shape); !ok || !s.Equal(ir.Shape(shape)) {
			return tr.fail("Bernoulli", pcs, "p of shape %s does not broadcast to %s", tr.node(ts[1].v).Shape, ir.Shape(shape))
		}
	}
	u := randomFloat(ir.OpRandomUniform, "Bernoulli", ts[0], DType(dt), shape, pcs)
	return u.binary(ir.OpLt, ts[1], pcs)
}

// RandomInt draws integers uniformly distributed in [lo, hi) of dtype dt
// (Uint8, Int32 or Int64) and the given shape; lo and hi must be values of
// dt with lo < hi and hi-lo <= 2^53. Element p is lo + floor(u*(hi-lo)) for
// u = Uniform(key, Float64, shape...)[p]: exact integer arithmetic on a
// 53-bit uniform, so each value is off the ideal probability by less than
// (hi-lo)/2^53 relatively.
func RandomInt(key *Tensor, lo, hi int64, dt DType, shape ...int) *Tensor {
	pcs := callers()
	tr, _, ok := randomKey("RandomInt", pcs, key)
	if !ok {
		return failed(tr, "RandomInt")
	}
	if !ir.IsIndexInt(dt.ir()) {
		return tr.fail("RandomInt", pcs, "dtype must be Uint8, Int32 or Int64, got %s", dt)
	}
	if !weakFits(dt.ir(), float64(lo)) || !weakFits(dt.ir(), float64(hi-1)) || lo >= hi ||
		uint64(hi)-uint64(lo) > 1<<53 {
		return tr.fail("RandomInt", pcs, "range [%d, %d) is empty, too wide (more than 2^53) or not in %s", lo, hi, dt)
	}
	r := float64(uint64(hi) - uint64(lo))
	u := randomFloat(ir.OpRandomUniform, "RandomInt", key, Float64, shape, pcs)
	v := u.binary(ir.OpMul, Scalar(r), pcs).unary(ir.OpFloor, pcs).binary(ir.OpMin, Scalar(r-1), pcs)
	if v.v == poison {
		return v
	}
	off := tr.cast(v, ir.Int64, pcs)
	base := tr.add(ir.Node{Op: ir.OpConst, DType: ir.Int64, Shape: ir.Shape{}, Const: ir.Const{I: lo}}, pcs) // exact, where a float64 could round
	if base.v == poison {
		return base
	}
	return tr.cast(off.binary(ir.OpAdd, base, pcs), dt.ir(), pcs)
}

// randomKey checks that key is an i32[2] tensor.
func randomKey(name string, pcs callStack, key *Tensor) (*tracer, *Tensor, bool) {
	tr, ts, ok := unify(name, pcs, key)
	if !ok {
		return tr, nil, false
	}
	k := ts[0]
	if k.weak {
		tr.fail(name, pcs, "key must be an i32[2] tensor (from RandomKey or SplitKey), got a Scalar")
		return tr, nil, false
	}
	if n := tr.node(k.v); n.DType != ir.Int32 || !n.Shape.Equal(ir.KeyShape) {
		tr.fail(name, pcs, "key must be an i32[2] tensor (from RandomKey or SplitKey), got %s%s", n.DType, n.Shape)
		return tr, nil, false
	}
	return tr, k, true
}
