package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

// gojitRun runs the command line args and returns the exit status and
// what was written to stdout and stderr.
func gojitRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func hasLLVM() bool { return gojit.LLVMVersion() != "" }

func wantContains(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s does not contain %q; it is:\n%s", what, s, text)
		}
	}
}

func TestDemo(t *testing.T) {
	code, out, errs := gojitRun(t, "demo", "-n", "10000")
	if code != exitOK {
		t.Fatalf("demo exited %d; stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
	wantContains(t, "demo output", out,
		"== 1. Traced IR", "== 2. After fusion", "== 3. Generated LLVM IR", "== 4. Timing", "== 5. Checks",
		"demo.go:", // positions of the user's code
		"group 0 ->",
		"first call", "second call", "cache hit: nothing traced or compiled", "traces=1 compiles",
		"gojit.WithInterpreter()", "plain Go loop", "×",
		"agree exactly", "Summary:", "results agree")
	if strings.Contains(out, "NOT a cache hit") {
		t.Errorf("second call was not a cache hit:\n%s", out)
	}
	if hasLLVM() {
		wantContains(t, "demo output", out, "define void @gojit_", "Compile time:", "more lines (-full prints them)")
	} else {
		wantContains(t, "demo output", out, noLLVM)
	}
}

// demoSizes gives each TestDemoJSON run a size no earlier run in this
// process used, so its kernel is not already in the process-wide cache
// (go test -count=N runs the test N times in one process).
var demoSizes atomic.Int64

func TestDemoJSON(t *testing.T) {
	n := 1000 + demoSizes.Add(1)
	code, out, errs := gojitRun(t, "demo", "-n", strconv.FormatInt(n, 10), "-json")
	if code != exitOK {
		t.Fatalf("demo -json exited %d; stderr:\n%s", code, errs)
	}
	var r demoResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("demo -json output is not one JSON object: %v\n%s", err, out)
	}
	if int64(r.N) != n || !r.Agree || !r.CacheHit || r.After2.Traces != 1 || r.After2.Calls != 2 {
		t.Errorf("unexpected figures: %+v", r)
	}
	if r.CompiledNs <= 0 || r.InterpretedNs <= 0 || r.GoLoopNs <= 0 || r.VsInterpreter <= 0 {
		t.Errorf("missing timings: %+v", r)
	}
	if hasLLVM() && (r.After1.Compiles != 1 || r.CompileNs <= 0) {
		t.Errorf("the first call should compile once: %+v", r)
	}
}

func TestDemoFull(t *testing.T) {
	if !hasLLVM() {
		t.Skip(noLLVM)
	}
	code, out, _ := gojitRun(t, "demo", "-n", "100", "-full")
	if code != exitOK {
		t.Fatalf("demo -full exited %d", code)
	}
	if strings.Contains(out, "more lines") {
		t.Errorf("-full still truncates the LLVM IR")
	}
	wantContains(t, "demo -full output", out, "attributes #0")
}

func TestDumpSoftmaxAll(t *testing.T) {
	code, out, errs := gojitRun(t, "dump", "-example", "softmax", "-stage", "all")
	if code != exitOK {
		t.Fatalf("dump exited %d; stderr:\n%s", code, errs)
	}
	wantContains(t, "softmax dump", out, "reduce_max", "reduce_sum", "exp", "div", "group 0 ->", "dump.go:")
	if hasLLVM() {
		wantContains(t, "softmax dump", out, "define", "Host assembly", "Compile time:")
	} else {
		wantContains(t, "softmax dump", out, noLLVM)
	}
}

func TestDumpAsm(t *testing.T) {
	code, out, errs := gojitRun(t, "dump", "-stage", "asm")
	if code != exitOK {
		t.Fatalf("dump -stage asm exited %d; stderr:\n%s", code, errs)
	}
	if !hasLLVM() {
		wantContains(t, "asm dump", out, noLLVM)
		return
	}
	if !strings.Contains(out, "ymm") && !strings.Contains(out, "zmm") && !strings.Contains(out, "xmm") {
		t.Errorf("the chain's assembly uses no vector register:\n%s", out)
	}
	if strings.Contains(out, "==") {
		t.Errorf("a single stage should print bare text, without section headers")
	}
}

func TestDumpEveryExampleAndStage(t *testing.T) {
	for _, e := range examples {
		for _, s := range stageNames() {
			code, out, errs := gojitRun(t, "dump", "-example", e.name, "-stage", s, "-n", "8")
			if code != exitOK || strings.TrimSpace(out) == "" {
				t.Errorf("dump -example %s -stage %s: exit %d, %d bytes of output; stderr:\n%s", e.name, s, code, len(out), errs)
			}
		}
	}
}

func TestDumpList(t *testing.T) {
	code, out, _ := gojitRun(t, "dump", "-list")
	if code != exitOK {
		t.Fatalf("dump -list exited %d", code)
	}
	wantContains(t, "dump -list", out, "chain", "softmax", "matmul", "layernorm")
}

func TestDumpErrors(t *testing.T) {
	code, _, errs := gojitRun(t, "dump", "-example", "nosuch")
	if code != exitUsage {
		t.Errorf("unknown example: exit %d, want %d", code, exitUsage)
	}
	wantContains(t, "stderr", errs, `"nosuch"`, "chain, softmax, matmul, layernorm")

	code, _, errs = gojitRun(t, "dump", "-stage", "nosuch")
	if code != exitUsage {
		t.Errorf("unknown stage: exit %d, want %d", code, exitUsage)
	}
	wantContains(t, "stderr", errs, "traced, fused, llvm, opt, asm, all")

	if code, _, _ := gojitRun(t, "dump", "-n", "-3"); code != exitUsage {
		t.Errorf("negative -n: exit %d, want %d", code, exitUsage)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nosuch"}} {
		code, out, errs := gojitRun(t, args...)
		if code != exitUsage {
			t.Errorf("gojit %v: exit %d, want %d", args, code, exitUsage)
		}
		if out != "" {
			t.Errorf("gojit %v: wrote to stdout:\n%s", args, out)
		}
		wantContains(t, "usage", errs, "Commands:", "demo", "dump", "bench", "version", "help")
	}
	code, out, _ := gojitRun(t, "help")
	if code != exitOK {
		t.Errorf("gojit help: exit %d", code)
	}
	wantContains(t, "help", out, "Commands:", "demo ")

	code, out, _ = gojitRun(t, "help", "dump")
	if code != exitOK {
		t.Errorf("gojit help dump: exit %d", code)
	}
	wantContains(t, "help dump", out, "usage: gojit dump", "-example", "-stage")

	if code, _, _ := gojitRun(t, "help", "nosuch"); code != exitUsage {
		t.Errorf("gojit help nosuch: exit %d, want %d", code, exitUsage)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "-nosuch"},
		{"demo", "-n", "0"},
		{"demo", "extra"},
		{"bench", "-sizes", "10,x"},
		{"bench", "-benchtime", "soon"},
		{"version", "-nosuch"},
	} {
		code, _, errs := gojitRun(t, args...)
		if code != exitUsage {
			t.Errorf("gojit %v: exit %d, want %d", args, code, exitUsage)
		}
		if errs == "" {
			t.Errorf("gojit %v: nothing on stderr", args)
		}
	}
	if code, _, errs := gojitRun(t, "demo", "-h"); code != exitOK || !strings.Contains(errs, "-full") {
		t.Errorf("demo -h: exit %d, stderr:\n%s", code, errs)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := gojitRun(t, "version")
	if code != exitOK {
		t.Fatalf("version exited %d", code)
	}
	want := "none: interpreter only"
	if hasLLVM() {
		want = gojit.LLVMVersion()
	}
	wantContains(t, "version", out, "gojit-codegen-", "LLVM:", want, "go1.", "host CPU:")
}

func TestBench(t *testing.T) {
	code, out, errs := gojitRun(t, "bench", "-sizes", "1000", "-benchtime", "3x", "-rounds", "2")
	if code != exitOK {
		t.Fatalf("bench exited %d; stderr:\n%s", code, errs)
	}
	wantContains(t, "bench table", out, "workload", "ratio", "chain5/n=1000", "Go fused loop", "Go op by op",
		"call overhead", "cold compile", "×", "one run")
	wantContains(t, "bench progress", errs, "[1/8]", "[8/8]", "[2/2]")

	code, out, _ = gojitRun(t, "bench", "-sizes", "500", "-benchtime", "2x", "-json")
	if code != exitOK {
		t.Fatalf("bench -json exited %d", code)
	}
	var rows []benchRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("bench -json output is not a JSON array: %v\n%s", err, out)
	}
	if len(rows) != 5 || rows[0].Workload != "chain5/n=500" || rows[0].Ratio <= 0 || rows[3].GojitNs <= 0 || rows[4].GojitNs <= 0 {
		t.Errorf("unexpected rows: %+v", rows)
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("1000, 1_000_000,1e7")
	if err != nil || len(got) != 3 || got[0] != 1000 || got[1] != 1_000_000 || got[2] != 10_000_000 {
		t.Errorf("parseSizes = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "-5", "1.5", "ten", "1,,2"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) succeeded", bad)
		}
	}
}

func TestFormatting(t *testing.T) {
	for d, want := range map[time.Duration]string{
		42:                     "42 ns",
		1500:                   "1.50 µs",
		312_400:                "312 µs",
		25_340_000:             "25.3 ms",
		2 * time.Second:        "2.00 s",
		time.Duration(999):     "999 ns",
		time.Duration(999_999): "1.00 ms",
		time.Duration(10_000):  "10.0 µs",
		time.Duration(100_000): "100 µs",
	} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%d) = %q, want %q", int64(d), got, want)
		}
	}
	if got := fmtRatio(12.34); got != "12.3×" {
		t.Errorf("fmtRatio(12.34) = %q", got)
	}
	if got := thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %q", got)
	}
	if n, first := mismatches([]float32{1, 2, 3}, []float32{1, 5, 3}); n != 1 || first != 1 {
		t.Errorf("mismatches = %d, %d", n, first)
	}
}
