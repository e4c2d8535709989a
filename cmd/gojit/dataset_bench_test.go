package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/gojit/gojit/cmd/gojit/internal/synthimg"
	"github.com/gojit/gojit/internal/jpeg"
)

// synthSet writes a small set with gojit dataset synth-jpeg.
func synthSet(t *testing.T, dir string, extra ...string) {
	t.Helper()
	args := append([]string{"dataset", "synth-jpeg", dir, "--n", "12", "--size", "64", "--workers", "2"}, extra...)
	if code, out, errs := gojitRun(t, args...); code != exitOK {
		t.Fatalf("synth-jpeg exited %d:\n%s%s", code, out, errs)
	}
}

// The set is a function of the seed, every file is a valid JPEG of the
// size labels.csv gives within the promised bounds, the dataset holds the
// files' bytes, and the images are neither flat nor noise.
func TestSynthJPEG(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	synthSet(t, a, "--seed", "7")
	synthSet(t, b, "--seed", "7")
	synthSet(t, c, "--seed", "8")
	for _, name := range []string{"labels.csv", "00000.jpg", "00011.jpg", "images.gojit"} {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := os.ReadFile(filepath.Join(b, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
		if z, _ := os.ReadFile(filepath.Join(c, name)); name != "images.gojit" && bytes.Equal(x, z) {
			t.Errorf("%s is the same with another seed", name)
		}
	}
	f, err := os.Open(filepath.Join(a, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], []string{"file", "label", "width", "height"}) || len(recs) != 13 {
		t.Fatalf("labels.csv: header %v, %d lines", recs[0], len(recs))
	}
	for i, r := range recs[1:] {
		data, err := os.ReadFile(filepath.Join(a, r[0]))
		if err != nil {
			t.Fatal(err)
		}
		w, h, gray, err := jpeg.Header(data)
		if err != nil || gray {
			t.Fatalf("%s: %v (gray %v)", r[0], err, gray)
		}
		if r[2] != strconv.Itoa(w) || r[3] != strconv.Itoa(h) {
			t.Errorf("%s is %dx%d, labels.csv says %sx%s", r[0], w, h, r[2], r[3])
		}
		short, long := float64(min(w, h)), float64(max(w, h))
		if short < 64*224/256-1 || short > 64*320/256+1 || long/short > 4.0/3+0.02 {
			t.Errorf("%s is %dx%d: short side or aspect ratio out of bounds", r[0], w, h)
		}
		if lab, _ := strconv.Atoi(r[1]); lab != synthimg.Label(7, i) || lab < 0 || lab >= synthimg.Labels {
			t.Errorf("%s: label %s, want %d", r[0], r[1], synthimg.Label(7, i))
		}
		pix := make([]byte, w*h*3)
		if err := jpeg.Decode(pix, data, w, h, 3); err != nil {
			t.Fatal(err)
		}
		std, step := texture(pix, w, h)
		// Not flat: the pixels spread; not noise: neighbours are much
		// closer than two random pixels.
		if std < 15 || step > std/3 {
			t.Errorf("%s: pixel std %.1f, mean neighbour step %.1f", r[0], std, step)
		}
	}
	// The dataset's JPEG bytes are the files' (synth-jpeg checks all of
	// them; check that the check catches a difference).
	if err := os.WriteFile(filepath.Join(a, "00003.jpg"), []byte("not the same"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkSynthBytes(filepath.Join(a, "images.gojit"), a); err == nil {
		t.Error("a file that differs from the dataset's bytes went unnoticed")
	}
}

// texture returns the standard deviation of the pixel values and the
// mean absolute difference between horizontal neighbours.
func texture(pix []byte, w, h int) (std, step float64) {
	var s, s2, d float64
	for i, v := range pix {
		s += float64(v)
		s2 += float64(v) * float64(v)
		if i%(w*3) >= 3 {
			d += math.Abs(float64(v) - float64(pix[i-3]))
		}
	}
	n := float64(len(pix))
	return math.Sqrt(s2/n - (s/n)*(s/n)), d / float64(h*(w-1)*3)
}

func TestDatasetBenchJSON(t *testing.T) {
	dir := t.TempDir()
	synthSet(t, dir)
	for _, p := range []string{"rrc224", "rrc224aa", "cc224"} {
		code, out, errs := gojitRun(t, "dataset", "bench", filepath.Join(dir, "images.gojit"), "--pipeline", p,
			"--workers", "2", "--batch", "5", "--epochs", "1", "--json")
		if code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", p, code, errs)
		}
		var r pipeBenchResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		if r.Pipeline != p || r.Images != 12 || r.Workers != 2 || r.PerSecond <= 0 || r.ReadPerSecond <= 0 || r.DecodePerSecond <= 0 || len(r.Split) != 3 {
			t.Errorf("%s: %+v", p, r)
		}
		// The first batch of the warm-up epoch and of the timed one.
		if r.Output.Checked != 2*5 || r.Output.DType != "f32" || len(r.Output.Shape) != 3 {
			t.Errorf("%s: output check %+v", p, r.Output)
		}
		if r.Baseline == nil || r.Baseline.PerSecond <= 0 || r.Baseline.Checked == 0 || r.Ratio <= 0 {
			t.Fatalf("%s: baseline %+v, ratio %v", p, r.Baseline, r.Ratio)
		}
		want := []string{"read", "decode", "crop", "resize", "normalize", "chw"}
		if p != "cc224" {
			want = slices.Insert(want, 4, "flip")
		}
		var got []string
		for _, s := range r.Baseline.Steps {
			got = append(got, s.Stage)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: baseline steps %v, want %v", p, got, want)
		}
	}
	code, out, errs := gojitRun(t, "dataset", "bench", filepath.Join(dir, "images.gojit"), "--epochs", "1", "--workers", "1", "--batch", "4")
	if code != exitOK {
		t.Fatalf("text output: exit %d:\n%s", code, errs)
	}
	wantContains(t, "text output", out, "pipeline / baseline", "read only", "decode only", "op-by-op Go baseline", "checked: 8 pipeline outputs")

	raw := t.TempDir()
	synthSet(t, raw, "--encoding", "raw", "--exact")
	code, out, errs = gojitRun(t, "dataset", "bench", filepath.Join(raw, "images.gojit"), "--pipeline", "raw64", "--epochs", "1", "--batch", "4", "--json")
	if code != exitOK {
		t.Fatalf("raw64: exit %d:\n%s", code, errs)
	}
	var r pipeBenchResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Baseline == nil || !slices.Equal(r.Output.Shape, []int{3, 64, 64}) {
		t.Errorf("raw64: %v, %+v", err, r)
	}
	code, _, errs = gojitRun(t, "dataset", "bench", filepath.Join(raw, "images.gojit"), "--pipeline", "rrc224", "--epochs", "1")
	if code != exitFail {
		t.Errorf("rrc224 on raw images: exit %d, want %d", code, exitFail)
	}
	wantContains(t, "stderr", errs, "wants a field of jpeg images")
}

func TestDatasetBenchFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"x.gojit", "--pipeline", "nope"}, `unknown pipeline "nope": want rrc224, rrc224aa, cc224, raw64`},
		{[]string{"x.gojit", "--epochs", "0"}, "--epochs must be at least 1"},
		{[]string{"x.gojit", "--batch", "0"}, "--batch must be at least 1"},
		{[]string{"x.gojit", "--workers", "-1"}, "--workers must be at least 0"},
		{[]string{"x.gojit", "--cpu", "1-0"}, `--cpu: "1-0" is not a CPU list`},
		{[]string{}, "want exactly one dataset file"},
	} {
		code, _, errs := gojitRun(t, append([]string{"dataset", "bench"}, c.args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitUsage)
		}
		wantContains(t, "stderr", errs, c.want)
	}
	code, _, errs := gojitRun(t, "dataset", "bench", filepath.Join(t.TempDir(), "missing.gojit"))
	if code != exitFail {
		t.Errorf("missing file: exit %d, want %d", code, exitFail)
	}
	wantContains(t, "stderr", errs, "missing.gojit")
	for _, bad := range [][]string{{"d", "--n", "0"}, {"d", "--quality", "101"}, {"d", "--encoding", "png"}} {
		if code, _, _ := gojitRun(t, append([]string{"dataset", "synth-jpeg"}, bad...)...); code != exitUsage {
			t.Errorf("synth-jpeg %v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

func TestCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		back string
	}{
		{"0", []int{0}, "0"},
		{"0,1", []int{0, 1}, "0-1"},
		{"3,0-2,7", []int{0, 1, 2, 3, 7}, "0-3,7"},
		{"1,1", []int{1}, "1"},
	} {
		got, err := parseCPUList(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if s := fmtCPUList(got); s != c.back {
			t.Errorf("fmtCPUList(%v) = %q, want %q", got, s, c.back)
		}
	}
	for _, bad := range []string{"", "a", "-1", "2-1", "0,,1"} {
		if _, err := parseCPUList(bad); err == nil {
			t.Errorf("parseCPUList(%q) gave no error", bad)
		}
	}
}

// Every named pipeline declares with a JPEG or raw image field, and its
// baseline config matches the name.
func TestBenchPipelines(t *testing.T) {
	for _, p := range benchPipelines {
		if len(p.ops()) == 0 || p.desc == "" || p.base.size == 0 {
			t.Errorf("%s: incomplete entry", p.name)
		}
		if _, err := lookupPipeline(p.name); err != nil {
			t.Error(err)
		}
	}
	if _, err := lookupPipeline("rrc"); err == nil {
		t.Error("lookupPipeline(rrc) found something")
	}
}
