package source

import (
	"fmt"
	"go/constant"
	"go/token"
	"math"

	"github.com/gojit/gojit"
)

// lowerFormula records e over the column tensors cols (called while gojit
// traces the formula's function). The checker has given every node its
// type, so each operation here has operands of one dtype and the engine's
// promotion rules never apply.
func lowerFormula(e *fExpr, cols []*gojit.Tensor) (*gojit.Tensor, error) {
	t := lowerFormulaNode(e, cols)
	if t.DType() != e.typ {
		return nil, fmt.Errorf("internal error: formula lowered to %s, want %s", t.DType(), e.typ)
	}
	return t, nil
}

// constTensor is a rank-0 tensor holding v, of dtype dt.
func fConstTensor(dt gojit.DType, v float64) *gojit.Tensor { return gojit.Full(dt, v) }

func fConstValue(e *fExpr) float64 {
	if e.val.Kind() == constant.Bool {
		if constant.BoolVal(e.val) {
			return 1
		}
		return 0
	}
	f, _ := constant.Float64Val(constant.ToFloat(e.val))
	return f
}

func lowerFormulaNode(e *fExpr, cols []*gojit.Tensor) *gojit.Tensor {
	if e.isConst() {
		return fConstTensor(e.typ, fConstValue(e))
	}
	arg := func(i int) *gojit.Tensor { return lowerFormulaNode(e.args[i], cols) }
	switch e.op {
	case fColumn:
		return cols[e.col]
	case fUnary:
		x := arg(0)
		if e.tok == token.NOT {
			return x.LogicalNot()
		}
		return x.Neg()
	case fBinary:
		a, b := arg(0), arg(1)
		switch e.tok {
		case token.ADD:
			return a.Add(b)
		case token.SUB:
			return a.Sub(b)
		case token.MUL:
			return a.Mul(b)
		case token.QUO:
			return a.Div(b) // integers: truncated, and x/0 is 0
		case token.REM:
			// Go's remainder truncates (its sign is the dividend's); the
			// engine's Mod is floored, so compute a - (a/b)*b.
			return a.Sub(a.Div(b).Mul(b))
		case token.EQL:
			return a.Equal(b)
		case token.NEQ:
			return a.NotEqual(b)
		case token.LSS:
			return a.Less(b)
		case token.LEQ:
			return a.LessEqual(b)
		case token.GTR:
			return a.Greater(b)
		case token.GEQ:
			return a.GreaterEqual(b)
		case token.LAND:
			return a.LogicalAnd(b)
		case token.LOR:
			return a.LogicalOr(b)
		}
	case fConvert:
		return arg(0).Cast(e.typ)
	case fWhere:
		return gojit.Where(arg(0), arg(1), arg(2))
	case fMinMax:
		r := arg(0)
		for i := 1; i < len(e.args); i++ {
			if e.name == "min" {
				r = r.Minimum(arg(i))
			} else {
				r = r.Maximum(arg(i))
			}
		}
		return r
	case fMath:
		return lowerFormulaMath(e, arg)
	}
	panic(fmt.Sprintf("source: formula node %d (%s) has no lowering", e.op, e.name))
}

// lowerMath lowers a call of a math function with Go's semantics,
// including its special cases where the engine's op differs.
func lowerFormulaMath(e *fExpr, arg func(int) *gojit.Tensor) *gojit.Tensor {
	x := arg(0)
	dt := x.DType()
	inf := func(sign float64) *gojit.Tensor { return fConstTensor(dt, math.Inf(int(sign))) }
	switch e.name {
	case "Abs":
		return x.Abs()
	case "Sqrt":
		return x.Sqrt()
	case "Exp":
		return x.Exp()
	case "Log":
		return x.Log()
	case "Log1p":
		return x.Log1p()
	case "Expm1":
		return x.Expm1()
	case "Floor":
		return x.Floor()
	case "Ceil":
		return x.Ceil()
	case "Sin":
		return x.Sin()
	case "Cos":
		return x.Cos()
	case "Tanh":
		return x.Tanh()
	case "Erf":
		return x.Erf()
	case "RoundToEven":
		return x.Round()
	case "Trunc":
		return fTrunc(x)
	case "Round":
		// Halves away from zero: x - Trunc(x) is exact, so comparing
		// it with 0.5 decides the rounding without double rounding.
		t := fTrunc(x)
		away := gojit.Where(x.Less(fConstTensor(dt, 0)), fConstTensor(dt, -1), fConstTensor(dt, 1))
		return gojit.Where(x.Sub(t).Abs().GreaterEqual(fConstTensor(dt, 0.5)), t.Add(away), t)
	case "Pow":
		return x.Pow(arg(1))
	case "Max":
		// math.Max(+Inf, NaN) is +Inf; the engine's maximum (Go's max)
		// gives NaN.
		y := arg(1)
		return gojit.Where(x.Equal(inf(1)).LogicalOr(y.Equal(inf(1))), inf(1), x.Maximum(y))
	case "Min":
		y := arg(1)
		return gojit.Where(x.Equal(inf(-1)).LogicalOr(y.Equal(inf(-1))), inf(-1), x.Minimum(y))
	case "IsNaN":
		return x.NotEqual(x)
	case "IsInf+":
		return x.Equal(inf(1))
	case "IsInf-":
		return x.Equal(inf(-1))
	case "IsInf":
		return x.Abs().Equal(inf(1))
	}
	panic(fmt.Sprintf("source: math.%s has no lowering", e.name))
}

// truncTensor rounds toward zero.
func fTrunc(x *gojit.Tensor) *gojit.Tensor {
	return gojit.Where(x.Less(fConstTensor(x.DType(), 0)), x.Ceil(), x.Floor())
}
