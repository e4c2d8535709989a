package source

// The checker: every construct of the compiled function and of the
// same-package functions it calls that the lowering cannot compile becomes
// one Diagnostic, all of them reported at once, in source order.

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// mathFuncs lists the functions of package math that compiled functions may
// call, with what each becomes in LLVM IR: an intrinsic (llvm.*), Go's own
// implementation compiled alongside, or inline code. docs/source.md shows this table,
// and a test keeps the two in step; the lowering (lower_ops.go) must accept
// exactly these names.
var mathFuncs = map[string]string{
	// Exactly rounded in Go and in LLVM: the intrinsic gives Go's bits.
	"Abs": "llvm.fabs", "Ceil": "llvm.ceil", "Copysign": "llvm.copysign", "FMA": "llvm.fma",
	"Floor": "llvm.floor", "Max": "llvm.maximum", "Min": "llvm.minimum", "Round": "llvm.round",
	"RoundToEven": "llvm.roundeven", "Sqrt": "llvm.sqrt", "Trunc": "llvm.trunc",
	// Go's amd64 assembly, ported to Go and compiled alongside.
	"Exp": "port of Go's assembly", "Log": "port of Go's assembly", "Hypot": "port of Go's assembly",
	// Go's own source of package math, compiled alongside: Go's bits.
	"Acos": "Go's source", "Asin": "Go's source", "Atan": "Go's source", "Atan2": "Go's source",
	"Cbrt": "Go's source", "Cos": "Go's source", "Cosh": "Go's source", "Exp2": "Go's source",
	"Expm1": "Go's source", "Log10": "Go's source", "Log1p": "Go's source", "Log2": "Go's source",
	"Mod": "Go's source", "Pow": "Go's source", "Sin": "Go's source", "Sinh": "Go's source",
	"Tan": "Go's source", "Tanh": "Go's source",
	// Inline code.
	"Inf": "select of ±Inf", "NaN": "constant", "IsNaN": "fcmp uno", "IsInf": "fcmp with ±Inf",
	"Signbit": "bitcast, icmp", "Float64bits": "bitcast", "Float64frombits": "bitcast",
	"Float32bits": "bitcast", "Float32frombits": "bitcast",
}

// mathFuncNames returns the names of mathFuncs, sorted.
func mathFuncNames() []string {
	names := make([]string, 0, len(mathFuncs))
	for n := range mathFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

const notSupported = ": not supported in compiled functions"

// isRangeMarker reports whether obj is source.Range, the parallel-loop marker.
func isRangeMarker(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == sourcePath && f.Name() == "Range"
}

type checker struct {
	u       *unit
	pkg     *types.Package
	diags   []Diagnostic
	called  map[ast.Expr]bool // expressions in call position
	ranged  map[ast.Expr]bool // calls that are the X of a range clause
	byObj   map[types.Object]*ast.FuncDecl
	callees map[*ast.FuncDecl][]*ast.Ident // same-package calls in each function
}

// check reports every construct of u.fn (and the same-package functions it
// calls) that cannot be compiled, as an *Error; nil when all can be.
func check(u *unit) error {
	funcs := u.funcs
	if len(funcs) == 0 && u.decl != nil {
		funcs = []*ast.FuncDecl{u.decl}
	}
	ck := &checker{u: u, called: map[ast.Expr]bool{}, ranged: map[ast.Expr]bool{},
		byObj: map[types.Object]*ast.FuncDecl{}, callees: map[*ast.FuncDecl][]*ast.Ident{}}
	if u.fn != nil && u.fn.Pkg != nil {
		ck.pkg = u.fn.Pkg.Pkg
	} else if obj := u.info.Defs[u.decl.Name]; obj != nil {
		ck.pkg = obj.Pkg()
	}
	for _, fd := range funcs {
		if obj := u.info.Defs[fd.Name]; obj != nil {
			ck.byObj[obj] = fd
		}
	}
	for _, fd := range funcs {
		if fd.Type.TypeParams != nil && fd != u.decl {
			continue // reported at each call
		}
		ck.signature(fd)
		if fd.Body != nil {
			ck.body(fd)
		}
	}
	ck.recursion(funcs)
	if len(ck.diags) == 0 {
		return nil
	}
	return &Error{Diags: sortDiags(ck.diags)}
}

func (ck *checker) report(pos token.Pos, what string, hint ...string) {
	msg := what + notSupported
	if h := strings.TrimSpace(strings.Join(hint, " ")); h != "" {
		msg += "; " + h
	}
	ck.diags = append(ck.diags, ck.u.diag(pos, "%s", msg))
}

// typeProblem names what in t the lowering cannot represent, or "".
func typeProblem(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.UntypedNil:
			return ""
		case u.Info()&types.IsComplex != 0:
			return "complex number"
		case u.Info()&types.IsString != 0:
			return "string"
		case u.Kind() == types.UnsafePointer:
			return "pointer"
		case u.Info()&(types.IsNumeric|types.IsBoolean) != 0:
			return ""
		}
		return u.String()
	case *types.Slice:
		if _, ok := u.Elem().Underlying().(*types.Slice); ok {
			return "slice of slices"
		}
		if p := typeProblem(u.Elem()); p != "" {
			return "slice of " + p
		}
		return ""
	case *types.Tuple:
		for i := 0; i < u.Len(); i++ {
			if p := typeProblem(u.At(i).Type()); p != "" {
				return p
			}
		}
		return ""
	case *types.Map:
		return "map"
	case *types.Pointer:
		return "pointer"
	case *types.Struct:
		return "struct"
	case *types.Array:
		return "array"
	case *types.Chan:
		return "channel"
	case *types.Interface:
		if _, ok := t.(*types.TypeParam); ok {
			return "type parameter"
		}
		return "interface"
	case *types.Signature:
		return "function-typed"
	}
	return "type " + t.String()
}

// typeString prints t as the user wrote it: types of the compiled package
// unqualified, others by package name.
// localTypeProblem is typeProblem for local variables, which may also be
// arrays of supported elements (they live on the stack: an alloca).
func localTypeProblem(t types.Type) string {
	if a, ok := t.Underlying().(*types.Array); ok {
		if p := localTypeProblem(a.Elem()); p != "" {
			return "array of " + p
		}
		return ""
	}
	return typeProblem(t)
}

func (ck *checker) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == ck.pkg {
			return ""
		}
		return p.Name()
	})
}

// signature checks the parameter and result types of fd.
func (ck *checker) signature(fd *ast.FuncDecl) {
	for _, list := range []*ast.FieldList{fd.Type.Params, fd.Type.Results} {
		if list == nil {
			continue
		}
		kind := "parameter"
		if list == fd.Type.Results {
			kind = "result"
		}
		for _, field := range list.List {
			t := ck.u.info.TypeOf(field.Type)
			if t == nil {
				continue
			}
			p := typeProblem(t)
			if p == "" {
				continue
			}
			if len(field.Names) == 0 {
				ck.report(field.Type.Pos(), p+" "+kind+" ("+ck.typeString(t)+")", typeHint(p))
			}
			for _, n := range field.Names {
				ck.report(n.Pos(), p+" "+kind+" "+n.Name+" ("+ck.typeString(t)+")", typeHint(p))
			}
		}
	}
}

func typeHint(p string) string {
	switch p {
	case "slice of slices":
		return "use one flat slice and compute the index"
	case "struct":
		return "pass the fields as separate parameters"
	case "array":
		return "use a slice (arrays are fine as local variables)"
	}
	return ""
}

func (ck *checker) body(fd *ast.FuncDecl) {
	info := ck.u.info
	// Which expressions are called, and which calls are range clauses.
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			ck.called[ast.Unparen(n.Fun)] = true
		case *ast.RangeStmt:
			ck.ranged[ast.Unparen(n.X)] = true
		}
		return true
	})
	// Local variables of unsupported types (function literals are reported
	// whole).
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if v, ok := info.Defs[id].(*types.Var); ok && !v.IsField() {
			if p := localTypeProblem(v.Type()); p != "" {
				ck.report(id.Pos(), p+" variable "+id.Name+" ("+ck.typeString(v.Type())+")", typeHint(p))
			}
		}
		return true
	})
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ck.report(n.Pos(), "function literal (closure)", "call a top-level function instead")
			return false
		case *ast.GoStmt:
			ck.report(n.Pos(), "go statement", "use a source.Range loop for parallel work")
		case *ast.DeferStmt:
			ck.report(n.Pos(), "defer statement")
		case *ast.SelectStmt:
			ck.report(n.Pos(), "select statement")
			for _, c := range n.Body.List {
				for _, s := range c.(*ast.CommClause).Body {
					ast.Inspect(s, visit)
				}
			}
			return false
		case *ast.SendStmt:
			ck.report(n.Arrow, "channel send")
		case *ast.UnaryExpr:
			switch n.Op {
			case token.ARROW:
				ck.report(n.Pos(), "channel receive")
			case token.AND:
				ck.report(n.Pos(), "address-of operator & (pointers)")
			}
		case *ast.StarExpr:
			if tv, ok := info.Types[n]; ok && tv.IsValue() {
				ck.report(n.Pos(), "pointer dereference")
			}
		case *ast.BranchStmt:
			if n.Tok == token.GOTO {
				ck.report(n.Pos(), "goto statement")
			}
		case *ast.TypeSwitchStmt:
			ck.report(n.Pos(), "type switch")
			ast.Inspect(n.Body, visit)
			return false
		case *ast.TypeAssertExpr:
			ck.report(n.Lparen-1, "type assertion")
		case *ast.CompositeLit:
			t := info.TypeOf(n)
			if _, isArray := t.Underlying().(*types.Array); isArray && localTypeProblem(t) == "" {
				return true // an array literal fills a local array
			}
			what := "composite literal"
			if t != nil {
				what += " of type " + ck.typeString(t)
			}
			ck.report(n.Pos(), what, "allocation inside compiled functions is not supported; pass preallocated slices")
			for _, e := range n.Elts {
				ast.Inspect(e, visit)
			}
			return false
		case *ast.IndexExpr:
			ck.index(n.X, n.Lbrack)
		case *ast.IndexListExpr:
			ck.index(n.X, n.Lbrack)
		case *ast.SliceExpr:
			if t := info.TypeOf(n.X); t != nil {
				switch t.Underlying().(type) {
				case *types.Basic:
					ck.report(n.Lbrack, "string slicing")
				}
			}
		case *ast.RangeStmt:
			ck.rangeClause(n)
		case *ast.CallExpr:
			ck.call(n)
		case *ast.SelectorExpr:
			ck.selector(n)
			ast.Inspect(n.X, visit)
			return false
		case *ast.Ident:
			ck.ident(n)
		}
		return true
	}
	ast.Inspect(fd.Body, visit)
}

func (ck *checker) index(x ast.Expr, at token.Pos) {
	t := ck.u.info.TypeOf(x)
	if t == nil {
		return
	}
	switch t.Underlying().(type) {
	case *types.Map:
		ck.report(at, "map index")
	case *types.Basic:
		ck.report(at, "string index")
	}
}

func (ck *checker) rangeClause(n *ast.RangeStmt) {
	x := ast.Unparen(n.X)
	if call, ok := x.(*ast.CallExpr); ok {
		if obj := ck.calleeObj(call.Fun); obj != nil && isRangeMarker(obj) {
			return
		}
	}
	t := ck.u.info.TypeOf(x)
	if t == nil {
		return
	}
	what := ""
	switch u := t.Underlying().(type) {
	case *types.Map:
		what = "range over a map"
	case *types.Chan:
		what = "range over a channel"
	case *types.Signature:
		what = "range over a function (iterator)"
	case *types.Pointer:
		what = "range over a pointer"
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			what = "range over a string"
		}
	}
	if what != "" {
		ck.report(n.Range, what)
	}
}

// calleeObj returns the object a call's function expression names, if any.
func (ck *checker) calleeObj(fun ast.Expr) types.Object {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return ck.u.info.Uses[f]
	case *ast.SelectorExpr:
		return ck.u.info.Uses[f.Sel]
	case *ast.IndexExpr: // explicit instantiation f[T]
		return ck.calleeObj(f.X)
	case *ast.IndexListExpr:
		return ck.calleeObj(f.X)
	}
	return nil
}

func (ck *checker) call(n *ast.CallExpr) {
	info := ck.u.info
	if tv, ok := info.Types[ast.Unparen(n.Fun)]; ok && tv.IsType() {
		if p := typeProblem(tv.Type); p != "" {
			ck.report(n.Pos(), "conversion to "+p+" ("+ck.typeString(tv.Type)+")")
		}
		return
	}
	if obj := ck.calleeObj(n.Fun); obj != nil {
		if b, ok := obj.(*types.Builtin); ok && b.Name() == "panic" {
			// panic(constant) compiles: Call returns an error at its line.
			if len(n.Args) != 1 || info.Types[n.Args[0]].Value == nil {
				ck.report(n.Pos(), "panic with a value that is not a constant", "panic with a constant message")
			}
			return
		}
		if v, ok := obj.(*types.Var); ok && v.Parent() != ck.pkg.Scope() {
			ck.report(n.Pos(), "call of a function value", "call a top-level function by name")
		}
	} else if _, ok := ast.Unparen(n.Fun).(*ast.FuncLit); ok {
		return // the literal is reported
	} else if _, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); !ok {
		ck.report(n.Pos(), "call of a function value", "call a top-level function by name")
	}
}

func (ck *checker) selector(n *ast.SelectorExpr) {
	info := ck.u.info
	if x, ok := n.X.(*ast.Ident); ok {
		if pn, ok := info.Uses[x].(*types.PkgName); ok {
			ck.qualified(n, pn.Imported(), info.Uses[n.Sel])
			return
		}
	}
	sel := info.Selections[n]
	if sel == nil {
		return
	}
	switch sel.Kind() {
	case types.FieldVal:
		ck.report(n.Sel.Pos(), "struct field "+n.Sel.Name)
	case types.MethodVal:
		if ck.called[n] {
			ck.report(n.Sel.Pos(), "method call ."+n.Sel.Name+"()", "call a top-level function instead")
		} else {
			ck.report(n.Sel.Pos(), "method value ."+n.Sel.Name)
		}
	case types.MethodExpr:
		ck.report(n.Pos(), "method expression")
	}
}

// qualified checks pkg.Name.
func (ck *checker) qualified(n *ast.SelectorExpr, pkg *types.Package, obj types.Object) {
	name := pkg.Name() + "." + n.Sel.Name
	switch obj := obj.(type) {
	case *types.Func:
		switch {
		case isRangeMarker(obj):
			if !ck.called[n] {
				ck.report(n.Pos(), "function value "+name)
			} else if !ck.rangedCall(n) {
				ck.report(n.Pos(), name+" outside the range clause of a for loop", "write for i := range source.Range(n)")
			}
		case pkg.Path() == "math" && mathFuncs[obj.Name()] != "":
			if !ck.called[n] {
				ck.report(n.Pos(), "function value "+name, "call it")
			}
		case pkg.Path() == "math":
			ck.report(n.Pos(), "call to "+name, "the math functions supported are "+strings.Join(mathFuncNames(), ", "))
		default:
			what := "call to " + name
			if !ck.called[n] {
				what = "function value " + name
			}
			ck.report(n.Pos(), what+" (package "+pkg.Path()+")", "compiled functions can call functions of their own package, math and source.Range")
		}
	case *types.Var:
		ck.report(n.Pos(), "package-level variable "+name, "pass it as a parameter")
	case *types.Builtin: // unsafe.Sizeof and friends are constants; the rest make pointers
		switch obj.Name() {
		case "Sizeof", "Alignof", "Offsetof":
		default:
			ck.report(n.Pos(), "call to "+name)
		}
	}
}

// rangedCall reports whether fun is the function of a call that is a range
// clause.
func (ck *checker) rangedCall(fun ast.Expr) bool {
	for x := range ck.ranged {
		if c, ok := x.(*ast.CallExpr); ok && ast.Unparen(c.Fun) == fun {
			return true
		}
	}
	return false
}

var builtinHints = map[string]string{
	"make":    "allocation inside compiled functions is not supported; pass preallocated slices",
	"new":     "allocation inside compiled functions is not supported; pass preallocated slices",
	"append":  "allocation inside compiled functions is not supported; pass preallocated slices and write by index",
	"copy":    "write the loop",
	"recover": "",
	"print":   "", "println": "", "delete": "", "close": "", "clear": "write the loop",
	"complex": "", "real": "", "imag": "",
}

func (ck *checker) ident(id *ast.Ident) {
	switch obj := ck.u.info.Uses[id].(type) {
	case *types.Builtin:
		switch obj.Name() {
		case "len", "cap", "min", "max":
		case "panic": // checked with its argument, in call
		default:
			if h := builtinHints[obj.Name()]; h != "" {
				ck.report(id.Pos(), obj.Name(), h)
			} else {
				ck.report(id.Pos(), obj.Name())
			}
		}
	case *types.Var:
		if ck.pkg != nil && obj.Parent() == ck.pkg.Scope() {
			ck.report(id.Pos(), "package-level variable "+id.Name, "pass it as a parameter (constants are fine)")
		}
	case *types.Func:
		if obj.Pkg() != ck.pkg || obj.Signature().Recv() != nil {
			return
		}
		if isRangeMarker(obj) {
			if !ck.called[id] {
				ck.report(id.Pos(), "function value Range")
			} else if !ck.rangedCall(id) {
				ck.report(id.Pos(), "Range outside the range clause of a for loop", "write for i := range Range(n)")
			}
			return
		}
		if obj.Signature().TypeParams() != nil {
			ck.report(id.Pos(), "call of generic function "+id.Name, "write a non-generic function for the types you need")
			return
		}
		if !ck.called[id] {
			ck.report(id.Pos(), "function value "+id.Name, "functions can only be called")
			return
		}
		if fd := ck.byObj[obj]; fd != nil {
			ck.callees[ck.enclosing(id)] = append(ck.callees[ck.enclosing(id)], id)
		} else if ck.bodyless(obj) {
			ck.report(id.Pos(), "call to "+id.Name+", which has no Go body (assembly or linkname)")
		}
	}
}

// enclosing returns the checked function whose body contains id.
func (ck *checker) enclosing(id *ast.Ident) *ast.FuncDecl {
	for _, fd := range ck.byObj {
		if fd.Pos() <= id.Pos() && id.Pos() < fd.End() {
			return fd
		}
	}
	return nil
}

// recursion reports each call that closes a cycle of same-package calls:
// compiled functions are inlined or compiled alongside, so recursion is
// rejected.
func (ck *checker) recursion(funcs []*ast.FuncDecl) {
	reaches := func(from, to *ast.FuncDecl) bool {
		seen := map[*ast.FuncDecl]bool{}
		stack := []*ast.FuncDecl{from}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f == to {
				return true
			}
			if seen[f] {
				continue
			}
			seen[f] = true
			for _, id := range ck.callees[f] {
				stack = append(stack, ck.byObj[ck.u.info.Uses[id]])
			}
		}
		return false
	}
	for _, fd := range funcs {
		for _, id := range ck.callees[fd] {
			g := ck.byObj[ck.u.info.Uses[id]]
			if g != nil && reaches(g, fd) {
				what := "recursive call to " + id.Name
				if g != fd {
					what = "call to " + id.Name + ", which calls " + fd.Name.Name + " back (recursion)"
				}
				ck.report(id.Pos(), what)
			}
		}
	}
}

// bodyless reports whether obj is a function of the package declared
// without a body.
func (ck *checker) bodyless(obj types.Object) bool {
	for _, f := range ck.u.files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body == nil && ck.u.info.Defs[fd.Name] == obj {
				return true
			}
		}
	}
	return false
}
