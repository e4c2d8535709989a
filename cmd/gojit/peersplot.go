package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/llvm"
)

// chartSystems are the systems drawn against gojit, with their colours.
var chartSystems = []struct {
	name  string
	color color.RGBA
}{
	{"Go loop", color.RGBA{R: 0x9e, G: 0x9e, B: 0x9e, A: 0xff}},
	{"gonum", color.RGBA{R: 0x66, G: 0xa6, B: 0x1e, A: 0xff}},
	{"NumPy", color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}},
	{"Numba", color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}},
	{"Numba parallel", color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}},
	{"numexpr", color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}},
	{"PyTorch", color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}},
}

// chartFloor is the log2 of the slowest speed the chart's axis shows
// (1/256×).
const chartFloor = 8

// writePlot draws the peer table as a PNG at path: for each workload one
// horizontal bar per system, its speed relative to gojit on a log2 axis
// (bars to the left of 1× are slower than gojit). The file is written to a
// temporary name and renamed, so a reader never sees half an image.
func writePlot(path string, res *peerResult) error {
	p := plot.New()
	p.Title.Text = "Speed relative to gojit (gojit = 1×; right of the line is faster than gojit)"
	p.X.Label.Text = fmt.Sprintf("gojit time ÷ system time (log scale)\n%s, %s\n%s", res.Machine, res.Date, versions(res))
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(14)
	p.Legend.Padding = vg.Points(2)

	n := len(res.Rows)
	if n == 0 {
		return errNoPeerRows
	}
	// Categories bottom to top: the workloads in reverse (the first at the
	// top), then blank rows that keep the legend clear of the bars.
	const blank = 3
	names := make([]string, n+blank)
	for i, r := range res.Rows {
		names[n-1-i] = r.Workload
	}
	lo, hi := 0.0, 0.0 // log2 range of the bars
	barW := vg.Points(7)
	for k, s := range chartSystems {
		vals := make(plotter.Values, n+blank)
		for i, r := range res.Rows {
			if ns, g := r.Ns[s.name], r.Ns["gojit"]; ns > 0 && g > 0 {
				v := math.Log2(g / ns)
				vals[n-1-i] = v
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		b, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return err
		}
		b.Horizontal = true
		b.Color = s.color
		b.LineStyle.Width = 0
		// Within a group, systems run top to bottom in legend order.
		b.Offset = barW * vg.Length(float64(len(chartSystems)-1)/2-float64(k))
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalY(names...)
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if lo < -chartFloor { // a few outliers would squeeze every other bar
		lo = -chartFloor
		p.Title.Text += fmt.Sprintf("\nbars slower than %s are cut at the edge (the table has every figure)", ratioLabel(lo))
	}
	p.X.Min, p.X.Max = lo-0.25, hi+0.25
	step := math.Max(1, math.Ceil((hi-lo)/12))
	var ticks []plot.Tick
	for e := 0.0; e <= hi; e += step {
		ticks = append(ticks, plot.Tick{Value: e, Label: ratioLabel(e)})
	}
	for e := -step; e >= lo; e -= step {
		ticks = append(ticks, plot.Tick{Value: e, Label: ratioLabel(e)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid())
	one, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(n) - 0.5}})
	if err != nil {
		return err
	}
	one.LineStyle.Width = vg.Points(1.5)
	p.Add(one)

	wt, err := p.WriterTo(11*vg.Inch, vg.Length(1.5+0.55*float64(n+blank))*vg.Inch, "png")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return writeAtomic(path, buf.Bytes())
}

// ratioLabel labels the log2 tick e: 4×, 1×, 1/8×.
func ratioLabel(e float64) string {
	if e >= 0 {
		return fmt.Sprintf("%g×", math.Exp2(e))
	}
	return fmt.Sprintf("1/%g×", math.Exp2(-e))
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}

// The generated part of the benchmarks document lies between these lines.
const (
	docBegin = "<!-- BEGIN gojit bench -peers: generated, do not edit -->"
	docEnd   = "<!-- END gojit bench -peers -->"
)

// updateDoc replaces the generated part of the Markdown document at path
// with the run's table.
func updateDoc(path string, res *peerResult) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, docBegin), strings.Index(s, docEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %q ... %q section to replace", path, docBegin, docEnd)
	}
	out := s[:i] + docBegin + "\n" + markdownTable(res) + s[j:]
	return writeAtomic(path, []byte(out))
}

// markdownTable is the run as Markdown: where, what, and the table.
func markdownTable(res *peerResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nMeasured %s on %s; %s; Go %s.\n\n", res.Date, res.Machine, versions(res), runtime.Version())
	b.WriteString("| workload |")
	for _, s := range tableSystems {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString(" best peer | peer/gojit | gojit/floor |\n|---|")
	for range tableSystems {
		b.WriteString("---:|")
	}
	b.WriteString("---|---:|---:|\n")
	for _, r := range res.Rows {
		fmt.Fprintf(&b, "| %s |", r.Workload)
		for _, s := range tableSystems {
			c := fmtMs(r.Ns[s])
			if s == "gojit" {
				c = "**" + c + "**"
			}
			if n := r.Notes[s]; n != "" {
				c += " (" + n + ")"
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		ratio := fmtRatio(r.PeerRatio)
		if r.PeerRatio >= 1 {
			ratio = "**" + ratio + "**"
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n", r.BestPeer, ratio, fmtFloor(r))
	}
	fmt.Fprintf(&b, "\nEach figure is the best of %d interleaved rounds (Go: benchtime %s; Python: samples of at least 0.2 s). Threads: %d.\n\n",
		res.Rounds, res.Bench, res.Threads)
	return b.String()
}

// gojitBackend names the code generator: LLVM's version, or the
// interpreter in a build without it.
func gojitBackend() string {
	if v := gojit.LLVMVersion(); v != "" {
		return "gojit with LLVM " + v
	}
	return "gojit: " + noLLVM
}

// cpuName is the CPU's marketing name from /proc/cpuinfo, or LLVM's name
// for it, or "".
func cpuName() string {
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				return strings.Join(strings.Fields(v), " ")
			}
		}
	}
	cpu, _ := llvm.HostCPU()
	return cpu
}

// errNoPeerRows is returned when there is nothing to draw.
var errNoPeerRows = errors.New("no rows to draw")
