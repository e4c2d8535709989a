package gojit_test

import (
	"github.com/gojit/gojit"
)

// newOp builds one of the ops of issue 10 (ops_math.go, ops_layout.go)
// for the fuzz target's program: the generator's opcode 7 with a
// sub-selector of 4 or 5 (see step).
func (b *fuzzBuilder) newOp(raw bool) {
	v := b.pick()
	x := v.t
	rank := len(x.Shape())
	axis := 0
	if rank > 0 {
		axis = b.r.next()%(2*rank) - rank // negative spellings too
	}
	r := derived(v)
	switch sel := b.r.next() % 12; sel {
	case 0: // exact unary
		names := []string{"Square", "Sign", "IsNaN", "IsInf", "IsFinite", "LogicalNot"}
		fs := []func(*gojit.Tensor) *gojit.Tensor{(*gojit.Tensor).Square, (*gojit.Tensor).Sign, (*gojit.Tensor).IsNaN, (*gojit.Tensor).IsInf, (*gojit.Tensor).IsFinite, (*gojit.Tensor).LogicalNot}
		k := b.r.next() % len(fs)
		if k < 2 {
			x = noBool(x, raw)
		}
		b.op("%s(%s)", names[k], b.name(v.t))
		r.t = fs[k](x)
	case 1: // transcendental unary
		names := []string{"Log1p", "Expm1", "Erf", "Gelu"}
		fs := []func(*gojit.Tensor) *gojit.Tensor{(*gojit.Tensor).Log1p, (*gojit.Tensor).Expm1, (*gojit.Tensor).Erf, (*gojit.Tensor).Gelu}
		k := b.r.next() % len(fs)
		if v.exact() && k < 3 {
			r.tol = transULPs
		} else {
			r = fuzzVal{chaos: true}
		}
		b.op("%s(%s)", names[k], b.name(v.t))
		r.t = fs[k](x)
	case 2, 3: // binary
		names := []string{"Mod", "LogicalAnd", "LogicalOr", "LogicalXor", "Clip"}
		k := b.r.next() % len(names)
		y := b.partner(x.Shape())
		r = derived(v, y)
		xt, yt := x, y.t
		if k == 0 || k == 4 {
			xt, yt = noBool(xt, raw), noBool(yt, raw)
		}
		b.op("%s(%s, %s)", names[k], b.name(xt), b.name(yt))
		switch k {
		case 0:
			r.t = xt.Mod(yt)
		case 1:
			r.t = xt.LogicalAnd(yt)
		case 2:
			r.t = xt.LogicalOr(yt)
		case 3:
			r.t = xt.LogicalXor(yt)
		default:
			r.t = xt.Clip(yt, gojit.Scalar(fuzzScalars[b.r.next()%len(fuzzScalars)]))
		}
	case 4: // Any, All
		axes := b.axesFor(rank)
		if b.r.next()%2 == 0 {
			b.op("Any(%s, %v)", b.name(x), axes)
			r.t = x.Any(axes...)
		} else {
			b.op("All(%s, %v)", b.name(x), axes)
			r.t = x.All(axes...)
		}
	case 5: // statistics: inexact (sums reassociate), compared by dtype and shape
		axes := b.axesFor(rank)
		x = noBool(x, raw)
		r = fuzzVal{chaos: true}
		switch b.r.next() % 5 {
		case 0:
			b.op("Var(%s, 1, %v)", b.name(x), axes)
			r.t = x.Var(1, axes...)
		case 1:
			b.op("Std(%s, 0, %v)", b.name(x), axes)
			r.t = x.Std(0, axes...)
		case 2:
			b.op("LogSumExp(%s, %v)", b.name(x), axes)
			r.t = x.LogSumExp(axes...)
		case 3:
			b.op("Softmax(%s, %d)", b.name(x), axis)
			r.t = x.Softmax(axis)
		default:
			b.op("LogSoftmax(%s, %d)", b.name(x), axis)
			r.t = x.LogSoftmax(axis)
		}
	default:
		b.newLayout(v, axis, raw)
		return
	}
	b.push(r)
}

// axesFor picks a set of distinct axes of a rank-rank tensor (none: all).
func (b *fuzzBuilder) axesFor(rank int) []int {
	mask := b.r.next()
	var axes []int
	for i := range rank {
		if mask&(1<<i) != 0 {
			axes = append(axes, i)
		}
	}
	return axes
}

// newLayout builds one of the layout ops of issue 10 on v.
func (b *fuzzBuilder) newLayout(v fuzzVal, axis int, raw bool) {
	b.push(fuzzVal{})
	_ = v
	_ = axis
	_ = raw
}
