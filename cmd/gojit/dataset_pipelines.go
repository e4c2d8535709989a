package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojit/gojit/pipeline"
)

// This file is the one place that maps `gojit dataset bench --pipeline`
// names to the pipeline's ops. It is written with the ops package
// pipeline has today; when RandomResizedCropJPEG, CenterCropJPEG,
// RandomHorizontalFlip, the dtype-taking Normalize and ToCHW land, each
// entry becomes the definition:
//
//	rrc224: RandomResizedCropJPEG(224, [0.08 1], [3/4 4/3]), RandomHorizontalFlip(0.5),
//	        Normalize(imagenetMean, imagenetStd, gojit.Float32), ToCHW()
//	cc224:  CenterCropJPEG(224, 224/256.0), Normalize(...), ToCHW()
//	raw64:  RandomHorizontalFlip(0.5), Normalize(...), ToCHW()
//
// and its note becomes empty. The baseline (pipebaseline.go) already
// computes the definition.

// benchPipeline is one named pipeline of the image field.
type benchPipeline struct {
	name string
	// ops returns the image field's ops (a fresh list for each loader).
	ops func() []pipeline.Op
	// desc is the ops as run, for the report.
	desc string
	// note says how the ops differ from the pipeline's definition, which
	// the baseline computes ("" when they agree).
	note string
	// base is the op-by-op Go baseline of the definition.
	base baselineConfig
}

// benchPipelines lists the pipelines by name.
var benchPipelines = []benchPipeline{
	{
		name: "rrc224",
		ops: func() []pipeline.Op {
			return []pipeline.Op{pipeline.DecodeImage(), pipeline.RandomFlip(0.5), pipeline.Normalize(1, imagenetMean[:], imagenetStd[:])}
		},
		desc: "DecodeImage -> RandomFlip(0.5) -> Normalize(1, ImageNet mean/std ×255)",
		note: "stand-in until RandomResizedCropJPEG and ToCHW exist: the whole image is decoded and normalized, HWC, no crop or resize",
		base: baselineConfig{kind: baseRRC, size: 224, scale: [2]float64{0.08, 1}, ratio: [2]float64{3.0 / 4, 4.0 / 3}, flip: 0.5},
	},
	{
		name: "cc224",
		ops: func() []pipeline.Op {
			return []pipeline.Op{pipeline.DecodeImage(), pipeline.Normalize(1, imagenetMean[:], imagenetStd[:])}
		},
		desc: "DecodeImage -> Normalize(1, ImageNet mean/std ×255)",
		note: "stand-in until CenterCropJPEG and ToCHW exist: the whole image is decoded and normalized, HWC, no crop or resize",
		base: baselineConfig{kind: baseCenter, size: 224, cropRatio: 224.0 / 256},
	},
	{
		name: "raw64",
		ops: func() []pipeline.Op {
			return []pipeline.Op{pipeline.DecodeImage(), pipeline.RandomFlip(0.5), pipeline.Normalize(1, imagenetMean[:], imagenetStd[:])}
		},
		desc: "DecodeImage (raw) -> RandomFlip(0.5) -> Normalize(1, ImageNet mean/std ×255)",
		note: "stand-in until ToCHW exists: HWC output",
		base: baselineConfig{kind: baseRaw, size: 64, flip: 0.5},
	},
}

// lookupPipeline returns the pipeline called name.
func lookupPipeline(name string) (benchPipeline, error) {
	i := slices.IndexFunc(benchPipelines, func(p benchPipeline) bool { return p.name == name })
	if i < 0 {
		var names []string
		for _, p := range benchPipelines {
			names = append(names, p.name)
		}
		return benchPipeline{}, fmt.Errorf("unknown pipeline %q: want %s", name, strings.Join(names, ", "))
	}
	return benchPipelines[i], nil
}
