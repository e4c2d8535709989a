package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
	"github.com/gojit/gojit/internal/llvm"
)

// demoFunc is what the demo compiles: a 5-op elementwise chain and the
// sum of its result. demoSource must show it as written.
func demoFunc(a, b *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
	y := a.Add(b).Mul(a).Sub(b.Mul(gojit.Scalar(0.5))).Relu()
	return y, y.Sum()
}

const demoSource = `func(a, b *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
	y := a.Add(b).Mul(a).Sub(b.Mul(gojit.Scalar(0.5))).Relu()
	return y, y.Sum()
}`

// demoGo is demoFunc as the plain Go loop a careful programmer would
// write: one pass, summing sequentially in float32 as gojit does.
func demoGo(y, a, b []float32) float32 {
	b, y = b[:len(a)], y[:len(a)]
	var s float32
	for i, x := range a {
		v := max((x+b[i])*x-b[i]*0.5, 0)
		y[i] = v
		s += v
	}
	return s
}

// llvmLines is how much of the LLVM IR the demo prints without -full.
const llvmLines = 60

// sumTolerance is the relative difference allowed between the compiled
// and the interpreted sums.
const (
	sumTolerance     = 1e-4
	sumToleranceText = "1e-4"
)

type demoOpts struct {
	n    int
	full bool
	json bool
}

func demoFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	o := &demoOpts{}
	fs.IntVar(&o.n, "n", 1_000_000, "number of float32 `elements` in each input")
	fs.BoolVar(&o.full, "full", false, fmt.Sprintf("print all of the LLVM IR, not its first %d lines", llvmLines))
	fs.BoolVar(&o.json, "json", false, "print only the timing figures and checks, as one JSON object")
	return func() int {
		if o.n < 1 {
			fmt.Fprintf(stderr, "gojit demo: -n must be at least 1, got %d\n", o.n)
			return exitUsage
		}
		return demo(o, stdout, stderr)
	}
}

// demoResult holds the demo's figures; it is also its JSON form.
type demoResult struct {
	N           int    `json:"n"`
	LLVMVersion string `json:"llvm_version"` // "" when interpreting only
	HostCPU     string `json:"host_cpu,omitempty"`

	FirstCallNs  int64     `json:"first_call_ns"` // trace + compile + run
	SecondCallNs int64     `json:"second_call_ns"`
	CompileNs    int64     `json:"compile_ns"` // code generation, LLVM (or the disk cache), loading
	FromDisk     bool      `json:"from_disk_cache"`
	After1       callStats `json:"after_first_call"`
	After2       callStats `json:"after_second_call"`
	CacheHit     bool      `json:"second_call_cache_hit"`

	CompiledNs    float64 `json:"compiled_ns_per_call"` // medians, via CallInto
	InterpretedNs float64 `json:"interpreted_ns_per_call"`
	GoLoopNs      float64 `json:"go_loop_ns_per_call"`
	VsInterpreter float64 `json:"speedup_vs_interpreter"` // interpreted / compiled
	VsGoLoop      float64 `json:"speedup_vs_go_loop"`     // Go loop / compiled

	Mismatches     int     `json:"y_mismatches"` // compiled vs interpreted, exact
	SumCompiled    float32 `json:"sum_compiled"`
	SumInterpreted float32 `json:"sum_interpreted"`
	SumGoLoop      float32 `json:"sum_go_loop"`
	SumRelDiff     float64 `json:"sum_relative_difference"`
	GoMismatches   int     `json:"go_loop_y_mismatches"` // informational
	Agree          bool    `json:"agree"`

	Pipeline *pipelineDemo `json:"pipeline"` // the dataset and loader part
	Source   *sourceDemo   `json:"source"`   // the package-source part
}

// callStats are the counters that show whether a call traced or compiled.
type callStats struct {
	Calls    int64 `json:"calls"`
	Traces   int64 `json:"traces"`    // Func.Stats: signatures traced
	Compiles int64 `json:"compiles"`  // process-wide kernel compiles since the demo began
	Hits     int64 `json:"hits"`      // process-wide compile cache hits since the demo began
	DiskHits int64 `json:"disk_hits"` // kernels loaded from the disk cache since the demo began
}

func readCallStats(f *gojit.Func, base gojit.CacheCounters) callStats {
	s, c := f.Stats(), gojit.CacheStats()
	return callStats{Calls: s.Calls, Traces: s.Traces, Compiles: c.Compiles - base.Compiles, Hits: c.Hits - base.Hits,
		DiskHits: c.DiskHits - base.DiskHits}
}

func (s callStats) String() string {
	return fmt.Sprintf("calls=%d traces=%d compiles=%d disk-loads=%d", s.Calls, s.Traces, s.Compiles, s.DiskHits)
}

// demo runs the demo and prints its report.
func demo(o *demoOpts, stdout, stderr io.Writer) int {
	r := &demoResult{N: o.n, LLVMVersion: gojit.LLVMVersion()}
	r.HostCPU, _ = llvm.HostCPU()
	a, b := bench.RandFloat32(o.n, 1), bench.RandFloat32(o.n, 2)
	A, B := gojit.FromFloat32(a), gojit.FromFloat32(b)

	f, err := gojit.Compile(demoFunc)
	if err != nil {
		return fail(stderr, "demo", err)
	}
	fi, err := gojit.Compile(demoFunc, gojit.WithInterpreter())
	if err != nil {
		return fail(stderr, "demo", err)
	}

	// The calls come first: Lower shares the process-wide kernel cache, so
	// after it the first call would find its kernel compiled already.
	base := gojit.CacheStats()
	start := time.Now()
	outs, err := f.Call(A, B)
	if err != nil {
		return fail(stderr, "demo", err)
	}
	r.FirstCallNs = int64(time.Since(start))
	r.After1 = readCallStats(f, base)
	start = time.Now()
	if _, err := f.Call(A, B); err != nil {
		return fail(stderr, "demo", err)
	}
	r.SecondCallNs = int64(time.Since(start))
	r.After2 = readCallStats(f, base)
	r.CacheHit = r.After2.Traces == r.After1.Traces && r.After2.Compiles == r.After1.Compiles && r.After2.DiskHits == r.After1.DiskHits
	r.FromDisk = r.After1.DiskHits > 0

	var l *gojit.Lowered
	if !o.json {
		if l, err = f.Lower(A, B); err != nil {
			return fail(stderr, "demo", err)
		}
		r.CompileNs = int64(l.CompileTime)
	} else if r.LLVMVersion != "" {
		c := gojit.CacheStats()
		r.CompileNs = int64(c.CompileTime - base.CompileTime + c.DiskLoadTime - base.DiskLoadTime)
	}

	// Steady state: every variant writes into preallocated outputs.
	y, sum := outs[0], outs[1]
	yi, sumi := gojit.New(gojit.Float32, o.n), gojit.New(gojit.Float32)
	yg := make([]float32, o.n)
	var sumg float32
	compiled, err := perCall(func() error { return f.CallInto(outs, A, B) })
	if err != nil {
		return fail(stderr, "demo", err)
	}
	interpreted, err := perCall(func() error { return fi.CallInto([]*gojit.Array{yi, sumi}, A, B) })
	if err != nil {
		return fail(stderr, "demo", err)
	}
	goLoop, _ := perCall(func() error { sumg = demoGo(yg, a, b); return nil })
	r.CompiledNs, r.InterpretedNs, r.GoLoopNs = compiled, interpreted, goLoop
	r.VsInterpreter, r.VsGoLoop = interpreted/compiled, goLoop/compiled

	r.Mismatches, _ = mismatches(y.Float32(), yi.Float32())
	r.GoMismatches, _ = mismatches(y.Float32(), yg)
	r.SumCompiled, r.SumInterpreted, r.SumGoLoop = sum.Float32()[0], sumi.Float32()[0], sumg
	r.SumRelDiff = relDiff(r.SumCompiled, r.SumInterpreted)
	r.Agree = r.Mismatches == 0 && r.SumRelDiff <= sumTolerance
	if r.Pipeline, err = demoPipeline(demoPipelineSamples); err != nil {
		return fail(stderr, "demo", err)
	}
	if r.Source, err = demoGoSource(); err != nil {
		return fail(stderr, "demo", err)
	}

	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fail(stderr, "demo", err)
		}
	} else {
		printDemo(stdout, o, r, l, y.Float32(), yi.Float32())
		printPipelineDemo(stdout, r.Pipeline)
		printSourceDemo(stdout, r.Source)
	}
	if r.Source.Mismatches > 0 {
		fmt.Fprintln(stderr, "gojit demo: the loop compiled from source disagrees with Go")
		return exitFail
	}
	if !r.Pipeline.ok() {
		fmt.Fprintln(stderr, "gojit demo: the loaded dataset differs from what was written")
		return exitFail
	}
	if !r.Agree {
		fmt.Fprintln(stderr, "gojit demo: compiled and interpreted results disagree")
		return exitFail
	}
	return exitOK
}

// printDemo writes the text report.
func printDemo(w io.Writer, o *demoOpts, r *demoResult, l *gojit.Lowered, y, yi []float32) {
	backend := "LLVM " + r.LLVMVersion
	if r.HostCPU != "" {
		backend += ", host CPU " + r.HostCPU
	}
	if r.LLVMVersion == "" {
		backend = noLLVM
	}
	fmt.Fprintf(w, "gojit demo: two float32 inputs of %s elements (%s)\n", thousands(o.n), backend)

	section(w, "The function")
	fmt.Fprint(w, indent(demoSource))
	fmt.Fprint(w, "\n  compiled with gojit.Compile(fn); run with f.Call(a, b) / f.CallInto(outs, a, b)\n")

	section(w, "1. Traced IR")
	fmt.Fprint(w, "  One node per op, as recorded while fn ran on symbolic tensors; each op\n")
	fmt.Fprint(w, "  ends with the file:line of the Go code that recorded it.\n\n")
	fmt.Fprint(w, indent(l.Traced))

	section(w, "2. After fusion")
	fmt.Fprint(w, "  Nodes no result depends on are gone and the rest renumbered. Each group\n")
	fmt.Fprint(w, "  of the fusion plan below becomes one loop nest: the values it lists stay\n")
	fmt.Fprint(w, "  in registers and only the group's result is stored to memory.\n\n")
	fmt.Fprint(w, indent(l.Fused))

	section(w, "3. Generated LLVM IR (before LLVM's optimizer)")
	if l.LLVM == "" {
		fmt.Fprintf(w, "  %s.\n", noLLVM)
	} else {
		text := strings.TrimRight(l.LLVM, "\n")
		lines := strings.Split(text, "\n")
		if !o.full && len(lines) > llvmLines {
			fmt.Fprint(w, indent(strings.Join(lines[:llvmLines], "\n")))
			fmt.Fprintf(w, "  ... %d more lines (-full prints them)\n", len(lines)-llvmLines)
		} else {
			fmt.Fprint(w, indent(text))
		}
		fmt.Fprintf(w, "\n  Machine code: %s\n", describeAsm(l.Assembly))
		if r.FromDisk {
			fmt.Fprintf(w, "  Load time: %s (code generation + reading the disk cache + loading; an earlier run compiled it,\n", fmtDur(time.Duration(r.CompileNs)))
			fmt.Fprint(w, "  and `gojit cache clear` makes the next run compile again)\n")
		} else {
			fmt.Fprintf(w, "  Compile time: %s (code generation + LLVM -O3 + loading)\n", fmtDur(time.Duration(r.CompileNs)))
		}
	}

	section(w, "4. Timing")
	hit := "<- cache hit: nothing traced or compiled"
	if !r.CacheHit {
		hit = "<- NOT a cache hit: traced or compiled again"
	}
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	firstWhat := "trace + compile + run"
	switch {
	case r.LLVMVersion == "":
		firstWhat = "trace + run"
	case r.FromDisk:
		firstWhat = "trace + load from disk + run"
	}
	fmt.Fprintf(tw, "  first call\t%9s\t%s\t%s\n", fmtDur(time.Duration(r.FirstCallNs)), firstWhat, r.After1)
	fmt.Fprintf(tw, "  second call\t%9s\trun + allocate outputs\t%s  %s\n", fmtDur(time.Duration(r.SecondCallNs)), r.After2, hit)
	tw.Flush()
	fmt.Fprint(w, "  (calls and traces from f.Stats(); compiles and disk loads from gojit.CacheStats())\n")

	label := "gojit, compiled"
	if r.LLVMVersion == "" {
		label = "gojit (no LLVM: interpreted)"
	}
	fmt.Fprint(w, "\n  Steady state, median time per call, outputs preallocated (CallInto):\n\n")
	tw = tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintf(tw, "  %s\t%9s\n", label, fmtNs(r.CompiledNs))
	fmt.Fprintf(tw, "  gojit.WithInterpreter()\t%9s   %s\n", fmtNs(r.InterpretedNs), relTo(r.VsInterpreter))
	fmt.Fprintf(tw, "  plain Go loop (one pass)\t%9s   %s\n", fmtNs(r.GoLoopNs), relTo(r.VsGoLoop))
	tw.Flush()
	fmt.Fprint(w, "  (one run on a possibly shared machine; gojit bench measures longer)\n")

	section(w, "5. Checks")
	// mode names the default Func's results: compiled, unless there is no
	// LLVM to compile with.
	mode := "compiled"
	if r.LLVMVersion == "" {
		mode = "default (interpreted)"
	}
	if r.Mismatches == 0 {
		fmt.Fprintf(w, "  y:   %s and interpreted agree exactly on all %s elements\n", mode, thousands(r.N))
	} else if _, first := mismatches(y, yi); first < 0 {
		fmt.Fprintf(w, "  y:   MISMATCH: %s has %d elements, interpreted %d\n", mode, len(y), len(yi))
	} else {
		fmt.Fprintf(w, "  y:   MISMATCH in %d of %s elements; first at [%d]: %s %v, interpreted %v\n",
			r.Mismatches, thousands(r.N), first, mode, y[first], yi[first])
	}
	verdict := "ok"
	if r.SumRelDiff > sumTolerance {
		verdict = "MISMATCH"
	}
	diff := "difference 0 (bit-identical)"
	if r.SumCompiled != r.SumInterpreted {
		diff = fmt.Sprintf("relative difference %.2g", r.SumRelDiff)
	}
	fmt.Fprintf(w, "  sum: %s %v, interpreted %v: %s, tolerance %s: %s\n",
		mode, r.SumCompiled, r.SumInterpreted, diff, sumToleranceText, verdict)
	goNote := "the plain Go loop agrees exactly"
	if r.GoMismatches > 0 || r.SumGoLoop != r.SumCompiled {
		goNote = fmt.Sprintf("the plain Go loop differs in %d elements, sum %v (information only)", r.GoMismatches, r.SumGoLoop)
	}
	fmt.Fprintf(w, "  and %s.\n", goNote)

	fmt.Fprintln(w)
	status := "results agree"
	if !r.Agree {
		status = "RESULTS DISAGREE"
	}
	fmt.Fprintf(w, "Summary: n=%s: %s/call %s; %s the interpreter, %s a plain Go loop; first call %s; %s.\n",
		thousands(r.N), fmtNs(r.CompiledNs), mode, fasterThan(r.VsInterpreter), fasterThan(r.VsGoLoop),
		fmtDur(time.Duration(r.FirstCallNs)), status)
}

// relTo describes a time relative to gojit's, given their ratio (the
// other's time / gojit's).
func relTo(ratio float64) string {
	if ratio >= 1 {
		return fmtRatio(ratio) + " slower than gojit"
	}
	return fmtRatio(1/ratio) + " faster than gojit"
}

// fasterThan phrases a speedup (other's time / gojit's) for the summary.
func fasterThan(ratio float64) string {
	if ratio >= 1 {
		return fmtRatio(ratio) + " faster than"
	}
	return fmtRatio(1/ratio) + " slower than"
}

// describeAsm summarizes machine code: its size and the widest vector
// registers it uses.
func describeAsm(asm string) string {
	n := 0
	for l := range strings.Lines(asm) {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, ".") && !strings.HasPrefix(l, "#") && !strings.HasSuffix(l, ":") {
			n++
		}
	}
	vec := "no vector registers"
	switch {
	case strings.Contains(asm, "%zmm"):
		vec = "512-bit vectors (zmm registers)"
	case strings.Contains(asm, "%ymm"):
		vec = "256-bit vectors (ymm registers)"
	case strings.Contains(asm, "%xmm"):
		vec = "128-bit SSE registers (xmm)"
	case strings.Contains(asm, ".4s"):
		vec = "128-bit NEON vectors"
	}
	return fmt.Sprintf("%d instructions using %s", n, vec)
}

// perCall returns the median time per call of fn in nanoseconds. Each
// sample times a batch of calls lasting about 2 ms; there are 5 to 25
// samples, about 300 ms in all.
func perCall(fn func() error) (float64, error) {
	if err := fn(); err != nil { // warm up: first-call costs are not steady state
		return 0, err
	}
	start := time.Now()
	if err := fn(); err != nil {
		return 0, err
	}
	one := max(time.Since(start), time.Nanosecond)
	batch := max(1, int(2*time.Millisecond/one))
	samples := min(max(int(300*time.Millisecond/(one*time.Duration(batch))), 5), 25)
	ts := make([]float64, samples)
	for i := range ts {
		start := time.Now()
		for range batch {
			if err := fn(); err != nil {
				return 0, err
			}
		}
		ts[i] = float64(time.Since(start).Nanoseconds()) / float64(batch)
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// mismatches counts the positions where x and y differ (NaNs match
// NaNs) and returns the first one.
func mismatches(x, y []float32) (n, first int) {
	first = -1
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] && !(x[i] != x[i] && y[i] != y[i]) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	n += max(len(x), len(y)) - min(len(x), len(y))
	return n, first
}

// relDiff is |x-y| relative to |y|.
func relDiff(x, y float32) float64 {
	if x == y {
		return 0
	}
	return math.Abs(float64(x)-float64(y)) / math.Max(math.Abs(float64(y)), math.SmallestNonzeroFloat32)
}

// fmtNs formats a time in nanoseconds.
func fmtNs(ns float64) string { return fmtDur(time.Duration(math.Round(ns))) }

// thousands formats n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
