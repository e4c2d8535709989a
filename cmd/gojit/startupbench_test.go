package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// One round of fresh processes: the programs build, agree with the plain
// loop (gojitprog exits 1 otherwise), and every figure is reported.
func TestBenchStartup(t *testing.T) {
	code, out, errs := gojitRun(t, "bench", "-startup", "-runs", "1", "-json")
	if code != exitOK {
		t.Fatalf("bench -startup exited %d; stderr:\n%s", code, errs)
	}
	var rows []startupRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("bench -startup -json output is not a JSON array: %v\n%s", err, out)
	}
	// Five cold rows and two of the small function per library: the
	// system's, and the trimmed one's when gojit setup has linked it.
	if len(rows) != 12 && len(rows) != 19 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if gojit.LLVMVersion() == "" && strings.Contains(r.Figure, "loading") && r.MedianNs == 0 {
			continue // a CGO_ENABLED=0 build has no libLLVM to load
		}
		if r.Runs != 1 || r.MedianNs <= 0 || r.MinNs != r.MedianNs || r.MaxNs != r.MedianNs {
			t.Errorf("row %+v", r)
		}
	}
	if !strings.Contains(rows[1].Figure, "importing gojit") || !strings.Contains(rows[2].Figure, "disk cache") {
		t.Errorf("figures out of order: %q, %q", rows[1].Figure, rows[2].Figure)
	}
	wantContains(t, "bench -startup progress", errs, "building the startup programs", "cold compile, round 1/1", "round 1/1", "shared and loaded")
}

func TestSummarize(t *testing.T) {
	r := summarize("x", []float64{5, 1, 3})
	if r.MedianNs != 3 || r.MinNs != 1 || r.MaxNs != 5 || r.Runs != 3 || r.Samples[0] != 5 {
		t.Errorf("odd: %+v", r)
	}
	r = summarize("x", []float64{4, 1, 3, 10})
	if r.MedianNs != 3.5 || r.MinNs != 1 || r.MaxNs != 10 {
		t.Errorf("even: %+v", r)
	}
}
