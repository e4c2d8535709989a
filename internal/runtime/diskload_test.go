package runtime

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
)

// layoutGraphs cover every part of a module's layout: a flat module, a
// large one with a range entry, an error slot, a matmul's scratch, and
// a Tiny module that is not flat.
var layoutGraphs = map[string]string{
	"large": largeGraph,
	"flat": `graph {
  %0 = param 0 : f32[100000]
  %1 = exp %0 : f32[100000]
  return %1
}`,
	"tiny": `graph {
  %0 = param 0 : f32[8,8]
  %1 = reduce_sum %0 axes=[1] : f32[8]
  return %1
}`,
	"index": `graph {
  %0 = param 0 : f32[1000,64]
  %1 = param 1 : i64[4000]
  %2 = take %0, %1 axes=[0] : f32[4000,64]
  %3 = iota axes=[0] : i64[1000]
  %4 = scatter_add %3, %1, %1 axes=[0] : i64[1000]
  return %2, %4
}`,
	"matmul": `graph {
  %0 = param 0 : f32[256,128]
  %1 = param 1 : f32[128,256]
  %2 = matmul %0, %1 : f32[256,256]
  %3 = const 0 : f32[256,256]
  %4 = max %2, %3 : f32[256,256]
  return %4
}`,
}

// layoutCase returns the optimized graph, plan and module of src.
func layoutCase(t *testing.T, src string) (*ir.Graph, *passes.Plan, *codegen.Module) {
	t.Helper()
	g, err := ir.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	cg, err := passes.Optimize(g, opt.Passes)
	if err != nil {
		t.Fatal(err)
	}
	plan := passes.Fuse(cg)
	mod, _, err := opt.module(plan, "gojit_test")
	if err != nil {
		t.Fatal(err)
	}
	return cg, plan, mod
}

// TestLayoutRoundTrip checks that a module's layout reads back equal to
// the module without its text, and that every truncation or byte change
// of it is an error or another valid layout, never a panic.
func TestLayoutRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for name, src := range layoutGraphs {
		t.Run(name, func(t *testing.T) {
			g, plan, mod := layoutCase(t, src)
			seen["range"] = seen["range"] || mod.RangeEntry != ""
			seen["error"] = seen["error"] || mod.ErrorSlot >= 0
			seen["scratch"] = seen["scratch"] || len(mod.Scratch) > 0
			seen["flat"] = seen["flat"] || mod.Flat && !mod.Tiny
			seen["tiny"] = seen["tiny"] || mod.Tiny && !mod.Flat
			b := encodeLayout(mod)
			got, err := decodeLayout(b, g, plan)
			if err != nil {
				t.Fatal(err)
			}
			want := *mod
			want.Text = ""
			if !reflect.DeepEqual(*got, want) {
				t.Fatalf("layout read back as %+v, want %+v", *got, want)
			}
			for n := range len(b) {
				if _, err := decodeLayout(b[:n], g, plan); err == nil {
					t.Errorf("layout cut to %d of %d bytes decoded", n, len(b))
				}
			}
			for i := range b {
				for _, x := range []byte{0x01, 0x40, 0xff} {
					c := slices.Clone(b)
					c[i] ^= x
					decodeLayout(c, g, plan) // must not panic
				}
			}
		})
	}
	for _, part := range []string{"range", "error", "scratch", "flat", "tiny"} {
		if !seen[part] {
			t.Errorf("no test module has a %s", part)
		}
	}
}

// TestLayoutCoversModule fails when codegen.Module gains a field, so
// that encodeLayout learns to carry it: a kernel loaded without
// generating its module would otherwise see the field's zero value.
func TestLayoutCoversModule(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[codegen.Module]().Fields() {
		fields = append(fields, f.Name)
	}
	want := []string{"Text", "Entry", "Slots", "RangeEntry", "Groups", "ErrorSlot", "Flat", "Tiny", "Scratch"}
	if !slices.Equal(fields, want) {
		t.Errorf("codegen.Module has fields %v; encodeLayout carries %v (and not Text)", fields, want)
	}
	var groups []string
	for f := range reflect.TypeFor[codegen.Group]().Fields() {
		groups = append(groups, f.Name)
	}
	if want := []string{"Extent", "Work", "Grain", "Nest", "Split"}; !slices.Equal(groups, want) {
		t.Errorf("codegen.Group has fields %v; encodeLayout carries %v", groups, want)
	}
	var scratch []string
	for f := range reflect.TypeFor[codegen.Scratch]().Fields() {
		scratch = append(scratch, f.Name)
	}
	if want := []string{"Bytes", "Nest"}; !slices.Equal(scratch, want) {
		t.Errorf("codegen.Scratch has fields %v; encodeLayout carries %v", scratch, want)
	}
}

// TestDiskCacheTrustedLoad plays a build that can identify itself: a
// kernel it wrote loads without generating the module (whose text
// Modules still gives), runs like the compiled one, and a build with
// another identity checks the module hash and rewrites the entry.
func TestDiskCacheTrustedLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gojit")
	if err := withConfig(t, Config{DiskDir: dir}); err != nil {
		t.Fatal(err)
	}
	defer func(f func() string) { generatorID = f }(generatorID)
	generatorID = func() string { return "test build 1" }
	g := scaledGraph(t, 7, 1000)
	e := build(t, g)
	text := e.Module.Text
	if e.FromDisk || text == "" {
		t.Fatalf("first build: FromDisk %v, %d bytes of text", e.FromDisk, len(text))
	}
	ent, err := Disk().Get(e.Signature)
	if err != nil || ent.Meta.Generator != "test build 1" || len(ent.Meta.Layout) == 0 {
		t.Fatalf("entry written as %+v, %v", ent, err)
	}

	Purge()
	e = build(t, g)
	if !e.FromDisk || e.Module.Text != "" {
		t.Fatalf("second build: FromDisk %v, %d bytes of text; want a load without generating", e.FromDisk, len(e.Module.Text))
	}
	// Modules generates the text once, safely while the kernel runs.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if m := e.Modules(); len(m) != 1 || m[0].Module.Text != text {
				t.Errorf("Modules after a load without generating: the text differs from the compiled module's")
			}
		})
	}
	if err := checkRun(t, e); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	generatorID = func() string { return "test build 2" }
	Purge()
	before := ReadStats()
	e = build(t, g)
	if after := ReadStats(); !e.FromDisk || e.Module.Text != text || after.Compiles != before.Compiles {
		t.Fatalf("another build: FromDisk %v, text equal %v, compiles +%d; want a checked load",
			e.FromDisk, e.Module.Text == text, after.Compiles-before.Compiles)
	}
	if err := checkRun(t, e); err != nil {
		t.Fatal(err)
	}
	if ent, err := Disk().Get(e.Signature); err != nil || ent.Meta.Generator != "test build 2" {
		t.Errorf("entry not rewritten with the new identity: %+v, %v", ent, err)
	}

	// An unidentified build checks, and a module hash that differs is
	// stale whatever the entry says about its writer.
	generatorID = func() string { return "" }
	ent, err = Disk().Get(e.Signature)
	if err != nil {
		t.Fatal(err)
	}
	ent.Meta.ModuleHash = "0"
	if err := Disk().Put(ent); err != nil {
		t.Fatal(err)
	}
	Purge()
	before = ReadStats()
	e = build(t, g)
	if after := ReadStats(); e.FromDisk || after.Compiles != before.Compiles+1 || after.DiskStale != before.DiskStale+1 {
		t.Fatalf("stale entry: FromDisk %v, compiles +%d, stale +%d; want a compile",
			e.FromDisk, after.Compiles-before.Compiles, after.DiskStale-before.DiskStale)
	}
	if err := checkRun(t, e); err != nil {
		t.Fatal(err)
	}
}

// TestSignatureMatchesFmt checks that Signature hashes the same bytes as
// its fmt form did, so that disk cache entries keep their keys.
func TestSignatureMatchesFmt(t *testing.T) {
	g := scaledGraph(t, 3, 64)
	for _, opt := range []Options{{OptLevel: 3}, {OptLevel: 1, FastMath: true}, {OptLevel: 2, Portable: true}} {
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00O%d\x00fast-math=%t\x00%s\x00%s\x00llvm %s\x00", Version, opt.OptLevel, opt.FastMath, opt.target(), hostIdentity(), llvm.Version())
		h.Write([]byte(ir.Print(g, false)))
		var want [32]byte
		h.Sum(want[:0])
		if got := Signature(g, opt); got != want {
			t.Errorf("Signature(%+v) = %x, want %x", opt, got[:8], want[:8])
		}
	}
}
