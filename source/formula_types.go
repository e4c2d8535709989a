package source

import (
	"go/ast"
	"go/constant"
	"go/token"
	"math"
	"strings"

	"github.com/gojit/gojit"
)

// This file holds the typing rules of formula operators and calls: Go's
// rules for untyped constants, identical operand types, and which
// operators apply to which types.

// represent returns v as a value of type dt (rounded for floats), or a
// reason it is not one.
func fRepresent(v constant.Value, dt gojit.DType) (constant.Value, string) {
	switch {
	case dt == gojit.Bool:
		if v.Kind() != constant.Bool {
			return nil, "mismatched"
		}
		return v, ""
	case v.Kind() == constant.Bool:
		return nil, "mismatched"
	case fIsInteger(dt):
		if f, _ := constant.Float64Val(constant.ToFloat(v)); math.Abs(f) > 1<<63 {
			if dt == gojit.Int64 {
				return nil, "too large"
			}
			return nil, "overflows"
		}
		iv := constant.ToInt(v)
		if iv.Kind() != constant.Int {
			return nil, "truncated"
		}
		lo, hi := int64(0), int64(math.MaxUint8)
		switch dt {
		case gojit.Int32:
			lo, hi = math.MinInt32, math.MaxInt32
		case gojit.Int64:
			lo, hi = -fMaxExactInt, fMaxExactInt
		}
		if constant.Compare(iv, token.LSS, constant.MakeInt64(lo)) || constant.Compare(iv, token.GTR, constant.MakeInt64(hi)) {
			if dt == gojit.Int64 {
				return nil, "too large"
			}
			return nil, "overflows"
		}
		return iv, ""
	default:
		f, _ := constant.Float64Val(constant.ToFloat(v))
		if dt == gojit.Float32 {
			if math.Abs(f) > math.MaxFloat32 {
				return nil, "overflows"
			}
			return constant.MakeFloat64(float64(float32(f))), ""
		}
		if math.IsInf(f, 0) {
			return nil, "overflows"
		}
		return constant.MakeFloat64(f), ""
	}
}

// assign converts e, which may be an untyped constant, to type dt for use
// in context (the formula text of the enclosing expression, for messages).
// It returns nil after reporting a problem.
func (c *fChecker) assign(e *fExpr, dt gojit.DType, at token.Pos, context string) *fExpr {
	if e.untyped == fTyped {
		return e
	}
	v, why := fRepresent(e.val, dt)
	switch why {
	case "":
		return &fExpr{op: fConst, pos: e.pos, typ: dt, val: v}
	case "mismatched":
		c.errorf(at, "%s: mismatched types %s and %s", context, e.typeName(), fGoType(dt))
	case "too large":
		c.errorf(e.pos, "constant %s is too large for a formula (integer constants are limited to ±2^53)", e.val)
	case "truncated":
		c.errorf(e.pos, "%s: %s (%s constant) truncated to %s", context, e.val, e.typeName(), fGoType(dt))
	default:
		c.errorf(e.pos, "%s: %s (%s constant) overflows %s", context, e.val, e.typeName(), fGoType(dt))
	}
	return nil
}

// defaultType is the type an untyped constant takes when nothing else
// decides it: bool, int64 (Go's int) or float64.
func fDefaultType(k fUntypedKind) gojit.DType {
	switch k {
	case fUntypedBool:
		return gojit.Bool
	case fUntypedInt:
		return gojit.Int64
	}
	return gojit.Float64
}

// unify gives operands one type, as Go does for a binary operator: an
// untyped operand takes the other's type; two typed operands must have
// identical types. Two untyped constants stay untyped (the larger kind).
func (c *fChecker) unify(at token.Pos, context string, ops ...*fExpr) ([]*fExpr, bool) {
	isBool := func(e *fExpr) bool { return e.untyped == fUntypedBool || e.untyped == fTyped && e.typ == gojit.Bool }
	mismatch := func(x, y *fExpr) ([]*fExpr, bool) {
		c.errorf(at, "%s: mismatched types %s and %s", context, x.typeName(), y.typeName())
		return nil, false
	}
	first := -1 // the first typed operand
	kind := fTyped
	for i, e := range ops {
		if isBool(e) != isBool(ops[0]) {
			return mismatch(ops[0], e)
		}
		if e.untyped == fTyped {
			if first >= 0 && e.typ != ops[first].typ {
				return mismatch(ops[first], e)
			}
			if first < 0 {
				first = i
			}
		} else if e.untyped > kind {
			kind = e.untyped
		}
	}
	out := make([]*fExpr, len(ops))
	if first < 0 {
		for i, e := range ops {
			out[i] = &fExpr{op: fConst, pos: e.pos, untyped: kind, val: e.val}
			if kind == fUntypedFloat {
				out[i].val = constant.ToFloat(e.val)
			}
		}
		return out, true
	}
	for i, e := range ops {
		if out[i] = c.assign(e, ops[first].typ, at, context); out[i] == nil {
			return nil, false
		}
	}
	return out, true
}

func (c *fChecker) unary(x *ast.UnaryExpr) *fExpr {
	a := c.expr(x.X)
	switch x.Op {
	case token.SUB, token.ADD, token.NOT:
	default:
		c.errorf(x.OpPos, "operator %s is not supported in formulas", x.Op)
		return nil
	}
	if a == nil {
		return nil
	}
	isBool := a.typ == gojit.Bool && a.untyped == fTyped || a.untyped == fUntypedBool
	if (x.Op == token.NOT) != isBool {
		c.errorf(x.OpPos, "%s: operator %s not defined on %s (%s)", c.text(x), x.Op, c.text(x.X), a.typeName())
		return nil
	}
	if a.isConst() {
		v := constant.UnaryOp(x.Op, a.val, 0)
		if a.untyped == fTyped {
			if r, why := fRepresent(v, a.typ); why == "" {
				v = r
			} else {
				c.errorf(x.OpPos, "constant %s overflows %s", v, a.typeName())
				return nil
			}
		}
		return &fExpr{op: fConst, pos: x.Pos(), typ: a.typ, untyped: a.untyped, val: v}
	}
	if x.Op == token.ADD {
		return a
	}
	return &fExpr{op: fUnary, pos: x.OpPos, typ: a.typ, tok: x.Op, args: []*fExpr{a}}
}

func (c *fChecker) binary(x *ast.BinaryExpr) *fExpr {
	a, b := c.expr(x.X), c.expr(x.Y)
	op := x.Op
	switch op {
	case token.ADD, token.SUB, token.MUL, token.QUO, token.REM,
		token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ,
		token.LAND, token.LOR:
	default:
		c.errorf(x.OpPos, "operator %s is not supported in formulas", op)
		return nil
	}
	if a == nil || b == nil {
		return nil
	}
	ctx := c.text(x)
	ops, ok := c.unify(x.OpPos, ctx, a, b)
	if !ok {
		return nil
	}
	a, b = ops[0], ops[1]
	// What the operator needs of its operands' type.
	isBool := a.untyped == fUntypedBool || a.untyped == fTyped && a.typ == gojit.Bool
	isInt := a.untyped == fUntypedInt || a.untyped == fTyped && fIsInteger(a.typ)
	var okType bool
	switch op {
	case token.ADD, token.SUB, token.MUL, token.QUO, token.LSS, token.LEQ, token.GTR, token.GEQ:
		okType = !isBool
	case token.REM:
		okType = isInt
	case token.LAND, token.LOR:
		okType = isBool
	default: // == and != apply to every type
		okType = true
	}
	if !okType {
		c.errorf(x.OpPos, "%s: operator %s not defined on %s", ctx, op, a.typeName())
		return nil
	}
	if (op == token.QUO || op == token.REM) && b.isConst() && (a.isConst() || isInt) && constant.Sign(b.val) == 0 {
		c.errorf(x.Y.Pos(), "%s: division by zero", ctx)
		return nil
	}
	cmp := op == token.EQL || op == token.NEQ || op == token.LSS || op == token.LEQ || op == token.GTR || op == token.GEQ
	if a.isConst() && b.isConst() {
		var v constant.Value
		switch {
		case cmp:
			v = constant.MakeBool(constant.Compare(a.val, op, b.val))
		case op == token.QUO && isInt:
			v = constant.BinaryOp(a.val, token.QUO_ASSIGN, b.val) // integer division
		default:
			v = constant.BinaryOp(a.val, op, b.val)
		}
		r := &fExpr{op: fConst, pos: x.Pos(), typ: a.typ, untyped: a.untyped, val: v}
		if cmp {
			r.typ = gojit.Bool
			if a.untyped != fTyped {
				r.untyped = fUntypedBool
			}
		}
		if r.untyped == fTyped {
			rv, why := fRepresent(v, r.typ)
			if why != "" {
				c.errorf(x.OpPos, "%s: constant %s overflows %s", ctx, v, fGoType(r.typ))
				return nil
			}
			r.val = rv
		}
		return r
	}
	r := &fExpr{op: fBinary, pos: x.OpPos, typ: a.typ, tok: op, args: []*fExpr{a, b}}
	if cmp {
		r.typ = gojit.Bool
	}
	return r
}

func (c *fChecker) call(x *ast.CallExpr) *fExpr {
	if x.Ellipsis.IsValid() {
		c.errorf(x.Ellipsis, "... is not supported in formulas")
		return nil
	}
	args := make([]*fExpr, len(x.Args))
	bad := false
	for i, a := range x.Args {
		if args[i] = c.expr(a); args[i] == nil {
			bad = true
		}
	}
	var name string
	switch f := x.Fun.(type) {
	case *ast.Ident:
		name = f.Name
		if _, ok := c.schema[name]; ok {
			c.errorf(f.Pos(), "column %s is not a function", name)
			return nil
		}
		if dt, ok := formulaTypes[name]; ok {
			if !c.argCount(x, name, 1) || bad {
				return nil
			}
			return c.convert(x, dt, args[0])
		}
		switch name {
		case "where":
			if !c.argCount(x, name, 3) || bad {
				return nil
			}
			return c.where(x, args)
		case "min", "max":
			if len(args) == 0 {
				c.errorf(x.Rparen, "not enough arguments in call to %s: have 0, want at least 1", name)
				return nil
			}
			if bad {
				return nil
			}
			return c.minMax(x, name, args)
		}
		c.errorf(f.Pos(), "unknown function %s%s (formulas call math functions, conversions, min, max and where)",
			name, fSuggest(name, []string{"where", "min", "max", "float64", "float32", "int64", "int32"}))
		return nil
	case *ast.SelectorExpr:
		pkg, ok := f.X.(*ast.Ident)
		if !ok || pkg.Name != "math" {
			c.errorf(f.Pos(), "call of %s: only functions of package math are supported in formulas", c.text(f))
			return nil
		}
		name = f.Sel.Name
		mf, ok := fMathFuncs[name]
		if !ok {
			var names []string
			for n := range fMathFuncs {
				names = append(names, n)
			}
			c.errorf(f.Sel.Pos(), "unknown function math.%s%s", name, fSuggestPrefixed("math.", name, names))
			return nil
		}
		if !c.argCount(x, "math."+name, mf.nargs) || bad {
			return nil
		}
		return c.mathCall(x, name, mf, args)
	}
	c.errorf(x.Fun.Pos(), "call of %s is not supported in formulas", c.text(x.Fun))
	return nil
}

func (c *fChecker) argCount(x *ast.CallExpr, name string, want int) bool {
	if len(x.Args) == want {
		return true
	}
	s := "s"
	if want == 1 {
		s = ""
	}
	if len(x.Args) < want {
		c.errorf(x.Rparen, "not enough arguments in call to %s: have %d, want %d argument%s", name, len(x.Args), want, s)
	} else {
		c.errorf(x.Args[want].Pos(), "too many arguments in call to %s: have %d, want %d argument%s", name, len(x.Args), want, s)
	}
	return false
}

func (c *fChecker) convert(x *ast.CallExpr, dt gojit.DType, a *fExpr) *fExpr {
	from := a.typeName()
	if a.isConst() {
		v, why := fRepresent(a.val, dt)
		if why == "mismatched" {
			c.errorf(x.Pos(), "cannot convert %s (%s) to type %s", c.text(x.Args[0]), from, fGoType(dt))
			return nil
		}
		if why != "" {
			c.errorf(x.Pos(), "cannot convert %s (%s constant) to type %s (%s)", c.text(x.Args[0]), from, fGoType(dt), why)
			return nil
		}
		return &fExpr{op: fConst, pos: x.Pos(), typ: dt, val: v}
	}
	if (a.typ == gojit.Bool) != (dt == gojit.Bool) {
		c.errorf(x.Pos(), "cannot convert %s (%s) to type %s", c.text(x.Args[0]), from, fGoType(dt))
		return nil
	}
	if a.typ == dt {
		return a
	}
	return &fExpr{op: fConvert, pos: x.Pos(), typ: dt, args: []*fExpr{a}}
}

func (c *fChecker) where(x *ast.CallExpr, args []*fExpr) *fExpr {
	cond := args[0]
	if !(cond.untyped == fUntypedBool || cond.untyped == fTyped && cond.typ == gojit.Bool) {
		c.errorf(x.Args[0].Pos(), "where: condition %s is %s, want bool", c.text(x.Args[0]), cond.typeName())
		return nil
	}
	ops, ok := c.unify(x.Args[1].Pos(), c.text(x), args[1], args[2])
	if !ok {
		return nil
	}
	a, b := ops[0], ops[1]
	if a.untyped != fTyped { // both untyped: Go's default type
		dt := fDefaultType(a.untyped)
		a, b = c.assign(a, dt, x.Pos(), c.text(x)), c.assign(b, dt, x.Pos(), c.text(x))
		if a == nil || b == nil {
			return nil
		}
	}
	if cond.isConst() {
		if constant.BoolVal(cond.val) {
			return a
		}
		return b
	}
	if cond.untyped != fTyped {
		cond = &fExpr{op: fConst, pos: cond.pos, typ: gojit.Bool, val: cond.val}
	}
	return &fExpr{op: fWhere, pos: x.Pos(), typ: a.typ, name: "where", args: []*fExpr{cond, a, b}}
}

func (c *fChecker) minMax(x *ast.CallExpr, name string, args []*fExpr) *fExpr {
	ops, ok := c.unify(x.Lparen, c.text(x), args...)
	if !ok {
		return nil
	}
	t := ops[0]
	if t.untyped == fUntypedBool || t.untyped == fTyped && t.typ == gojit.Bool {
		c.errorf(x.Pos(), "%s: bool is not an ordered type", c.text(x))
		return nil
	}
	allConst := true
	for _, e := range ops {
		allConst = allConst && e.isConst()
	}
	if allConst {
		best := ops[0]
		for _, e := range ops[1:] {
			if name == "min" && constant.Compare(e.val, token.LSS, best.val) || name == "max" && constant.Compare(e.val, token.GTR, best.val) {
				best = e
			}
		}
		return best
	}
	return &fExpr{op: fMinMax, pos: x.Pos(), typ: t.typ, name: name, args: ops}
}

func (c *fChecker) mathCall(x *ast.CallExpr, name string, mf fMathFunc, args []*fExpr) *fExpr {
	full := "math." + name
	sign := 0
	if name == "IsInf" {
		s := args[1]
		if !s.isConst() || s.untyped == fUntypedBool || s.untyped == fTyped && !fIsInteger(s.typ) {
			c.errorf(x.Args[1].Pos(), "math.IsInf: sign must be an integer constant")
			return nil
		}
		sign = constant.Sign(s.val)
		args = args[:1]
	}
	ops, ok := c.unify(x.Lparen, c.text(x), args...)
	if !ok {
		return nil
	}
	dt := gojit.Float64
	if ops[0].untyped == fTyped {
		dt = ops[0].typ
	}
	if !fIsFloat(dt) {
		c.errorf(x.Args[0].Pos(), "cannot use %s (%s) as float64 value in argument to %s", c.text(x.Args[0]), fGoType(dt), full)
		return nil
	}
	allConst := true
	vals := make([]float64, len(ops))
	for i, e := range ops {
		if e = c.assign(e, dt, x.Pos(), c.text(x)); e == nil {
			return nil
		}
		ops[i] = e
		vals[i], _ = constant.Float64Val(constant.ToFloat(e.val))
		allConst = allConst && e.isConst()
	}
	r := &fExpr{op: fMath, pos: x.Pos(), typ: dt, name: name, args: ops}
	if mf.result == gojit.Bool {
		r.typ = gojit.Bool
		if name == "IsInf" {
			r.name = "IsInf" + [...]string{"-", "", "+"}[sign+1]
		}
		if allConst { // a finite constant is neither NaN nor infinite
			return &fExpr{op: fConst, pos: x.Pos(), typ: gojit.Bool, val: constant.MakeBool(false)}
		}
		return r
	}
	if allConst {
		v := mf.fold(vals)
		if dt == gojit.Float32 {
			v = float64(float32(v))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			c.errorf(x.Pos(), "constant %s is not finite", strings.TrimSpace(c.text(x)))
			return nil
		}
		return &fExpr{op: fConst, pos: x.Pos(), typ: dt, val: constant.MakeFloat64(v)}
	}
	return r
}
