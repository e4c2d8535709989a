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
	switch sel := b.r.next() % 13; sel {
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
	case 6: // scans: exact on exact integers; float sums and products are
		// sequential in both modes, so exact too
		if rank == 0 && !raw {
			x = x.Reshape(1)
			axis = 0
		}
		if b.r.next()%2 == 0 {
			b.op("CumSum(%s, %d)", b.name(v.t), axis)
			r.t = x.CumSum(axis)
		} else {
			b.op("CumProd(%s, %d)", b.name(v.t), axis)
			r.t = x.CumProd(axis)
		}
	case 7: // Einsum: a transpose with a sum, or a contraction with a partner
		x = noBool(x, raw)
		letters := "abcdefgh"[:rank]
		if rank == 0 || b.r.next()%2 == 0 {
			out := []byte(letters)
			for i := len(out) - 1; i > 0; i-- {
				j := b.r.next() % (i + 1)
				out[i], out[j] = out[j], out[i]
			}
			if len(out) > 0 && b.r.next()%2 == 0 {
				out = out[1:] // summed: inexact for floats
				if x.DType().IsFloat() {
					r = fuzzVal{chaos: true}
				}
			}
			spec := letters + "->" + string(out)
			b.op("Einsum(%q, %s)", spec, b.name(x))
			r.t = gojit.Einsum(spec, x)
			break
		}
		// x's last axis against the first axis of y, its transpose.
		y := x.Transpose()
		spec := letters + "," + string(letters[rank-1]) + "z->" + letters[:rank-1] + "z"
		if rank > 2 {
			y = x.Reshape(-1).Slice([]int{0}, []int{x.Shape()[rank-1] * 2}).Reshape(x.Shape()[rank-1], -1)
		} else if rank == 1 {
			y = x.Reshape(-1, 1)
		}
		if x.DType().IsFloat() {
			r = fuzzVal{chaos: true} // fused multiply-adds
		} else {
			r = derived(v)
		}
		b.op("Einsum(%q, %s, %s)", spec, b.name(x), y)
		r.t = gojit.Einsum(spec, x, y)
	case 8: // sorts move values: exactness is kept (a bound is not)
		if v.bound != nil {
			r = fuzzVal{chaos: true}
		} else {
			r = v
		}
		if rank == 0 && !raw {
			x = x.Reshape(1)
			axis = 0
		}
		switch b.r.next() % 4 {
		case 0:
			b.op("Sort(%s, %d)", b.name(v.t), axis)
			r.t = x.Sort(axis)
		case 1:
			b.op("ArgSort(%s, %d)", b.name(v.t), axis)
			r = derived(v)
			r.t = x.ArgSort(axis)
		case 2:
			k := b.r.next() % 3
			if s := x.Shape(); len(s) > 0 && !raw {
				k = min(k, s[len(s)-1])
			}
			b.op("TopK(%s, %d) values", b.name(v.t), k)
			r.t, _ = x.TopK(k)
		default:
			k := b.r.next() % 3
			if s := x.Shape(); len(s) > 0 && !raw {
				k = min(k, s[len(s)-1])
			}
			b.op("TopK(%s, %d) indices", b.name(v.t), k)
			r = derived(v)
			_, r.t = x.TopK(k)
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

// newLayout builds one of the layout ops of issue 10 on v: they move
// data, so v's precision is kept (a bound is not moved along).
func (b *fuzzBuilder) newLayout(v fuzzVal, axis int, raw bool) {
	x := v.t
	shape := x.Shape()
	rank := len(shape)
	r := v
	if v.bound != nil {
		r = fuzzVal{chaos: true}
	}
	switch b.r.next() % 6 {
	case 0:
		axes := b.axesFor(rank)
		b.op("Flip(%s, %v)", b.name(x), axes)
		r.t = x.Flip(axes...)
	case 1:
		var starts, stops, steps []int
		for range rank {
			starts = append(starts, b.r.next()%7-3)
			stops = append(stops, b.r.next()%7-5)
			steps = append(steps, -1-b.r.next()%3)
		}
		b.op("Slice(%s, %v, %v, %v)", b.name(x), starts, stops, steps)
		r.t = x.Slice(starts, stops, steps...)
	case 2:
		b.op("Stack(%d, %s, Flip(%s))", axis, b.name(x), b.name(x))
		r.t = gojit.Stack(axis, x, x.Flip())
	case 3:
		if rank == 0 {
			b.op("Split(%s, 1, 0) of a scalar", b.name(x))
			r.t = x.Reshape(1).Split(1, 0)[0]
			break
		}
		ax := (axis + rank) % rank
		n := 1
		if d := shape[ax]; d%2 == 0 && d > 0 {
			n = 2
		}
		if raw {
			n = 2
		}
		k := b.r.next() % n
		b.op("Split(%s, %d, %d)[%d]", b.name(x), n, axis, k)
		r.t = x.Split(n, axis)[k]
	case 4:
		mode := gojit.PadMode(b.r.next() % 3)
		widths := make([][2]int, rank)
		for i, d := range shape {
			lim := 3
			switch {
			case mode == gojit.PadReflect && !raw:
				lim = max(min(d, 3), 1)
			case mode == gojit.PadEdge && d == 0 && !raw:
				lim = 1
			}
			widths[i] = [2]int{b.r.next() % lim, b.r.next() % lim}
		}
		if rank == 0 {
			widths = [][2]int{{1, 1}}
		}
		c := fullValue(x.DType(), fuzzScalars[b.r.next()%len(fuzzScalars)], raw)
		b.op("Pad(%s, %v, %s, %v)", b.name(x), widths, mode, c)
		r.t = x.Pad(widths, mode, c)
	default:
		reps := make([]int, b.r.next()%(rank+2))
		for i := range reps {
			reps[i] = b.r.next() % 3
		}
		b.op("Tile(%s, %v)", b.name(x), reps)
		r.t = x.Tile(reps...)
	}
	b.push(r)
}

// isHalf reports whether dt is a 16-bit storage dtype.
func isHalf(dt gojit.DType) bool { return dt == gojit.Float16 || dt == gojit.BFloat16 }
