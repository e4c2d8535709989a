package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	_ "image/gif" // image formats --from-images reads
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// datasetFlags is `gojit dataset write|info|verify`: the action comes
// first and has its own flags.
func datasetFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(fs.Output(), `
Actions:

  write   --from-images DIR --labels FILE.csv --out FILE [--max-res N] [--quality Q] [--workers N]
          --from-npy X.npy [--labels Y.npy] --out FILE
  info    FILE [--json]
  verify  FILE
  explain FILE --pipeline rrc224|rrc224aa|cc224|raw64 [--field F] [--stage K] [--show plan,fused,llvm,asm,...]
  synth-jpeg  DIR [--n N] [--size 256] [--quality 90] [--seed S]
  bench   FILE [--pipeline rrc224|rrc224aa|cc224|raw64] [--workers N] [--batch N] [--epochs E] [--json] [--cpu LIST]
  peers   DIR [--python P] [--rounds R]   (the Python peers of bench, as JSON)
  peers-table  RESULT.json... [--doc FILE] [--json]

Run 'gojit dataset <action> -h' for an action's flags.
`)
	}
	return func() int {
		args := fs.Args()
		if len(args) == 0 {
			fmt.Fprintln(stderr, "gojit dataset: missing action: write, info, verify, explain, synth-jpeg, bench, peers or peers-table")
			fs.Usage()
			return exitUsage
		}
		switch args[0] {
		case "write":
			return datasetWrite(args[1:], stdout, stderr)
		case "info":
			return datasetInfo(args[1:], stdout, stderr)
		case "verify":
			return datasetVerify(args[1:], stdout, stderr)
		case "explain":
			return datasetExplain(args[1:], stdout, stderr)
		case "synth-jpeg":
			return datasetSynth(args[1:], stdout, stderr)
		case "bench":
			return datasetBench(args[1:], stdout, stderr)
		case "peers":
			return datasetPeers(args[1:], stdout, stderr)
		case "peers-table":
			return datasetPeersTable(args[1:], stdout, stderr)
		}
		fmt.Fprintf(stderr, "gojit dataset: unknown action %q: want write, info, verify, explain, synth-jpeg, bench, peers or peers-table\n", args[0])
		return exitUsage
	}
}

// actionFlags returns the flag set of `gojit dataset <action>`.
func actionFlags(action, synopsis, summary string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gojit dataset "+action, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: gojit dataset %s %s\n\n%s.\n\nFlags:\n", action, synopsis, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parseAction parses args, accepting one positional argument (the file)
// before or among the flags when file is not nil. It returns -1 to go on,
// or the exit status to stop with (-h or a usage error).
func parseAction(fs *flag.FlagSet, args []string, file *string, stderr io.Writer) int {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return exitOK
			}
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case file == nil && len(pos) > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), pos[0])
	case file != nil && len(pos) != 1:
		fmt.Fprintf(stderr, "%s: want exactly one dataset file, got %d arguments\n", fs.Name(), len(pos))
	default:
		if file != nil {
			*file = pos[0]
		}
		return -1
	}
	fs.Usage()
	return exitUsage
}

func datasetWrite(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("write", "(--from-images DIR --labels FILE.csv | --from-npy X.npy [--labels Y.npy]) --out FILE [flags]",
		"Write a dataset file from a directory of images listed in a CSV file (columns file,label), or from .npy arrays", stderr)
	images := fs.String("from-images", "", "directory of images (PNG, JPEG, GIF, BMP, TIFF, WebP)")
	npy := fs.String("from-npy", "", ".npy file of samples: one sample per index of the first axis")
	labels := fs.String("labels", "", "labels: a CSV file with a header and columns file,label (with --from-images) or a .npy file (with --from-npy)")
	out := fs.String("out", "", "the dataset file to write")
	maxRes := fs.Int("max-res", 0, "downscale images whose longer side exceeds N pixels (0: keep)")
	quality := fs.Int("quality", 90, "JPEG quality, 1 to 100")
	encoding := fs.String("encoding", "jpeg", "image encoding: jpeg or raw")
	workers := fs.Int("workers", 0, "encoding workers (0: one per CPU)")
	pageSize := fs.Int("page-size", dataset.DefaultPageSize, "page size in bytes, a power of two")
	if code := parseAction(fs, args, nil, stderr); code >= 0 {
		return code
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "gojit dataset write: %s\n", msg)
		fs.Usage()
		return exitUsage
	}
	switch {
	case *out == "":
		return usageErr("--out is required")
	case (*images == "") == (*npy == ""):
		return usageErr("give exactly one of --from-images and --from-npy")
	case *images != "" && *labels == "":
		return usageErr("--from-images needs --labels FILE.csv")
	case *encoding != "jpeg" && *encoding != "raw":
		return usageErr(fmt.Sprintf("--encoding %q: want jpeg or raw", *encoding))
	case *workers < 0:
		return usageErr("--workers must be at least 0")
	}
	opts := []dataset.WriteOption{dataset.WithPageSize(*pageSize), dataset.WithProgress(true)}
	if *workers > 0 {
		opts = append(opts, dataset.WithWorkers(*workers))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var n int
	var err error
	if *images != "" {
		enc := dataset.JPEG
		if *encoding == "raw" {
			enc = dataset.Raw
		}
		opt := dataset.ImageOptions{Encoding: enc, MaxRes: *maxRes, Quality: *quality}
		n, err = writeFromImages(ctx, *images, *labels, *out, opt, opts)
	} else {
		n, err = writeFromNPY(ctx, *npy, *labels, *out, opts)
	}
	if err != nil {
		return fail(stderr, "dataset write", err)
	}
	fmt.Fprintf(stdout, "wrote %d samples to %s\n", n, *out)
	return exitOK
}

// imageRow is one line of the labels CSV.
type imageRow struct {
	file  string
	label int64
	line  int
}

// readLabelsCSV reads a CSV with a header naming the columns file and
// label (others are ignored); every file must exist under dir.
func readLabelsCSV(path, dir string) ([]imageRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: reading the header: %v", path, err)
	}
	fileCol, labelCol := -1, -1
	for i, h := range head {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) {
		case "file":
			fileCol = i
		case "label":
			labelCol = i
		}
	}
	if fileCol < 0 || labelCol < 0 {
		return nil, fmt.Errorf("%s:1: the header %q must name the columns file and label", path, strings.Join(head, ","))
	}
	var rows []imageRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if len(rec) <= max(fileCol, labelCol) {
			return nil, fmt.Errorf("%s:%d: %d columns, the header has %d", path, line, len(rec), len(head))
		}
		label, err := strconv.ParseInt(strings.TrimSpace(rec[labelCol]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: label %q is not an integer", path, line, rec[labelCol])
		}
		name := strings.TrimSpace(rec[fileCol])
		full := filepath.Join(dir, name)
		if st, err := os.Stat(full); err != nil {
			return nil, fmt.Errorf("%s:%d: image %s: %v", path, line, name, errors.Unwrap(err))
		} else if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s:%d: image %s is not a regular file", path, line, name)
		}
		rows = append(rows, imageRow{file: full, label: label, line: line})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows after the header", path)
	}
	return rows, nil
}

func writeFromImages(ctx context.Context, dir, labels, out string, opt dataset.ImageOptions, opts []dataset.WriteOption) (int, error) {
	rows, err := readLabelsCSV(labels, dir)
	if err != nil {
		return 0, err
	}
	schema := dataset.Schema{Fields: []dataset.Field{dataset.Image("image", opt), dataset.Int("label")}}
	w, err := dataset.Create(out, schema, append(opts, dataset.WithTotal(len(rows)))...)
	if err != nil {
		return 0, err
	}
	samples := func(yield func(int, dataset.Sample) bool) {
		for i, r := range rows {
			load := func() (image.Image, error) {
				f, err := os.Open(r.file)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %v", labels, r.line, err)
				}
				defer f.Close()
				img, _, err := image.Decode(f)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: image %s does not decode: %v", labels, r.line, r.file, err)
				}
				return img, nil
			}
			if !yield(i, dataset.Sample{"image": load, "label": r.label}) {
				return
			}
		}
	}
	if err := w.Write(ctx, samples); err != nil {
		w.Close()
		return 0, err
	}
	return len(rows), w.Close()
}

func writeFromNPY(ctx context.Context, xPath, yPath, out string, opts []dataset.WriteOption) (int, error) {
	x, err := readNPY(xPath)
	if err != nil {
		return 0, err
	}
	if len(x.shape) == 0 {
		return 0, fmt.Errorf("%s: a 0-dimensional array has no samples", xPath)
	}
	n := x.shape[0]
	fields := []dataset.Field{dataset.NDArray("x", x.dtype, x.shape[1:]...)}
	var y *npyArray
	if yPath != "" {
		if y, err = readNPY(yPath); err != nil {
			return 0, err
		}
		if len(y.shape) == 0 || y.shape[0] != n {
			return 0, fmt.Errorf("%s: shape %v, want %d labels (the first axis of %s)", yPath, y.shape, n, xPath)
		}
		switch {
		case len(y.shape) == 1 && (y.dtype == gojit.Int32 || y.dtype == gojit.Int64 || y.dtype == gojit.Uint8):
			fields = append(fields, dataset.Int("label"))
		case len(y.shape) == 1 && y.dtype.IsFloat():
			fields = append(fields, dataset.Float("label"))
		default:
			fields = append(fields, dataset.NDArray("label", y.dtype, y.shape[1:]...))
		}
	}
	w, err := dataset.Create(out, dataset.Schema{Fields: fields}, append(opts, dataset.WithTotal(n))...)
	if err != nil {
		return 0, err
	}
	samples := func(yield func(int, dataset.Sample) bool) {
		for i := range n {
			s := dataset.Sample{"x": x.at(i)}
			if y != nil {
				switch fields[1].Kind {
				case dataset.KindInt:
					s["label"] = y.intAt(i)
				case dataset.KindFloat:
					s["label"] = y.floatAt(i)
				default:
					s["label"] = y.at(i)
				}
			}
			if !yield(i, s) {
				return
			}
		}
	}
	if err := w.Write(ctx, samples); err != nil {
		w.Close()
		return 0, err
	}
	return n, w.Close()
}

// datasetInfo is `gojit dataset info FILE [--json]`.
func datasetInfo(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("info", "FILE [--json]", "Describe a dataset file: samples, pages, fields", stderr)
	asJSON := fs.Bool("json", false, "print machine-readable JSON")
	var file string
	if code := parseAction(fs, args, &file, stderr); code >= 0 {
		return code
	}
	r, err := dataset.Open(file)
	if err != nil {
		return fail(stderr, "dataset info", err)
	}
	defer r.Close()
	st, err := os.Stat(file)
	if err != nil {
		return fail(stderr, "dataset info", err)
	}
	type fieldInfo struct {
		Name     string `json:"name"`
		Kind     string `json:"kind"`
		DType    string `json:"dtype,omitempty"`
		Shape    []int  `json:"shape,omitempty"`
		Variable bool   `json:"variable,omitempty"`
		Encoding string `json:"encoding,omitempty"`
		Channels int    `json:"channels,omitempty"`
		MaxRes   int    `json:"max_res,omitempty"`
		Quality  int    `json:"quality,omitempty"`
		// The largest value over the samples, as the file records it:
		// an image's [height, width, channels] or a Bytes or JSON field's
		// [bytes], and the largest stored bytes of one sample.
		MaxShape []int `json:"max_shape,omitempty"`
		MaxBytes int   `json:"max_bytes,omitempty"`
	}
	info := struct {
		Path     string      `json:"path"`
		Version  int         `json:"version"`
		Samples  int         `json:"samples"`
		PageSize int         `json:"page_size"`
		Pages    int         `json:"pages"`
		Bytes    int64       `json:"bytes"`
		Fields   []fieldInfo `json:"fields"`
	}{file, dataset.Version, r.Len(), r.PageSize(), r.NumPages(), st.Size(), nil}
	for i, f := range r.Schema().Fields {
		fi := fieldInfo{Name: f.Name, Kind: f.Kind.String()}
		if k := f.Kind; k == dataset.KindBytes || k == dataset.KindJSON || k == dataset.KindImage {
			m := r.Maxima(i)
			fi.MaxShape, fi.MaxBytes = m.Shape, m.Size
		}
		switch f.Kind {
		case dataset.KindNDArray:
			fi.DType, fi.Shape, fi.Variable = f.DType.String(), f.Shape, f.Variable
			if fi.Shape == nil {
				fi.Shape = []int{}
			}
		case dataset.KindImage:
			fi.Encoding, fi.Channels, fi.MaxRes = f.Image.Encoding.String(), f.Image.Channels, f.Image.MaxRes
			if f.Image.Encoding == dataset.JPEG {
				fi.Quality = f.Image.Quality
			}
		}
		info.Fields = append(info.Fields, fi)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			return fail(stderr, "dataset info", err)
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: gojit dataset, format version %d\n", file, info.Version)
	fmt.Fprintf(stdout, "samples    %d\npages      %d of %d bytes\nfile size  %d bytes\nfields:\n", info.Samples, info.Pages, info.PageSize, info.Bytes)
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	for i, f := range r.Schema().Fields {
		desc := strings.TrimSpace(strings.TrimPrefix(f.String(), fmt.Sprintf("%s %q", f.Kind, f.Name)))
		line := fmt.Sprintf("  %s\t%s\t%s", f.Name, f.Kind, desc)
		if m := info.Fields[i]; m.MaxShape != nil {
			line += fmt.Sprintf("\tlargest %v, %d bytes", m.MaxShape, m.MaxBytes)
		}
		fmt.Fprintln(tw, strings.TrimRight(line, "\t"))
	}
	tw.Flush()
	return exitOK
}

// datasetVerify is `gojit dataset verify FILE`.
func datasetVerify(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("verify", "FILE", "Check a dataset file: header, tables, every page's checksum, every sample's fields", stderr)
	maxProblems := fs.Int("max-problems", 20, "stop after this many problems")
	var file string
	if code := parseAction(fs, args, &file, stderr); code >= 0 {
		return code
	}
	r, err := dataset.Open(file)
	if err != nil {
		return fail(stderr, "dataset verify", err)
	}
	defer r.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := r.Verify(ctx, *maxProblems); err != nil {
		fmt.Fprintf(stderr, "gojit dataset verify: %s is damaged:\n", file)
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "  %s\n", line)
		}
		return exitFail
	}
	fmt.Fprintf(stdout, "%s: ok (%s, %s verified)\n", file, plural(r.Len(), "sample"), plural(r.NumPages(), "page"))
	return exitOK
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
