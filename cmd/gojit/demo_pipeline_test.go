package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDemoPipeline: the demo's dataset part writes, loads and checks every
// sample, and its report says so.
func TestDemoPipeline(t *testing.T) {
	d, err := demoPipeline(300)
	if err != nil {
		t.Fatal(err)
	}
	if !d.ok() || d.Checked != 300 || d.Batches != 5 {
		t.Fatalf("demo pipeline: %+v; want 300 samples checked in 5 batches, none wrong or missing", d)
	}
	var out bytes.Buffer
	printPipelineDemo(&out, d)
	if !strings.Contains(out.String(), "every image and label as written") {
		t.Fatalf("report:\n%s", out.String())
	}
	d.Bad = 1
	out.Reset()
	printPipelineDemo(&out, d)
	if d.ok() || !strings.Contains(out.String(), "MISMATCH: 1 wrong") {
		t.Fatalf("a wrong sample is not reported:\n%s", out.String())
	}
}
