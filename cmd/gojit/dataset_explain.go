package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/pipeline"
)

// pipelineFields maps the file's fields to a named pipeline's ops: the
// image field (the named one, or the file's only image field) gets the
// pipeline, the Int and Float fields their decoders.
func pipelineFields(r *dataset.Reader, name, field string) (map[string][]pipeline.Op, string, error) {
	bp, err := lookupPipeline(name)
	if err != nil {
		return nil, "", err
	}
	ops := bp.ops()
	s := r.Schema()
	if field == "" {
		for _, f := range s.Fields {
			if f.Kind == dataset.KindImage {
				if field != "" {
					return nil, "", fmt.Errorf("the file has several image fields (%q, %q): choose one with --field", field, f.Name)
				}
				field = f.Name
			}
		}
		if field == "" {
			return nil, "", fmt.Errorf("the file has no image field")
		}
	} else if i, ok := s.Index(field); !ok || s.Fields[i].Kind != dataset.KindImage {
		return nil, "", fmt.Errorf("--field %q is not an image field of the file", field)
	}
	fields := map[string][]pipeline.Op{field: ops}
	for _, f := range s.Fields {
		if f.Kind == dataset.KindInt || f.Kind == dataset.KindFloat {
			fields[f.Name] = nil
		}
	}
	return fields, field, nil
}

// datasetExplain is `gojit dataset explain FILE --pipeline NAME`.
func datasetExplain(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("explain", "FILE --pipeline NAME [--field F] [--batch N] [--stage K] [--show LIST]",
		"Print how a pipeline runs on a dataset file: its stages, plain Go and compiled, and each compiled stage's code", stderr)
	name := fs.String("pipeline", "rrc224", "the pipeline: "+strings.Join(pipelineNames(), ", "))
	field := fs.String("field", "", "the image field (default: the file's only image field)")
	batch := fs.Int("batch", 256, "the batch size the stages are compiled for")
	only := fs.Int("stage", -1, "show only this stage (its index in the list)")
	show := fs.String("show", "plan,fused", "what to show of a compiled stage: plan, traced, fused, llvm, optimized, asm, or all")
	var file string
	if code := parseAction(fs, args, &file, stderr); code >= 0 {
		return code
	}
	parts := map[string]bool{}
	for _, p := range strings.Split(*show, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains([]string{"plan", "traced", "fused", "llvm", "optimized", "asm", "all"}, p) {
			fmt.Fprintf(stderr, "gojit dataset explain: --show %q: want plan, traced, fused, llvm, optimized, asm or all\n", p)
			return exitUsage
		}
		parts[p] = true
	}
	r, err := dataset.Open(file)
	if err != nil {
		return fail(stderr, "dataset explain", err)
	}
	fields, _, err := pipelineFields(r, *name, *field)
	r.Close()
	if err != nil {
		return fail(stderr, "dataset explain", err)
	}
	l, err := pipeline.NewLoader(file, pipeline.Config{BatchSize: *batch, Workers: 1, Fields: fields})
	if err != nil {
		return fail(stderr, "dataset explain", err)
	}
	defer l.Close()
	stages := l.Stages()
	bp, _ := lookupPipeline(*name)
	fmt.Fprintf(stdout, "%s, pipeline %s (%s), batches of %d: %d stages\n", file, *name, bp.desc, *batch, len(stages))
	for _, sg := range stages {
		kind := "plain Go"
		if sg.Compiled {
			kind = "compiled"
		}
		fmt.Fprintf(stdout, "  stage %d  pass %d  %-8s  field %q: %s\n", sg.Index, sg.Pass, kind, sg.Field, strings.Join(sg.Ops, " -> "))
		for _, n := range sg.Notes {
			fmt.Fprintf(stdout, "    note: %s\n", n)
		}
	}
	for _, sg := range stages {
		if *only >= 0 && sg.Index != *only {
			continue
		}
		if *only < 0 && !sg.Compiled {
			continue
		}
		c, err := l.Code(sg.Index)
		if err != nil {
			return fail(stderr, "dataset explain", err)
		}
		fmt.Fprintf(stdout, "\n==== stage %d\n", sg.Index)
		if parts["plan"] || parts["all"] {
			fmt.Fprint(stdout, c.Plan)
		}
		if c.Lowered == nil {
			continue
		}
		for _, p := range []struct {
			key, title, text string
		}{
			{"traced", "traced graph", c.Traced},
			{"fused", "fused graph and loops", c.Fused},
			{"llvm", "LLVM IR", c.LLVM},
			{"optimized", "optimized LLVM IR", c.Optimized},
			{"asm", "assembly", c.Assembly},
		} {
			if parts[p.key] || parts["all"] {
				fmt.Fprintf(stdout, "\n---- %s\n%s\n", p.title, strings.TrimRight(p.text, "\n"))
			}
		}
		fmt.Fprintf(stdout, "\ncompiled in %v; %d bytes of temporaries per call\n", c.CompileTime.Round(1e5), c.TempBytes)
	}
	return exitOK
}
