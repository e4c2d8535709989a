package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/bench"
)

// A missing interpreter is reported before any measuring, with what to
// install.
func TestBenchPeersMissingPython(t *testing.T) {
	code, _, errs := gojitRun(t, "bench", "-peers", "-python", filepath.Join(t.TempDir(), "python3"))
	if code != exitFail {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFail, errs)
	}
	wantContains(t, "stderr", errs, "not found", "make bench-peers", "python3-numba")
	if strings.Contains(errs, "[1/") {
		t.Errorf("measured before checking the interpreter:\n%s", errs)
	}
}

func samplePeerResult() *peerResult {
	rows := []peerRow{
		{Workload: "chain5 n=1e3", Ns: map[string]float64{"gojit": 300, "Go loop": 1500, "gonum": 2000, "NumPy": 8000, "Numba": 500, "Numba parallel": 9000},
			Notes: map[string]string{"gonum": "f64"}, Floor: bench.FloorStream, FloorGBs: 40, GojitGBs: 30, FloorFrac: 0.75},
		{Workload: "matmul 64×64 +bias relu", Ns: map[string]float64{"gojit": 2e6, "Go loop": 2e7, "gonum": 3e6, "NumPy": 1e6, "Numba": 5e6, "Numba parallel": 3e6}},
	}
	mergePeers(rows, &bench.PeerReport{})
	return &peerResult{Date: "2025-01-02", Machine: "test CPU", Threads: 2, Rounds: 3, Bench: "300ms",
		Peers: &bench.PeerReport{Python: "3.11", NumPy: "1.24", Numba: "0.56", BLAS: "libblas.so.3, libopenblasp-r0.3.21.so"}, Rows: rows}
}

func TestMergePeers(t *testing.T) {
	res := samplePeerResult()
	r0, r1 := res.Rows[0], res.Rows[1]
	if r0.BestPeer != "Numba" || r0.PeerRatio != 500.0/300 {
		t.Errorf("row 0: best %q ratio %v, want Numba %v", r0.BestPeer, r0.PeerRatio, 500.0/300)
	}
	if r1.BestPeer != "NumPy" || r1.PeerRatio != 0.5 {
		t.Errorf("row 1: best %q ratio %v, want NumPy 0.5", r1.BestPeer, r1.PeerRatio)
	}
	// Peer results replace nothing of the Go side and fill in their own.
	rows := []peerRow{{Workload: "w", Ns: map[string]float64{"gojit": 100}}}
	mergePeers(rows, &bench.PeerReport{Results: []bench.PeerResult{{Workload: "w", System: "NumPy", Ns: 400}, {Workload: "other", System: "NumPy", Ns: 1}}})
	if rows[0].Ns["NumPy"] != 400 || rows[0].PeerRatio != 4 || rows[0].BestPeer != "NumPy" {
		t.Errorf("merged row: %+v", rows[0])
	}
}

func TestPrintPeers(t *testing.T) {
	var b strings.Builder
	printPeers(&b, samplePeerResult())
	wantContains(t, "table", b.String(), "workload", "Numba parallel", "peer/gojit", "chain5 n=1e3", "0.0003",
		"0.0020 (f64)", "20.00", "1.67×", "0.50×", "75% of 40.0 GB/s", "n/a", "libopenblasp-r0.3.21.so", "best of 3 rounds")
}

func TestWritePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chart.png")
	if err := writePlot(path, samplePeerResult()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 100 {
		t.Errorf("image is %v", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := writePlot(path, &peerResult{}); err == nil {
		t.Error("empty result: no error")
	}
}

func TestRatioLabel(t *testing.T) {
	for e, want := range map[float64]string{0: "1×", 2: "4×", -3: "1/8×"} {
		if got := ratioLabel(e); got != want {
			t.Errorf("ratioLabel(%v) = %q, want %q", e, got, want)
		}
	}
}

func TestUpdateDoc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.md")
	doc := "# Title\n\nintro\n\n" + docBegin + "\nold table\n" + docEnd + "\n\nafter\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // idempotent: the markers survive
		if err := updateDoc(path, samplePeerResult()); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	s := string(got)
	wantContains(t, "doc", s, "# Title\n\nintro\n\n"+docBegin, docEnd+"\n\nafter\n", "Measured 2025-01-02 on test CPU",
		"| chain5 n=1e3 | **0.0003** |", "| Numba | **1.67×** |", "| NumPy | 0.50× | n/a |")
	if strings.Contains(s, "old table") || strings.Count(s, docBegin) != 1 {
		t.Errorf("generated section not replaced once:\n%s", s)
	}
	if err := os.WriteFile(path, []byte("no markers"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := updateDoc(path, samplePeerResult()); err == nil {
		t.Error("document without markers: no error")
	}
}

// -only names workload kinds; an unknown one, or -only with -doc (which
// would replace the whole table with part of it), is a usage error
// reported before anything runs.
func TestBenchPeersOnlyFlag(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-only", "rowsum,nosuch"},
		{"bench", "-only", "matmul", "-doc", filepath.Join(t.TempDir(), "b.md")},
	} {
		code, _, errs := gojitRun(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", args, code, exitUsage, errs)
		}
		wantContains(t, "stderr", errs, "-only")
	}
	kinds, err := parseKinds(" rowsum,matmul")
	if err != nil || len(kinds) != 2 || kinds[0] != bench.KindRowSum || kinds[1] != bench.KindMatMul {
		t.Errorf("parseKinds: %v, %v", kinds, err)
	}
}
