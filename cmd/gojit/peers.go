package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit/internal/bench"
)

// peerOpts are bench's flags for the peer comparison.
type peerOpts struct {
	on      bool
	plot    string
	doc     string
	python  string
	timeout time.Duration
	small   bool
	only    string // comma-separated kinds, or "" for all
}

// The systems of the peer table, in column order. gojit is the one every
// other is compared with; peerSystems are the ones its target is set
// against (the best of them is "best peer").
var (
	tableSystems = []string{"gojit", "Go loop", "gonum", "NumPy", "Numba", "Numba parallel", "numexpr", "PyTorch"}
	peerSystems  = []string{"NumPy", "Numba", "Numba parallel", "numexpr", "PyTorch"}
)

// peerRow is one workload of the peer table; it is also its JSON form.
type peerRow struct {
	Workload string             `json:"workload"`
	Ns       map[string]float64 `json:"ns"`              // system -> best time per call
	Notes    map[string]string  `json:"notes,omitempty"` // system -> caveat, e.g. "f64"
	BestPeer string             `json:"best_peer"`
	// PeerRatio is the best peer's time / gojit's: above 1 gojit is faster.
	PeerRatio float64 `json:"peer_ratio"`
	// Floor is the streaming kernel gojit's throughput is compared with
	// ("" for compute-bound workloads), FloorGBs its throughput, GojitGBs
	// gojit's (least bytes moved / time) and FloorFrac their ratio.
	Floor     bench.Floor `json:"floor,omitempty"`
	FloorGBs  float64     `json:"floor_gbs,omitempty"`
	GojitGBs  float64     `json:"gojit_gbs,omitempty"`
	FloorFrac float64     `json:"floor_frac,omitempty"`
}

// peerResult is the whole peer run: where and how it was measured, and
// the rows. It is -json's output.
type peerResult struct {
	Date    string            `json:"date"`
	Machine string            `json:"machine"`
	Threads int               `json:"threads"`
	Rounds  int               `json:"rounds"`
	Bench   string            `json:"benchtime"`
	Peers   *bench.PeerReport `json:"peers"`
	Rows    []peerRow         `json:"rows"`
}

// smallSpec is -small's sizes: enough to check the setup end to end in
// seconds; its figures mean nothing.
var smallSpec = bench.Spec{
	ChainSizes: []int{1000, 100000},
	RowSum:     [2]int{64, 256},
	Softmax:    [2]int{64, 128},
	LayerNorm:  [2]int{64, 128},
	MatMul:     64,
	Mix20:      [2]int{64, 128},
}

// runPeers measures the workloads in Go (gojit, the Go loop, gonum and
// gojit's streaming floor, interleaved), then runs peers.py for NumPy and
// Numba, and prints one table; -plot and -doc write the chart and update
// the document.
func runPeers(o *benchOpts, sizes []int, stdout, stderr io.Writer) int {
	kinds, err := parseKinds(o.peers.only)
	if err == nil && len(kinds) > 0 && o.peers.doc != "" {
		err = errors.New("-only measures part of the table; it cannot -doc")
	}
	if err != nil {
		fmt.Fprintf(stderr, "gojit bench: %v\n", err)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.peers.timeout)
	defer cancel()
	// Fail before minutes of measuring if the peers cannot run.
	if err := bench.CheckPeers(ctx, o.peers.python); err != nil {
		return fail(stderr, "bench", err)
	}
	spec := bench.DefaultSpec()
	if o.peers.small {
		spec = smallSpec
	}
	if sizes != nil {
		spec.ChainSizes = sizes
	}
	spec = spec.Only(kinds...)
	start := time.Now()
	fmt.Fprintln(stderr, "compiling the workloads and checking them against the Go loops...")
	ws, err := bench.Workloads(spec)
	if err != nil {
		return fail(stderr, "bench", err)
	}
	rounds := max(o.rounds, 1)
	threads := runtime.GOMAXPROCS(0)
	measure := progress(ws, rounds, stderr)
	rows := make([]peerRow, len(ws))
	var rep *bench.PeerReport
	for i, w := range ws {
		rows[i] = measureGo(w, rounds, measure, stderr)
		// The peers measure each workload right after the Go side, so that
		// both see the machine in the same state (it is shared, and its
		// load changes from minute to minute). Samples of at least 0.2 s.
		th := threads
		if w.Threads > 0 {
			th = w.Threads // a line measured on fewer threads, gojit's and the peers'
		}
		fmt.Fprintf(stderr, "%s: %s peers.py (NumPy, Numba, numexpr, PyTorch; %d threads)\n", w.Name, o.peers.python, th)
		one := ws[i : i+1]
		r, err := bench.RunPeers(ctx, o.peers.python, bench.NewPeerSpec(one, th, rounds, 0.2), one, stderr)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		if rep == nil {
			rep = r
		} else {
			rep.Results = append(rep.Results, r.Results...)
		}
	}
	mergePeers(rows, rep)
	fmt.Fprintf(stderr, "done in %s\n", fmtDur(time.Since(start)))

	res := &peerResult{
		Date: time.Now().UTC().Format("2006-01-02"), Machine: machine(), Threads: threads,
		Rounds: rounds, Bench: o.benchtime, Peers: rep, Rows: rows,
	}
	if o.peers.plot != "" {
		if err := writePlot(o.peers.plot, res); err != nil {
			return fail(stderr, "bench", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", o.peers.plot)
	}
	if o.peers.doc != "" {
		if err := updateDoc(o.peers.doc, res); err != nil {
			return fail(stderr, "bench", err)
		}
		fmt.Fprintf(stderr, "updated %s\n", o.peers.doc)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fail(stderr, "bench", err)
		}
		return exitOK
	}
	printPeers(stdout, res)
	return exitOK
}

// parseKinds parses -only: comma-separated workload kinds, none for all.
func parseKinds(only string) ([]bench.Kind, error) {
	if only == "" {
		return nil, nil
	}
	var kinds []bench.Kind
	for k := range strings.SplitSeq(only, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(bench.Kinds(), bench.Kind(k)) {
			return nil, fmt.Errorf("-only: unknown workload kind %q (want some of %v)", k, bench.Kinds())
		}
		kinds = append(kinds, bench.Kind(k))
	}
	return kinds, nil
}

// progress returns the function that measures one benchmark, numbering
// the steps of the whole Go side on stderr.
func progress(ws []bench.Workload, rounds int, stderr io.Writer) func(string, func(*testing.B)) float64 {
	total := 0
	for _, w := range ws {
		total += rounds * len(w.Systems)
		switch w.Floor {
		case bench.FloorStream:
			total += rounds
		case bench.FloorRead:
			total += 2 * rounds
		}
	}
	step := 0
	return func(what string, fn func(*testing.B)) float64 {
		step++
		fmt.Fprintf(stderr, "[%*d/%d] %-52s", len(strconv.Itoa(total)), step, total, what)
		d := bench.Measure(fn)
		fmt.Fprintf(stderr, " %10s/op\n", fmtDur(d))
		return float64(d.Nanoseconds())
	}
}

// measureGo measures the Go-side systems of w and its streaming floor in
// interleaved rounds, keeping each one's best.
func measureGo(w bench.Workload, rounds int, measure func(string, func(*testing.B)) float64, stderr io.Writer) peerRow {
	row := peerRow{Workload: w.Name, Ns: map[string]float64{}, Notes: map[string]string{}, Floor: w.Floor}
	var floorRuns []func(*testing.B)
	var floorBytes int64
	if w.Floor != bench.FloorNone {
		runs, nbytes, err := bench.FloorKernels(w.Floor, w.Elems)
		if err == nil {
			floorRuns, floorBytes = runs, nbytes
		} else {
			fmt.Fprintf(stderr, "%s: streaming floor: %v\n", w.Name, err)
		}
	}
	var floorNs float64
	for r := range rounds {
		tag := fmt.Sprintf("%s [%d/%d]: ", w.Name, r+1, rounds)
		for _, s := range w.Systems {
			row.Ns[s.Name] = keepBest(row.Ns[s.Name], measure(tag+s.Name, s.Run))
			if s.Note != "" {
				row.Notes[s.Name] = s.Note
			}
		}
		for k, run := range floorRuns {
			floorNs = keepBest(floorNs, measure(fmt.Sprintf("%sfloor (%s %d)", tag, w.Floor, k+1), run))
		}
	}
	if floorNs > 0 {
		row.FloorGBs = float64(floorBytes) / floorNs
		row.GojitGBs = float64(w.Bytes) / row.Ns["gojit"]
		row.FloorFrac = row.GojitGBs / row.FloorGBs
	}
	return row
}

func keepBest(old, v float64) float64 {
	if old == 0 || (v > 0 && v < old) {
		return v
	}
	return old
}

// mergePeers adds the peers' times to rows and picks each row's best peer.
func mergePeers(rows []peerRow, rep *bench.PeerReport) {
	byName := make(map[string]*peerRow, len(rows))
	for i := range rows {
		byName[rows[i].Workload] = &rows[i]
	}
	for _, res := range rep.Results {
		if r := byName[res.Workload]; r != nil {
			r.Ns[res.System] = res.Ns
		}
	}
	for i := range rows {
		r := &rows[i]
		for _, s := range peerSystems {
			if ns := r.Ns[s]; ns > 0 && (r.BestPeer == "" || ns < r.Ns[r.BestPeer]) {
				r.BestPeer = s
			}
		}
		if g := r.Ns["gojit"]; r.BestPeer != "" && g > 0 {
			r.PeerRatio = r.Ns[r.BestPeer] / g
		}
	}
}

// machine describes the host in one line.
func machine() string {
	s := fmt.Sprintf("%s/%s, %d CPUs (GOMAXPROCS %d)", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if cpu := cpuName(); cpu != "" {
		s = cpu + ", " + s
	}
	return s
}

// printPeers writes the table as aligned text.
func printPeers(w io.Writer, res *peerResult) {
	fmt.Fprintf(w, "gojit bench -peers: %s, %s\n", res.Machine, versions(res))
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	head := append([]string{"workload"}, tableSystems...)
	head = append(head, "best peer", "peer/gojit", "gojit/floor")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range res.Rows {
		cells := []string{r.Workload}
		for _, s := range tableSystems {
			c := fmtMs(r.Ns[s])
			if n := r.Notes[s]; n != "" {
				c += " (" + n + ")"
			}
			cells = append(cells, c)
		}
		cells = append(cells, r.BestPeer, fmtRatio(r.PeerRatio), fmtFloor(r))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", legend(res))
}

// versions names the software measured.
func versions(res *peerResult) string {
	s := gojitBackend()
	if p := res.Peers; p != nil {
		s += fmt.Sprintf(", Python %s, NumPy %s (BLAS: %s), Numba %s, numexpr %s, PyTorch %s", p.Python, p.NumPy, blasShort(p.BLAS), p.Numba, p.Numexpr, p.Torch)
	}
	return s
}

// blasShort keeps the libraries that are a BLAS implementation proper out
// of NumPy's list of loaded BLAS-related libraries.
func blasShort(libs string) string {
	var keep []string
	for l := range strings.SplitSeq(libs, ", ") {
		if strings.Contains(l, "openblas") || strings.Contains(l, "mkl") || strings.Contains(l, "blis") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return libs
	}
	return strings.Join(keep, ", ")
}

// legend explains the table.
func legend(res *peerResult) string {
	return fmt.Sprintf(`Times are per call in ms (steady state: compiled, warm, gojit and Numba writing into preallocated outputs;
NumPy allocating as idiomatic NumPy does). Each figure is the best of %d rounds (Go: testing.Benchmark with
benchtime %s; Python: samples of at least 0.2 s; each round interleaves a workload's systems, and
the Python peers measure each workload right after the Go side). Inputs of 4 MiB and more are in memory advised
to use 2 MiB pages on both sides (NumPy allocates its arrays so; the Go side maps its inputs the same way).
Threads: %d for gojit, Numba parallel, numexpr, PyTorch and NumPy's BLAS (1 for all of them on a line that says
"1 thread"); 1 for the Go loop, gonum's floats,
NumPy's elementwise code and Numba. numexpr evaluates the elementwise parts and sums (NumPy the max and matmul);
PyTorch is eager CPU ops (its own softmax, layer_norm, addmm). gonum's floats are float64-only, so "(f64)" runs on float64 copies (twice the bytes);
its matmul is blas32 (float32, goroutines). peer/gojit = best of NumPy, Numba, Numba parallel, numexpr, PyTorch ÷ gojit: above 1× gojit
is faster. gojit/floor = gojit's throughput (least bytes a workload must move ÷ time) as a share of gojit's own
streaming kernel at the same element count (stream: out=a+b; read: the faster of sum(x) and max(x)), measured in the
same run; above 100%% the floor kernel itself fell short of memory speed in this run.`,
		res.Rounds, res.Bench, res.Threads)
}

func fmtMs(ns float64) string {
	if ns <= 0 {
		return "-"
	}
	ms := ns / 1e6
	switch {
	case ms < 0.01:
		return fmt.Sprintf("%.4f", ms)
	case ms < 1:
		return fmt.Sprintf("%.3f", ms)
	case ms < 100:
		return fmt.Sprintf("%.2f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}

// fmtFloor formats gojit's share of the streaming floor.
func fmtFloor(r peerRow) string {
	if r.FloorFrac <= 0 || math.IsInf(r.FloorFrac, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%% of %.1f GB/s", 100*r.FloorFrac, r.FloorGBs)
}
