package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

// TestDumpPassMatchesCompiledGraph checks -pass against the graph the
// compiler actually built: the traced stage is -stage traced, and the
// graph after the last pass is the one -stage fused shows.
func TestDumpPassMatchesCompiledGraph(t *testing.T) {
	n := strconv.Itoa(16 + rand.IntN(1000)) // a fresh size: kernels are cached process-wide
	stage := func(args ...string) string {
		t.Helper()
		code, out, errs := gojitRun(t, append([]string{"dump", "-example", "identities", "-n", n}, args...)...)
		if code != exitOK {
			t.Fatalf("dump %v exited %d; stderr:\n%s", args, code, errs)
		}
		return out
	}
	if got, want := stage("-pass", "traced"), stage("-stage", "traced"); got != want {
		t.Errorf("-pass traced:\n%s\n-stage traced:\n%s", got, want)
	}
	last := stage("-pass", "dce")
	fused := stage("-stage", "fused")
	graphPart, _, _ := strings.Cut(fused, "}\n")
	if last != graphPart+"}\n" {
		t.Errorf("-pass dce:\n%s\nthe fused graph:\n%s", last, fused)
	}
	g, err := ir.Parse(last)
	if err != nil {
		t.Fatalf("-pass dce does not parse: %v\n%s", err, last)
	}
	// The identities example is built so every pass has work: nothing of
	// the long way round is left.
	for _, nd := range g.Nodes {
		switch nd.Op {
		case ir.OpNeg, ir.OpDiv, ir.OpTranspose:
			t.Errorf("%s survived the passes:\n%s", nd.Op, last)
		}
	}
	if exps := strings.Count(last, "= exp"); exps != 1 {
		t.Errorf("%d exps after cse, want 1:\n%s", exps, last)
	}
}

func TestDumpPasses(t *testing.T) {
	code, out, errs := gojitRun(t, "dump", "-example", "identities", "-passes")
	if code != exitOK {
		t.Fatalf("dump -passes exited %d; stderr:\n%s", code, errs)
	}
	for _, name := range passNames() {
		wantContains(t, "dump -passes", out, "== "+name+": ")
	}
	wantContains(t, "dump -passes", out,
		"(no change)",                                      // fold: the example has no constant expressions
		"-   %14 = div %11, %13", "+   %15 = mul %11, %14", // simplify
		"+   %11 = mul %8, %8", // cse
		"(18 -> 7 nodes",       // dce
		"dump.go:")             // positions survive
	// dce renumbers, but the diff matches what each line computes, so kept
	// nodes show as unchanged and only removed ones are marked.
	_, dce, _ := strings.Cut(out, "== dce:")
	for _, l := range strings.Split(dce, "\n") {
		if strings.HasPrefix(l, "+") {
			t.Errorf("dce added a line: %q", l)
		}
	}
}

func TestDumpReport(t *testing.T) {
	file := filepath.Join(t.TempDir(), "passes.html")
	code, out, errs := gojitRun(t, "dump", "-example", "softmax", "-report", file)
	if code != exitOK {
		t.Fatalf("dump -report exited %d; stderr:\n%s", code, errs)
	}
	wantContains(t, "dump -report", out, "wrote "+file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	wantContains(t, "report", html, "<!DOCTYPE html>", "<th>traced", "<th>dce", "reduce_max", "</table>")
	if got := strings.Count(html, "<td>"); got != len(passNames()) {
		t.Errorf("%d columns, want %d", got, len(passNames()))
	}

	code, _, errs = gojitRun(t, "dump", "-report", filepath.Join(t.TempDir(), "no", "such", "dir.html"))
	if code != exitFail || !strings.Contains(errs, "gojit dump:") {
		t.Errorf("unwritable report: exit %d, stderr %q", code, errs)
	}
}

func TestDumpUnknownPass(t *testing.T) {
	code, _, errs := gojitRun(t, "dump", "-pass", "nosuch")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	wantContains(t, "unknown pass", errs, `unknown pass "nosuch"`, "fold", "dce")
}

// TestLineDiff checks the edit script on known cases, and on random ones
// that it rebuilds both texts and keeps as many lines as a brute-force
// longest common subsequence.
func TestLineDiff(t *testing.T) {
	textEq := func(int, int) bool { return false }
	render := func(d []diffLine) string {
		var b strings.Builder
		for _, l := range d {
			b.WriteByte(l.kind)
			b.WriteString(l.text)
			b.WriteByte(';')
		}
		return b.String()
	}
	for _, tc := range []struct {
		a, b, want string
	}{
		{"a b c", "a c", " a;-b; c;"},
		{"a c", "a b c", " a;+b; c;"},
		{"a b", "a x", " a;-b;+x;"},
		{"", "", " ;"},
	} {
		if got := render(lineDiff(strings.Split(tc.a, " "), strings.Split(tc.b, " "), textEq)); got != tc.want {
			t.Errorf("diff %q -> %q = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		a, b := randLines(rng), randLines(rng)
		d := lineDiff(a, b, textEq)
		var ra, rb []string
		kept := 0
		for _, l := range d {
			if l.kind != '+' {
				ra = append(ra, l.text)
			}
			if l.kind != '-' {
				rb = append(rb, l.text)
			}
			if l.kind == ' ' {
				kept++
			}
		}
		if !slices.Equal(ra, a) || !slices.Equal(rb, b) {
			t.Fatalf("diff of %v and %v does not rebuild them: %v", a, b, d)
		}
		if want := bruteLCS(a, b); kept != want {
			t.Fatalf("diff of %v and %v keeps %d lines, the LCS has %d", a, b, kept, want)
		}
	}
}

func randLines(rng *rand.Rand) []string {
	s := make([]string, rng.IntN(8))
	for i := range s {
		s[i] = string(rune('a' + rng.IntN(3)))
	}
	return s
}

// bruteLCS is the length of the longest common subsequence of a and b,
// by trying every subsequence of a (len(a) < 8).
func bruteLCS(a, b []string) int {
	best := 0
	for mask := range 1 << len(a) {
		var sub []string
		for i := range a {
			if mask&(1<<i) != 0 {
				sub = append(sub, a[i])
			}
		}
		j := 0
		for _, s := range b {
			if j < len(sub) && sub[j] == s {
				j++
			}
		}
		if j == len(sub) {
			best = max(best, len(sub))
		}
	}
	return best
}

// TestLineKeys checks that keys ignore numbering (the same computation in
// another order has the same keys) and see operands (a node over another
// operand does not).
func TestLineKeys(t *testing.T) {
	parse := func(text string) *ir.Graph {
		g, err := ir.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a := parse("graph {\n %0 = param 0 : f32[4]\n %1 = exp %0 : f32[4]\n %2 = neg %0 : f32[4]\n %3 = add %1, %2 : f32[4]\n return %3\n}")
	b := parse("graph {\n %0 = param 0 : f32[4]\n %1 = neg %0 : f32[4]\n %2 = exp %0 : f32[4]\n %3 = add %2, %1 : f32[4]\n return %3\n}")
	c := parse("graph {\n %0 = param 0 : f32[4]\n %1 = neg %0 : f32[4]\n %2 = exp %1 : f32[4]\n %3 = add %2, %1 : f32[4]\n return %3\n}")
	ka, kb, kc := lineKeys(a), lineKeys(b), lineKeys(c)
	if len(ka) != len(lines(ir.Print(a, true))) {
		t.Fatalf("%d keys for %d lines", len(ka), len(lines(ir.Print(a, true))))
	}
	if ka[2] != kb[3] || ka[3] != kb[2] || ka[4] != kb[4] || ka[5] != kb[5] {
		t.Errorf("renumbering changed the keys: %v vs %v", ka, kb)
	}
	if kc[3] == kb[3] || kc[4] == kb[4] {
		t.Errorf("exp of another operand has the same key: %v vs %v", kc, kb)
	}
}
