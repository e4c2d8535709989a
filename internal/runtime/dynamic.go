package runtime

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
)

// A dynamic executable serves every size B of one dynamic dimension (such as
// the batch axis). It is built from two traces of the same function at two
// sizes, b1 and b2. The code generator is told which axes of which values
// follow B (they differ between the traces) and reads their extents and
// strides from the size the runtime passes each group function (i64
// %size; codegen.GenerateDynamic), so every group function must generate
// identical code at both sizes; and every extent, buffer and output
// dimension must be an affine function of B with non-negative
// coefficients (c + a*B). Then the code does not depend on B: Run calls
// each group through the range entry over its extent at B, passing B, with
// temporaries sized for B.

// Scaled is a size that follows the dynamic size B: Fixed + PerB*B, both
// non-negative (PerB is 0 for a fixed size).
type Scaled struct {
	Fixed, PerB int
}

// At returns the size for dynamic size b.
func (s Scaled) At(b int) int { return s.Fixed + s.PerB*b }

// ScaledOf returns the size that is n1 at size b1 and n2 at size b2, if it
// is one.
func ScaledOf(n1, n2, b1, b2 int) (Scaled, bool) {
	d, db := n2-n1, b2-b1
	if d%db != 0 || d/db < 0 || n1-d/db*b1 < 0 {
		return Scaled{}, false
	}
	return Scaled{Fixed: n1 - d/db*b1, PerB: d / db}, true
}

// Dynamic describes how a dynamic executable's sizes follow B.
type Dynamic struct {
	Outputs [][]Scaled // each output's dimensions
	extents []Scaled   // each group's outer extent
	works   []Scaled   // each group's elements visited
	temps   []Scaled   // each temporary's bytes
	copies  []Scaled   // each output copy's bytes
}

const placeholder = "gojit_dynamic_kernel"

// canonical strips what may legitimately differ between the two sizes'
// modules: comments (they print shapes) and the fixed-size entry function
// (it passes constant extents; dynamic executables never call it).
func canonical(text, entry string) string {
	var b strings.Builder
	skip := false
	head := "define void @" + entry + "("
	for line := range strings.Lines(text) {
		switch {
		case skip:
			skip = line != "}\n"
		case strings.HasPrefix(line, head):
			skip = true
		case !strings.HasPrefix(line, ";"):
			b.WriteString(line)
		}
	}
	return b.String()
}

// firstDifference returns the nest whose function is where a and b first
// differ, or -1 if that is not a nest's function.
func firstDifference(a, b string, plan *passes.Plan) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	fn := ""
	for i := range min(len(la), len(lb)) {
		if strings.HasPrefix(la[i], "define ") {
			fn = la[i]
		}
		if la[i] != lb[i] {
			break
		}
	}
	// "define internal void @NAME.gK(" is nest K's function.
	var k int
	if i := strings.Index(fn, placeholder+".g"); i >= 0 {
		if _, err := fmt.Sscanf(fn[i+len(placeholder)+2:], "%d", &k); err == nil && k < len(plan.Nests) {
			return k
		}
	}
	return -1
}

// BuildDynamic builds the executable for g1 and g2, the same function
// traced with its dynamic dimension at sizes b1 and b2 (distinct, both at
// least 2). When the code depends on the size it fails with an error
// that names the user's call responsible and why (explain.go). Like
// Build's, its executable may be evicted as soon as it is returned.
func BuildDynamic(g1, g2 *ir.Graph, b1, b2 int, opt Options) (*Executable, error) {
	e, err := BuildDynamicAcquired(g1, g2, b1, b2, opt)
	if err != nil {
		return nil, err
	}
	e.Release()
	return e, nil
}

// BuildDynamicAcquired is BuildDynamic returning an executable acquired
// for the caller, like BuildAcquired.
func BuildDynamicAcquired(g1, g2 *ir.Graph, b1, b2 int, opt Options) (*Executable, error) {
	if !llvm.Available() || opt.Interpret {
		return nil, fmt.Errorf("runtime: dynamic dimensions need compiled code")
	}
	var plans [2]*passes.Plan
	var texts [2]string
	var mods [2]*codegen.Module
	for _, g := range []*ir.Graph{g1, g2} {
		if err := ir.Verify(g); err != nil {
			return nil, err
		}
	}
	if err := noControl(g1); err != nil {
		return nil, err
	}
	if err := sizeDependentCalls(g1, g2, b1, b2); err != nil {
		return nil, err
	}
	for i, g := range []*ir.Graph{g1, g2} {
		cg, err := passes.Optimize(g, opt.Passes)
		if err != nil {
			return nil, err
		}
		plans[i] = passes.FuseDynamic(cg)
	}
	axes, scale := dynamicAxes(plans[0].Graph, plans[1].Graph, b1, b2)
	for i, b := range []int{b1, b2} {
		o := opt
		o.dynamic = &codegen.Dynamic{Size: b, Axes: axes, Scale: scale}
		var err error
		if mods[i], err = o.generate(plans[i], placeholder); err != nil {
			return nil, err
		}
		if opt.FastMath {
			mods[i].Text = fastMath(mods[i].Text)
		}
		texts[i] = canonical(mods[i].Text, placeholder)
	}
	if texts[0] != texts[1] {
		return nil, explain(plans, b1, b2, firstDifference(texts[0], texts[1], plans[0]))
	}
	dyn, group := dynamicSizes(plans, mods, b1, b2)
	if dyn == nil {
		return nil, explain(plans, b1, b2, group)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00dynamic %d\x00O%d\x00fast-math=%t\x00%s\x00%s\x00llvm %s\x00", Version, b1, opt.OptLevel, opt.FastMath, opt.target(), hostIdentity(), llvm.Version())
	h.Write([]byte(texts[0]))
	fmt.Fprintf(h, "\x00%v", dyn.Outputs)
	// The module text does not say which parameter or temporary a result
	// is copied from (a function returning one of its inputs): the two
	// graphs' canonical texts do, as Signature's does for static code.
	for _, p := range plans {
		h.Write([]byte{0})
		h.Write([]byte(ir.Print(p.Graph, false)))
	}
	var sig [32]byte
	h.Sum(sig[:0])
	g, plan := plans[0].Graph, plans[0]
	opt.dynamic = &codegen.Dynamic{Size: b1, Axes: axes, Scale: scale}
	return kernels.get(sig, func(disk *diskcache.Store) (*Executable, error) {
		e, err := compile(g, plan, sig, opt, disk)
		if err != nil {
			return nil, err
		}
		e.Dynamic = dyn
		return e, nil
	})
}

// dynamicSizes matches every size of the two builds and expresses it as
// fixed or proportional to B. When one is neither it returns nil and the
// nest concerned (-1 if none is).
func dynamicSizes(plans [2]*passes.Plan, mods [2]*codegen.Module, b1, b2 int) (*Dynamic, int) {
	d := &Dynamic{}
	g1, g2 := plans[0].Graph, plans[1].Graph
	if len(g1.Outputs) != len(g2.Outputs) || len(mods[0].Groups) != len(mods[1].Groups) || len(mods[0].Slots) != len(mods[1].Slots) {
		return nil, -1
	}
	for j := range g1.Outputs {
		s1, s2 := g1.Node(g1.Outputs[j]).Shape, g2.Node(g2.Outputs[j]).Shape
		if len(s1) != len(s2) {
			return nil, -1
		}
		dims := make([]Scaled, len(s1))
		for k := range s1 {
			var ok bool
			if dims[k], ok = ScaledOf(s1[k], s2[k], b1, b2); !ok {
				return nil, -1
			}
		}
		d.Outputs = append(d.Outputs, dims)
	}
	for i := range mods[0].Groups {
		x, y := mods[0].Groups[i], mods[1].Groups[i]
		ext, ok1 := ScaledOf(x.Extent, y.Extent, b1, b2)
		wk, ok2 := ScaledOf(x.Work, y.Work, b1, b2)
		if !ok1 || !ok2 || x.Grain != y.Grain {
			return nil, i
		}
		d.extents, d.works = append(d.extents, ext), append(d.works, wk)
	}
	_, t1, c1 := planLayout(g1, mods[0])
	_, t2, c2 := planLayout(g2, mods[1])
	if len(t1) != len(t2) || len(c1) != len(c2) {
		return nil, -1
	}
	for i := range t1 {
		s, ok := ScaledOf(t1[i], t2[i], b1, b2)
		if !ok {
			return nil, -1
		}
		d.temps = append(d.temps, s)
	}
	for i := range c1 {
		s, ok := ScaledOf(c1[i].bytes, c2[i].bytes, b1, b2)
		if !ok || c1[i].out != c2[i].out || c1[i].src != c2[i].src {
			return nil, -1
		}
		d.copies = append(d.copies, s)
	}
	return d, -1
}

// ArenaBytesAt is the size of the intermediates one call keeps in memory
// when the dynamic dimension is b (ArenaBytes for a static executable).
func (e *Executable) ArenaBytesAt(b int) int {
	if e.Dynamic == nil {
		return e.ArenaBytes
	}
	n := 0
	for _, t := range e.Dynamic.temps {
		n += t.At(b)
	}
	return n
}

// growTemps makes fr's temporaries large enough for size b.
func (d *Dynamic) growTemps(fr *frame, b int) {
	for i, t := range d.temps {
		// At least one word, so that no kernel is handed a nil pointer.
		if words := max((t.At(b)+7)/8, 1); len(fr.temps[i]) < words {
			fr.temps[i] = make([]uint64, words)
		}
	}
}
