package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit/cmd/gojit/internal/pipepeers"
	"github.com/gojit/gojit/internal/bench"
)

// `make bench-peers-pipeline` runs, each pinned by taskset, `gojit dataset
// peers` (the Python peers) and `gojit dataset bench --json` (gojit and the
// op-by-op Go baseline) and hands their JSON files to `gojit dataset
// peers-table`, which prints one table and writes it into
// docs/benchmarks.md between these lines.
const (
	pipeDocBegin = "<!-- BEGIN gojit bench-peers-pipeline: generated, do not edit -->"
	pipeDocEnd   = "<!-- END gojit bench-peers-pipeline -->"
)

// datasetPeers is `gojit dataset peers DIR [--python P] [--rounds R]`.
func datasetPeers(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("peers", "DIR [--python P] [--rounds R] [--check K]",
		"Run the Python peers of `gojit dataset bench` (torchvision+PIL and OpenCV+NumPy random resized crop, PIL and OpenCV\n"+
			"decoding alone) over the JPEGs of a `gojit dataset synth-jpeg` directory, one image at a time on the CPUs the process\n"+
			"is pinned to, and print their figures as JSON", stderr)
	python := fs.String("python", bench.DefaultPython, "the Python `interpreter` that has torchvision, OpenCV, PIL and NumPy")
	rounds := fs.Int("rounds", 2, "timed rounds; each figure is the best")
	check := fs.Int("check", 32, "images whose outputs are checked before timing")
	timeout := fs.Duration("timeout", 15*time.Minute, "give up after `d`")
	var dir string
	if code := parseAction(fs, args, &dir, stderr); code >= 0 {
		return code
	}
	if *rounds < 1 || *check < 1 {
		fmt.Fprintln(stderr, "gojit dataset peers: --rounds and --check must be at least 1")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	rep, err := pipepeers.Run(ctx, *python, pipepeers.Spec{Dir: dir, Rounds: *rounds, Check: *check}, stderr)
	if err != nil {
		return fail(stderr, "dataset peers", err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fail(stderr, "dataset peers", err)
	}
	return exitOK
}

// pipePeerRow is one line of the pipeline peer table.
type pipePeerRow struct {
	System    string  `json:"system"`
	Pipeline  string  `json:"pipeline"`
	Cores     string  `json:"cores"` // e.g. "1 (CPU 0)", "2 workers on 2 (CPUs 0-1)"
	PerSecond float64 `json:"images_per_s"`
	// VsTorchvision and VsDecode are PerSecond over torchvision+PIL's and
	// over OpenCV's whole-image decode's (0 when either is missing).
	VsTorchvision float64 `json:"vs_torchvision"`
	VsDecode      float64 `json:"vs_decode"`
	Note          string  `json:"note,omitempty"`
}

// pipePeerTable is the whole table; it is peers-table --json's output.
type pipePeerTable struct {
	Date     string             `json:"date"`
	Machine  string             `json:"machine"`
	Images   int                `json:"images"`
	Versions string             `json:"versions"`
	Rows     []pipePeerRow      `json:"rows"`
	Notes    []string           `json:"notes"`
	Peers    *pipepeers.Report  `json:"peers,omitempty"`
	Gojit    []*pipeBenchResult `json:"gojit"`
}

// datasetPeersTable is `gojit dataset peers-table RESULT.json... [--doc FILE] [--json]`.
func datasetPeersTable(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("peers-table", "RESULT.json... [--doc FILE] [--json]",
		"Print one table of the JSON outputs of `gojit dataset peers` and `gojit dataset bench --json`, and with --doc write it into\n"+
			"the Markdown file between its bench-peers-pipeline markers", stderr)
	doc := fs.String("doc", "", "replace the generated table in the Markdown `file` (docs/benchmarks.md)")
	asJSON := fs.Bool("json", false, "print the table as JSON")
	// The files are positional; parseAction takes one, so collect them here.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return exitOK
			}
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "gojit dataset peers-table: want at least one JSON file")
		fs.Usage()
		return exitUsage
	}
	var rep *pipepeers.Report
	var runs []*pipeBenchResult
	for _, f := range files {
		p, b, err := readPipeResult(f)
		if err != nil {
			return fail(stderr, "dataset peers-table", err)
		}
		if p != nil {
			rep = p
		} else {
			runs = append(runs, b)
		}
	}
	t := buildPipeTable(rep, runs)
	t.Date, t.Machine = time.Now().UTC().Format("2006-01-02"), machine()
	if *doc != "" {
		if err := updatePipeDoc(*doc, t); err != nil {
			return fail(stderr, "dataset peers-table", err)
		}
		fmt.Fprintf(stderr, "updated %s\n", *doc)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(t); err != nil {
			return fail(stderr, "dataset peers-table", err)
		}
		return exitOK
	}
	printPipeTable(stdout, t)
	return exitOK
}

// readPipeResult reads a JSON file written by `gojit dataset peers` (a
// report with results) or `gojit dataset bench --json` (a result with a
// pipeline).
func readPipeResult(path string) (*pipepeers.Report, *pipeBenchResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var probe struct {
		Results  json.RawMessage `json:"results"`
		Pipeline string          `json:"pipeline"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case probe.Results != nil:
		var r pipepeers.Report
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		return &r, nil, nil
	case probe.Pipeline != "":
		var r pipeBenchResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		return nil, &r, nil
	}
	return nil, nil, fmt.Errorf("%s: neither `gojit dataset peers` nor `gojit dataset bench --json` output", path)
}

// buildPipeTable puts the Python peers first, then each gojit run's
// baseline, decode-only and pipeline figures, and computes the ratios.
func buildPipeTable(rep *pipepeers.Report, runs []*pipeBenchResult) *pipePeerTable {
	t := &pipePeerTable{Peers: rep, Gojit: runs}
	var tvRate, decRate float64
	if rep != nil {
		t.Images = rep.Images
		cores := coresOf(rep.CPUs, 1)
		for _, r := range rep.Results {
			t.Rows = append(t.Rows, pipePeerRow{System: r.System, Pipeline: r.Pipeline, Cores: cores, PerSecond: r.PerSecond})
			switch r.System {
			case "torchvision+PIL":
				tvRate = r.PerSecond
			case "OpenCV decode":
				decRate = r.PerSecond
			}
		}
		t.Versions = fmt.Sprintf("Python %s, torch %s, torchvision %s, Pillow %s, OpenCV %s, NumPy %s",
			rep.Python, rep.Torch, rep.Torchvision, rep.PIL, rep.OpenCV, rep.NumPy)
	}
	notes, decodeShown := map[string]bool{}, map[string]bool{}
	for _, b := range runs {
		if t.Images == 0 {
			t.Images = b.Images
		}
		cpus, _ := parseCPUList(b.CPUs)
		cores := fmt.Sprintf("%s, %s", plural(b.Workers, "worker"), coresOf(cpus, b.GOMAXPROCS))
		if b.Baseline != nil {
			t.Rows = append(t.Rows, pipePeerRow{System: "Go op by op", Pipeline: b.Pipeline, Cores: cores, PerSecond: b.Baseline.PerSecond})
		}
		if !decodeShown[cores] { // the same in every run on these cores
			decodeShown[cores] = true
			t.Rows = append(t.Rows, pipePeerRow{System: "gojit decode (ImageDecoder)", Pipeline: "decode", Cores: cores, PerSecond: b.DecodePerSecond})
		}
		row := pipePeerRow{System: "gojit", Pipeline: b.Pipeline, Cores: cores, PerSecond: b.PerSecond}
		if b.Note != "" {
			row.Note = "*"
			if !notes[b.Note] {
				notes[b.Note] = true
				t.Notes = append(t.Notes, fmt.Sprintf("* gojit %s: %s (runs %s).", b.Pipeline, b.Note, b.Ops))
			}
		}
		t.Rows = append(t.Rows, row)
		if t.Versions != "" && !strings.Contains(t.Versions, "gojit") {
			t.Versions = fmt.Sprintf("%s (JPEG: %s); %s", b.Backend, b.JPEG, t.Versions)
		} else if t.Versions == "" {
			t.Versions = fmt.Sprintf("%s (JPEG: %s)", b.Backend, b.JPEG)
		}
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		if tvRate > 0 {
			r.VsTorchvision = r.PerSecond / tvRate
		}
		if decRate > 0 {
			r.VsDecode = r.PerSecond / decRate
		}
	}
	return t
}

// coresOf describes a CPU set: "1 core (CPU 0)", or n cores without a list.
func coresOf(cpus []int, n int) string {
	if len(cpus) == 0 {
		return plural(n, "core")
	}
	return fmt.Sprintf("%s (CPU %s)", plural(len(cpus), "core"), fmtCPUList(cpus))
}

// printPipeTable writes the table as aligned text.
func printPipeTable(w io.Writer, t *pipePeerTable) {
	fmt.Fprintf(w, "gojit dataset peers-table: %d images, %s; %s\n\n", t.Images, t.Machine, t.Versions)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "system\tpipeline\tcores\timages/s\t÷ torchvision+PIL\t÷ OpenCV decode\t")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t%.0f\t%s\t%s\t\n", r.System, r.Pipeline, r.Note, r.Cores, r.PerSecond, fmtRatio(r.VsTorchvision), fmtRatio(r.VsDecode))
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", pipeLegend(t))
}

// pipeLegend explains the table.
func pipeLegend(t *pipePeerTable) string {
	s := `Images per second over the whole set, best of the timed rounds or epochs (one warm-up first). The Python peers run in one
process, one image at a time, from the JPEG bytes in memory; gojit reads the dataset file (in the page cache). "Go op by op" is
the pipeline's definition in plain Go, each step into a new buffer (cmd/gojit/pipebaseline.go), run in the same process as the
gojit row below it. ÷ torchvision+PIL and ÷ OpenCV decode divide by the torchvision pipeline's and by cv2.imdecode's images/s.`
	if len(t.Notes) > 0 {
		s += "\n" + strings.Join(t.Notes, "\n")
	}
	return s
}

// pipeMarkdown is the table as Markdown.
func pipeMarkdown(t *pipePeerTable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nMeasured %s on %s; %d images; %s; Go %s.\n\n", t.Date, t.Machine, t.Images, t.Versions, runtime.Version())
	b.WriteString("| system | pipeline | cores | images/s | ÷ torchvision+PIL | ÷ OpenCV decode |\n|---|---|---|---:|---:|---:|\n")
	for _, r := range t.Rows {
		sys := r.System
		if strings.HasPrefix(sys, "gojit") {
			sys = "**" + sys + "**"
		}
		fmt.Fprintf(&b, "| %s | %s%s | %s | %.0f | %s | %s |\n", sys, r.Pipeline, r.Note, r.Cores, r.PerSecond, fmtRatio(r.VsTorchvision), fmtRatio(r.VsDecode))
	}
	b.WriteString("\n")
	for _, n := range t.Notes {
		b.WriteString(strings.Replace(n, "* ", "\\* ", 1) + "\n")
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// updatePipeDoc replaces the generated section of the Markdown file.
func updatePipeDoc(path string, t *pipePeerTable) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, pipeDocBegin), strings.Index(s, pipeDocEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %q ... %q section to replace", path, pipeDocBegin, pipeDocEnd)
	}
	return writeAtomic(path, []byte(s[:i]+pipeDocBegin+"\n"+pipeMarkdown(t)+s[j:]))
}
