package passes

import (
	"math"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// Simplify rewrites ops by algebraic identities that hold exactly, bit for
// bit, under the IR's semantics (internal/interp's doc.go) for every input,
// including NaN, the infinities and both zeros:
//
//	%2 = const 1 : f32[8]
//	%3 = mul %0, %2 : f32[8]          %3 = mul %0, %2 : f32[8]   (dead)
//	%4 = exp %3 : f32[8]        =>    %4 = exp %0 : f32[8]
//
// Identities that are only approximately true in floating point are left
// alone: x+0 is not x for x = -0 (-0 + +0 = +0, so only x + -0 is folded),
// x*0 is not 0 for NaN or Inf, x-x is not 0 for Inf. Each rule below states
// why it is exact.
//
// A rewritten node is simplified again, so chains collapse in one pass:
// transpose(transpose(x, p), p⁻¹) becomes x. Replaced nodes stay behind,
// dead, for the dce pass.
func Simplify(g *ir.Graph) (*ir.Graph, error) {
	return rewrite(g, simplifyNode)
}

// maxRewrites bounds how often one node is rewritten; every rule makes the
// node strictly simpler, so a handful always suffices.
const maxRewrites = 8

func simplifyNode(r *rewriter, _ ir.Value, n ir.Node) (ir.Value, error) {
	for range maxRewrites {
		fwd, next, err := simplifyOnce(r, &n)
		switch {
		case err != nil:
			return -1, err
		case fwd >= 0:
			return fwd, nil
		case next == nil:
			return r.emit(n)
		}
		n = *next
	}
	return r.emit(n)
}

// commutes lists the ops whose operands may be swapped without changing a
// bit of the result (IEEE addition and multiplication are commutative; Go's
// max and min, the IR's, treat NaN and signed zeros symmetrically).
func commutes(op ir.Op) bool {
	switch op {
	case ir.OpAdd, ir.OpMul, ir.OpMax, ir.OpMin, ir.OpEq, ir.OpNe:
		return true
	}
	return false
}

// simplifyOnce applies the first rule that matches n. It returns a value to
// forward n to, or a rewritten node to simplify again, or neither.
func simplifyOnce(r *rewriter, n *ir.Node) (ir.Value, *ir.Node, error) {
	none := ir.Value(-1)
	if n.Op.Kind() == ir.KindSource {
		return none, nil, nil
	}
	a := n.Args[0]
	an := r.node(a)
	float := an.DType.IsFloat()
	negZero := math.Copysign(0, -1)
	// with is n's replacement by op over args, with n's type and position
	// and no attributes (the rules set the ones op needs).
	with := func(op ir.Op, args ...ir.Value) *ir.Node {
		return &ir.Node{Op: op, DType: n.DType, Shape: n.Shape, Args: args, Pos: n.Pos, Call: n.Call}
	}
	konst := func(c ir.Const) (ir.Value, *ir.Node, error) {
		v, err := r.constant(n, c)
		return v, nil, err
	}

	// Constants go second in commutative ops, so the rules below look at
	// one side only and cse sees one form.
	if commutes(n.Op) {
		if _, ok := r.splat(a); ok {
			if _, ok := r.splat(n.Args[1]); !ok {
				return none, with(n.Op, n.Args[1], a), nil
			}
		}
	}

	switch n.Op {
	case ir.OpAdd:
		// x + -0 = x for every float x, including +0 (+0 + -0 = +0) and -0;
		// integers: x + 0 = x.
		if (float && r.isConst(n.Args[1], negZero)) || (!float && r.isConst(n.Args[1], 0)) {
			return a, nil, nil
		}

	case ir.OpSub:
		b := n.Args[1]
		switch {
		case float && r.isConst(b, 0): // x - +0 = x + -0 = x
			return a, nil, nil
		case float && r.isConst(a, negZero): // -0 - x = -0 + (-x) = -x, also for x = ±0
			return none, with(ir.OpNeg, b), nil
		case !float && r.isConst(b, 0):
			return a, nil, nil
		case !float && r.isConst(a, 0): // wrapping: 0 - x = -x
			return none, with(ir.OpNeg, b), nil
		case !float && a == b: // wrapping integers: x - x = 0
			return konst(ir.Const{})
		}

	case ir.OpMul:
		b := n.Args[1]
		switch {
		case r.isConst(b, 1): // exact in IEEE (NaN stays NaN, -0 stays -0) and for integers
			return a, nil, nil
		case r.isConst(b, -1): // x * -1 flips the sign exactly; integers wrap as neg does (u8: x*255 = -x mod 256)
			return none, with(ir.OpNeg, a), nil
		case !float && r.isConst(b, 0): // integers only: a float x*0 is NaN for NaN and Inf
			return konst(ir.Const{})
		}

	case ir.OpDiv:
		b := n.Args[1]
		switch {
		case r.isConst(b, 1): // x/1 = x for floats and truncating integer division
			return a, nil, nil
		case r.isConst(b, -1) && an.DType != ir.Uint8: // x / -1 = -x (MinInt / -1 = MinInt = -MinInt); u8 division is unsigned
			return none, with(ir.OpNeg, a), nil
		case float:
			if inv, ok := exactReciprocal(an.DType, r, b); ok {
				c, err := r.emit(ir.Node{Op: ir.OpConst, DType: an.DType, Shape: an.Shape, Const: inv, Pos: r.node(b).Pos, Call: r.node(b).Call})
				if err != nil {
					return none, nil, err
				}
				return none, with(ir.OpMul, a, c), nil
			}
		}

	case ir.OpPow:
		// math.Pow(x, 1) = x and math.Pow(x, ±0) = 1 for every x, NaN
		// included (the interpreter's subnormal scaling keeps both).
		b := n.Args[1]
		switch {
		case r.isConst(b, 1):
			return a, nil, nil
		case r.isConst(b, 0) || r.isConst(b, negZero):
			return konst(ir.Const{F: 1})
		}

	case ir.OpMax, ir.OpMin:
		if a == n.Args[1] { // max(x, x) = x, NaN and -0 included
			return a, nil, nil
		}

	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		if a == n.Args[1] && !float { // a float x == x is false for NaN
			reflexive := n.Op == ir.OpEq || n.Op == ir.OpLe || n.Op == ir.OpGe
			if reflexive {
				return konst(ir.Const{I: 1})
			}
			return konst(ir.Const{})
		}

	case ir.OpWhere:
		x, y := n.Args[1], n.Args[2]
		switch {
		case x == y:
			return x, nil, nil
		case r.isConst(a, 1):
			return x, nil, nil
		case r.isConst(a, 0):
			return y, nil, nil
		}

	case ir.OpNeg:
		if an.Op == ir.OpNeg { // a sign flipped twice; wrapping negation is an involution
			return an.Args[0], nil, nil
		}

	case ir.OpAbs:
		switch {
		case an.DType == ir.Uint8: // abs is the identity on u8
			return a, nil, nil
		case an.Op == ir.OpAbs:
			return a, nil, nil
		case an.Op == ir.OpNeg: // signed: |-x| = |x| (MinInt: both MinInt; floats: the sign bit is cleared)
			return none, with(ir.OpAbs, an.Args[0]), nil
		}

	case ir.OpFloor, ir.OpCeil, ir.OpRound:
		switch an.Op {
		case ir.OpFloor, ir.OpCeil, ir.OpRound: // already integral, NaN or Inf
			return a, nil, nil
		}
		if !float { // the identity on integers
			return a, nil, nil
		}

	case ir.OpCast:
		if an.DType == n.DType {
			return a, nil, nil
		}
		if an.Op == ir.OpCast {
			x := an.Args[0]
			if src := r.node(x).DType; src == n.DType && lossless(src, an.DType) {
				return x, nil, nil
			}
		}

	case ir.OpReshape:
		if an.Shape.Equal(n.Shape) {
			return a, nil, nil
		}
		if an.Op == ir.OpReshape { // both keep the row-major order
			return none, with(ir.OpReshape, an.Args[0]), nil
		}

	case ir.OpTranspose:
		if isIdentityPerm(n.Axes) {
			return a, nil, nil
		}
		if an.Op == ir.OpTranspose {
			// Result dim i is inner dim q[i], which is x's dim p[q[i]].
			p, q := an.Axes, n.Axes
			m := with(ir.OpTranspose, an.Args[0])
			m.Axes = make([]int, len(q))
			for i := range q {
				m.Axes[i] = p[q[i]]
			}
			return none, m, nil
		}

	case ir.OpBroadcast:
		if an.Shape.Equal(n.Shape) {
			return a, nil, nil
		}
		if an.Op == ir.OpBroadcast { // a dim the inner one stretched was 1 in x; any other kept x's size
			return none, with(ir.OpBroadcast, an.Args[0]), nil
		}

	case ir.OpSlice:
		if an.Shape.Equal(n.Shape) && !slices.ContainsFunc(n.Starts, nonZero) && !slices.ContainsFunc(n.Steps, notOne) {
			return a, nil, nil
		}
		if an.Op == ir.OpSlice && n.Shape.Size() > 0 {
			// x[s1 + (s2 + i*t2)*t1] = x[(s1 + s2*t1) + i*(t1*t2)]; with no
			// empty dim every composed index was read by the inner slice.
			m := with(ir.OpSlice, an.Args[0])
			m.Starts, m.Steps = make([]int, len(n.Starts)), make([]int, len(n.Steps))
			for i := range m.Starts {
				m.Starts[i] = an.Starts[i] + n.Starts[i]*an.Steps[i]
				m.Steps[i] = an.Steps[i] * n.Steps[i]
			}
			return none, m, nil
		}

	case ir.OpConcat:
		if len(n.Args) == 1 {
			return a, nil, nil
		}

	case ir.OpReduceSum, ir.OpReduceProd, ir.OpReduceMax, ir.OpReduceMin:
		for _, ax := range n.Axes {
			if an.Shape[ax] != 1 {
				return none, nil, nil
			}
		}
		// Every output element folds exactly one x into the start value:
		// 1*x, max(-Inf, x), min(+Inf, x) and integer 0+x are x; a float
		// sum is 0 + x, which is x except that -0 becomes +0, so it stays
		// an addition of +0 (an elementwise op that fuses, unlike a
		// reduction).
		if n.Op != ir.OpReduceSum || !float {
			return none, with(ir.OpReshape, a), nil
		}
		v, err := simplifyNode(r, -1, *with(ir.OpReshape, a))
		if err != nil {
			return none, nil, err
		}
		zero, err := r.constant(n, ir.Const{})
		if err != nil {
			return none, nil, err
		}
		return none, with(ir.OpAdd, v, zero), nil

	case ir.OpArgMax, ir.OpArgMin:
		if an.Shape[n.Axes[0]] == 1 { // one candidate: index 0
			return konst(ir.Const{})
		}
	}
	return none, nil, nil
}

// lossless reports whether every value of dtype src converts to dtype mid
// exactly and back to itself: cast(cast(x, mid), src) = x.
func lossless(src, mid ir.DType) bool {
	switch src {
	case ir.Bool: // 0 and 1 are exact in every dtype, and != 0 restores them
		return true
	case ir.Uint8:
		return mid == ir.Int32 || mid == ir.Int64 || mid.IsFloat()
	case ir.Int32:
		return mid == ir.Int64 || mid == ir.Float64
	case ir.Float32:
		return mid == ir.Float64
	}
	return false
}

// exactReciprocal returns 1/c when the constant c is a power of two whose
// reciprocal is a normal number of dt, so that x/c and x*(1/c) are the same
// real number for every x, rounded once to dt the same way (NaN, the
// infinities and signed zeros included): division becomes the cheaper
// multiplication without changing a bit.
func exactReciprocal(dt ir.DType, r *rewriter, b ir.Value) (ir.Const, bool) {
	c, ok := r.splat(b)
	if !ok || math.IsInf(c.F, 0) || math.IsNaN(c.F) || c.F == 0 {
		return ir.Const{}, false
	}
	if frac, _ := math.Frexp(c.F); math.Abs(frac) != 0.5 {
		return ir.Const{}, false
	}
	inv := 1 / c.F // exact in float64 for any power of two within float32 or float64 range
	minNormal, maxVal := 0x1p-1022, math.MaxFloat64
	if dt == ir.Float32 {
		minNormal, maxVal = 0x1p-126, math.MaxFloat32
	}
	for _, x := range []float64{c.F, inv} {
		if math.Abs(x) < minNormal || math.Abs(x) > maxVal {
			return ir.Const{}, false
		}
	}
	return ir.Const{F: inv}, true
}

func isIdentityPerm(p []int) bool {
	for i, x := range p {
		if x != i {
			return false
		}
	}
	return true
}

func nonZero(x int) bool { return x != 0 }
func notOne(x int) bool  { return x != 1 }
