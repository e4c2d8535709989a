package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
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
}

func dumpFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	o := &dumpOpts{}
	fs.StringVar(&o.example, "example", "chain", "built-in `example`: "+strings.Join(exampleNames(), ", "))
	fs.StringVar(&o.stage, "stage", "all", "`stage` to print: "+strings.Join(stageNames(), ", ")+"; a single stage prints bare text")
	fs.IntVar(&o.n, "n", 0, "`size`: elements of each input for chain, rows for the others (0: the example's default)")
	fs.BoolVar(&o.list, "list", false, "list the examples and exit")
	return func() int { return dump(o, stdout, stderr) }
}

// dump prints the chosen stage(s) of one example.
func dump(o *dumpOpts, stdout, stderr io.Writer) int {
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
