package bench

import (
	"bytes"
	"context"
	_ "embed" // for PeersScript
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// PeersScript is peers/peers.py: the NumPy, Numba, numexpr and PyTorch
// versions of the
// workloads. It is embedded so that the gojit command runs it from any
// directory.
//
//go:embed peers/peers.py
var PeersScript []byte

// DefaultPython is the interpreter the peers run under: Debian's, which is
// the one python3-numpy and python3-numba install into (a python3 found
// first on PATH, such as a pyenv shim, usually lacks them).
const DefaultPython = "/usr/bin/python3"

// PeerSpec is what peers.py reads on stdin.
type PeerSpec struct {
	Threads   int            `json:"threads"`  // for OpenBLAS and Numba's parallel kernels
	Rounds    int            `json:"rounds"`   // best of this many samples
	MinTime   float64        `json:"min_time"` // seconds per sample, at least
	Workloads []PeerWorkload `json:"workloads"`
}

// PeerWorkload is one workload as peers.py sees it.
type PeerWorkload struct {
	Name   string  `json:"name"`
	Kind   Kind    `json:"kind"`
	Inputs []Input `json:"inputs"`
	// Systems, when set, are the peers to measure besides NumPy
	// (Workload.Peers).
	Systems []string `json:"systems,omitempty"`
}

// NewPeerSpec describes ws for peers.py.
func NewPeerSpec(ws []Workload, threads, rounds int, minTime float64) PeerSpec {
	s := PeerSpec{Threads: threads, Rounds: rounds, MinTime: minTime}
	for _, w := range ws {
		s.Workloads = append(s.Workloads, PeerWorkload{Name: w.Name, Kind: w.Kind, Inputs: w.Inputs, Systems: w.Peers})
	}
	return s
}

// PeerReport is what peers.py writes on stdout.
type PeerReport struct {
	Python       string       `json:"python"`
	NumPy        string       `json:"numpy"`
	Numba        string       `json:"numba"`
	Numexpr      string       `json:"numexpr"`
	Torch        string       `json:"torch"`
	BLAS         string       `json:"blas"` // the BLAS libraries NumPy loaded
	Threads      int          `json:"threads"`
	NumbaThreads int          `json:"numba_threads"`
	Results      []PeerResult `json:"results"`
	Error        string       `json:"error,omitempty"`
}

// PeerResult is one system's best time on one workload.
type PeerResult struct {
	Workload string   `json:"workload"`
	System   string   `json:"system"` // NumPy, Numba, Numba parallel, numexpr, PyTorch
	Ns       float64  `json:"ns"`     // per call
	Checksum Checksum `json:"checksum"`
}

// ErrPeersMissing is returned (wrapped) by RunPeers when the interpreter
// or its NumPy, Numba, numexpr or PyTorch is not installed.
var ErrPeersMissing = errors.New("install them with `make bench-peers`, or: apt-get install python3-numpy python3-numba python3-numexpr python3-torch")

// CheckPeers reports whether python can import NumPy, Numba, numexpr and
// PyTorch, with an error saying what to install when it cannot.
func CheckPeers(ctx context.Context, python string) error {
	return CheckImports(ctx, "peers", python, []string{"numpy", "numba", "numexpr", "torch"}, ErrPeersMissing)
}

// RunScript runs script (written as name in a temporary directory) under
// python with spec as JSON on its standard input and progress as its
// standard error, and returns its standard output and the run's error.
func RunScript(ctx context.Context, python, name string, script []byte, spec any, progress io.Writer) ([]byte, error) {
	dir, err := os.MkdirTemp("", "gojit-peers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, script, 0o600); err != nil {
		return nil, err
	}
	in, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, python, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Dir = bytes.NewReader(in), &stdout, progress, dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	err = cmd.Run()
	return stdout.Bytes(), err
}

// CheckImports reports whether python exists and can import the modules,
// with an error (prefixed with who, wrapping missing) naming the import
// that failed when it cannot.
func CheckImports(ctx context.Context, who, python string, modules []string, missing error) error {
	if _, err := exec.LookPath(python); err != nil {
		return fmt.Errorf("%s: %s not found: %w", who, python, missing)
	}
	out, err := exec.CommandContext(ctx, python, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if k := strings.LastIndexByte(msg, '\n'); k >= 0 {
			msg = msg[k+1:] // the exception line, e.g. ModuleNotFoundError: No module named 'numba'
		}
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s: %s cannot import %s (%s): %w", who, python, strings.Join(modules, ", "), msg, missing)
	}
	return nil
}

// RunPeers runs peers.py under python with spec, copying its progress to
// progress, and checks that every result's checksum agrees with the Go
// loop's (ws gives the expected checksums).
func RunPeers(ctx context.Context, python string, spec PeerSpec, ws []Workload, progress io.Writer) (*PeerReport, error) {
	if _, err := exec.LookPath(python); err != nil {
		return nil, fmt.Errorf("peers: %s not found: %w", python, ErrPeersMissing)
	}
	out, runErr := RunScript(ctx, python, "peers.py", PeersScript, spec, progress)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("peers: %s peers.py: %w", python, ctx.Err())
	}
	var rep PeerReport
	if err := json.Unmarshal(out, &rep); err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("peers: %s peers.py: %w", python, runErr)
		}
		return nil, fmt.Errorf("peers: reading peers.py's output: %w", err)
	}
	if rep.Error != "" {
		if strings.HasPrefix(rep.Error, "missing Python module") {
			return nil, fmt.Errorf("peers: %s: %s: %w", python, rep.Error, ErrPeersMissing)
		}
		return nil, fmt.Errorf("peers: %s", rep.Error)
	}
	if runErr != nil {
		return nil, fmt.Errorf("peers: %s peers.py: %w", python, runErr)
	}
	if err := rep.Check(ws); err != nil {
		return nil, err
	}
	return &rep, nil
}

// Check verifies that the report has a positive time for every system of
// every workload of ws and nothing else, and that each checksum agrees
// with the Go loop's: the peers computed the same thing on the same data.
func (r *PeerReport) Check(ws []Workload) error {
	want := make(map[string]Checksum, len(ws))
	for _, w := range ws {
		want[w.Name] = w.Sum
	}
	seen := map[string]int{}
	for _, res := range r.Results {
		sum, ok := want[res.Workload]
		if !ok {
			return fmt.Errorf("peers: result for unknown workload %q", res.Workload)
		}
		if !(res.Ns > 0) {
			return fmt.Errorf("peers: %s/%s: time %v ns", res.Workload, res.System, res.Ns)
		}
		if !res.Checksum.Agrees(sum) {
			return fmt.Errorf("peers: %s/%s computed something else: checksum %.9g, Go loop %.9g (tolerance %.3g)",
				res.Workload, res.System, res.Checksum.Sum, sum.Sum, ChecksumTol*sum.Abs)
		}
		seen[res.Workload]++
	}
	for _, w := range ws {
		if seen[w.Name] == 0 {
			return fmt.Errorf("peers: no result for %s", w.Name)
		}
	}
	return nil
}
