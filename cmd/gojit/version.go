package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/llvm"
	gjruntime "github.com/gojit/gojit/internal/runtime"
)

func versionFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	features := fs.Bool("features", false, "also print the host CPU's LLVM feature string")
	return func() int { return version(*features, stdout) }
}

// version prints what a compiled kernel depends on: gojit's code
// generation, LLVM, Go and the host CPU.
func version(features bool, w io.Writer) int {
	lv := gojit.LLVMVersion()
	if lv == "" {
		lv = "none: interpreter only"
	}
	cpu, feat := llvm.HostCPU()
	if cpu == "" {
		cpu = "unknown (needs LLVM)"
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "gojit code generation:\t%s\n", gjruntime.Version)
	fmt.Fprintf(tw, "LLVM:\t%s\n", lv)
	fmt.Fprintf(tw, "Go:\t%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(tw, "host CPU:\t%s\n", cpu)
	if features && feat != "" {
		fmt.Fprintf(tw, "CPU features:\t%s\n", feat)
	}
	tw.Flush()
	return exitOK
}
