package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/pipeline"
)

// This file is the one place that maps the `gojit dataset bench` and
// `gojit dataset explain` pipeline names to the pipeline's ops; the
// baseline (pipebaseline.go) computes the same definitions op by op.

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

// normalizeImageNet is Normalize with ImageNet's mean and std (8-bit
// pixel units), to Float32.
func normalizeImageNet() pipeline.Op {
	return pipeline.Normalize(imagenetMean[:], imagenetStd[:], gojit.Float32)
}

// benchPipelines lists the pipelines by name.
var benchPipelines = []benchPipeline{
	{
		name: "rrc224",
		ops: func() []pipeline.Op {
			return []pipeline.Op{
				pipeline.RandomResizedCropJPEG(224, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}),
				pipeline.RandomHorizontalFlip(0.5), normalizeImageNet(), pipeline.ToCHW(),
			}
		},
		desc: "RandomResizedCropJPEG(224, [0.08 1], [3/4 4/3]) -> RandomHorizontalFlip(0.5) -> Normalize(ImageNet, Float32) -> ToCHW",
		base: baselineConfig{kind: baseRRC, size: 224, scale: [2]float64{0.08, 1}, ratio: [2]float64{3.0 / 4, 4.0 / 3}, flip: 0.5},
	},
	{
		name: "rrc224aa",
		ops: func() []pipeline.Op {
			return []pipeline.Op{
				pipeline.RandomResizedCropJPEG(224, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}, pipeline.Antialias()),
				pipeline.RandomHorizontalFlip(0.5), normalizeImageNet(), pipeline.ToCHW(),
			}
		},
		desc: "RandomResizedCropJPEG(224, [0.08 1], [3/4 4/3], Antialias()) -> RandomHorizontalFlip(0.5) -> Normalize(ImageNet, Float32) -> ToCHW",
		note: "the antialiased filter reads decoded pixels just outside the crop near its edges (as PIL's resize with a box); the baseline, like torchvision, crops first",
		base: baselineConfig{kind: baseRRC, size: 224, scale: [2]float64{0.08, 1}, ratio: [2]float64{3.0 / 4, 4.0 / 3}, flip: 0.5, antialias: true},
	},
	{
		name: "cc224",
		ops: func() []pipeline.Op {
			return []pipeline.Op{pipeline.CenterCropJPEG(224, 224.0/256), normalizeImageNet(), pipeline.ToCHW()}
		},
		desc: "CenterCropJPEG(224, 224/256) -> Normalize(ImageNet, Float32) -> ToCHW",
		base: baselineConfig{kind: baseCenter, size: 224, cropRatio: 224.0 / 256},
	},
	{
		name: "raw64",
		ops: func() []pipeline.Op {
			return []pipeline.Op{
				pipeline.RandomResizedCropJPEG(64, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}),
				pipeline.RandomHorizontalFlip(0.5), normalizeImageNet(), pipeline.ToCHW(),
			}
		},
		desc: "raw 64x64 images: RandomResizedCropJPEG(64, [0.08 1], [3/4 4/3]) -> RandomHorizontalFlip(0.5) -> Normalize(ImageNet, Float32) -> ToCHW",
		base: baselineConfig{kind: baseRaw, size: 64, scale: [2]float64{0.08, 1}, ratio: [2]float64{3.0 / 4, 4.0 / 3}, flip: 0.5},
	},
}

// pipelineNames lists the pipelines' names.
func pipelineNames() []string {
	var names []string
	for _, p := range benchPipelines {
		names = append(names, p.name)
	}
	return names
}

// lookupPipeline returns the pipeline called name.
func lookupPipeline(name string) (benchPipeline, error) {
	i := slices.IndexFunc(benchPipelines, func(p benchPipeline) bool { return p.name == name })
	if i < 0 {
		return benchPipeline{}, fmt.Errorf("unknown pipeline %q: want %s", name, strings.Join(pipelineNames(), ", "))
	}
	return benchPipelines[i], nil
}
