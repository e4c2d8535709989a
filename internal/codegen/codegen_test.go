package codegen_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

var update = flag.Bool("update", false, "rewrite the golden .ll files under testdata/")

// goldenCases are graphs whose generated LLVM IR is pinned in
// testdata/NAME.ll, so any change to the emitted code shows up in review.
var goldenCases = map[string]string{
	"chain": `graph {
  %0 = param 0 : f32[1024]
  %1 = param 1 : f32[1024]
  %2 = add %0, %1 : f32[1024]
  %3 = mul %2, %0 : f32[1024]
  %4 = const 0.5 : f32[1024]
  %5 = mul %1, %4 : f32[1024]
  %6 = sub %3, %5 : f32[1024]
  %7 = const 0 : f32[1024]
  %8 = max %6, %7 : f32[1024]
  return %8
}`,
	"broadcast_reduce": `graph {
  %0 = param 0 : f32[4,8]
  %1 = param 1 : f32[8]
  %2 = broadcast %1 : f32[4,8]
  %3 = add %0, %2 : f32[4,8]
  %4 = exp %3 : f32[4,8]
  %5 = reduce_sum %4 axes=[1] : f32[4]
  return %5
}`,
	"argmax_int_div": `graph {
  %0 = param 0 : i32[3,5]
  %1 = param 1 : i32[3,5]
  %2 = div %0, %1 : i32[3,5]
  %3 = argmax %2 axes=[1] : i64[3]
  return %3
}`,
	"layout": `graph {
  %0 = param 0 : f64[2,3]
  %1 = transpose %0 axes=[1,0] : f64[3,2]
  %2 = slice %1 starts=[1,0] steps=[1,1] : f64[2,2]
  %3 = concat %2, %2 axes=[0] : f64[4,2]
  %4 = reshape %3 : f64[8]
  %5 = iota axes=[0] : f64[8]
  %6 = add %4, %5 : f64[8]
  return %6
}`,
	"col_sum": `graph {
  %0 = param 0 : f32[6,4,8]
  %1 = reduce_sum %0 axes=[1] : f32[6,8]
  %2 = reduce_max %0 axes=[0] : f32[4,8]
  return %1, %2
}`,
	"softmax_nest": `graph {
  %0 = param 0 : f32[16,8]
  %1 = reduce_max %0 axes=[1] : f32[16]
  %2 = reshape %1 : f32[16,1]
  %3 = broadcast %2 : f32[16,8]
  %4 = sub %0, %3 : f32[16,8]
  %5 = exp %4 : f32[16,8]
  %6 = reduce_sum %5 axes=[1] : f32[16]
  %7 = reshape %6 : f32[16,1]
  %8 = broadcast %7 : f32[16,8]
  %9 = div %5, %8 : f32[16,8]
  return %9
}`,
	// Large enough to stream its output (stream.go): an aligned head
	// loop, tiles copied out with non-temporal stores, a tail loop.
	"stream_large": `graph {
  %0 = param 0 : f32[1048576]
  %1 = param 1 : f32[1048576]
  %2 = add %0, %1 : f32[1048576]
  return %2
}`,
	// Long rows summed SumRows.Rows at a time (reduce_rows.go), with a
	// producer fused in and rows left over after the blocks of 4.
	"row_sum_rows": `graph {
  %0 = param 0 : f32[2,3,300]
  %1 = param 1 : f32[300]
  %2 = broadcast %1 : f32[2,3,300]
  %3 = mul %0, %2 : f32[2,3,300]
  %4 = reduce_sum %3 axes=[2] : f32[2,3]
  return %4
}`,
	"matmul_cast": `graph {
  %0 = param 0 : f32[2,3,4]
  %1 = param 1 : f32[2,4,5]
  %2 = matmul %0, %1 : f32[2,3,5]
  %3 = cast %2 : u8[2,3,5]
  %4 = param 2 : bool[2,3,5]
  %5 = cast %4 : f32[2,3,5]
  %6 = where %4, %2, %5 : f32[2,3,5]
  return %3, %6
}`,
}

// checkGolden compares text with testdata/NAME.ll, or rewrites that file
// under -update.
func checkGolden(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", name+".ll")
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/codegen -update to create it)", err)
	}
	if text != string(want) {
		t.Errorf("generated IR differs from %s (run with -update if the change is intended):\n%s", path, firstDiff(string(want), text))
	}
}

// generate parses a golden case and lowers it.
func generate(t *testing.T, name string) *codegen.Module {
	t.Helper()
	return generateText(t, name, goldenCases[name])
}

// generateText parses the graph text and lowers it with entry k_NAME.
func generateText(t *testing.T, name, text string) *codegen.Module {
	t.Helper()
	g, err := ir.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := codegen.Generate(passes.Fuse(g), "k_"+name)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func TestGolden(t *testing.T) {
	for name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			mod := generate(t, name)
			checkStructure(t, mod)
			checkGolden(t, name, mod.Text)
		})
	}
}

// checkStructure verifies what the golden text must contain regardless of
// formatting: both entry points and one internal function per group.
func checkStructure(t *testing.T, mod *codegen.Module) {
	t.Helper()
	for _, want := range []string{"define void @" + mod.Entry + "(ptr %args)", "define void @" + mod.RangeEntry + "("} {
		if !strings.Contains(mod.Text, want) {
			t.Errorf("module lacks %q", want)
		}
	}
	if got := strings.Count(mod.Text, "define internal void"); got != len(mod.Groups) {
		t.Errorf("%d group functions for %d groups", got, len(mod.Groups))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + x + "\n  got:  " + y
		}
	}
	return ""
}

// TestFlatLoop checks that an elementwise chain becomes one loop reading
// each input once per element: no intermediate buffers, no coordinates.
func TestFlatLoop(t *testing.T) {
	g, err := ir.Parse(goldenCases["chain"])
	if err != nil {
		t.Fatal(err)
	}
	p := passes.Fuse(g)
	if len(p.Roots) != 1 {
		t.Fatalf("chain fused into %d groups, want 1:\n%s", len(p.Roots), p)
	}
	mod, err := codegen.Generate(p, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"udiv", "urem", "alloca"} {
		if strings.Contains(mod.Text, bad) {
			t.Errorf("flat elementwise loop contains %q", bad)
		}
	}
	if n := strings.Count(mod.Text, "load float"); n != 2 {
		t.Errorf("%d float loads, want 2 (one per input)", n)
	}
}

// TestModuleFlat checks which modules may take LLVM's short pipeline
// (Module.Flat): flat elementwise loops only, with the AVX-512 exp whose
// vector variants the vectorizer calls, but not the portable exp, which
// only the inliner opens up, nor streaming stores, reductions, layout
// changes, nests of several groups or dynamic modules.
func TestModuleFlat(t *testing.T) {
	exp := `graph {
  %0 = param 0 : f32[64]
  %1 = exp %0 : f32[64]
  return %1
}`
	for _, c := range []struct {
		name, text string
		target     codegen.Target
		want       bool
	}{
		{"chain", goldenCases["chain"], codegen.Target{}, true},
		{"stream_large", goldenCases["stream_large"], codegen.Target{}, false},
		{"exp_avx512", exp, codegen.Target{AVX512: true}, true},
		{"exp_portable", exp, codegen.Target{}, false},
		{"broadcast_reduce", goldenCases["broadcast_reduce"], codegen.Target{}, false},
		{"layout", goldenCases["layout"], codegen.Target{}, false},
		{"softmax_nest", goldenCases["softmax_nest"], codegen.Target{}, false},
		{"col_sum", goldenCases["col_sum"], codegen.Target{}, false},
		{"matmul_cast", goldenCases["matmul_cast"], codegen.Target{}, false},
	} {
		g, err := ir.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := codegen.GenerateFor(passes.Fuse(g), "k_"+c.name, c.target)
		if err != nil {
			t.Fatal(err)
		}
		if mod.Flat != c.want {
			t.Errorf("%s: Flat = %v, want %v", c.name, mod.Flat, c.want)
		}
	}
	g, err := ir.Parse(goldenCases["chain"])
	if err != nil {
		t.Fatal(err)
	}
	mod, err := codegen.GenerateDynamic(passes.Fuse(g), "k_dyn", codegen.Target{}, &codegen.Dynamic{Size: 1024, Axes: make([][]bool, len(g.Nodes)), Scale: make([]int, len(g.Nodes))})
	if err != nil {
		t.Fatal(err)
	}
	if mod.Flat {
		t.Error("a dynamic module is Flat")
	}
}

// TestForcedWidth checks which modules ask the vectorizer for a width
// (vectorWidth): flat modules of one float type without a range entry
// on an AVX-512 target, with 16 float32 or 8 float64 lanes, whose loops
// leave no remainder, and no others.
func TestForcedWidth(t *testing.T) {
	exp := func(dt string, n int) string {
		return fmt.Sprintf("graph {\n  %%0 = param 0 : %[1]s[%[2]d]\n  %%1 = exp %%0 : %[1]s[%[2]d]\n  return %%1\n}", dt, n)
	}
	mixed := `graph {
  %0 = param 0 : f32[64]
  %1 = param 1 : f64[64]
  %2 = cast %0 : f64[64]
  %3 = add %2, %1 : f64[64]
  return %3
}`
	for _, c := range []struct {
		name, text string
		target     codegen.Target
		split      bool
		want       int // 0: no width
	}{
		{"f32_avx512", exp("f32", 1024), codegen.Target{AVX512: true}, false, 16},
		{"f32_64_avx512", exp("f32", 64), codegen.Target{AVX512: true}, false, 16},
		{"f32_small_avx512", exp("f32", 16), codegen.Target{AVX512: true}, false, 0},
		{"f32_remainder_avx512", exp("f32", 1000), codegen.Target{AVX512: true}, false, 0},
		{"f64_avx512", exp("f64", 1024), codegen.Target{AVX512: true}, false, 8},
		{"f32_split_avx512", exp("f32", 1024), codegen.Target{AVX512: true}, true, 0},
		{"f32_portable", exp("f32", 1024), codegen.Target{}, false, 0},
		{"chain_portable", goldenCases["chain"], codegen.Target{}, false, 0},
		{"mixed_avx512", mixed, codegen.Target{AVX512: true}, false, 0},
		{"reduce_avx512", goldenCases["broadcast_reduce"], codegen.Target{AVX512: true}, false, 0},
	} {
		g, err := ir.Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		whole := func(int, codegen.Group) bool { return false }
		if c.split {
			whole = nil // every nest may be split: a range entry
		}
		mod, err := codegen.GenerateSplit(passes.Fuse(g), "k_"+c.name, c.target, whole)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		m := regexp.MustCompile(`\n!(\d+) = !\{!"llvm.loop.vectorize.width", i32 (\d+)\}`).FindStringSubmatch(mod.Text)
		if m != nil {
			got, _ = strconv.Atoi(m[2])
		}
		if got != c.want {
			t.Errorf("%s: vectorize.width %d, want %d (0: none)\n%s", c.name, got, c.want, mod.Text)
		}
		if m != nil && strings.Count(mod.Text, " = distinct !{") != strings.Count(mod.Text, ", !"+m[1]+"}") {
			t.Errorf("%s: not every loop ID names the width node:\n%s", c.name, mod.Text)
		}
	}
}

// TestModuleTiny checks which modules take the quick backend
// (Module.Tiny): static ones whose groups visit at most 64 elements in
// all, counting a reduction's operand, a matmul's multiply-adds and a
// scatter's updates, and no dynamic one.
func TestModuleTiny(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"graph {\n  %0 = param 0 : f32[64]\n  %1 = exp %0 : f32[64]\n  return %1\n}", true},
		{"graph {\n  %0 = param 0 : f32[65]\n  %1 = exp %0 : f32[65]\n  return %1\n}", false},
		{"graph {\n  %0 = param 0 : f32[8,8]\n  %1 = reduce_sum %0 axes=[0,1] : f32[]\n  return %1\n}", true},
		{"graph {\n  %0 = param 0 : f32[8,9]\n  %1 = reduce_sum %0 axes=[0,1] : f32[]\n  return %1\n}", false},
		{"graph {\n  %0 = param 0 : f32[4,4]\n  %1 = matmul %0, %0 : f32[4,4]\n  return %1\n}", true},
		{"graph {\n  %0 = param 0 : f32[4,5]\n  %1 = param 1 : f32[5,4]\n  %2 = matmul %0, %1 : f32[4,4]\n  return %2\n}", false},
		// A scatter into 8 elements visits its updates too.
		{"graph {\n  %0 = param 0 : f32[8]\n  %1 = param 1 : i64[16]\n  %2 = param 2 : f32[16]\n  %3 = scatter_add %0, %1, %2 axes=[0] : f32[8]\n  return %3\n}", true},
		{"graph {\n  %0 = param 0 : f32[8]\n  %1 = param 1 : i64[1000]\n  %2 = param 2 : f32[1000]\n  %3 = scatter_add %0, %1, %2 axes=[0] : f32[8]\n  return %3\n}", false},
	} {
		g, err := ir.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := codegen.GenerateFor(passes.Fuse(g), "k_tiny", codegen.Target{})
		if err != nil {
			t.Fatal(err)
		}
		if mod.Tiny != c.want {
			t.Errorf("Tiny = %v, want %v for\n%s", mod.Tiny, c.want, c.text)
		}
	}
	g, err := ir.Parse("graph {\n  %0 = param 0 : f32[4]\n  %1 = exp %0 : f32[4]\n  return %1\n}")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := codegen.GenerateDynamic(passes.Fuse(g), "k_dyn", codegen.Target{}, &codegen.Dynamic{Size: 4, Axes: make([][]bool, len(g.Nodes)), Scale: make([]int, len(g.Nodes))})
	if err != nil {
		t.Fatal(err)
	}
	if mod.Tiny {
		t.Error("a dynamic module is Tiny")
	}
}
