package main

import (
	"path/filepath"
	"testing"

	"github.com/gojit/gojit"
)

// TestDatasetExplain: explain lists a pipeline's stages and prints the
// compiled stage's plan and fused loops (and its assembly on request);
// bad flags and names are errors.
func TestDatasetExplain(t *testing.T) {
	dir := t.TempDir()
	synthSet(t, dir)
	file := filepath.Join(dir, "images.gojit")
	code, out, errs := gojitRun(t, "dataset", "explain", file, "--pipeline", "rrc224", "--batch", "4")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errs)
	}
	if gojit.LLVMVersion() == "" {
		// Without LLVM the loader runs the plain Go ops: nothing compiled.
		wantContains(t, "explain", out, "2 stages", "plain Go", "RandomResizedCropJPEG -> RandomHorizontalFlip -> Normalize -> ToCHW")
	} else {
		wantContains(t, "explain", out, "3 stages", "plain Go", "compiled", "RandomResizedCropJPEG:resize -> RandomHorizontalFlip -> Normalize -> ToCHW",
			"folded into the op before", "---- fused graph and loops", "group 0 ->")
		code, out, _ = gojitRun(t, "dataset", "explain", file, "--pipeline", "cc224", "--batch", "4", "--show", "asm")
		if code != exitOK {
			t.Fatalf("--show asm: exit %d", code)
		}
		wantContains(t, "explain --show asm", out, "---- assembly", "ret")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pipeline", "nope"}, "unknown pipeline \"nope\""},
		{[]string{"--show", "bytes"}, "--show \"bytes\""},
		{[]string{"--field", "label"}, "not an image field"},
	} {
		code, _, errs := gojitRun(t, append([]string{"dataset", "explain", file}, c.args...)...)
		if code == exitOK {
			t.Errorf("%v: exit 0", c.args)
		}
		wantContains(t, "stderr", errs, c.want)
	}
}
