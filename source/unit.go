package source

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A unit is what the loader hands the checker and the lowering: one
// type-checked package in SSA form and the function to compile in it.
// load.go builds it (from a Go func value or from source text); check.go
// turns it into diagnostics; lower*.go turn it into LLVM IR.
type unit struct {
	fset  *token.FileSet
	pkg   *ssa.Package
	fn    *ssa.Function // the function to compile
	decl  *ast.FuncDecl // its declaration (nil only for synthetic functions)
	info  *types.Info
	files []*ast.File
	src   map[string][]byte // file name (as in fset) -> contents
	// funcs is decl followed by every function of the same package that it
	// calls or refers to, transitively, in source order: what gets checked
	// and compiled. files and info cover exactly the declarations these
	// need (see loadtypes.go), not the whole package.
	funcs []*ast.FuncDecl
	// key identifies the compiled code: a hash of the source text of fn and
	// of every same-package function it calls, and of their types. The
	// engine's signature parts (CPU, LLVM version, gojit version, options)
	// are added by the caller.
	key string
}

// diag builds a Diagnostic at pos with the source line filled in.
func (u *unit) diag(pos token.Pos, format string, args ...any) Diagnostic {
	p := u.fset.Position(pos)
	return Diagnostic{Pos: p, Msg: sprintf(format, args...), Line: lineAt(u.src[p.Filename], p.Line)}
}
