package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
	"github.com/gojit/gojit/internal/llvm"
)

// benchRow is one line of bench's table; it is also its JSON form. Rows
// without a baseline are absolute figures.
type benchRow struct {
	Workload   string  `json:"workload"`
	GojitNs    float64 `json:"gojit_ns"`
	Baseline   string  `json:"baseline,omitempty"`
	BaselineNs float64 `json:"baseline_ns,omitempty"`
	Ratio      float64 `json:"ratio,omitempty"` // baseline time / gojit time
}

type benchOpts struct {
	sizes     string
	benchtime string
	json      bool
}

func benchFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	o := &benchOpts{}
	fs.StringVar(&o.sizes, "sizes", "1000,100000,1000000,10000000", "comma-separated `list` of input sizes for the 5-op chain")
	fs.StringVar(&o.benchtime, "benchtime", "1s", "run each measurement for `d`, or N times if d has the form Nx (as go test -benchtime)")
	fs.BoolVar(&o.json, "json", false, "print the rows as a JSON array")
	return func() int {
		sizes, err := parseSizes(o.sizes)
		if err != nil {
			fmt.Fprintf(stderr, "gojit bench: -sizes: %v\n", err)
			return exitUsage
		}
		restore, err := setBenchtime(o.benchtime)
		if err != nil {
			fmt.Fprintf(stderr, "gojit bench: -benchtime: %v\n", err)
			return exitUsage
		}
		defer restore()
		return runBench(o, sizes, stdout, stderr)
	}
}

// parseSizes parses a comma-separated list of positive sizes; underscores
// (1_000_000) and exponents (1e6) are accepted.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.ParseInt(f, 0, 64)
		if err != nil {
			x, ferr := strconv.ParseFloat(f, 64)
			if ferr != nil || x != math.Trunc(x) || x > math.MaxInt32 {
				return nil, fmt.Errorf("%q is not a size", f)
			}
			n = int64(x)
		}
		if n < 1 {
			return nil, fmt.Errorf("size %d is not positive", n)
		}
		sizes = append(sizes, int(n))
	}
	return sizes, nil
}

// setBenchtime sets the benchmark time testing.Benchmark uses (its
// -test.benchtime flag) and returns a function restoring the old one.
func setBenchtime(v string) (restore func(), err error) {
	testing.Init() // registers the flag outside test binaries; idempotent
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return nil, errors.New("the testing package has no test.benchtime flag")
	}
	old := f.Value.String()
	if err := f.Value.Set(v); err != nil {
		return nil, err
	}
	return func() { _ = f.Value.Set(old) }, nil
}

// runBench measures every workload, reporting progress on stderr, and
// prints the table.
func runBench(o *benchOpts, sizes []int, stdout, stderr io.Writer) int {
	var rows []benchRow
	total := 3*len(sizes) + 2 // the chain: gojit and two baselines per size
	step := 0
	measure := func(what string, fn func(*testing.B)) float64 {
		step++
		fmt.Fprintf(stderr, "[%*d/%d] %-40s", len(strconv.Itoa(total)), step, total, what)
		d := bench.Measure(fn)
		fmt.Fprintf(stderr, " %10s/op\n", fmtDur(d))
		return float64(d.Nanoseconds())
	}
	start := time.Now()
	for _, n := range sizes {
		cases, err := bench.ChainCases(n)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		if len(cases) == 0 {
			continue
		}
		name := cases[0].Name
		g := measure(name+": gojit", cases[0].Run)
		for _, c := range cases {
			b := measure(name+": "+c.Baseline, c.Base)
			rows = append(rows, benchRow{Workload: name, GojitNs: g, Baseline: c.Baseline, BaselineNs: b, Ratio: b / g})
		}
	}
	overhead, err := bench.CallOverhead()
	if err != nil {
		return fail(stderr, "bench", err)
	}
	rows = append(rows, benchRow{Workload: "call overhead (cached CallInto, 3×16 f32)", GojitNs: measure("call overhead", overhead)})
	rows = append(rows, benchRow{Workload: "cold compile (trace + compile, 6 ops)", GojitNs: measure("cold compile", bench.ColdCompile())})
	fmt.Fprintf(stderr, "done in %s\n", fmtDur(time.Since(start)))

	note := fmt.Sprintf("Figures are from one run (testing.Benchmark, benchtime %s) on a possibly shared machine: treat differences under ~10%% as noise.", o.benchtime)
	if o.json {
		fmt.Fprintln(stderr, note)
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fail(stderr, "bench", err)
		}
		return exitOK
	}
	printBench(stdout, rows, note)
	return exitOK
}

// printBench writes the table.
func printBench(w io.Writer, rows []benchRow, note string) {
	backend := "LLVM " + gojit.LLVMVersion()
	if gojit.LLVMVersion() == "" {
		backend = noLLVM
	}
	cpu, _ := llvm.HostCPU()
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(w, "gojit bench: %s/%s, %s, GOMAXPROCS=%d, %s\n\n", runtime.GOOS, runtime.GOARCH, cpu, runtime.GOMAXPROCS(0), backend)
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintf(tw, "workload\t%10s\tbaseline\t%10s\t%8s\n", "gojit", "baseline", "ratio")
	for _, r := range rows {
		if r.Baseline == "" {
			fmt.Fprintf(tw, "%s\t%10s\t(absolute)\n", r.Workload, fmtNs(r.GojitNs))
			continue
		}
		fmt.Fprintf(tw, "%s\t%10s\t%s\t%10s\t%8s\n", r.Workload, fmtNs(r.GojitNs), r.Baseline, fmtNs(r.BaselineNs), fmtRatio(r.Ratio))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nTimes are per call. ratio = baseline time / gojit time: above 1× gojit is faster.\n%s\n", note)
}
