package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit/internal/llvm"
)

// The startup benchmark (gojit bench -startup) measures what a user feels
// before the first result, with fresh processes: it builds two programs
// from cmd/gojit/internal/startup (one computing a 12-op function with
// gojit, one in a plain Go loop) and runs them many times, interleaved.

// startupRow is one figure of the startup benchmark; it is also its JSON
// form.
type startupRow struct {
	Figure   string    `json:"figure"`
	MedianNs float64   `json:"median_ns"`
	MinNs    float64   `json:"min_ns"`
	MaxNs    float64   `json:"max_ns"`
	Runs     int       `json:"runs"`
	Samples  []float64 `json:"samples_ns,omitempty"`
}

// startupRun is what one child process reported, with the parent's view
// of its lifetime.
type startupRun struct {
	toMain time.Duration // exec to the first line of main
	first  time.Duration // Compile + first Call, measured inside ("run" only)
	total  time.Duration // exec to exit
	llvm   bool          // libLLVM was loaded
	// identified reports that the program's build of gojit could be
	// identified (a clean VCS checkout or a module version), so that a
	// cached kernel loads without generating its module (see
	// internal/runtime/diskload.go).
	identified bool
	llvmLoad   time.Duration // loading libLLVM, inside first
	library    string        // the libLLVM file loaded
	minflt     int64         // minor page faults of the whole process
	cpu        time.Duration // user + system CPU time of the process at its report
	second     time.Duration // a second compile and call in the same process ("run2")
}

func runStartup(o *benchOpts, stdout, stderr io.Writer) int {
	runs := max(o.startupRuns, 1)
	dir, err := os.MkdirTemp("", "gojit-startup-")
	if err != nil {
		return fail(stderr, "bench -startup", err)
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(stderr, "building the startup programs ...")
	gojitProg, plainProg := filepath.Join(dir, "gojitprog"), filepath.Join(dir, "plainprog")
	for prog, pkg := range map[string]string{gojitProg: "gojitprog", plainProg: "plainprog"} {
		if err := goBuild(prog, "github.com/gojit/gojit/cmd/gojit/internal/startup/"+pkg); err != nil {
			return fail(stderr, "bench -startup", err)
		}
	}
	cache := filepath.Join(dir, "cache")
	env := append(os.Environ(), "GOJIT_CACHE_DIR="+cache, "GOJIT_CACHE=", "GOJIT_LOADER=")

	// Fresh processes with an empty cache: the first compile, with the
	// trimmed libLLVM (gojit setup) when one is in the cache directory,
	// alternating with the distribution's; then a second compile in the
	// same process, after the process's figures (whole process and CPU
	// time include it).
	libs := []string{"system"}
	if p, err := llvm.TrimmedLibrary(); err == nil {
		if _, err := os.Stat(p); err == nil {
			libs = []string{"", "system"}
		}
	}
	cold := make([][]startupRun, len(libs))
	small := make([][]startupRun, len(libs))
	for i := range runs {
		fmt.Fprintf(stderr, "cold compile, round %d/%d\n", i+1, runs)
		for j, lib := range libs {
			for _, c := range []struct {
				arg  string
				into *[]startupRun
			}{{"small", &small[j]}, {"run2", &cold[j]}} { // run2 last: it leaves the kernel the cached runs below load
				os.RemoveAll(cache)
				r, err := startupChild(gojitProg, c.arg, append(env[:len(env):len(env)], llvm.EnvLibrary+"="+lib))
				if err != nil {
					return fail(stderr, "bench -startup", err)
				}
				*c.into = append(*c.into, r)
			}
		}
	}
	// Interleaved: the plain program, gojit's exec to main, and a whole
	// gojit process whose kernel is in the disk cache.
	var plain, toMain, cached []startupRun
	for i := range runs {
		fmt.Fprintf(stderr, "fresh processes, round %d/%d\n", i+1, runs)
		for _, c := range []struct {
			prog, arg string
			into      *[]startupRun
		}{{plainProg, "", &plain}, {gojitProg, "main", &toMain}, {gojitProg, "run", &cached}} {
			r, err := startupChild(c.prog, c.arg, env)
			if err != nil {
				return fail(stderr, "bench -startup", err)
			}
			*c.into = append(*c.into, r)
		}
	}
	for _, r := range cached {
		if r.llvm {
			return fail(stderr, "bench -startup", errors.New("a process whose kernel was in the disk cache loaded LLVM"))
		}
	}
	pick := func(rs []startupRun, f func(startupRun) time.Duration) []float64 {
		var v []float64
		for _, r := range rs {
			v = append(v, float64(f(r).Nanoseconds()))
		}
		return v
	}
	toMainOf := func(r startupRun) time.Duration { return r.toMain }
	firstOf := func(r startupRun) time.Duration { return r.first }
	totalOf := func(r startupRun) time.Duration { return r.total }
	loadOf := func(r startupRun) time.Duration { return r.llvmLoad }
	cpuOf := func(r startupRun) time.Duration { return r.cpu }
	secondOf := func(r startupRun) time.Duration { return r.second }
	rows := []startupRow{
		summarize("exec → main, plain Go program", pick(plain, toMainOf)),
		summarize("exec → main, program importing gojit", pick(toMain, toMainOf)),
		summarize("Compile + first Call, kernel in the disk cache", pick(cached, firstOf)),
		summarize("whole process, kernel in the disk cache (12 ops × 1,000)", pick(cached, totalOf)),
		summarize("whole process, plain Go loop (12 ops × 1,000)", pick(plain, totalOf)),
	}
	var faults []string
	for j, rs := range cold {
		name := "system libLLVM"
		if libs[j] == "" {
			name = "trimmed libLLVM"
		}
		if lib := rs[0].library; !strings.Contains(lib, "libLLVM-gojit") != (libs[j] == "system") {
			return fail(stderr, "bench -startup", fmt.Errorf("the %s run loaded %s", name, lib))
		}
		rows = append(rows,
			summarize("Compile + first Call, empty cache, "+name, pick(rs, firstOf)),
			summarize("  of which loading "+name, pick(rs, loadOf)),
			summarize("  process CPU time (user+sys) at the end, "+name, pick(rs, cpuOf)),
			summarize("  then a second compile + call in the same process, "+name, pick(rs, secondOf)),
			summarize("whole process, empty cache, "+name, pick(rs, totalOf)))
		var f []float64
		for _, r := range rs {
			f = append(f, float64(r.minflt))
		}
		faults = append(faults, fmt.Sprintf("%s %.0f", name, summarize("", f).MedianNs))
	}
	// Issue 15's cold-compile case: 6 ops over 16 elements, in a fresh
	// process and then again in the same one (BenchmarkColdCompile/n=16's
	// function).
	for j, rs := range small {
		name := "system libLLVM"
		if libs[j] == "" {
			name = "trimmed libLLVM"
		}
		rows = append(rows,
			summarize("6 ops over 16 elements: Compile + first Call, empty cache, "+name, pick(rs, firstOf)),
			summarize("  then a second compile + call in the same process, "+name, pick(rs, secondOf)))
	}
	ratio := rows[3].MedianNs / rows[4].MedianNs
	build := "was not identified (a modified work tree, or no VCS information: GOFLAGS=-buildvcs=false or a git worktree), so each cached kernel's module is generated again to check it"
	if cached[0].identified {
		build = "was identified (a clean checkout), so cached kernels load without generating their modules"
	}
	note := fmt.Sprintf("The programs' build of gojit "+build+". "+
		"Medians of %d fresh processes per figure (%d for the empty cache), interleaved, on a shared and loaded machine: "+
		"the spread (min..max) shows how much. A cached whole process takes %.2f× the plain Go program's. "+
		"Minor page faults of a cold process (median): %s. The trimmed libLLVM is linked by `gojit setup`.", runs, len(cold[0]), ratio, strings.Join(faults, ", "))
	if o.json {
		fmt.Fprintln(stderr, note)
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fail(stderr, "bench -startup", err)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 3, ' ', 0)
	fmt.Fprintf(tw, "figure\t%10s\t%10s\t%10s\n", "median", "min", "max")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%10s\t%10s\t%10s\n", r.Figure, fmtNs(r.MedianNs), fmtNs(r.MinNs), fmtNs(r.MaxNs))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%s\n", note)
	return exitOK
}

// goBuild builds pkg into the executable out with the go command, from
// the module that holds the current directory.
func goBuild(out, pkg string) error {
	// -buildvcs=auto stamps the revision when the tree is a clean
	// checkout, whatever GOFLAGS says, as a user's build of a release
	// would carry its module version.
	cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", out, pkg)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s (run gojit bench -startup inside the gojit repository, with the go command on PATH): %v\n%s", pkg, err, msg.String())
	}
	return nil
}

// startupChild runs prog once and reads its report.
func startupChild(prog, arg string, env []string) (startupRun, error) {
	var args []string
	if arg != "" {
		args = []string{arg}
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	total := time.Since(start)
	if err != nil {
		return startupRun{}, fmt.Errorf("%s %s: %v\n%s", filepath.Base(prog), arg, err, errOut.String())
	}
	r := startupRun{total: total}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "main":
			ns, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return r, fmt.Errorf("%s: bad report %q", filepath.Base(prog), sc.Text())
			}
			r.toMain = time.Unix(0, ns).Sub(start)
		case "first":
			ns, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return r, fmt.Errorf("%s: bad report %q", filepath.Base(prog), sc.Text())
			}
			r.first = time.Duration(ns)
		case "llvm":
			r.llvm = v == "true"
		case "identified":
			r.identified = v == "true"
		case "llvmload", "cpu":
			ns, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return r, fmt.Errorf("%s: bad report %q", filepath.Base(prog), sc.Text())
			}
			if k == "cpu" {
				r.cpu = time.Duration(ns)
			} else {
				r.llvmLoad = time.Duration(ns)
			}
		case "second":
			ns, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return r, fmt.Errorf("%s: bad report %q", filepath.Base(prog), sc.Text())
			}
			r.second = time.Duration(ns)
		case "library":
			r.library = v
		case "minflt":
			r.minflt, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if r.toMain <= 0 {
		return r, fmt.Errorf("%s %s reported no start time:\n%s", filepath.Base(prog), arg, out.String())
	}
	return r, nil
}

// summarize returns the median, minimum and maximum of samples.
func summarize(figure string, samples []float64) startupRow {
	s := slices.Clone(samples)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return startupRow{Figure: figure, MedianNs: med, MinNs: s[0], MaxNs: s[len(s)-1], Runs: len(s), Samples: samples}
}
