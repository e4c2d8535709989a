package source

// A file's package-level names without parsing it: go/scanner tokens and
// bracket depth are enough to find what `func`, `type`, `var` and `const`
// declare at the top level, at a third of the cost of a parse. The loader
// indexes every file of a package this way and parses only the files that
// declare what a function needs (TestScanDecls compares the result with the
// parser's over the std tree and this repository).

import (
	"go/ast"
	"go/scanner"
	"go/token"
)

// fileDecls is what scanDecls finds in a file.
type fileDecls struct {
	pkg   string   // package clause
	names []string // package-level names: functions, types, variables, constants
	funcs []string // of which functions (not methods)
	recvs []string // base type names of the receivers of its methods
}

// scanDecls returns the package-level declarations of src; ok is false when
// the file does not scan cleanly (the caller then parses it).
func scanDecls(src []byte) (fd fileDecls, ok bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, 0)
	next := func() scanTok {
		for {
			_, t, lit := s.Scan()
			if t != token.COMMENT {
				return scanTok{t, lit}
			}
		}
	}
	t := next()
	for t.tok == token.SEMICOLON {
		t = next()
	}
	if t.tok != token.PACKAGE {
		return fd, false
	}
	if t = next(); t.tok != token.IDENT {
		return fd, false
	}
	fd.pkg = t.lit
	add := func(name string, fn bool) {
		if name == "_" || name == "init" && fn {
			return
		}
		fd.names = append(fd.names, name)
		if fn {
			fd.funcs = append(fd.funcs, name)
		}
	}
	depth := 0 // ( [ { nesting
	t = next()
	for t.tok != token.EOF {
		if bad {
			return fd, false
		}
		if depth > 0 {
			switch t.tok {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				depth++
			case token.RPAREN, token.RBRACK, token.RBRACE:
				depth--
			}
			t = next()
			continue
		}
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
			t = next()
		case token.FUNC:
			t = next()
			if t.tok == token.LPAREN { // a method: (r *T[P]) Name
				d, idents := 1, []string(nil)
				for d > 0 {
					t = next()
					switch t.tok {
					case token.EOF:
						return fd, false
					case token.LPAREN, token.LBRACK, token.LBRACE:
						d++
					case token.RPAREN, token.RBRACK, token.RBRACE:
						d--
					case token.IDENT:
						if d == 1 {
							idents = append(idents, t.lit)
						}
					}
				}
				if len(idents) == 0 {
					return fd, false
				}
				fd.recvs = append(fd.recvs, idents[len(idents)-1])
				next() // the method name
				t = skipSignature(next)
				continue
			}
			if t.tok == token.IDENT {
				add(t.lit, true)
				t = skipSignature(next)
				continue
			}
		case token.TYPE, token.VAR, token.CONST:
			kw := t.tok
			t = next()
			if t.tok != token.LPAREN {
				t = specNames(next, t, kw, add)
				if t = skipSpec(next, t); t.tok == token.EOF && bad {
					return fd, false
				}
				continue
			}
			// A group: one spec per line (or per ;) until the closing paren.
			t = next()
			for t.tok != token.RPAREN {
				if t.tok == token.EOF || bad {
					return fd, false
				}
				if t.tok == token.SEMICOLON {
					t = next()
					continue
				}
				t = specNames(next, t, kw, add)
				if t = skipSpec(next, t); t.tok == token.EOF {
					return fd, false
				}
			}
			t = next()
		default:
			t = next()
		}
	}
	return fd, !bad && depth == 0
}

// skipSpec skips the rest of a spec, brackets included (a func type or
// literal in it is no declaration), up to the ; or ) that ends it.
func skipSpec(next func() scanTok, t scanTok) scanTok {
	d := 0
	for !(d == 0 && (t.tok == token.SEMICOLON || t.tok == token.RPAREN)) && t.tok != token.EOF {
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			d++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			d--
		}
		t = next()
	}
	return t
}

// skipSignature skips a function's signature (whose result may be a func
// type) up to the { of its body or the ; of a declaration without one.
func skipSignature(next func() scanTok) scanTok {
	d := 0
	for {
		t := next()
		switch t.tok {
		case token.EOF:
			return t
		case token.LPAREN, token.LBRACK:
			d++
		case token.RPAREN, token.RBRACK:
			d--
		case token.LBRACE, token.SEMICOLON:
			if d == 0 {
				return t
			}
		}
	}
}

// scanTok is one token of scanDecls.
type scanTok struct {
	tok token.Token
	lit string
}

// specNames adds the names a spec starting at t declares (a type spec
// declares one, a value spec a comma-separated list) and returns the token
// after them.
func specNames(next func() scanTok, t scanTok, kw token.Token, add func(string, bool)) scanTok {
	for t.tok == token.IDENT {
		add(t.lit, false)
		t = next()
		if kw == token.TYPE || t.tok != token.COMMA {
			return t
		}
		t = next()
	}
	return t
}

// declsOf is scanDecls from a syntax tree.
func declsOf(f *ast.File) fileDecls {
	fd := fileDecls{pkg: f.Name.Name}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				if len(d.Recv.List) > 0 {
					fd.recvs = append(fd.recvs, recvBase(d.Recv.List[0].Type))
				}
			} else if d.Name.Name != "init" && d.Name.Name != "_" {
				fd.names = append(fd.names, d.Name.Name)
				fd.funcs = append(fd.funcs, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name != "_" {
						fd.names = append(fd.names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							fd.names = append(fd.names, n.Name)
						}
					}
				}
			}
		}
	}
	return fd
}
