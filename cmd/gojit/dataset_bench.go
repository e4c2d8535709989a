package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/jpeg"
	"github.com/gojit/gojit/pipeline"
)

// pipeBenchOpts are `gojit dataset bench`'s settings.
type pipeBenchOpts struct {
	file     string
	pipeline string
	field    string
	workers  int
	batch    int
	epochs   int
	seed     int64
	json     bool
	cpus     string
	baseline bool
	progress bool // show the bar (stderr is a terminal, no --json, not CI)
}

// pipeBenchResult is one `gojit dataset bench` run; it is --json's output.
type pipeBenchResult struct {
	File       string `json:"file"`
	Pipeline   string `json:"pipeline"`
	Ops        string `json:"ops"`            // the ops as run
	Note       string `json:"note,omitempty"` // how they differ from the pipeline's definition
	Images     int    `json:"images"`         // per epoch
	Workers    int    `json:"workers"`
	Batch      int    `json:"batch"`
	Epochs     int    `json:"epochs"` // timed, after one warm-up epoch
	CPUs       string `json:"cpus,omitempty"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	JPEG       string `json:"jpeg"` // the JPEG codec of this build
	Backend    string `json:"backend"`

	// The whole pipeline, and loaders of the same file and order that stop
	// after reading the stored bytes (a decoder that only takes their
	// length) and after decoding them (ImageDecoder alone): images per
	// second of each one's best epoch.
	PerSecond       float64 `json:"images_per_s"`
	ReadPerSecond   float64 `json:"read_only_images_per_s"`
	DecodePerSecond float64 `json:"decode_only_images_per_s"`
	// Split is the time per image of each stage: the differences of the
	// three loaders' times per image (the pipeline exposes no timers).
	Split []stageTime `json:"split"`
	// Stages is the time per image by the pipeline's own timers
	// (Loader.Timings) over its best epoch: reading and the plain Go
	// stages summed over the workers, each compiled stage's calls (on the
	// engine's threads).
	Stages []stageTime `json:"stages"`

	Baseline *baselineResult `json:"baseline,omitempty"`
	// Ratio is PerSecond / Baseline.PerSecond: above 1 the pipeline is
	// faster than the op-by-op Go baseline.
	Ratio float64 `json:"ratio_to_baseline,omitempty"`

	Output outputCheck `json:"output"`
}

// stageTime is one stage's time per image, in microseconds (wall time
// divided by images: with several workers, a share of it).
type stageTime struct {
	Stage string  `json:"stage"`
	Us    float64 `json:"us"`
}

// baselineResult is the op-by-op Go baseline's figures.
type baselineResult struct {
	Desc      string  `json:"desc"`
	PerSecond float64 `json:"images_per_s"`
	// Steps is each step's time per image, summed over workers (so CPU
	// time per image, not wall time).
	Steps   []stageTime `json:"steps"`
	Checked int         `json:"checked"` // outputs checked for shape and range
}

// outputCheck is what was checked of the pipeline's output.
type outputCheck struct {
	DType   string  `json:"dtype"`
	Shape   []int   `json:"first_shape"` // the first checked sample's
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Checked int     `json:"checked"` // samples checked
}

// datasetBench is `gojit dataset bench FILE --pipeline NAME [flags]`.
func datasetBench(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("bench", "FILE [--pipeline rrc224] [--workers N] [--batch N] [--epochs E] [--json] [--cpu LIST]",
		"Measure a named pipeline over a dataset's image field in images/s, split into reading, decoding and the ops after\n"+
			"decoding, against the same pipeline written op by op in plain Go (a new buffer per step). Pin the process with taskset", stderr)
	o := pipeBenchOpts{}
	fs.StringVar(&o.pipeline, "pipeline", "rrc224", "the pipeline: "+strings.Join(pipelineNames(), ", "))
	fs.StringVar(&o.field, "field", "image", "the image field")
	fs.IntVar(&o.workers, "workers", 0, "loader workers and baseline goroutines (0: GOMAXPROCS)")
	fs.IntVar(&o.batch, "batch", 256, "batch size")
	fs.IntVar(&o.epochs, "epochs", 3, "timed epochs of each system, after one warm-up epoch; each figure is the best")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the order and the random ops")
	fs.BoolVar(&o.json, "json", false, "print machine-readable JSON")
	fs.StringVar(&o.cpus, "cpu", "", "the CPUs the process was pinned to (as given to taskset -c); recorded, and checked against the process's affinity")
	fs.BoolVar(&o.baseline, "baseline", true, "also run the op-by-op Go baseline")
	if code := parseAction(fs, args, &o.file, stderr); code >= 0 {
		return code
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "gojit dataset bench: %s\n", msg)
		fs.Usage()
		return exitUsage
	}
	switch {
	case o.workers < 0:
		return usageErr("--workers must be at least 0")
	case o.batch < 1:
		return usageErr("--batch must be at least 1")
	case o.epochs < 1:
		return usageErr("--epochs must be at least 1")
	}
	p, err := lookupPipeline(o.pipeline)
	if err != nil {
		return usageErr(err.Error())
	}
	if o.cpus != "" {
		want, err := parseCPUList(o.cpus)
		if err != nil {
			return usageErr("--cpu: " + err.Error())
		}
		if have, ok := allowedCPUs(); ok && !slices.Equal(want, have) {
			fmt.Fprintf(stderr, "gojit dataset bench: warning: --cpu %s, but the process may run on CPUs %s (pin it with taskset -c %s)\n",
				o.cpus, fmtCPUList(have), o.cpus)
		}
	}
	if o.workers == 0 {
		o.workers = runtime.GOMAXPROCS(0)
	}
	o.progress = !o.json && os.Getenv("CI") == "" && isTerminal(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := runPipeBench(ctx, o, p, stderr)
	if err != nil {
		return fail(stderr, "dataset bench", err)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fail(stderr, "dataset bench", err)
		}
		return exitOK
	}
	printPipeBench(stdout, res)
	return exitOK
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// readOnly is a decoder that only reads a field's stored bytes (the
// loader copies them out of the file) and records their length: a loader
// with it measures reading alone.
type readOnly struct{}

func (readOnly) Name() string { return "ReadOnly" }

// Decoder marks readOnly as a decoder (pipeline.Decoder).
func (readOnly) Decoder() {}

func (readOnly) Declare(in pipeline.State, _ []pipeline.State) (pipeline.Decl, error) {
	if in.Stored == nil {
		return pipeline.Decl{}, errors.New("is a decoder but its input is already decoded")
	}
	out := pipeline.State{DType: gojit.Int64, Shape: []int{}, Compilable: true}
	return pipeline.Decl{Out: out, Memory: &pipeline.Alloc{DType: gojit.Int64, Shape: []int{}}, Run: func(s *pipeline.Sample) error {
		s.Out.Int64()[0] = int64(len(s.Raw))
		return nil
	}}, nil
}

// The systems timed in each round, in order.
const (
	sysRead = iota
	sysDecode
	sysPipeline
	sysBaseline
	numSys
)

// runPipeBench measures the pipeline, the read-only and decode-only
// loaders and the baseline, one epoch of each per round after a warm-up
// round, keeping each one's best epoch.
func runPipeBench(ctx context.Context, o pipeBenchOpts, p benchPipeline, stderr io.Writer) (*pipeBenchResult, error) {
	r, err := dataset.Open(o.file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi := slices.IndexFunc(r.Schema().Fields, func(f dataset.Field) bool { return f.Name == o.field })
	if fi < 0 || r.Schema().Fields[fi].Kind != dataset.KindImage {
		return nil, fmt.Errorf("%s has no image field %q", o.file, o.field)
	}
	enc := r.Schema().Fields[fi].Image.Encoding
	want := dataset.JPEG
	if p.base.kind == baseRaw {
		want = dataset.Raw
	}
	if enc != want {
		return nil, fmt.Errorf("pipeline %s wants a field of %s images; %q holds %s", p.name, want, o.field, enc)
	}
	n := r.Len()
	res := &pipeBenchResult{
		File: o.file, Pipeline: p.name, Ops: p.desc, Note: p.note, Images: n, Workers: o.workers, Batch: o.batch, Epochs: o.epochs,
		CPUs: o.cpus, GOMAXPROCS: runtime.GOMAXPROCS(0), JPEG: jpeg.Backend, Backend: gojitBackend(),
	}
	loaders := make([]*pipeline.Loader, sysBaseline)
	for s, ops := range [][]pipeline.Op{{readOnly{}}, {pipeline.ImageDecoder()}, p.ops()} {
		l, err := pipeline.NewLoader(o.file, pipeline.Config{
			BatchSize: o.batch, Workers: o.workers, Order: pipeline.Random, Seed: o.seed, BatchesAhead: 2,
			Fields: map[string][]pipeline.Op{o.field: ops},
		})
		if err != nil {
			return nil, err
		}
		defer l.Close()
		loaders[s] = l
	}
	systems := numSys
	if !o.baseline {
		systems = sysBaseline
	}
	var bar *progressbar.ProgressBar
	if o.progress {
		bar = progressbar.NewOptions((o.epochs+1)*systems*n, progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("bench "+p.name), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("images"), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		defer bar.Close()
	}
	progress := func(k int) {
		if bar != nil {
			bar.Add(k)
		}
	}
	best := make([]time.Duration, numSys)
	var own pipeline.Timings // the pipeline's own timers over its best epoch
	var bsteps stageTimes
	var breadTime time.Duration
	base := &baselineResult{Desc: baselineDesc(p.base)}
	for round := range o.epochs + 1 {
		for s := range systems {
			var d time.Duration
			var err error
			if s == sysBaseline {
				var st stageTimes
				var read time.Duration
				d, read, err = runBaseline(ctx, r, fi, p.base, o, round, &st, base, progress)
				if round > 0 && (best[s] == 0 || d < best[s]) {
					bsteps, breadTime = st, read
				}
			} else {
				var check *outputCheck
				if s == sysPipeline {
					check = &res.Output
				}
				t0 := loaders[s].Timings()
				d, err = loaderEpoch(ctx, loaders[s], round, o.field, check, progress)
				if s == sysPipeline && round > 0 && (best[s] == 0 || d < best[s]) {
					own = timingsDelta(t0, loaders[s].Timings())
				}
			}
			if err != nil {
				return nil, err
			}
			if round > 0 && (best[s] == 0 || d < best[s]) {
				best[s] = d
			}
		}
	}
	rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() }
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	res.ReadPerSecond, res.DecodePerSecond, res.PerSecond = rate(best[sysRead]), rate(best[sysDecode]), rate(best[sysPipeline])
	res.Split = []stageTime{
		{"read", us(best[sysRead])},
		{"decode", us(best[sysDecode] - best[sysRead])},
		{"ops after decode", us(best[sysPipeline] - best[sysDecode])},
	}
	res.Stages = []stageTime{{"read", us(own.Read)}, {"plain Go stages (decoding)", us(own.Go)}}
	for i, sg := range loaders[sysPipeline].Stages() {
		if sg.Compiled {
			res.Stages = append(res.Stages, stageTime{"compiled " + strings.Join(sg.Ops, "+"), us(own.Compiled[i])})
		}
	}
	if o.baseline {
		base.PerSecond = rate(best[sysBaseline])
		base.Steps = append(base.Steps, stageTime{"read", us(breadTime)})
		for k, t := range bsteps {
			if t > 0 {
				base.Steps = append(base.Steps, stageTime{baselineStageNames[k], us(t)})
			}
		}
		res.Baseline = base
		res.Ratio = res.PerSecond / base.PerSecond
	}
	return res, nil
}

// loaderEpoch runs one epoch of l and returns its wall time; with check,
// it checks the first batch's samples (outside the timing).
func loaderEpoch(ctx context.Context, l *pipeline.Loader, epoch int, field string, check *outputCheck, progress func(int)) (time.Duration, error) {
	var checking time.Duration
	start := time.Now()
	first := true
	for b, err := range l.Epoch(ctx, epoch) {
		if err != nil {
			return 0, err
		}
		if first && check != nil {
			t := time.Now()
			if err := checkBatch(b, field, check); err != nil {
				return 0, err
			}
			checking += time.Since(t)
		}
		first = false
		progress(b.Len())
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return time.Since(start) - checking, nil
}

// checkBatch checks that every sample of b's field is float32 and within
// the range normalizing 8-bit pixels gives, and not constant.
func checkBatch(b *pipeline.Batch, field string, c *outputCheck) error {
	lo, hi := normRange()
	const tol = 1e-4
	for j := range b.Len() {
		v, ok := b.Sample(field, j)
		if !ok {
			return fmt.Errorf("batch %d has no field %q", b.Number(), field)
		}
		if v.DType != gojit.Float32 {
			return fmt.Errorf("the pipeline's output is %s, want f32", v.DType)
		}
		x := v.Float32()
		if len(x) == 0 {
			return fmt.Errorf("sample %d: empty output", b.Indices()[j])
		}
		mn, mx := slices.Min(x), slices.Max(x)
		if mn < lo-tol || mx > hi+tol || math.IsNaN(float64(mn)) || math.IsNaN(float64(mx)) {
			return fmt.Errorf("sample %d: output in [%g, %g], outside the normalized pixel range [%g, %g]", b.Indices()[j], mn, mx, lo, hi)
		}
		if mn == mx {
			return fmt.Errorf("sample %d: constant output %g", b.Indices()[j], mn)
		}
		if c.Checked == 0 {
			c.DType, c.Shape, c.Min, c.Max = v.DType.String(), slices.Clone(v.Shape), float64(mn), float64(mx)
		}
		c.Min, c.Max = min(c.Min, float64(mn)), max(c.Max, float64(mx))
		c.Checked++
	}
	return nil
}

// runBaseline runs the op-by-op baseline over every sample of the file in
// a random order (as the loader's Random order), on o.workers goroutines
// that take samples in turn, and returns the wall time and the time spent
// reading the stored bytes (summed over goroutines); it adds each step's
// time to st and checks every 16th output (outside the timing).
func runBaseline(ctx context.Context, r *dataset.Reader, field int, c baselineConfig, o pipeBenchOpts, epoch int, st *stageTimes, res *baselineResult, progress func(int)) (time.Duration, time.Duration, error) {
	n := r.Len()
	order := rand.New(rand.NewPCG(uint64(o.seed), uint64(epoch))).Perm(n)
	var (
		mu       sync.Mutex
		firstErr error
		read     time.Duration
		check    time.Duration
		wg       sync.WaitGroup
	)
	lo, hi := normRange()
	start := time.Now()
	for w := range o.workers {
		wg.Go(func() {
			var my stageTimes
			var myRead, myCheck time.Duration
			var raw []byte
			checked, done := 0, 0
			var err error
			for k := w; k < n && err == nil; k += o.workers {
				if k%64 == 0 && ctx.Err() != nil {
					err = ctx.Err()
					break
				}
				i := order[k]
				t := time.Now()
				var meta dataset.FieldMeta
				raw, meta, err = r.AppendRaw(raw[:0], i, field)
				myRead += time.Since(t)
				if err != nil {
					break
				}
				rng := rand.New(rand.NewPCG(uint64(o.seed)^uint64(i)<<20, uint64(epoch)))
				var out []float32
				out, err = c.baselineImage(raw, meta, rng, &my)
				if err != nil {
					err = fmt.Errorf("baseline: sample %d: %w", i, err)
					break
				}
				if k%16 == 0 {
					t := time.Now()
					err = checkBaselineOut(out, c.size, lo, hi)
					if err != nil {
						err = fmt.Errorf("baseline: sample %d: %w", i, err)
					}
					checked++
					myCheck += time.Since(t)
				}
				if done++; done == 32 {
					progress(done)
					done = 0
				}
			}
			progress(done)
			mu.Lock()
			defer mu.Unlock()
			for s := range st {
				st[s] += my[s]
			}
			read += myRead
			check += myCheck
			res.Checked += checked
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	d := time.Since(start) - check/time.Duration(o.workers)
	return d, read, firstErr
}

// checkBaselineOut checks a baseline output's length and range.
func checkBaselineOut(out []float32, size int, lo, hi float32) error {
	if len(out) != 3*size*size {
		return fmt.Errorf("output of %d values, want 3×%d×%d", len(out), size, size)
	}
	mn, mx := slices.Min(out), slices.Max(out)
	if mn < lo-1e-4 || mx > hi+1e-4 {
		return fmt.Errorf("output in [%g, %g], outside [%g, %g]", mn, mx, lo, hi)
	}
	return nil
}

// baselineDesc describes the baseline's steps.
func baselineDesc(c baselineConfig) string {
	tail := fmt.Sprintf("normalize to f32 (new buffer) -> CHW (new buffer), %dx%d", c.size, c.size)
	resize := "bilinear resize"
	if c.antialias {
		resize = "antialiased (triangle filter) resize"
	}
	switch c.kind {
	case baseRRC:
		return fmt.Sprintf("jpeg.Decode whole image -> random crop (scale %g..%g, ratio %.3g..%.3g; new buffer) -> %s (new buffer) -> flip(%g) -> %s",
			c.scale[0], c.scale[1], c.ratio[0], c.ratio[1], resize, c.flip, tail)
	case baseCenter:
		return fmt.Sprintf("jpeg.Decode whole image -> centre crop of %.4g of the short side (new buffer) -> %s (new buffer) -> %s", c.cropRatio, resize, tail)
	}
	return fmt.Sprintf("copy raw pixels (new buffer) -> flip(%g) -> %s", c.flip, tail)
}

// printPipeBench writes the result as text.
func printPipeBench(w io.Writer, r *pipeBenchResult) {
	fmt.Fprintf(w, "gojit dataset bench: %s, %d images, pipeline %s, %s, batch %d, best of %d epochs; GOMAXPROCS %d",
		r.File, r.Images, r.Pipeline, plural(r.Workers, "worker"), r.Batch, r.Epochs, r.GOMAXPROCS)
	if r.CPUs != "" {
		fmt.Fprintf(w, ", CPUs %s", r.CPUs)
	}
	fmt.Fprintf(w, "; %s, JPEG: %s\n", r.Backend, r.JPEG)
	fmt.Fprintf(w, "  ops: %s\n", r.Ops)
	if r.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", r.Note)
	}
	fmt.Fprintf(w, "\n  %-34s %10s %10s\n", "", "images/s", "µs/image")
	line := func(name string, rate float64) {
		fmt.Fprintf(w, "  %-34s %10.0f %10.1f\n", name, rate, 1e6/rate)
	}
	line("pipeline", r.PerSecond)
	line("  read only (loader, no decode)", r.ReadPerSecond)
	line("  decode only (ImageDecoder)", r.DecodePerSecond)
	if b := r.Baseline; b != nil {
		line("op-by-op Go baseline", b.PerSecond)
	}
	fmt.Fprintf(w, "\n  pipeline split (differences of the three loaders' wall time per image): %s\n", fmtSteps(r.Split))
	fmt.Fprintf(w, "  pipeline's own timers (per image): %s\n", fmtSteps(r.Stages))
	if b := r.Baseline; b != nil {
		fmt.Fprintf(w, "  baseline: %s\n  baseline steps (time per image summed over workers): %s\n", b.Desc, fmtSteps(b.Steps))
		fmt.Fprintf(w, "\n  pipeline / baseline: %s (above 1× the pipeline is faster)\n", fmtRatio(r.Ratio))
	}
	fmt.Fprintf(w, "  checked: %d pipeline outputs (%s, first %v, values in [%.3g, %.3g])", r.Output.Checked, r.Output.DType, r.Output.Shape, r.Output.Min, r.Output.Max)
	if b := r.Baseline; b != nil {
		fmt.Fprintf(w, ", %d baseline outputs (3×224×224-like shape and range)", b.Checked)
	}
	fmt.Fprintln(w)
}

func fmtSteps(steps []stageTime) string {
	var parts []string
	for _, s := range steps {
		parts = append(parts, fmt.Sprintf("%s %.1f µs", s.Stage, s.Us))
	}
	return strings.Join(parts, ", ")
}

// parseCPUList parses a CPU list as taskset -c takes it: "0", "0,2",
// "0-3,6", and returns the CPUs in increasing order.
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not a CPU list", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a CPU list", s)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// fmtCPUList formats CPUs as a list of ranges: 0-3,6.
func fmtCPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// allowedCPUs returns the CPUs the process may run on, from Linux's
// /proc/self/status, and false where that is not available.
func allowedCPUs() ([]int, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			cpus, err := parseCPUList(strings.TrimSpace(v))
			return cpus, err == nil
		}
	}
	return nil, false
}

// timingsDelta returns b - a.
func timingsDelta(a, b pipeline.Timings) pipeline.Timings {
	d := pipeline.Timings{Read: b.Read - a.Read, Go: b.Go - a.Go}
	for i := range b.Compiled {
		d.Compiled = append(d.Compiled, b.Compiled[i]-a.Compiled[i])
	}
	return d
}
