package gojit_test

import (
	"github.com/gojit/gojit"
)

// control writes a control-flow op into the fuzzed program: a Cond over
// two values of one type, a While with a loop-carried value and a counter
// (possibly with a Cond inside its body), or a ForLoop whose bound comes
// from the data. Every loop is bounded (at most 4 iterations, or 0: the
// zero-trip loop), so the programs terminate. Branches and bodies read
// values of the enclosing program (captures). The results carry the
// precision of what they are computed from: the ops inside are exact
// (sameTypeOp), so exact inputs give exact results.
func (b *fuzzBuilder) control() {
	switch b.r.next() % 4 {
	case 0:
		b.cond()
	case 1, 2:
		b.while(b.r.next()%2 == 1)
	default:
		b.forLoop()
	}
}

// elem0 returns element 0 of t as a 0-D tensor, or nil when t is empty.
func elem0(t *gojit.Tensor) *gojit.Tensor {
	n := 1
	for _, d := range t.Shape() {
		n *= d
	}
	if n == 0 {
		return nil
	}
	return t.Reshape(-1).Slice([]int{0}, []int{1}).Reshape()
}

// predicate returns a 0-D Bool from value v (element 0 is non-zero), or
// a constant when v is empty.
func (b *fuzzBuilder) predicate(v fuzzVal) *gojit.Tensor {
	if e := elem0(v.t); e != nil {
		return e.Cast(gojit.Bool)
	}
	return gojit.Full(gojit.Bool, float64(b.r.next()%2))
}

// sameTypeOp returns an exact op of t with t's dtype and shape, chosen by
// sel; capture, when it broadcasts to t's shape, may be added to it.
func sameTypeOp(t, capture *gojit.Tensor, sel int) *gojit.Tensor {
	if t.DType() == gojit.Bool {
		if sel%2 == 0 {
			return t
		}
		return t.Equal(gojit.Scalar(0))
	}
	switch sel % 6 {
	case 0:
		return t
	case 1:
		return t.Abs()
	case 2:
		return t.Neg()
	case 3:
		return t.Add(t)
	case 4:
		return t.Sub(gojit.Scalar(1))
	}
	if capture != nil {
		if s, ok := broadcastShape(capture.Shape(), t.Shape()); ok && equalInts(s, t.Shape()) {
			return t.Add(noBool(capture, false).Cast(t.DType()))
		}
	}
	return t.Mul(t)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (b *fuzzBuilder) cond() {
	p, v, c := b.pick(), b.pick(), b.pick()
	s1, s2 := b.r.next(), b.r.next()
	b.op("Cond(%s != 0, op%d(%s), op%d(%s) with %s)", b.name(p.t), s1%6, b.name(v.t), s2%6, b.name(v.t), b.name(c.t))
	pred := b.predicate(p)
	out := gojit.Cond(pred,
		func() []*gojit.Tensor { return []*gojit.Tensor{sameTypeOp(v.t, c.t, s1)} },
		func() []*gojit.Tensor { return []*gojit.Tensor{sameTypeOp(v.t, c.t, s2)} })
	r := derived(p, v, c)
	r.t = out[0]
	b.push(r)
}

// while loops over (v, counter) while counter < n, and, when dataCond,
// while element 0 of the state is non-zero too. With nested set by the
// input, the body picks its op with a Cond on the counter.
func (b *fuzzBuilder) while(dataCond bool) {
	v, c := b.pick(), b.pick()
	n := b.r.next() % 5
	s1, s2 := b.r.next(), b.r.next()
	nested := b.r.next()%2 == 1
	b.op("While(%s, counter < %d, data=%t, op%d/op%d(state) with %s, nested=%t)", b.name(v.t), n, dataCond, s1%6, s2%6, b.name(c.t), nested)
	out := gojit.While([]*gojit.Tensor{v.t, gojit.Full(gojit.Int32, 0)},
		func(s []*gojit.Tensor) *gojit.Tensor {
			more := s[1].Less(gojit.Scalar(float64(n)))
			if dataCond {
				if e := elem0(s[0]); e != nil {
					more = gojit.Where(more, e.Cast(gojit.Bool), gojit.Full(gojit.Bool, 0))
				}
			}
			return more
		},
		func(s []*gojit.Tensor) []*gojit.Tensor {
			next := sameTypeOp(s[0], c.t, s1)
			if nested {
				next = gojit.Cond(s[1].Less(gojit.Scalar(2)),
					func() []*gojit.Tensor { return []*gojit.Tensor{sameTypeOp(s[0], c.t, s1)} },
					func() []*gojit.Tensor { return []*gojit.Tensor{sameTypeOp(s[0], c.t, s2)} })[0]
			}
			return []*gojit.Tensor{next, s[1].Add(gojit.Scalar(1))}
		})
	r := derived(v, c)
	r.t = out[0]
	b.push(r)
	b.op("counter of the While above")
	b.push(fuzzVal{t: out[1]})
}

// forLoop runs from lo to min(element 0 of a value as Int32, 4), adding
// the index (cast) to a numeric state.
func (b *fuzzBuilder) forLoop() {
	v, h, c := b.pick(), b.pick(), b.pick()
	lo := b.r.next()%3 - 1
	s1 := b.r.next()
	b.op("ForLoop(%d, min(%s, 4), op%d(state)+i with %s)", lo, b.name(h.t), s1%6, b.name(c.t))
	var hi *gojit.Tensor
	if e := elem0(h.t); e != nil {
		hi = e.Cast(gojit.Int32).Minimum(gojit.Scalar(4))
	} else {
		hi = gojit.Scalar(float64(b.r.next() % 4))
	}
	out := gojit.ForLoop(gojit.Scalar(float64(lo)), hi, []*gojit.Tensor{v.t},
		func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			next := sameTypeOp(s[0], c.t, s1)
			if next.DType() != gojit.Bool {
				next = next.Add(i.Cast(next.DType()))
			}
			return []*gojit.Tensor{next}
		})
	r := derived(v, h, c)
	r.t = out[0]
	b.push(r)
}
