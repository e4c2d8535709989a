package source

// The lowering: golang.org/x/tools/go/ssa straight to LLVM IR text.
//
// go/ssa is already a control-flow graph of basic blocks with phis, so the
// mapping is one to one: an ssa.BasicBlock becomes an LLVM block (plus a few
// continuation blocks where a check branches to an error exit), an ssa.Phi an
// LLVM phi, an ssa value an LLVM register. Every Go function of the unit (the
// compiled one and the same-package functions it calls) becomes an internal
// LLVM function
//
//	define internal <results> @"go.Name"(ptr %st, <params>)
//
// whose first parameter points at the status words of the call frame: a
// failing check (index or slice bounds, division by zero, negative shift)
// stores its site number, the offending value and the length there and
// returns; a caller tests the status word after every call and returns at
// once when it is set. A slice is the LLVM value {ptr, i64, i64}. The one
// external symbol is the entry point, void f(void **args), whose args[0] is
// the frame (see frame in call.go): it loads the parameters from the frame,
// calls the Go function and stores its results back.

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A site is one check in the generated code that can fail at run time. The
// kernel reports failures by site number (index+1 in module.sites).
type site struct {
	pos  token.Position
	kind siteKind
}

type siteKind int

const (
	siteIndex    siteKind = iota // index out of range [idx] with length len
	siteSliceLen                 // slice bounds out of range [:hi] with length len
	siteSliceCap                 // slice bounds out of range [:hi] with capacity cap
	siteSliceLo                  // slice bounds out of range [lo:hi]
	siteDivide                   // integer divide by zero
	siteShift                    // negative shift amount
	sitePanic                    // explicit panic
)

// module is the LLVM module being generated for one unit.
type module struct {
	u      *unit
	sym    string // the entry point's symbol
	funcs  map[*ssa.Function]string
	queue  []*ssa.Function
	sites  []site
	decls  map[string]string // external declarations by name
	body   strings.Builder
	ploops []*parLoop // parallel loops found, in order
	par    *parState  // their layout, nil without any
	math   *mathSrc   // Go's math source for this module, loaded on first use
}

// lowerError reports a construct the lowering cannot handle; it is turned
// into a Diagnostic at the API edge.
type lowerError struct {
	pos token.Pos
	msg string
}

// lowerUnit generates the LLVM module for u with entry point sym.
func lowerUnit(u *unit, sym string) (*module, string, error) {
	m := &module{u: u, sym: sym, funcs: map[*ssa.Function]string{}, decls: map[string]string{}}
	if err := m.lowerAll(); err != nil {
		return nil, "", err
	}
	var b strings.Builder
	b.WriteString("; gojit source module for " + u.fn.String() + "\n")
	names := make([]string, 0, len(m.decls))
	for n := range m.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(m.decls[n])
		b.WriteByte('\n')
	}
	b.WriteString(m.body.String())
	return m, b.String(), nil
}

func (m *module) lowerAll() (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case lowerError:
				err = &Error{Diags: []Diagnostic{m.u.diag(e.pos, "%s", e.msg)}}
			case diagsError:
				err = &Error{Diags: e.diags}
			default:
				panic(r)
			}
		}
	}()
	sig := m.u.fn.Signature
	for i := 0; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		if _, ok := paramKind(p.Type()); !ok {
			m.fail(m.u.fn.Pos(), "parameter %s of type %s: not supported in compiled functions (numeric scalars, bool and slices of them are)", p.Name(), p.Type())
		}
	}
	for i := 0; i < sig.Results().Len(); i++ {
		r := sig.Results().At(i)
		if k, ok := paramKind(r.Type()); !ok || k.slice {
			m.fail(m.u.fn.Pos(), "result of type %s: not supported in compiled functions (numeric scalars and bool are)", r.Type())
		}
	}
	m.funcName(m.u.fn)
	for len(m.queue) > 0 {
		f := m.queue[0]
		m.queue = m.queue[1:]
		fl := &funcLower{m: m, fn: f}
		fl.lower()
	}
	m.entry()
	return nil
}

func (m *module) fail(pos token.Pos, format string, args ...any) {
	panic(lowerError{pos, fmt.Sprintf(format, args...)})
}

// funcName returns the LLVM name of Go function f, queueing it for lowering.
func (m *module) funcName(f *ssa.Function) string {
	if n, ok := m.funcs[f]; ok {
		return n
	}
	n := fmt.Sprintf("@\"go.%s.%d\"", f.Name(), len(m.funcs))
	m.funcs[f] = n
	m.queue = append(m.queue, f)
	return n
}

func (m *module) declare(name, decl string) { m.decls[name] = decl }

// addSite records a check site and returns its number (never 0).
func (m *module) addSite(pos token.Pos, k siteKind) int {
	m.sites = append(m.sites, site{pos: m.u.fset.Position(pos), kind: k})
	return len(m.sites)
}

// A paramKind describes how a parameter or result crosses the frame.
type pkind struct {
	elem  types.BasicKind // the scalar type or the slice's element type
	slice bool
}

func paramKind(t types.Type) (pkind, bool) {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		if scalarBasic(t) {
			return pkind{elem: t.Kind()}, true
		}
	case *types.Slice:
		if b, ok := t.Elem().Underlying().(*types.Basic); ok && scalarBasic(b) {
			return pkind{elem: b.Kind(), slice: true}, true
		}
	}
	return pkind{}, false
}

func scalarBasic(b *types.Basic) bool {
	switch b.Kind() {
	case types.Bool, types.Int, types.Int8, types.Int16, types.Int32, types.Int64,
		types.Uint, types.Uint8, types.Uint16, types.Uint32, types.Uint64, types.Uintptr,
		types.Float32, types.Float64:
		return true
	}
	return false
}

// llType returns the LLVM type of a Go type, or "" if it has none here.
func llType(t types.Type) string {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		return basicLL(t.Kind())
	case *types.Slice:
		return "{ptr, i64, i64}"
	case *types.Pointer:
		return "ptr"
	case *types.Array:
		e := llMemType(t.Elem())
		if e == "" {
			return ""
		}
		return fmt.Sprintf("[%d x %s]", t.Len(), e)
	case *types.Tuple:
		parts := make([]string, t.Len())
		for i := range parts {
			parts[i] = llType(t.At(i).Type())
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// llMemType is the type of a value in memory: bool is a byte there.
func llMemType(t types.Type) string {
	if isBool(t) {
		return "i8"
	}
	return llType(t)
}

func basicLL(k types.BasicKind) string {
	switch k {
	case types.Bool, types.UntypedBool:
		return "i1"
	case types.Int8, types.Uint8:
		return "i8"
	case types.Int16, types.Uint16:
		return "i16"
	case types.Int32, types.Uint32:
		return "i32"
	case types.Int, types.Int64, types.Uint, types.Uint64, types.Uintptr, types.UntypedInt:
		return "i64"
	case types.Float32:
		return "float"
	case types.Float64, types.UntypedFloat:
		return "double"
	}
	return ""
}

func basic(t types.Type) (*types.Basic, bool) {
	b, ok := t.Underlying().(*types.Basic)
	return b, ok
}

func isBool(t types.Type) bool {
	b, ok := basic(t)
	return ok && b.Info()&types.IsBoolean != 0
}

func isFloat(t types.Type) bool {
	b, ok := basic(t)
	return ok && b.Info()&types.IsFloat != 0
}

func isInteger(t types.Type) bool {
	b, ok := basic(t)
	return ok && b.Info()&types.IsInteger != 0
}

func isUnsigned(t types.Type) bool {
	b, ok := basic(t)
	return ok && b.Info()&types.IsUnsigned != 0
}

func bitsOf(t types.Type) int {
	switch llType(t) {
	case "i1":
		return 1
	case "i8":
		return 8
	case "i16":
		return 16
	case "i32", "float":
		return 32
	}
	return 64
}

// floatLit formats f as an LLVM floating-point literal of type ty (float
// literals are written as the double that holds the float's value).
func floatLit(f float64, ty string) string {
	if ty == "float" {
		f = float64(float32(f))
	}
	return fmt.Sprintf("0x%016X", math.Float64bits(f))
}

// constLit returns the LLVM literal of an ssa constant.
func (m *module) constLit(c *ssa.Const) string {
	t := c.Type()
	ty := llType(t)
	if c.Value == nil {
		switch t.Underlying().(type) {
		case *types.Slice:
			return "zeroinitializer"
		case *types.Pointer:
			return "null"
		}
		if isFloat(t) {
			return floatLit(0, ty)
		}
		if isBool(t) {
			return "false"
		}
		return "0"
	}
	switch {
	case isBool(t):
		return strconv.FormatBool(constant.BoolVal(c.Value))
	case isFloat(t):
		f, _ := constant.Float64Val(constant.ToFloat(c.Value))
		return floatLit(f, ty)
	case isInteger(t):
		if isUnsigned(t) {
			u, _ := constant.Uint64Val(constant.ToInt(c.Value))
			return strconv.FormatInt(truncSigned(int64(u), bitsOf(t)), 10)
		}
		i, _ := constant.Int64Val(constant.ToInt(c.Value))
		return strconv.FormatInt(i, 10)
	}
	m.fail(c.Pos(), "constant of type %s: not supported in compiled functions", t)
	return ""
}

// truncSigned reinterprets the low bits of v as a signed value of that
// width, the form LLVM integer literals take.
func truncSigned(v int64, bits int) int64 {
	if bits >= 64 {
		return v
	}
	s := 64 - bits
	return v << s >> s
}

// frame layout: the status words, then each parameter (a scalar in one
// word, a slice in three: data, len, cap), then each result in one word.
const statusWords = 3

// paramSlots returns the frame word of each parameter and result and the
// frame's size in words.
func frameLayout(sig *types.Signature) (params, results []int, words int) {
	w := statusWords
	for i := 0; i < sig.Params().Len(); i++ {
		params = append(params, w)
		if _, ok := sig.Params().At(i).Type().Underlying().(*types.Slice); ok {
			w += 3
		} else {
			w++
		}
	}
	for i := 0; i < sig.Results().Len(); i++ {
		results = append(results, w)
		w++
	}
	return params, results, w
}

// entry emits the kernel's entry point, void sym(void **args), args[0]
// being the frame.
func (m *module) entry() {
	f := m.u.fn
	sig := f.Signature
	pslots, rslots, _ := frameLayout(sig)
	w := &m.body
	fmt.Fprintf(w, "\ndefine void @%s(ptr %%args) {\n  %%f = load ptr, ptr %%args\n", m.sym)
	args := []string{"ptr %f"}
	n := 0
	tmp := func() string { n++; return fmt.Sprintf("%%e%d", n) }
	slot := func(i int) string {
		p := tmp()
		fmt.Fprintf(w, "  %s = getelementptr i64, ptr %%f, i64 %d\n", p, i)
		return p
	}
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		if _, ok := t.Underlying().(*types.Slice); ok {
			var parts [3]string
			for j, ty := range []string{"ptr", "i64", "i64"} {
				parts[j] = tmp()
				fmt.Fprintf(w, "  %s = load %s, ptr %s\n", parts[j], ty, slot(pslots[i]+j))
			}
			s0, s1, s2 := tmp(), tmp(), tmp()
			fmt.Fprintf(w, "  %s = insertvalue {ptr, i64, i64} poison, ptr %s, 0\n", s0, parts[0])
			fmt.Fprintf(w, "  %s = insertvalue {ptr, i64, i64} %s, i64 %s, 1\n", s1, s0, parts[1])
			fmt.Fprintf(w, "  %s = insertvalue {ptr, i64, i64} %s, i64 %s, 2\n", s2, s1, parts[2])
			args = append(args, "{ptr, i64, i64} "+s2)
			continue
		}
		v := tmp()
		fmt.Fprintf(w, "  %s = load %s, ptr %s\n", v, llMemType(t), slot(pslots[i]))
		if isBool(t) {
			b := tmp()
			fmt.Fprintf(w, "  %s = trunc i8 %s to i1\n", b, v)
			v = b
		}
		args = append(args, llType(t)+" "+v)
	}
	rt := retType(sig)
	r := ""
	if m.par != nil {
		r = m.entrySegments(w, args, rt)
	} else if rt == "void" {
		fmt.Fprintf(w, "  call void %s(%s)\n", m.funcs[f], strings.Join(args, ", "))
	} else {
		r = tmp()
		fmt.Fprintf(w, "  %s = call %s %s(%s)\n", r, rt, m.funcs[f], strings.Join(args, ", "))
	}
	st := tmp()
	fmt.Fprintf(w, "  %s = load i64, ptr %%f\n  %s.ok = icmp eq i64 %s, 0\n  br i1 %s.ok, label %%store, label %%done\nstore:\n", st, st, st, st)
	for i := 0; i < sig.Results().Len(); i++ {
		t := sig.Results().At(i).Type()
		v := r
		if sig.Results().Len() > 1 {
			v = tmp()
			fmt.Fprintf(w, "  %s = extractvalue %s %s, %d\n", v, rt, r, i)
		}
		if isBool(t) {
			b := tmp()
			fmt.Fprintf(w, "  %s = zext i1 %s to i8\n", b, v)
			v = b
		}
		fmt.Fprintf(w, "  store %s %s, ptr %s\n", llMemType(t), v, slot(rslots[i]))
	}
	w.WriteString("  br label %done\ndone:\n  ret void\n}\n\n!0 = !{!\"branch_weights\", i32 1048575, i32 1}\n")
}

// entrySegments emits the entry's call of the segment args[1][0] names;
// after a yield (args[1][1] set) it returns at once.
func (m *module) entrySegments(w *strings.Builder, args []string, rt string) string {
	k := len(m.par.sets)
	segArgs := append([]string{args[0], "ptr %sp"}, args[1:]...)
	fmt.Fprintf(w, "  %%sp.a = getelementptr ptr, ptr %%args, i64 1\n  %%sp = load ptr, ptr %%sp.a\n  %%seg = load i64, ptr %%sp\n  switch i64 %%seg, label %%seg0 [")
	for j := 1; j < k; j++ {
		fmt.Fprintf(w, " i64 %d, label %%seg%d", j, j)
	}
	w.WriteString(" ]\n")
	var inc []string
	for j := 0; j < k; j++ {
		fmt.Fprintf(w, "seg%d:\n", j)
		if rt == "void" {
			fmt.Fprintf(w, "  call void %s(%s)\n", segName(m, j), strings.Join(segArgs, ", "))
		} else {
			fmt.Fprintf(w, "  %%r.seg%d = call %s %s(%s)\n", j, rt, segName(m, j), strings.Join(segArgs, ", "))
			inc = append(inc, fmt.Sprintf("[ %%r.seg%d, %%seg%d ]", j, j))
		}
		w.WriteString("  br label %joined\n")
	}
	w.WriteString("joined:\n")
	r := ""
	if rt != "void" {
		fmt.Fprintf(w, "  %%r.all = phi %s %s\n", rt, strings.Join(inc, ", "))
		r = "%r.all"
	}
	w.WriteString("  %y.a = getelementptr i64, ptr %sp, i64 1\n  %y = load i64, ptr %y.a\n  %y.ok = icmp eq i64 %y, 0\n  br i1 %y.ok, label %returned, label %done\nreturned:\n")
	return r
}
