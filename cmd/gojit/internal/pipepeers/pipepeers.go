// Package pipepeers runs the Python peers of `gojit dataset bench`
// (torchvision with PIL, OpenCV with NumPy, and PIL's and OpenCV's JPEG
// decoders alone) over a directory of JPEGs written by `gojit dataset
// synth-jpeg`, in one Python process, and returns their figures.
package pipepeers

import (
	"context"
	_ "embed" // for Script
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gojit/gojit/internal/bench"
)

// Script is pipe_peers.py, embedded so that the gojit command runs it from
// any directory.
//
//go:embed pipe_peers.py
var Script []byte

// Spec is what the script reads on stdin.
type Spec struct {
	Dir    string `json:"dir"`    // holds labels.csv and the JPEGs it lists
	Rounds int    `json:"rounds"` // timed rounds; each figure is the best
	Check  int    `json:"check"`  // images whose outputs are checked before timing
}

// Report is what the script writes on stdout.
type Report struct {
	Python      string           `json:"python"`
	NumPy       string           `json:"numpy"`
	Torch       string           `json:"torch"`
	Torchvision string           `json:"torchvision"`
	PIL         string           `json:"pil"`
	OpenCV      string           `json:"opencv"`
	CPUs        []int            `json:"cpus"` // the process's affinity
	Images      int              `json:"images"`
	Results     []Result         `json:"results"`
	Checks      map[string]Check `json:"checks"`
	Error       string           `json:"error,omitempty"`
}

// Result is one system's figure.
type Result struct {
	System    string  `json:"system"`   // torchvision+PIL, OpenCV+NumPy, PIL decode, OpenCV decode
	Pipeline  string  `json:"pipeline"` // rrc224 or decode
	PerSecond float64 `json:"images_per_s"`
	Rounds    int     `json:"rounds"`
}

// Check is what the script checked of one system or pair of systems
// before timing (the fields that apply).
type Check struct {
	Checked     int     `json:"checked"`
	Shape       []int   `json:"shape,omitempty"`
	DType       string  `json:"dtype,omitempty"`
	Min         float64 `json:"min,omitempty"`
	Max         float64 `json:"max,omitempty"`
	DecodeDiff  float64 `json:"max_mean_abs_diff_levels,omitempty"`
	ChannelDiff float64 `json:"max_channel_mean_diff,omitempty"`
}

// ErrMissing is returned (wrapped) when the interpreter or one of its
// modules is missing.
var ErrMissing = errors.New("install them with `make bench-peers-pipeline`, or: apt-get install python3-torchvision python3-opencv python3-pil python3-numpy")

// CheckPython reports whether python can import torchvision, OpenCV, PIL and
// NumPy, with an error saying what to install when it cannot.
func CheckPython(ctx context.Context, python string) error {
	return bench.CheckImports(ctx, "pipeline peers", python, []string{"torchvision", "cv2", "PIL", "numpy"}, ErrMissing)
}

// Run runs the script under python with spec, copying its progress to
// progress, and returns its report; a report with an Error, or without
// the four systems, is an error.
func Run(ctx context.Context, python string, spec Spec, progress io.Writer) (*Report, error) {
	if err := CheckPython(ctx, python); err != nil {
		return nil, err
	}
	out, runErr := bench.RunScript(ctx, python, "pipe_peers.py", Script, spec, progress)
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("pipeline peers: %s: %w", python, runErr)
		}
		return nil, fmt.Errorf("pipeline peers: reading the report: %v", err)
	}
	if rep.Error != "" {
		return nil, fmt.Errorf("pipeline peers: %s", rep.Error)
	}
	if runErr != nil {
		return nil, fmt.Errorf("pipeline peers: %s: %w", python, runErr)
	}
	if len(rep.Results) != 4 {
		return nil, fmt.Errorf("pipeline peers: %d results, want 4", len(rep.Results))
	}
	return &rep, nil
}
