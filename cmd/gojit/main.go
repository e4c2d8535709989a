package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// noLLVM is what every command says about stages that need LLVM in a build
// without it.
const noLLVM = "LLVM not available in this build; interpreter only"

// command is one subcommand. flags defines the command's flags on fs and
// returns the function that runs it once the flags are parsed; the runner
// returns the exit status.
type command struct {
	name    string
	args    string // synopsis of the flags, for usage lines
	summary string // one line, for the command list
	flags   func(fs *flag.FlagSet, stdout, stderr io.Writer) func() int
}

// commands lists the subcommands in the order usage shows them. It is
// filled in by init to break the reference cycle through cmdHelp.
var commands []command

func init() {
	commands = []command{
		{"demo", "[-n N] [-full] [-json]", "trace, fuse and compile a small function; show each stage and time it", demoFlags},
		{"dump", "[-example NAME] [-stage STAGE] [-n N] [-list]", "print one compilation stage of a built-in example", dumpFlags},
		{"bench", "[-sizes N,N,...] [-benchtime D] [-json]", "benchmark compiled code against plain Go baselines", benchFlags},
		{"cache", "[-dir DIR] [-json] [-rounds N] [-churn N] stats|list|clear|bench", "inspect or empty the disk cache of compiled kernels, or benchmark the cache", cacheFlags},
		{"dataset", "write|info|verify|synth-jpeg|bench|peers|peers-table [flags]", "write a dataset file from images or .npy arrays, describe or verify one, or benchmark pipelines over one", datasetFlags},
		{"setup", "[-force] [-json] [-v]", "link a trimmed libLLVM into the cache directory, which loads 3-4x faster than the distribution's", setupFlags},
		{"version", "", "print the gojit, LLVM and Go versions and the host CPU", versionFlags},
		{"help", "[command]", "print this help, or a command's flags", nil},
	}
}

// run is the whole program: it parses args (without the program name),
// runs the chosen command writing to stdout and stderr, and returns the
// exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(rest, stdout, stderr)
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "gojit: unknown command %q\n\n", name)
		usage(stderr)
		return exitUsage
	}
	fs := newFlagSet(c, stderr)
	runner := c.flags(fs, stdout, stderr)
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage // the flag package has printed the error and usage
	}
	if fs.NArg() > 0 && !takesArgs[c.name] {
		fmt.Fprintf(stderr, "gojit %s: unexpected argument %q\n", c.name, fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	return runner()
}

// takesArgs lists the commands whose runner reads positional arguments.
var takesArgs = map[string]bool{"cache": true, "dataset": true}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name && c.flags != nil {
			return c, true
		}
	}
	return command{}, false
}

// newFlagSet returns the command's flag set, reporting errors and usage to
// w.
func newFlagSet(c command, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gojit "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: gojit %s %s\n\n%s.\n", c.name, c.args, capitalize(c.summary))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// help prints the command list, or with an argument that command's usage.
func help(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: gojit help [command]")
		return exitUsage
	}
	c, ok := lookup(args[0])
	if !ok {
		if args[0] == "help" {
			usage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "gojit help: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	fs := newFlagSet(c, stdout)
	c.flags(fs, io.Discard, io.Discard)
	fs.Usage()
	return exitOK
}

// usage prints the command list.
func usage(w io.Writer) {
	fmt.Fprint(w, "gojit traces Go functions over arrays, fuses them and compiles them with LLVM.\n\n")
	fmt.Fprint(w, "Usage:\n\n  gojit <command> [flags]\n\nCommands:\n\n")
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\nRun 'gojit help <command>' for a command's flags.\n")
	if gojit.LLVMVersion() == "" {
		fmt.Fprintf(w, "\nNote: %s.\n", noLLVM)
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fail reports err for command name on stderr and returns exitFail.
func fail(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "gojit %s: %v\n", name, err)
	return exitFail
}

// fmtDur formats d with three significant digits in the unit that suits
// it: ns, µs, ms or s.
func fmtDur(d time.Duration) string {
	ns := float64(d.Nanoseconds())
	switch { // the bounds are where three digits would round up to 1000
	case ns < 999.5:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 999.5e3:
		return sig3(ns/1e3) + " µs"
	case ns < 999.5e6:
		return sig3(ns/1e6) + " ms"
	}
	return sig3(ns/1e9) + " s"
}

// sig3 formats x (at least 1) with three significant digits.
func sig3(x float64) string {
	switch {
	case x < 10:
		return fmt.Sprintf("%.2f", x)
	case x < 100:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

// fmtRatio formats a speed ratio such as 12.3×.
func fmtRatio(r float64) string {
	if r <= 0 {
		return "-"
	}
	if r < 1 {
		return fmt.Sprintf("%.2f×", r)
	}
	return sig3(r) + "×"
}

// section prints a section header.
func section(w io.Writer, title string) {
	fmt.Fprintf(w, "\n== %s %s\n", title, strings.Repeat("=", max(3, 72-len(title))))
}

// indent prefixes every non-empty line of s with two spaces and ends it
// with a newline.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
