package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gojit/gojit/internal/llvm"
)

// setupReport is what `gojit setup` did; it is also its JSON form.
type setupReport struct {
	Path    string  `json:"path"`
	Built   bool    `json:"built"`            // linked now (false: already present)
	LinkSec float64 `json:"link_s,omitempty"` // wall time of the link
	Bytes   int64   `json:"bytes"`
	Loaded  string  `json:"loaded"` // the library this process then loaded
}

func setupFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	force := fs.Bool("force", false, "link the trimmed library again even if a valid one is present")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	verbose := fs.Bool("v", false, "print the link command")
	return func() int { return setup(*force, *asJSON, *verbose, stdout, stderr) }
}

// setup links the trimmed libLLVM into the cache directory unless it is
// there already (internal/llvm/trimmed.go), then loads LLVM in this
// process to check that the trimmed library is the one taken.
func setup(force, asJSON, verbose bool, stdout, stderr io.Writer) int {
	path, err := llvm.TrimmedLibrary()
	if err != nil {
		return fail(stderr, "setup", err)
	}
	rep := setupReport{Path: path}
	if _, statErr := os.Stat(path); force || statErr != nil {
		var log io.Writer
		if verbose {
			log = stderr
		}
		fmt.Fprintf(stderr, "linking the trimmed libLLVM (a few seconds) ...\n")
		t := time.Now()
		if _, err := llvm.BuildTrimmed(log); err != nil {
			return fail(stderr, "setup", err)
		}
		rep.Built, rep.LinkSec = true, time.Since(t).Seconds()
	}
	if fi, err := os.Stat(path); err == nil {
		rep.Bytes = fi.Size()
	}
	_, loaded, err := llvm.LibraryVersion()
	if err != nil {
		return fail(stderr, "setup", err)
	}
	rep.Loaded = loaded
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fail(stderr, "setup", err)
		}
	} else {
		state := "present"
		if rep.Built {
			state = fmt.Sprintf("linked in %.1f s", rep.LinkSec)
		}
		fmt.Fprintf(stdout, "trimmed libLLVM: %s (%s, %.1f MB)\nloaded:          %s\n", rep.Path, state, float64(rep.Bytes)/1e6, rep.Loaded)
	}
	if loaded != path && os.Getenv(llvm.EnvLibrary) == "" {
		fmt.Fprintf(stderr, "gojit setup: the trimmed library was not the one loaded (gojit falls back to %s); gojit setup -force links it again\n", loaded)
		return exitFail
	}
	return exitOK
}
