package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gojit/gojit/source"
)

// funcStages are the stages of a Go function compiled by package source.
var funcStages = []source.Stage{source.StageSource, source.StageSSA, source.StageLLVM, source.StageLLVMOpt, source.StageAsm}

func funcStageNames() []string {
	var names []string
	for _, s := range funcStages {
		names = append(names, s.String())
	}
	return names
}

// splitFuncName splits "import/path.Name" at the dot after the last slash.
// A directory may stand for the package: ".Name" and "./.Name" name a
// function of the current directory's package, "./sub.Name" and
// "../pkg.Name" one of a directory relative to it.
func splitFuncName(s string) (pkg, name string, ok bool) {
	if rest, found := strings.CutPrefix(s, "./."); found {
		return ".", rest, rest != "" && !strings.ContainsAny(rest, "./")
	}
	if strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "..") {
		rest := s[1:]
		return ".", rest, rest != "" && !strings.ContainsAny(rest, "./")
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.LastIndexByte(s, '.')
	if dot <= slash+1 || dot == len(s)-1 {
		return "", "", false
	}
	return s[:dot], s[dot+1:], true
}

// dumpFunc prints the stages of o.fn, a Go function compiled by package
// source: -stage all (the default) prints every stage under a heading, a
// single stage prints its bare text.
func dumpFunc(o *dumpOpts, stdout, stderr io.Writer) int {
	pkg, name, ok := splitFuncName(o.fn)
	if !ok {
		fmt.Fprintf(stderr, "gojit dump: -func wants pkgpath.Name (e.g. github.com/you/pkg.Saxpy), got %q\n", o.fn)
		return exitUsage
	}
	want := funcStages
	if o.stage != "all" {
		s, ok := source.ParseStage(o.stage)
		if !ok || s == source.StageIR {
			fmt.Fprintf(stderr, "gojit dump: unknown stage %q for -func; the stages are: %s\n", o.stage, strings.Join(funcStageNames(), ", "))
			return exitUsage
		}
		want = []source.Stage{s}
	}
	f, err := source.CompileNamed(pkg, name)
	if err != nil {
		return fail(stderr, "dump", err)
	}
	if len(want) == 1 {
		text, err := f.Code(want[0])
		if err != nil {
			return fail(stderr, "dump", err)
		}
		fmt.Fprintln(stdout, strings.TrimRight(text, "\n"))
		return exitOK
	}
	fmt.Fprintf(stdout, "gojit dump: function %s\n", o.fn)
	for _, s := range want {
		section(stdout, s.String())
		text, err := f.Code(s)
		if err != nil {
			text = "(" + err.Error() + ")\n"
		}
		fmt.Fprint(stdout, indent(text))
	}
	return exitOK
}
