package source

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/scanner"
	"go/token"
	"math"
	"sort"
	"strings"

	"github.com/gojit/gojit"
)

// This file parses a formula and type-checks it with Go's rules, producing
// a typed tree (fExpr) for formula_lower.go. The checker is a small subset
// of go/types, written out so that its messages can name columns, suggest
// names and list every problem: go/types would need the math package's
// export data at run time, and its messages speak of variables, not
// columns.

// fOp is the kind of a typed formula node.
type fOp uint8

const (
	fConst   fOp = iota // val (an untyped or typed constant)
	fColumn             // column col
	fUnary              // tok args[0]: -x, +x, !x
	fBinary             // args[0] tok args[1]
	fConvert            // typ(args[0])
	fMath               // math.<name>(args...)
	fMinMax             // min/max(args...) (name is "min" or "max")
	fWhere              // where(args[0], args[1], args[2])
)

// untyped kinds of constants, as in Go: an untyped constant takes the type
// its context needs.
type fUntypedKind uint8

const (
	fTyped fUntypedKind = iota
	fUntypedBool
	fUntypedInt
	fUntypedFloat
)

// fExpr is a type-checked formula node. A node with val != nil is a
// constant (folded with go/constant, as Go folds constant expressions);
// the lowering emits it as a single value.
type fExpr struct {
	op      fOp
	pos     token.Pos
	typ     gojit.DType // the type when untyped == typed
	untyped fUntypedKind
	val     constant.Value
	col     int         // fColumn: index into the formula's columns
	tok     token.Token // fUnary, fBinary
	name    string      // fMath, fMinMax: the function
	args    []*fExpr
}

func (e *fExpr) isConst() bool { return e.val != nil }

// typeName is how Go spells a node's type in messages.
func (e *fExpr) typeName() string {
	switch e.untyped {
	case fUntypedBool:
		return "untyped bool"
	case fUntypedInt:
		return "untyped int"
	case fUntypedFloat:
		return "untyped float"
	}
	return fGoType(e.typ)
}

// goTypeName maps a dtype to the Go type that stands for it in formulas.
func fGoType(dt gojit.DType) string {
	switch dt {
	case gojit.Bool:
		return "bool"
	case gojit.Uint8:
		return "uint8"
	case gojit.Int32:
		return "int32"
	case gojit.Int64:
		return "int64"
	case gojit.Float32:
		return "float32"
	case gojit.Float64:
		return "float64"
	}
	return dt.String()
}

// formulaTypes are the Go type names a formula may convert to. int stands
// for int64 (Go's int on the 64-bit platforms gojit runs on), byte for
// uint8.
var formulaTypes = map[string]gojit.DType{
	"bool": gojit.Bool, "uint8": gojit.Uint8, "byte": gojit.Uint8,
	"int32": gojit.Int32, "int64": gojit.Int64, "int": gojit.Int64,
	"float32": gojit.Float32, "float64": gojit.Float64,
}

func fIsFloat(dt gojit.DType) bool { return dt == gojit.Float32 || dt == gojit.Float64 }
func fIsInteger(dt gojit.DType) bool {
	return dt == gojit.Uint8 || dt == gojit.Int32 || dt == gojit.Int64
}

// mathFunc describes a function of package math a formula may call.
type fMathFunc struct {
	nargs  int
	result gojit.DType // 0: the argument's float type; Bool for predicates
	fold   func(x []float64) float64
}

// mathFuncs are the math functions formulas accept. Their arguments are
// float64, or, as an extension of Go's math package, float32 (computed in
// float32); untyped constants become float64.
var fMathFuncs = map[string]fMathFunc{
	"Abs": {1, 0, fArg1(math.Abs)}, "Sqrt": {1, 0, fArg1(math.Sqrt)}, "Exp": {1, 0, fArg1(math.Exp)},
	"Log": {1, 0, fArg1(math.Log)}, "Log1p": {1, 0, fArg1(math.Log1p)}, "Expm1": {1, 0, fArg1(math.Expm1)},
	"Floor": {1, 0, fArg1(math.Floor)}, "Ceil": {1, 0, fArg1(math.Ceil)}, "Trunc": {1, 0, fArg1(math.Trunc)},
	"Round": {1, 0, fArg1(math.Round)}, "RoundToEven": {1, 0, fArg1(math.RoundToEven)},
	"Sin": {1, 0, fArg1(math.Sin)}, "Cos": {1, 0, fArg1(math.Cos)}, "Tanh": {1, 0, fArg1(math.Tanh)},
	"Erf":   {1, 0, fArg1(math.Erf)},
	"Pow":   {2, 0, func(x []float64) float64 { return math.Pow(x[0], x[1]) }},
	"Max":   {2, 0, func(x []float64) float64 { return math.Max(x[0], x[1]) }},
	"Min":   {2, 0, func(x []float64) float64 { return math.Min(x[0], x[1]) }},
	"IsNaN": {1, gojit.Bool, nil},
	"IsInf": {2, gojit.Bool, nil},
}

func fArg1(f func(float64) float64) func([]float64) float64 {
	return func(x []float64) float64 { return f(x[0]) }
}

// mathConsts are the constants of package math a formula may name.
var fMathConsts = map[string]constant.Value{
	"Pi":                     constant.MakeFloat64(math.Pi),
	"E":                      constant.MakeFloat64(math.E),
	"Sqrt2":                  constant.MakeFloat64(math.Sqrt2),
	"Ln2":                    constant.MakeFloat64(math.Ln2),
	"Ln10":                   constant.MakeFloat64(math.Ln10),
	"MaxFloat64":             constant.MakeFloat64(math.MaxFloat64),
	"MaxFloat32":             constant.MakeFloat64(math.MaxFloat32),
	"MaxInt32":               constant.MakeInt64(math.MaxInt32),
	"MinInt32":               constant.MakeInt64(math.MinInt32),
	"MaxUint8":               constant.MakeInt64(math.MaxUint8),
	"SmallestNonzeroFloat64": constant.MakeFloat64(math.SmallestNonzeroFloat64),
}

// maxExactInt bounds integer constants: the engine carries constants as
// float64, which holds every integer up to 2^53 exactly.
const fMaxExactInt = 1 << 53

// checker type-checks one formula.
type fChecker struct {
	src    string
	fset   *token.FileSet
	file   *token.File
	schema map[string]gojit.DType
	cols   []string       // columns used, in order of first use
	colIdx map[string]int // name -> index into cols
	diags  []Diagnostic
}

// parseFormula parses and type-checks src against schema. It returns the
// typed tree and the columns it uses, or an *Error listing every problem.
func parseFormula(src string, schema map[string]gojit.DType) (*fExpr, []string, error) {
	c := &fChecker{src: src, fset: token.NewFileSet(), schema: schema, colIdx: map[string]int{}}
	x, err := parseFormulaExpr(c.fset, src)
	if err != nil {
		var list scanner.ErrorList
		if el, ok := err.(scanner.ErrorList); ok {
			list = el
		}
		for _, e := range list {
			msg := e.Msg
			switch {
			case strings.Contains(msg, "found '='"):
				msg = "assignment is not supported in formulas (compare with ==)"
			case strings.Contains(msg, "found ':='") || strings.Contains(msg, "found '+='"):
				msg = "assignment is not supported in formulas"
			default:
				msg = "syntax error: " + msg
			}
			c.diags = append(c.diags, Diagnostic{Pos: e.Pos, Msg: msg, Line: lineAt([]byte(src), e.Pos.Line)})
		}
		if len(c.diags) == 0 {
			c.diags = append(c.diags, Diagnostic{Pos: token.Position{Filename: "formula", Line: 1, Column: 1}, Msg: err.Error()})
		}
		return nil, nil, &Error{Diags: c.diags}
	}
	c.fset.Iterate(func(f *token.File) bool { c.file = f; return false })
	e := c.expr(x)
	if e != nil && len(c.diags) == 0 {
		switch {
		case e.isConst():
			c.errorf(x.Pos(), "formula is constant (%s): it must use at least one column", c.text(x))
		case e.untyped != fTyped:
			c.errorf(x.Pos(), "internal error: untyped result")
		}
	}
	if len(c.diags) > 0 {
		sort.SliceStable(c.diags, func(i, j int) bool { return c.diags[i].Pos.Offset < c.diags[j].Pos.Offset })
		return nil, nil, &Error{Diags: c.diags}
	}
	return e, c.cols, nil
}

// parseExpr parses src as one Go expression in the file "formula".
//
// A formula may span lines however it is broken: a line break counts as a
// space, where Go would insert a semicolon after a line ending in a name,
// a number or ")" and reject "price\n* qty". The line breaks are replaced
// by spaces for the parser (offsets unchanged), and the file's lines, and
// the positions of syntax errors, are then set from the original text.
// A formula with a // comment keeps Go's rule (the comment ends at the
// line break).
func parseFormulaExpr(fset *token.FileSet, src string) (ast.Expr, error) {
	text := src
	if !strings.Contains(src, "//") {
		text = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, src)
	}
	x, err := parser.ParseExprFrom(fset, "formula", text, parser.AllErrors)
	if text == src {
		return x, err
	}
	var file *token.File
	fset.Iterate(func(f *token.File) bool { file = f; return false })
	if file == nil {
		return x, err
	}
	file.SetLinesForContent([]byte(src))
	if list, ok := err.(scanner.ErrorList); ok {
		for _, e := range list {
			if e.Pos.Offset >= 0 && e.Pos.Offset <= file.Size() {
				e.Pos = file.Position(file.Pos(e.Pos.Offset))
			}
		}
	}
	return x, err
}

func (c *fChecker) errorf(pos token.Pos, format string, args ...any) {
	p := c.fset.Position(pos)
	c.diags = append(c.diags, Diagnostic{Pos: p, Msg: fmt.Sprintf(format, args...), Line: lineAt([]byte(c.src), p.Line)})
}

// text is the formula's own text of x.
func (c *fChecker) text(x ast.Expr) string {
	if c.file == nil {
		return ""
	}
	a, b := c.file.Offset(x.Pos()), c.file.Offset(x.End())
	if a < 0 || b > len(c.src) || a > b {
		return ""
	}
	return strings.Join(strings.Fields(c.src[a:b]), " ") // one line in messages
}

// expr checks x and returns its typed node, or nil after reporting why it
// is invalid (a nil operand silences errors that would only repeat it).
func (c *fChecker) expr(x ast.Expr) *fExpr {
	switch x := x.(type) {
	case *ast.ParenExpr:
		return c.expr(x.X)
	case *ast.BasicLit:
		return c.literal(x)
	case *ast.Ident:
		return c.ident(x)
	case *ast.SelectorExpr:
		if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "math" {
			if v, ok := fMathConsts[x.Sel.Name]; ok {
				k := fUntypedFloat
				if v.Kind() == constant.Int {
					k = fUntypedInt
				}
				return &fExpr{op: fConst, pos: x.Pos(), untyped: k, val: v}
			}
			if _, ok := fMathFuncs[x.Sel.Name]; ok {
				c.errorf(x.Pos(), "math.%s is a function: call it", x.Sel.Name)
				return nil
			}
			c.errorf(x.Sel.Pos(), "unknown name math.%s%s", x.Sel.Name, fSuggestPrefixed("math.", x.Sel.Name, fMathNames()))
			return nil
		}
		c.errorf(x.Pos(), "selector %s is not supported in formulas (only math.Name)", c.text(x))
		return nil
	case *ast.UnaryExpr:
		return c.unary(x)
	case *ast.BinaryExpr:
		return c.binary(x)
	case *ast.CallExpr:
		return c.call(x)
	case *ast.IndexExpr, *ast.IndexListExpr:
		c.errorf(x.Pos(), "indexing is not supported in formulas")
	case *ast.SliceExpr:
		c.errorf(x.Pos(), "slicing is not supported in formulas")
	case *ast.StarExpr:
		c.errorf(x.Pos(), "pointer indirection is not supported in formulas")
	case *ast.CompositeLit:
		c.errorf(x.Pos(), "composite literals are not supported in formulas")
	case *ast.FuncLit:
		c.errorf(x.Pos(), "function literals are not supported in formulas")
	case *ast.TypeAssertExpr:
		c.errorf(x.Pos(), "type assertions are not supported in formulas")
	case *ast.KeyValueExpr:
		c.errorf(x.Pos(), "key: value is not supported in formulas")
	default:
		c.errorf(x.Pos(), "%T is not supported in formulas", x)
	}
	return nil
}

func (c *fChecker) literal(x *ast.BasicLit) *fExpr {
	switch x.Kind {
	case token.INT, token.FLOAT:
		v := constant.MakeFromLiteral(x.Value, x.Kind, 0)
		if v.Kind() == constant.Unknown {
			c.errorf(x.Pos(), "malformed number %s", x.Value)
			return nil
		}
		k := fUntypedInt
		if x.Kind == token.FLOAT {
			k = fUntypedFloat
		}
		return &fExpr{op: fConst, pos: x.Pos(), untyped: k, val: v}
	case token.STRING:
		c.errorf(x.Pos(), "string literal %s: strings are not supported in formulas", x.Value)
	case token.CHAR:
		c.errorf(x.Pos(), "rune literal %s: runes are not supported in formulas", x.Value)
	default:
		c.errorf(x.Pos(), "complex literal %s: complex numbers are not supported in formulas", x.Value)
	}
	return nil
}

func (c *fChecker) ident(x *ast.Ident) *fExpr {
	if dt, ok := c.schema[x.Name]; ok {
		if _, ok := formulaTypes[fGoType(dt)]; !ok {
			c.errorf(x.Pos(), "column %s has dtype %s, which formulas do not support (bool, u8, i32, i64, f32, f64)", x.Name, dt)
			return nil
		}
		i, ok := c.colIdx[x.Name]
		if !ok {
			i = len(c.cols)
			c.cols = append(c.cols, x.Name)
			c.colIdx[x.Name] = i
		}
		return &fExpr{op: fColumn, pos: x.Pos(), typ: dt, col: i}
	}
	switch x.Name {
	case "true", "false":
		return &fExpr{op: fConst, pos: x.Pos(), untyped: fUntypedBool, val: constant.MakeBool(x.Name == "true")}
	case "where", "min", "max":
		c.errorf(x.Pos(), "%s is a function: call it", x.Name)
		return nil
	case "math":
		c.errorf(x.Pos(), "math is a package: use math.Name")
		return nil
	}
	if _, ok := formulaTypes[x.Name]; ok {
		c.errorf(x.Pos(), "%s is a type: convert a value with %s(x)", x.Name, x.Name)
		return nil
	}
	names := make([]string, 0, len(c.schema))
	for n := range c.schema {
		names = append(names, n)
	}
	hint := fSuggest(x.Name, names)
	if hint == "" && len(names) > 0 && len(names) <= 12 {
		sort.Strings(names)
		hint = " (columns: " + strings.Join(names, ", ") + ")"
	}
	c.errorf(x.Pos(), "unknown column %s%s", x.Name, hint)
	return nil
}

func fMathNames() []string {
	var names []string
	for n := range fMathFuncs {
		names = append(names, n)
	}
	for n := range fMathConsts {
		names = append(names, n)
	}
	return names
}

// suggest returns " (did you mean NAME?)" for the name among names
// closest to s by edit distance, if one is close enough to be a likely
// typo, or "".
func fSuggest(s string, names []string) string {
	sort.Strings(names)
	best, bestD := "", -1
	for _, n := range names {
		d := fEditDistance(strings.ToLower(s), strings.ToLower(n))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > max(1, len(s)/3) && !strings.EqualFold(best, s) {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// suggestPrefixed is suggest for names written with a package prefix.
func fSuggestPrefixed(prefix, s string, names []string) string {
	if m := fSuggest(s, names); m != "" {
		return " (did you mean " + prefix + m[len(" (did you mean "):]
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b,
// in bytes: insertions, deletions, substitutions and transpositions of
// adjacent bytes (the commonest typo) count one each.
func fEditDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
