package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

// gojit setup leaves a trimmed libLLVM in the cache directory and a fresh
// process then loads it. It runs in a child process, since which library
// a process loads is settled by its first use of LLVM.
func TestSetup(t *testing.T) {
	if os.Getenv("GOJIT_TEST_SETUP") == "1" {
		code, out, errs := gojitRun(t, "setup", "-json")
		os.Stdout.WriteString(out)
		os.Stderr.WriteString(errs)
		if code != exitOK {
			t.Fatalf("setup exited %d", code)
		}
		return
	}
	if !hasLLVM() {
		t.Skip("no LLVM in this build")
	}
	path, err := llvm.TrimmedLibrary()
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(path); err != nil && testing.Short() {
		t.Skip("no trimmed libLLVM yet, and -short forbids linking one")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetup$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOJIT_TEST_SETUP=1", llvm.EnvLibrary+"=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	var rep setupReport
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&rep); err != nil {
		t.Fatalf("setup -json: %v\n%s", err, out)
	}
	if rep.Path != path || rep.Loaded != path || rep.Bytes <= 0 {
		t.Errorf("report %+v, want the library at %s loaded", rep, path)
	}
}
