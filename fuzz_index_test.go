package gojit_test

// The fuzz builder's indexing and random ops (opcode bytes 0xE0..0xEF):
// Take, TakeAlongAxis, ScatterAdd and DynamicSlice with indices derived from
// the program's values, clamped into range most of the time and one past
// it otherwise (both modes must then report the same error), and random
// draws from keys derived from the program's values, which must match bit
// for bit.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

// fuzzIndices turns v into indices for an axis of size d: integer values
// clamped to [-d, d-1], or, when bad, to [-d-1, d], so that some may be out
// of range.
func fuzzIndices(v *gojit.Tensor, d int, bad bool) *gojit.Tensor {
	lo, hi := -d, d-1
	if bad {
		lo, hi = lo-1, hi+1
	}
	i := v.Cast(gojit.Int64).Maximum(gojit.Scalar(float64(lo))).Minimum(gojit.Scalar(float64(hi)))
	if v.DType() == gojit.Uint8 {
		return i.Cast(gojit.Int32)
	}
	return i
}

// atLeast1D gives a 0-D value a dimension.
func atLeast1D(t *gojit.Tensor) *gojit.Tensor {
	if t.Rank() == 0 {
		return t.Reshape(1)
	}
	return t
}

func (b *fuzzBuilder) indexing(op int) {
	x := b.pick()
	xt := atLeast1D(x.t)
	shape := xt.Shape()
	if len(shape) == 0 { // a poisoned value: the ops must pass the error on
		shape = []int{1}
	}
	ax := b.r.next() % len(shape)
	bad := b.r.next()%4 == 0
	iv := b.pick()
	switch op & 0xF {
	case 0, 1, 2:
		idx := fuzzIndices(iv.t, shape[ax], bad)
		if b.r.next()%5 == 0 {
			idx = gojit.Scalar(float64(b.r.next()%(2*shape[ax]+1) - shape[ax]))
		}
		b.op("Take(%s, %s, %d) bad=%v", b.name(x.t), b.name(iv.t), ax, bad)
		r := derived(x, iv)
		r.t = xt.Take(idx, ax)
		b.push(r)
	case 3, 4:
		// indices of x's own shape along ax, computed from x.
		idx := fuzzIndices(xt, shape[ax], bad)
		if n := b.r.next() % 3; n > 0 {
			s := append([]int{}, shape...)
			s[ax] = n
			idx = fuzzIndices(gojit.Iota(gojit.Int32, ax, s...).Mul(gojit.Scalar(7)), shape[ax], bad)
		}
		b.op("TakeAlongAxis(%s, %d) bad=%v", b.name(x.t), ax, bad)
		r := derived(x)
		r.t = xt.TakeAlongAxis(idx, ax)
		b.push(r)
	case 5, 6, 7:
		xt = noBool(xt, false)
		want := append(append(append([]int{}, shape[:ax]...), iv.t.Shape()...), shape[ax+1:]...)
		if fuzzSize(want) > fuzzMaxSize {
			// The interpreter would materialize the broadcast updates
			// (compiled code fuses them) and could run out of memory.
			iv = fuzzVal{t: gojit.Iota(gojit.Int32, 0, 3)}
			want = append(append(append([]int{}, shape[:ax]...), 3), shape[ax+1:]...)
		}
		idx := fuzzIndices(iv.t, shape[ax], bad)
		u := b.partner(want)
		ut := noBool(u.t, false)
		if s, ok := broadcastShape(ut.Shape(), want); !ok || !slices.Equal(s, want) {
			u = fuzzVal{t: gojit.Scalar(1)}
			ut = u.t
		}
		b.op("ScatterAdd(%s, %s, %s, %d) bad=%v", b.name(x.t), b.name(iv.t), b.name(u.t), ax, bad)
		// Sums are taken in one order both ways: exact inputs, exact result.
		r := derived(x, iv, u)
		r.t = xt.ScatterAdd(idx, ut, ax)
		b.push(r)
	case 8, 9:
		starts := make([]*gojit.Tensor, len(shape))
		sizes := make([]int, len(shape))
		for k, d := range shape {
			sizes[k] = b.r.next() % (d + 1)
			if sel := b.r.next(); sel%3 == 0 && len(iv.t.Shape()) > 0 && fuzzSize(iv.t.Shape()) > 0 {
				starts[k] = noBool(iv.t.Reshape(-1), false).Take(gojit.Scalar(0), 0).Cast(gojit.Int32)
			} else {
				starts[k] = gojit.Scalar(float64(sel%(2*d+3) - d - 1))
			}
		}
		b.op("DynamicSlice(%s, sizes %v)", b.name(x.t), sizes)
		r := derived(x, iv)
		r.t = xt.DynamicSlice(starts, sizes)
		b.push(r)
	default:
		key := gojit.Iota(gojit.Int32, 0, 2).Add(gojit.Scalar(float64(b.r.next())))
		r := fuzzVal{}
		if fuzzSize(iv.t.Shape()) >= 2 {
			key = noBool(iv.t.Reshape(-1), false).Slice([]int{0}, []int{2}).Cast(gojit.Int32)
			r = derived(iv)
		}
		out := fuzzShapes[b.r.next()%len(fuzzShapes)]
		if fuzzSize(out) > 4096 {
			out = []int{64, 65}
		}
		switch b.r.next() % 6 {
		case 0:
			b.op("Uniform(key %s, f32, %v)", b.name(iv.t), out)
			r.t = gojit.Uniform(key, gojit.Float32, out...)
		case 1:
			b.op("Normal(key %s, f64, %v)", b.name(iv.t), out)
			r.t = gojit.Normal(key, gojit.Float64, out...)
		case 2:
			b.op("Normal(key %s, f32, %v)", b.name(iv.t), out)
			r.t = gojit.Normal(key, gojit.Float32, out...)
		case 3:
			b.op("Bernoulli(key %s, 0.25, %v)", b.name(iv.t), out)
			r.t = gojit.Bernoulli(key, gojit.Scalar(0.25), out...)
		case 4:
			b.op("RandomInt(key %s, -5, 1000, %v)", b.name(iv.t), out)
			r.t = gojit.RandomInt(key, -5, 1000, gojit.Int32, out...)
		default:
			n := b.r.next() % 5
			b.op("SplitKey(key %s, %d)", b.name(iv.t), n)
			r.t = gojit.SplitKey(key, n)
		}
		b.push(r)
	}
}

func fuzzSize(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// TestFuzzIndexingPrograms runs programs made mostly of the indexing and
// random ops (every op byte in 0xE0..0xEF, the rest of the bytes from a
// seeded generator) through checkFuzzProgram.
func TestFuzzIndexingPrograms(t *testing.T) {
	p := newPRNG(10)
	for i := range 60 {
		data := make([]byte, 4+p.intn(60))
		for j := range data {
			data[j] = byte(p.intn(256))
			if j >= 7 && p.intn(3) == 0 {
				data[j] = byte(0xE0 + p.intn(16))
			}
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkFuzzProgram(t, data) })
	}
}
