package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// example is a built-in function for dump.
type example struct {
	name  string
	about string // what it computes, with its input shapes for size n
	defN  int    // size when -n is not given
	fn    any
	args  func(n int) []any // inputs of size n
}

// examples are dump's built-in functions, in the order -list shows them.
var examples = []example{
	{"chain", "max((a+b)*a - b*0.5, 0): the 5-op elementwise chain; a, b: f32[n]", 1024,
		bench.Chain5, func(n int) []any { return []any{randArray(1, n), randArray(2, n)} }},
	{"softmax", "row softmax exp(x - max(x)) / sum(exp(x - max(x))); x: f32[n, 128]", 64,
		softmax, func(n int) []any { return []any{randArray(1, n, 128)} }},
	{"matmul", "relu(x @ w + bias); x: f32[n, 64], w: f32[64, 32], bias: f32[32]", 64,
		dense, func(n int) []any { return []any{randArray(1, n, 64), randArray(2, 64, 32), randArray(3, 32)} }},
	{"layernorm", "(x - mean) / sqrt(var + 1e-5) * gamma + beta over rows; x: f32[n, 256]", 64,
		layerNorm, func(n int) []any { return []any{randArray(1, n, 256), randArray(2, 256), randArray(3, 256)} }},
	{"identities", "exp((x*1)ᵀᵀ + y) * exp(y + x) / 4, negated twice: work for the graph passes; x, y: f32[n, 32]", 64,
		identities, func(n int) []any { return []any{randArray(1, n, 32), randArray(2, n, 32)} }},
}

// identities is written the long way round, so that -passes shows every
// graph pass at work: simplify removes x*1, the transposes and the double
// negation and turns /4 into *0.25, cse merges the two exps (add commutes),
// and dce sweeps up.
func identities(x, y *gojit.Tensor) *gojit.Tensor {
	a := x.Mul(gojit.Scalar(1)).Transpose().Transpose()
	b := a.Add(y).Exp()
	c := y.Add(x).Exp()
	return b.Mul(c).Div(gojit.Scalar(4)).Neg().Neg()
}

// softmax is the softmax of each row of x.
func softmax(x *gojit.Tensor) *gojit.Tensor {
	e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
	return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
}

// dense is a fully connected layer with a ReLU.
func dense(x, w, bias *gojit.Tensor) *gojit.Tensor {
	return x.MatMul(w).Add(bias).Relu()
}

// layerNorm normalizes each row of x to zero mean and unit variance, then
// scales and shifts it.
func layerNorm(x, gamma, beta *gojit.Tensor) *gojit.Tensor {
	xc := x.Sub(x.Reduce(gojit.ReduceMean, true, -1))
	v := xc.Mul(xc).Reduce(gojit.ReduceMean, true, -1)
	return xc.Mul(v.Add(gojit.Scalar(1e-5)).Rsqrt()).Mul(gamma).Add(beta)
}

// randArray returns a float32 array of the given shape holding
// deterministic pseudo-random values in [-1, 1).
func randArray(seed uint64, shape ...int) *gojit.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return gojit.FromFloat32(bench.RandFloat32(n, seed), shape...)
}

// stages are dump's stages in pipeline order, with what they show.
var stages = []struct{ name, title string }{
	{"traced", "Traced IR (each op with the file:line that recorded it)"},
	{"fused", "IR after fusion, and the fusion plan"},
	{"llvm", "Generated LLVM IR"},
	{"opt", "LLVM IR after optimization"},
	{"asm", "Host assembly"},
}

// stageText returns one stage of l, and whether it needs LLVM.
func stageText(l *gojit.Lowered, stage string) (string, bool) {
	switch stage {
	case "traced":
		return l.Traced, false
	case "fused":
		return l.Fused, false
	case "llvm":
		return l.LLVM, true
	case "opt":
		return l.Optimized, true
	case "asm":
		return l.Assembly, true
	}
	return "", false
}

func stageNames() []string {
	var names []string
	for _, s := range stages {
		names = append(names, s.name)
	}
	return append(names, "all")
}

func exampleNames() []string {
	var names []string
	for _, e := range examples {
		names = append(names, e.name)
	}
	return names
}

type dumpOpts struct {
	example string
	stage   string
	n       int
	list    bool
	pass    string // print the IR after this pass (or "traced")
	passes  bool   // print the IR after every pass, changes marked
	report  string // write an HTML page of every pass's IR side by side
	fn      string // -func pkgpath.Name: a Go function compiled by package source (dump_func.go)
}

func dumpFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	o := &dumpOpts{}
	fs.StringVar(&o.example, "example", "chain", "built-in `example`: "+strings.Join(exampleNames(), ", "))
	fs.StringVar(&o.stage, "stage", "all", "`stage` to print: "+strings.Join(stageNames(), ", ")+"; a single stage prints bare text")
	fs.IntVar(&o.n, "n", 0, "`size`: elements of each input for chain, rows for the others (0: the example's default)")
	fs.BoolVar(&o.list, "list", false, "list the examples and exit")
	fs.StringVar(&o.pass, "pass", "", "print the IR after graph pass `NAME` ("+strings.Join(passNames(), ", ")+") instead of a stage")
	fs.BoolVar(&o.passes, "passes", false, "print the IR after every graph pass, marking what each changed, instead of a stage")
	fs.StringVar(&o.report, "report", "", "write an HTML page with the IR after every graph pass side by side to `FILE`")
	fs.StringVar(&o.fn, "func", "", "print the stages of the Go function `pkgpath.Name` compiled by package source (stages: "+strings.Join(funcStageNames(), ", ")+")")
	return func() int { return dump(o, stdout, stderr) }
}

// dump prints the chosen stage(s) of one example.
func dump(o *dumpOpts, stdout, stderr io.Writer) int {
	if o.fn != "" {
		return dumpFunc(o, stdout, stderr)
	}
	if o.list {
		tw := tabwriter.NewWriter(stdout, 0, 8, 3, ' ', 0)
		for _, e := range examples {
			fmt.Fprintf(tw, "%s\t%s (default n=%d)\n", e.name, e.about, e.defN)
		}
		tw.Flush()
		return exitOK
	}
	var ex *example
	for i := range examples {
		if examples[i].name == o.example {
			ex = &examples[i]
		}
	}
	if ex == nil {
		fmt.Fprintf(stderr, "gojit dump: unknown example %q; the examples are: %s\n", o.example, strings.Join(exampleNames(), ", "))
		return exitUsage
	}
	valid := false
	for _, s := range stageNames() {
		valid = valid || s == o.stage
	}
	if !valid {
		fmt.Fprintf(stderr, "gojit dump: unknown stage %q; the stages are: %s\n", o.stage, strings.Join(stageNames(), ", "))
		return exitUsage
	}
	if o.pass != "" && !slices.Contains(passNames(), o.pass) {
		fmt.Fprintf(stderr, "gojit dump: unknown pass %q; the passes are: %s\n", o.pass, strings.Join(passNames(), ", "))
		return exitUsage
	}
	switch {
	case o.n < 0:
		fmt.Fprintf(stderr, "gojit dump: -n must not be negative, got %d\n", o.n)
		return exitUsage
	case o.n == 0:
		o.n = ex.defN
	}

	f, err := gojit.Compile(ex.fn)
	if err != nil {
		return fail(stderr, "dump", err)
	}
	l, err := f.Lower(ex.args(o.n)...)
	if err != nil {
		return fail(stderr, "dump", err)
	}

	if o.pass != "" || o.passes || o.report != "" {
		return dumpPasses(o, ex, l, stdout, stderr)
	}
	if o.stage != "all" {
		text, needsLLVM := stageText(l, o.stage)
		if needsLLVM && gojit.LLVMVersion() == "" {
			text = noLLVM + "."
		}
		fmt.Fprintln(stdout, strings.TrimRight(text, "\n"))
		return exitOK
	}
	fmt.Fprintf(stdout, "gojit dump: example %s, n=%d: %s\n", ex.name, o.n, ex.about)
	for _, s := range stages {
		section(stdout, s.title)
		text, needsLLVM := stageText(l, s.name)
		if needsLLVM && gojit.LLVMVersion() == "" {
			text = noLLVM + "."
		}
		fmt.Fprint(stdout, indent(text))
	}
	fmt.Fprintln(stdout)
	if gojit.LLVMVersion() == "" {
		fmt.Fprintf(stdout, "%s.\n", noLLVM)
	} else {
		fmt.Fprintf(stdout, "Compile time: %s (code generation + LLVM + loading)\n", fmtDur(l.CompileTime))
	}
	return exitOK
}

// passStage is the graph as traced or after one pass of the pipeline.
type passStage struct {
	Name, About string
	Text        string   // the IR, with source positions
	Keys        []string // per line of Text: what it computes (see lineKeys)
	Nodes       int
	Took        time.Duration
}

func newPassStage(name, about string, g *ir.Graph, took time.Duration) passStage {
	return passStage{Name: name, About: about, Text: ir.Print(g, true), Keys: lineKeys(g), Nodes: len(g.Nodes), Took: took}
}

// refPattern matches a value reference in a node's printed form.
var refPattern = regexp.MustCompile(`%[0-9]+`)

// lineKeys returns, for each line of g's text, a key naming what the line
// computes regardless of value numbers: a node's key hashes its printed
// form with each operand replaced by the operand's key. The diff of two
// stages matches lines with equal text or equal keys, so a pass that
// renumbers (dce) shows only what it removed.
func lineKeys(g *ir.Graph) []string {
	keys := make([]string, len(g.Nodes))
	sub := func(s string) string {
		return refPattern.ReplaceAllStringFunc(s, func(ref string) string {
			v, _ := strconv.Atoi(ref[1:])
			return "{" + keys[v] + "}"
		})
	}
	out := []string{"graph {"}
	for v := range g.Nodes {
		_, rhs, _ := strings.Cut(ir.FormatNode(g, ir.Value(v)), " = ")
		h := fnv.New64a()
		h.Write([]byte(sub(rhs)))
		keys[v] = strconv.FormatUint(h.Sum64(), 16)
		out = append(out, keys[v])
	}
	ret := "return"
	for _, o := range g.Outputs {
		ret += " " + keys[o]
	}
	return append(out, ret, "}")
}

// passNames are the values -pass accepts: "traced" and every pass.
func passNames() []string { return append([]string{"traced"}, passes.Names()...) }

// passStages re-runs the pass pipeline on the traced graph, verifying the
// graph after every pass, and returns it as traced and after each pass.
// The passes are deterministic, so the last stage is the graph that was
// compiled (Lowered.Fused shows the same).
func passStages(traced string) ([]passStage, error) {
	g, err := ir.Parse(traced)
	if err != nil {
		return nil, fmt.Errorf("reading the traced graph back: %w", err)
	}
	stages := []passStage{newPassStage("traced", "the graph as recorded", g, 0)}
	_, err = passes.Optimize(g, passes.Options{Verify: true, Observe: func(p passes.Pass, g *ir.Graph, took time.Duration) {
		stages = append(stages, newPassStage(p.Name, p.About, g, took))
	}})
	return stages, err
}

// dumpPasses prints the graph after one pass (-pass), after every pass
// with its changes marked (-passes), and/or writes the HTML report (-report).
func dumpPasses(o *dumpOpts, ex *example, l *gojit.Lowered, stdout, stderr io.Writer) int {
	stages, err := passStages(l.Traced)
	if err != nil {
		return fail(stderr, "dump", err)
	}
	if o.pass != "" {
		for _, s := range stages {
			if s.Name == o.pass {
				fmt.Fprint(stdout, s.Text)
			}
		}
	}
	if o.passes {
		fmt.Fprintf(stdout, "gojit dump: example %s, n=%d: %s\n", ex.name, o.n, ex.about)
		fmt.Fprintf(stdout, "Lines a pass changed are marked - (before) and + (after).\n")
		for i, s := range stages {
			if i == 0 {
				section(stdout, fmt.Sprintf("%s: %s (%d nodes)", s.Name, s.About, s.Nodes))
				fmt.Fprint(stdout, indent(s.Text))
				continue
			}
			section(stdout, fmt.Sprintf("%s: %s (%d -> %d nodes, %s)", s.Name, s.About, stages[i-1].Nodes, s.Nodes, fmtDur(s.Took)))
			if s.Text == stages[i-1].Text {
				fmt.Fprintln(stdout, "  (no change)")
				continue
			}
			for _, dl := range stageDiff(stages[i-1], s) {
				fmt.Fprintf(stdout, "%c %s\n", dl.kind, dl.text)
			}
		}
	}
	if o.report != "" {
		f, err := os.Create(o.report)
		if err != nil {
			return fail(stderr, "dump", err)
		}
		err = writeReport(f, fmt.Sprintf("gojit passes: example %s, n=%d", ex.name, o.n), stages)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fail(stderr, "dump", err)
		}
		if !o.passes && o.pass == "" {
			fmt.Fprintf(stdout, "wrote %s\n", o.report)
		}
	}
	return exitOK
}

func lines(text string) []string { return strings.Split(strings.TrimRight(text, "\n"), "\n") }

// diffLine is one line of a line diff: kind ' ' (in both), '-' (only in
// the old text) or '+' (only in the new).
type diffLine struct {
	kind byte
	text string
}

// maxDiffCells bounds the longest-common-subsequence table; larger inputs
// are shown as wholly replaced.
const maxDiffCells = 1 << 22

// stageDiff returns the line diff from one stage to the next, matching
// lines with the same text or the same key.
func stageDiff(a, b passStage) []diffLine {
	ka, kb := a.Keys, b.Keys
	return lineDiff(lines(a.Text), lines(b.Text), func(i, j int) bool { return ka[i] == kb[j] })
}

// lineDiff returns a shortest edit script from a to b, by the longest
// common subsequence of their lines; lines a[i] and b[j] match when their
// text is equal or same(i, j). Matched lines show b's text.
func lineDiff(a, b []string, same func(i, j int) bool) []diffLine {
	var out []diffLine
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, s := range a {
			out = append(out, diffLine{'-', s})
		}
		for _, s := range b {
			out = append(out, diffLine{'+', s})
		}
		return out
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] || same(i, j) {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && (a[i] == b[j] || same(i, j)) && lcs[i*w+j] == lcs[(i+1)*w+j+1]+1:
			out = append(out, diffLine{' ', b[j]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	return out
}

// reportLine is one line of a column of the HTML report.
type reportLine struct {
	Text  string
	Class string // "add": new in this pass; "del": the next pass removes or changes it
}

// reportColumn is one stage of the HTML report.
type reportColumn struct {
	passStage
	Time  string // how long the pass took; empty for the traced graph
	Lines []reportLine
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 1em; }
table { border-collapse: collapse; }
td { vertical-align: top; border: 1px solid #ccc; padding: 0.3em 0.6em; }
th { text-align: left; padding: 0.3em 0.6em; }
pre { margin: 0; font-size: 12px; }
.add { background: #cfc; }
.del { background: #fcc; text-decoration: line-through; }
.about { font-weight: normal; color: #555; font-size: 90%; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>The graph as traced and after each pass. Green lines are new in a pass; red lines are the ones the next pass removes or changes.</p>
<table><tr>{{range .Columns}}<th>{{.Name}} <span class="about">({{.Nodes}} nodes{{if .Time}}, {{.Time}}{{end}})<br>{{.About}}</span></th>{{end}}</tr>
<tr>{{range .Columns}}<td><pre>{{range .Lines}}<span class="{{.Class}}">{{.Text}}</span>
{{end}}</pre></td>{{end}}</tr></table>
</body></html>
`))

// writeReport writes the HTML page of the stages side by side, like the
// Go compiler's GOSSAFUNC report: one column per stage, changes coloured.
func writeReport(w io.Writer, title string, stages []passStage) error {
	cols := make([]reportColumn, len(stages))
	for i, s := range stages {
		cols[i].passStage = s
		if i > 0 {
			cols[i].Time = fmtDur(s.Took)
		}
		for _, t := range lines(s.Text) {
			cols[i].Lines = append(cols[i].Lines, reportLine{Text: t})
		}
	}
	for i := 1; i < len(cols); i++ {
		ai, bi := 0, 0
		for _, d := range stageDiff(stages[i-1], stages[i]) {
			switch d.kind {
			case ' ':
				ai, bi = ai+1, bi+1
			case '-':
				cols[i-1].Lines[ai].Class = "del"
				ai++
			case '+':
				cols[i].Lines[bi].Class = "add"
				bi++
			}
		}
	}
	return reportTemplate.Execute(w, struct {
		Title   string
		Columns []reportColumn
	}{title, cols})
}
