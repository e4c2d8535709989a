package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHashFloat32 checks known values, computed independently with
// Python's integers (and reproduced by peers.py's NumPy version).
func TestHashFloat32(t *testing.T) {
	want := map[uint32][]float32{
		0: {-1.0, -0.18330183625221252, 0.633396327495575},
		3: {-0.8785365223884583, 0.8966682553291321, 0.23916637897491455},
	}
	for seed, w := range want {
		got := HashFloat32(1001, seed)
		for i, v := range w {
			if got[i] != v {
				t.Errorf("seed %d: [%d] = %v, want %v", seed, i, got[i], v)
			}
		}
		last := map[uint32]float32{0: -0.3447440564632416, 3: -0.6118007302284241}[seed]
		if got[1000] != last {
			t.Errorf("seed %d: [1000] = %v, want %v", seed, got[1000], last)
		}
		for i, v := range got {
			if v < -1 || v >= 1 {
				t.Fatalf("seed %d: [%d] = %v out of [-1, 1)", seed, i, v)
			}
		}
	}
	in := Input{Shape: []int{2, 3}, Seed: 3, Scale: 2}
	if d := in.Data(); len(d) != 6 || d[1] != 2*0.8966682553291321 {
		t.Errorf("Input.Data = %v", d)
	}
}

func TestChecksum(t *testing.T) {
	c := OutputSum([]float32{1, -2, 3})
	if c.Sum != 1-4+9 || c.Abs != 1+4+9 {
		t.Errorf("OutputSum = %+v, want {6 14}", c)
	}
	if !(Checksum{Sum: 6 + 1e-5}).Agrees(c) {
		t.Error("a rounding-size difference disagrees")
	}
	// Swapping two elements changes the weighted sum.
	if OutputSum([]float32{-2, 1, 3}).Agrees(c) {
		t.Error("misplaced elements agree")
	}
}

// fakePython writes an executable shell script standing in for the Python
// interpreter: it reads its arguments and stdin and prints out.
func fakePython(t *testing.T, out string, status int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "python3")
	script := "#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n" + out + "\nEOF\nexit " + string(rune('0'+status)) + "\n"
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunPeers(t *testing.T) {
	ws, err := Workloads(Spec{ChainSizes: []int{100}, RowSum: [2]int{4, 8}, Softmax: [2]int{4, 8}, LayerNorm: [2]int{4, 8}, MatMul: 4, Mix20: [2]int{4, 8}})
	if err != nil {
		t.Fatal(err)
	}
	spec := NewPeerSpec(ws, 2, 3, 0.1)
	if len(spec.Workloads) != len(ws) || spec.Workloads[0].Kind != KindChain5 || len(spec.Workloads[len(ws)-1].Inputs) != 4 {
		t.Fatalf("spec: %+v", spec)
	}
	good := PeerReport{Python: "3", NumPy: "1", Numba: "0"}
	for _, w := range ws {
		good.Results = append(good.Results, PeerResult{Workload: w.Name, System: "NumPy", Ns: 1000, Checksum: w.Sum})
	}
	js, _ := json.Marshal(good)
	ctx := context.Background()
	rep, err := RunPeers(ctx, fakePython(t, string(js), 0), spec, ws, io.Discard)
	if err != nil || len(rep.Results) != len(ws) {
		t.Fatalf("RunPeers = %+v, %v", rep, err)
	}

	// A peer that computed something else is an error.
	bad := good
	bad.Results = append([]PeerResult(nil), good.Results...)
	bad.Results[2].Checksum.Sum += 1 + bad.Results[2].Checksum.Abs*1e-3
	js, _ = json.Marshal(bad)
	if _, err := RunPeers(ctx, fakePython(t, string(js), 0), spec, ws, io.Discard); err == nil || !strings.Contains(err.Error(), "computed something else") {
		t.Errorf("wrong checksum: %v", err)
	}
	// So is a workload with no result.
	bad.Results = good.Results[1:]
	js, _ = json.Marshal(bad)
	if _, err := RunPeers(ctx, fakePython(t, string(js), 0), spec, ws, io.Discard); err == nil || !strings.Contains(err.Error(), "no result") {
		t.Errorf("missing result: %v", err)
	}
	// A missing module says what to install.
	py := fakePython(t, `{"error": "missing Python module: numba"}`, 3)
	if _, err := RunPeers(ctx, py, spec, ws, io.Discard); !errors.Is(err, ErrPeersMissing) || !strings.Contains(err.Error(), "numba") {
		t.Errorf("missing numba: %v", err)
	}
	// A crash without JSON is an error naming the interpreter.
	py = fakePython(t, "Traceback ...", 1)
	if _, err := RunPeers(ctx, py, spec, ws, io.Discard); err == nil || !strings.Contains(err.Error(), py) {
		t.Errorf("crash: %v", err)
	}
	// No interpreter at all.
	missing := filepath.Join(t.TempDir(), "no-python")
	if _, err := RunPeers(ctx, missing, spec, ws, io.Discard); !errors.Is(err, ErrPeersMissing) {
		t.Errorf("no interpreter: %v", err)
	}
	if err := CheckPeers(ctx, missing); !errors.Is(err, ErrPeersMissing) {
		t.Errorf("CheckPeers, no interpreter: %v", err)
	}
	// An interpreter whose imports fail.
	py = filepath.Join(t.TempDir(), "python3")
	script := "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'numba'\" >&2\nexit 1\n"
	if err := os.WriteFile(py, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckPeers(ctx, py); !errors.Is(err, ErrPeersMissing) || !strings.Contains(err.Error(), "No module named 'numba'") {
		t.Errorf("CheckPeers, no numba: %v", err)
	}
}

// TestPeersScriptEmbedded guards the embed: the script is the one that
// defines every kind the Go side sends.
func TestPeersScriptEmbedded(t *testing.T) {
	src := string(PeersScript)
	for _, k := range Kinds() {
		if !strings.Contains(src, `"`+string(k)+`": (`) {
			t.Errorf("peers.py has no %q entry in KINDS", k)
		}
	}
}

// Spec.Only keeps the workloads of the kinds named, and Workloads makes
// only those.
func TestSpecOnly(t *testing.T) {
	spec := Spec{ChainSizes: []int{100}, RowSum: [2]int{4, 8}, Softmax: [2]int{4, 8}, LayerNorm: [2]int{4, 8}, MatMul: 4, Mix20: [2]int{4, 8}}
	for _, kinds := range [][]Kind{{KindRowSum}, {KindChain5, KindMatMul}, nil} {
		ws, err := Workloads(spec.Only(kinds...))
		if err != nil {
			t.Fatal(err)
		}
		want := kinds
		if want == nil {
			want = Kinds()
		}
		var got []Kind
		for _, w := range ws {
			got = append(got, w.Kind)
		}
		got = slices.Compact(got) // the matmul's one-thread line
		if !slices.Equal(got, want) {
			t.Errorf("Only(%v): workloads of kinds %v", kinds, got)
		}
	}
}

// An operand of hugeMinBytes or more comes from hugeFloat32's memory and
// holds the same values as a small one made with make.
func TestInputDataLarge(t *testing.T) {
	in := Input{Shape: []int{1024, 1025}, Seed: 7, Scale: 3}
	d := in.Data()
	want := HashFloat32(1024*1025, 7)
	if len(d) != len(want) {
		t.Fatalf("len %d, want %d", len(d), len(want))
	}
	for i := range d {
		if d[i] != 3*want[i] {
			t.Fatalf("element %d: %v, want %v", i, d[i], 3*want[i])
		}
	}
	if z := hugeFloat32(hugeMinBytes/4 + 3); len(z) != hugeMinBytes/4+3 || z[0] != 0 || z[len(z)-1] != 0 {
		t.Errorf("hugeFloat32: len %d, ends %v %v", len(z), z[0], z[len(z)-1])
	}
}
