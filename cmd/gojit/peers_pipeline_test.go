package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojit/gojit/cmd/gojit/internal/pipepeers"
	"github.com/gojit/gojit/internal/bench"
)

func samplePipeRuns() (*pipepeers.Report, []*pipeBenchResult) {
	rep := &pipepeers.Report{Python: "3.11", Torch: "1.13", Torchvision: "0.14", PIL: "9.4", OpenCV: "4.6", NumPy: "1.24", CPUs: []int{0}, Images: 2000,
		Results: []pipepeers.Result{
			{System: "torchvision+PIL", Pipeline: "rrc224", PerSecond: 200},
			{System: "OpenCV+NumPy", Pipeline: "rrc224", PerSecond: 400},
			{System: "PIL decode", Pipeline: "decode", PerSecond: 500},
			{System: "OpenCV decode", Pipeline: "decode", PerSecond: 800},
		}}
	runs := []*pipeBenchResult{
		{Pipeline: "rrc224", Ops: "A -> B", Note: "stand-in", Images: 2000, Workers: 1, CPUs: "0", GOMAXPROCS: 1, Backend: "gojit with LLVM 19", JPEG: "libjpeg-turbo",
			PerSecond: 1000, DecodePerSecond: 900, Baseline: &baselineResult{PerSecond: 300}},
		{Pipeline: "rrc224", Ops: "A -> B", Note: "stand-in", Images: 2000, Workers: 2, CPUs: "0,1", GOMAXPROCS: 2, Backend: "gojit with LLVM 19", JPEG: "libjpeg-turbo",
			PerSecond: 1600, DecodePerSecond: 1700},
	}
	return rep, runs
}

func TestBuildPipeTable(t *testing.T) {
	rep, runs := samplePipeRuns()
	tab := buildPipeTable(rep, runs)
	type row struct {
		sys, cores string
		rate, tv   float64
	}
	var got []row
	for _, r := range tab.Rows {
		got = append(got, row{r.System, r.Cores, r.PerSecond, r.VsTorchvision})
		if r.VsDecode != r.PerSecond/800 {
			t.Errorf("%s: ÷ decode %v, want %v", r.System, r.VsDecode, r.PerSecond/800)
		}
	}
	want := []row{
		{"torchvision+PIL", "1 core (CPU 0)", 200, 1},
		{"OpenCV+NumPy", "1 core (CPU 0)", 400, 2},
		{"PIL decode", "1 core (CPU 0)", 500, 2.5},
		{"OpenCV decode", "1 core (CPU 0)", 800, 4},
		{"Go op by op", "1 worker, 1 core (CPU 0)", 300, 1.5},
		{"gojit decode (ImageDecoder)", "1 worker, 1 core (CPU 0)", 900, 4.5},
		{"gojit", "1 worker, 1 core (CPU 0)", 1000, 5},
		{"gojit decode (ImageDecoder)", "2 workers, 2 cores (CPU 0-1)", 1700, 8.5},
		{"gojit", "2 workers, 2 cores (CPU 0-1)", 1600, 8},
	}
	if len(got) != len(want) {
		t.Fatalf("rows %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(tab.Notes) != 1 || !strings.Contains(tab.Notes[0], "stand-in (runs A -> B)") {
		t.Errorf("notes %q", tab.Notes)
	}
	// Without the Python peers the ratios are left out, not infinite.
	for _, r := range buildPipeTable(nil, runs).Rows {
		if r.VsTorchvision != 0 || r.VsDecode != 0 {
			t.Errorf("ratio without peers: %+v", r)
		}
	}
}

func TestPipeTableOutput(t *testing.T) {
	rep, runs := samplePipeRuns()
	tab := buildPipeTable(rep, runs)
	tab.Date, tab.Machine = "2026-11-22", "test CPU"
	var b strings.Builder
	printPipeTable(&b, tab)
	wantContains(t, "table", b.String(), "÷ torchvision+PIL", "OpenCV+NumPy", "rrc224*", "5.00×", "0.50×", "8.50×",
		"torchvision 0.14", "gojit with LLVM 19 (JPEG: libjpeg-turbo)", "* gojit rrc224: stand-in")

	doc := filepath.Join(t.TempDir(), "bench.md")
	orig := "# title\n\nbefore\n" + pipeDocBegin + "\nold table\n" + pipeDocEnd + "\nafter\n"
	if err := os.WriteFile(doc, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := updatePipeDoc(doc, tab); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(doc)
	s := string(data)
	wantContains(t, "document", s, "before\n"+pipeDocBegin+"\n\nMeasured 2026-11-22 on test CPU; 2000 images;",
		"| system | pipeline | cores | images/s |", "| **gojit** | rrc224* | 1 worker, 1 core (CPU 0) | 1000 | 5.00× | 1.25× |", "\\* gojit rrc224", pipeDocEnd+"\nafter\n")
	if strings.Contains(s, "old table") {
		t.Error("the old table is still there")
	}
	if err := os.WriteFile(doc, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := updatePipeDoc(doc, tab); err == nil || !strings.Contains(err.Error(), "section to replace") {
		t.Errorf("no markers: %v", err)
	}
}

// peers-table reads both kinds of JSON file and refuses others.
func TestDatasetPeersTable(t *testing.T) {
	dir := t.TempDir()
	rep, runs := samplePipeRuns()
	save := func(name string, v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	py, g1, g2 := save("py.json", rep), save("g1.json", runs[0]), save("g2.json", runs[1])
	code, out, errs := gojitRun(t, "dataset", "peers-table", py, g1, "--json", g2)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var tab pipePeerTable
	if err := json.Unmarshal([]byte(out), &tab); err != nil || len(tab.Rows) != 9 || tab.Images != 2000 {
		t.Fatalf("%v; %d rows:\n%s", err, len(tab.Rows), out)
	}
	other := save("other.json", map[string]int{"x": 1})
	if code, _, errs := gojitRun(t, "dataset", "peers-table", py, other); code != exitFail || !strings.Contains(errs, "neither") {
		t.Errorf("unknown JSON: exit %d, %s", code, errs)
	}
	if code, _, _ := gojitRun(t, "dataset", "peers-table"); code != exitUsage {
		t.Errorf("no files: exit %d, want %d", code, exitUsage)
	}
}

func TestDatasetPeersMissingPython(t *testing.T) {
	code, _, errs := gojitRun(t, "dataset", "peers", t.TempDir(), "--python", filepath.Join(t.TempDir(), "python3"))
	if code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	wantContains(t, "stderr", errs, "not found", "make bench-peers-pipeline", "python3-torchvision")
	err := pipepeers.CheckPython(context.Background(), filepath.Join(t.TempDir(), "python3"))
	if !errors.Is(err, pipepeers.ErrMissing) {
		t.Errorf("CheckPython: %v, want ErrMissing", err)
	}
}

// The Python peers on a tiny set, where the modules are installed: every
// check passes and each system reports a figure.
func TestDatasetPeersPython(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Python with torch")
	}
	if exec.Command(pythonPath(), "-c", "import torchvision, cv2, PIL, numpy").Run() != nil {
		t.Skip("no torchvision, cv2, PIL and numpy for " + pythonPath())
	}
	dir := t.TempDir()
	synthSet(t, dir)
	code, out, errs := gojitRun(t, "dataset", "peers", dir, "--rounds", "1", "--check", "4")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep pipepeers.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Images != 12 || len(rep.Results) != 4 || rep.Checks["torchvision+PIL"].Checked != 4 || rep.Checks["opencv_vs_torchvision"].Checked != 4 {
		t.Errorf("report %+v", rep)
	}
	for _, r := range rep.Results {
		if r.PerSecond <= 0 {
			t.Errorf("%s: %v images/s", r.System, r.PerSecond)
		}
	}
}

func pythonPath() string { return bench.DefaultPython }
