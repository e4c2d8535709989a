package codegen

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// Module is the LLVM IR of one plan: an entry function
//
//	void ENTRY(ptr %args)
//
// where args points to one buffer pointer per slot, and one internal
// function per nest of fused groups (passes.Plan.Nests), called in order.
type Module struct {
	Text  string
	Entry string
	// Slots[i] is the value whose buffer args[i] points to: the parameters
	// in order, then the group results in execution order, except the
	// row-local ones, which live in scratch rows inside their nest.
	Slots []ir.Value
	// RangeEntry is a second entry point,
	//
	//	void RANGE(ptr %args, i64 %group, i64 %start, i64 %end, i64 %size)
	//
	// that runs one nest over part of its outer loop, so the runtime can
	// split a large nest across threads. size is the dynamic dimension's
	// size in a module from GenerateDynamic; other modules ignore it.
	// A nest whose Group.Split is false always runs whole: RANGE then
	// ignores start and end. RangeEntry is empty when no nest may be
	// split (GenerateSplit), and the module has no such function.
	RangeEntry string
	// Groups describes each nest's outer loop, in execution order.
	Groups []Group
	// ErrorSlot is the index in args of the error slot, after the
	// buffers of Slots, when some group checks indices (indexing.go);
	// -1 when none does.
	ErrorSlot int
	// Flat reports that every nest of the module is a single flat loop
	// of elementwise arithmetic over static sizes (no reduction, matmul,
	// layout change, gather or random numbers, no streaming stores, no
	// helper that needs the inliner), which LLVM compiles as well with a
	// short pipeline as with default<O3> (llvm.Options.Flat).
	Flat bool
	// Tiny reports that one run of the module does little work: its
	// groups visit at most tinyWork elements in all (a reduction's
	// operand, a matmul's multiply-adds and a scatter's updates counted),
	// over static sizes. Such a kernel's run is mostly the call itself,
	// so it is compiled with the backend at its O0 level
	// (llvm.Options.QuickBackend), which takes about 3 ms less and
	// computes the same bits (unless fast-math flags let the full
	// backend contract a multiply and an add the quick one leaves apart).
	// Each region of a cond or while is a module of its own, Tiny by the
	// same rule; the runtime compiles a while's regions (and what they
	// contain) with the full backend all the same, since they run once
	// per iteration (internal/runtime control.go).
	Tiny bool
	// Scratch lists the buffers the module needs besides its values
	// (matmul_pack.go); args points to them after Slots and the error
	// slot, in order.
	Scratch []Scratch
}

// Group is one loop nest as the runtime sees it: one fused group, or
// several sharing a loop over rows.
type Group struct {
	Extent int // the outer loop runs over [0, Extent)
	Work   int // elements visited in all, to decide whether to split it
	// Grain is the fewest iterations of the outer loop worth a range
	// call of their own (1 but for a matmul over rows, see
	// emitMatMulRows): the runtime splits no finer.
	Grain int
	// Nest is the plan nest (passes.Plan.Nests) the loop belongs to: its
	// own, or, for a nest packing a matmul's B, the matmul's.
	Nest int
	// Split says whether the runtime may run the nest in parts. The code
	// of a nest that is never split sees only constant bounds, so LLVM
	// knows its trip counts and emits no remainder loops for sizes it
	// will never see: a smaller module that compiles faster.
	Split bool
}

// Target names the host-specific instructions a module may use. The zero
// value is portable: the module then uses only LLVM's generic operations
// and intrinsics.
type Target struct {
	// AVX512 lets float32 and float64 exp use VSCALEF
	// (vecmath_avx512.go) and division by a row-invariant divisor use a
	// corrected reciprocal (divide.go), both through vector variants the
	// loop vectorizer calls, and byte gathers pick their bytes from a
	// 64-byte window with vpermd (window.go). The host must have
	// AVX-512F and AVX-512VL.
	AVX512 bool
	// StreamBytes is the least a flat elementwise group must move (read
	// and write) for its output to be written with non-temporal stores
	// (stream.go); 0 means DefaultStreamBytes. A group whose buffers fit
	// in the cache is faster with ordinary stores, so the runtime derives
	// it from the host's last-level cache.
	StreamBytes int64
	// SumRows shapes the inner loop of a long sum over the last axis
	// (reduce_rows.go); the zero value means the default shape, which
	// the runtime uses. Benchmarks set it to compare shapes.
	SumRows SumRows
}

// String is the target as the kernel signature records it.
func (t Target) String() string {
	s := "portable"
	if t.AVX512 {
		s = "avx512"
	}
	if t.StreamBytes != 0 {
		s += " stream>=" + strconv.FormatInt(t.StreamBytes, 10)
	}
	if t.SumRows != (SumRows{}) {
		s += " sumrows=" + strconv.Itoa(t.SumRows.Rows) + "x" + strconv.Itoa(t.SumRows.Vectors)
	}
	return s
}

// streamMin is the target's streaming threshold in bytes.
func (t Target) streamMin() int {
	if t.StreamBytes > 0 {
		return int(min(t.StreamBytes, 1<<50))
	}
	return DefaultStreamBytes
}

// Generate lowers a fused plan to portable LLVM IR text. It is pure Go: the
// text is handed to internal/llvm, or compared with golden files in tests.
func Generate(p *passes.Plan, entry string) (*Module, error) {
	return GenerateFor(p, entry, Target{})
}

// GenerateFor is Generate for a target that may have host-specific
// instructions.
func GenerateFor(p *passes.Plan, entry string, t Target) (*Module, error) {
	return generate(p, entry, t, nil, nil)
}

// GenerateSplit is GenerateFor for a runtime that splits only some nests
// across threads: split(nest, g) says whether nest may be split, given
// its Group (without Split). The others get code for their whole extent
// only; when no nest may be split the module has no range entry.
func GenerateSplit(p *passes.Plan, entry string, t Target, split func(nest int, g Group) bool) (*Module, error) {
	return generate(p, entry, t, nil, split)
}

// Dynamic describes a plan traced with its dynamic dimension (the batch
// axis) at size Size, for a module that serves every size.
type Dynamic struct {
	Size int
	// Axes[v][k] reports that axis k of value v is proportional to the
	// dynamic size (the runtime finds them by comparing two traces).
	Axes [][]bool
	// Scale[v] is a when v is a constant whose value is a times the
	// dynamic size (the size used as a value, as the divisor of a mean
	// over the dynamic axis), else 0.
	Scale []int
}

// GenerateDynamic is GenerateFor for a plan to be run at every size of
// its dynamic dimension: every group function takes the size as a last
// argument, i64 %size, and a matmul whose rows or columns are dynamic
// reads them from it (matmul_dyn.go), so its code does not depend on the
// size. The rest of the module is as GenerateFor makes it; the runtime
// checks that the code does not depend on the size by generating it at
// two sizes.
func GenerateDynamic(p *passes.Plan, entry string, t Target, d *Dynamic) (*Module, error) {
	if d.Size < 2 {
		return nil, fmt.Errorf("codegen: dynamic size %d: want at least 2", d.Size)
	}
	return generate(p, entry, t, d, nil)
}

// generate lowers p. A dynamic module's nests may all be split (their
// size is known only at run time); otherwise split, when not nil, picks
// the nests that may be.
func generate(p *passes.Plan, entry string, t Target, d *Dynamic, split func(int, Group) bool) (mod *Module, err error) {
	defer func() {
		// The emitter panics only on an op the plan should not have routed
		// to it; report that as an error rather than crash the caller.
		if r := recover(); r != nil {
			err = fmt.Errorf("codegen: %v", r)
		}
	}()
	g := p.Graph
	slot := make(map[ir.Value]int)
	var slots []ir.Value
	for _, v := range g.Params {
		slot[v] = len(slots)
		slots = append(slots, v)
	}
	for _, r := range p.Roots {
		if p.RowLocal[r] {
			continue // a scratch row inside its nest's function
		}
		slot[r] = len(slots)
		slots = append(slots, r)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "; gojit module %s\n\n", entry)
	decls := map[string]string{}
	attrs := map[int]string{}
	var calls, cases, rangeCalls, used []string
	var groups []Group
	var scratch []Scratch
	nontemporal, anySplit := false, false
	flat := d == nil
	md := &metadata{}
	errSlot := -1 // the error slot's index in args (indexing.go), when some group checks indices
	// preNest adds a nest that runs before a group's own (B's packing, a
	// whole-array reduction's blocks): function fn called with args over
	// [0, g.Extent) in the entry, and over the range entry's bounds when
	// g.Split.
	preNest := func(fn, args string, g Group) {
		fixed := fmt.Sprintf("  call void @%s(%s, i64 0, i64 %d)\n", fn, args, g.Extent)
		calls = append(calls, fixed)
		ranged := fixed
		if g.Split {
			anySplit = true
			ranged = fmt.Sprintf("  call void @%s(%s, i64 %%start, i64 %%end)\n", fn, args)
		}
		mg := len(groups) // its index in Module.Groups, which the range entry takes
		cases = append(cases, fmt.Sprintf("    i64 %d, label %%g%d\n", mg, mg))
		rangeCalls = append(rangeCalls, fmt.Sprintf("g%d:\n%s  br label %%done\n", mg, ranged))
		groups = append(groups, g)
	}
	for gi, nest := range p.Nests {
		gr := &unit{argName: map[ir.Value]string{}}
		gr.target = t
		gr.loopIDs = md
		// Small nests outside matmuls are not unrolled: with constant
		// bounds LLVM would unroll their loops fully and SLP-vectorize the
		// copies, which dominated compile time (an exp chain over 16
		// elements: 351 instructions and 4x the compile time of the loop).
		// Larger nests keep LLVM's choice: llvm.loop.unroll.disable also
		// stops the vectorizer from interleaving, which they need.
		// A dynamic module's sizes are known only at run time (and its
		// text must not depend on the size it was traced at).
		gr.noUnroll = d == nil
		for _, k := range nest {
			n := g.Node(p.Roots[k])
			if p.MatMul[k] >= 0 || n.Op == ir.OpMatMul || n.Shape.Size() > smallNest {
				gr.noUnroll = false
			}
		}
		gr.dyn = d
		gr.pre = &gr.allocas
		if d != nil {
			gr.dynSize = d.Size
		}
		name := fmt.Sprintf("%s.g%d", entry, gi)
		gr.packOnce = split != nil && d == nil
		flat = flat && flatNest(p, gr, nest)
		if bp := blockedReduction(p, nest, gr); bp != nil {
			// The blocks' nest runs first (reduce_blocks.go).
			bp.scrIdx = len(scratch)
			scratch = append(scratch, Scratch{Bytes: bp.blocks * g.Node(bp.root).DType.Size(), Nest: gi})
			bu := &unit{argName: map[ir.Value]string{}}
			bu.target, bu.loopIDs = t, md
			bu.pre = &bu.allocas
			bbody := bu.emitBlocks(p, bp)
			bname := fmt.Sprintf("%s.q%d", entry, gi)
			rt := regType(g.Node(bp.root).DType)
			fmt.Fprintf(&out, "; folds one block of group %d's operand\ndefine internal %s @%s.b(", nest[0], rt, bname)
			// The operand's buffers, each followed by ", " (a constant
			// operand has none).
			var bargs []string
			var params, fargs strings.Builder
			for _, in := range bu.inputs {
				fmt.Fprintf(&params, "ptr noalias readonly %s, ", bu.argName[in])
				fmt.Fprintf(&fargs, "ptr %s, ", bu.argName[in])
				bargs = append(bargs, fmt.Sprintf("ptr %%s%d", slot[in]))
			}
			fmt.Fprintf(&out, "%si64 %%row, i64 %%lo, i64 %%hi) #1 {\n%s}\n\n", params.String(), bbody)
			rows, cols, _ := blockShape(&group{unit: bu, p: p, g: g, root: bp.root}, g.Node(bp.root).Args[0])
			fmt.Fprintf(&out, "; folds group %d's blocks\ndefine internal void @%s(%sptr noalias %%part, i64 %%start, i64 %%end) #1 {\n%s}\n\n",
				nest[0], bname, params.String(), blocksLoop(bname+".b", fargs.String(), g.Node(bp.root).DType, rows, cols))
			bargs = append(bargs, fmt.Sprintf("ptr %%sscr%d", bp.scrIdx))
			args := strings.Join(bargs, ", ")
			bg := Group{Extent: bp.blocks, Work: work(g, bp.root), Grain: 1, Nest: gi}
			bg.Split = split == nil || split(gi, bg)
			preNest(bname, args, bg)
			mergeHelpers(&bu.fn, decls, attrs, &used)
			gr.blocks = bp
		}
		body, extent, outs := gr.emitNest(p, nest)
		grain := max(gr.grain, 1)
		wk, macs := 0, 0
		for _, k := range nest {
			r := p.Roots[k]
			fmt.Fprintf(&out, "; group %d computes %s\n", k, ir.FormatNode(g, r))
			wk += work(g, r)
			if g.Node(r).Op.Kind() == ir.KindMatMul {
				macs += work(g, r)
			}
			if mm := p.MatMul[k]; mm >= 0 {
				wk += work(g, mm)
				macs += work(g, mm)
			}
		}
		if pk := gr.packed; pk != nil {
			// B's pack nest runs first (matmul_pack.go).
			pk.scrIdx = len(scratch)
			scratch = append(scratch, Scratch{Bytes: pk.bytes(), Nest: gi})
			pname := fmt.Sprintf("%s.p%d", entry, gi)
			fmt.Fprintf(&out, "; packs B of group %d\ndefine internal void @%s(ptr noalias readonly %%B, ptr noalias %%P, i64 %%start, i64 %%end) #1 {\n", nest[0], pname)
			out.WriteString(emitPackNest(pk, md, t))
			out.WriteString("}\n\n")
			args := fmt.Sprintf("ptr %%s%d, ptr %%sscr%d", slot[pk.B], pk.scrIdx)
			pg := Group{Extent: pk.extent(), Work: pk.batch * pk.K * pk.width(), Grain: 1, Nest: gi}
			pg.Split = split == nil || split(gi, pg)
			preNest(pname, args, pg)
		}
		fmt.Fprintf(&out, "define internal void @%s(", name)
		var actuals []string
		for _, in := range gr.inputs {
			fmt.Fprintf(&out, "ptr noalias readonly %s, ", gr.argName[in])
			actuals = append(actuals, fmt.Sprintf("ptr %%s%d", slot[in]))
		}
		for _, r := range outs {
			fmt.Fprintf(&out, "ptr noalias %s, ", outName(len(nest), r))
			actuals = append(actuals, fmt.Sprintf("ptr %%s%d", slot[r]))
		}
		if gr.errs {
			out.WriteString("ptr %err, ")
			actuals = append(actuals, "ptr %serr")
			errSlot = len(slots)
		}
		if gr.packed != nil {
			out.WriteString("ptr noalias readonly %packed, ")
			actuals = append(actuals, fmt.Sprintf("ptr %%sscr%d", gr.packed.scrIdx))
		}
		if gr.blocks != nil {
			out.WriteString("ptr noalias readonly %partials, ")
			actuals = append(actuals, fmt.Sprintf("ptr %%sscr%d", gr.blocks.scrIdx))
			wk = gr.blocks.blocks // folding the partials: never split
		}
		if d != nil {
			fmt.Fprintf(&out, "i64 %%start, i64 %%end, i64 %%size) #1 {\n")
		} else {
			fmt.Fprintf(&out, "i64 %%start, i64 %%end) #1 {\n")
		}
		out.WriteString(body)
		out.WriteString("}\n\n")
		fixed := append(slices.Clip(actuals), "i64 0", "i64 "+strconv.Itoa(extent))
		actuals = append(slices.Clip(actuals), "i64 %start", "i64 %end")
		if d != nil {
			fixed = append(fixed, "i64 "+strconv.Itoa(d.Size))
			actuals = append(actuals, "i64 %size")
		}
		calls = append(calls, fmt.Sprintf("  call void @%s(%s)\n", name, strings.Join(fixed, ", ")))
		grp := Group{Extent: extent, Work: wk, Grain: grain, Nest: gi}
		// Whether to split a static nest weighs its matmul's multiply-adds
		// as 1/mmMACsPerElement of an element; Work itself stays their
		// count, proportional to every dimension (runtime.ScaledOf).
		cheap := grp
		cheap.Work = wk - macs + macs/mmMACsPerElement
		grp.Split = (d != nil || split == nil || split(gi, cheap)) && gr.blocks == nil
		if !grp.Split {
			actuals = fixed
		}
		anySplit = anySplit || grp.Split
		mg := len(groups) // its index in Module.Groups, which the range entry takes
		cases = append(cases, fmt.Sprintf("    i64 %d, label %%g%d\n", mg, mg))
		rangeCalls = append(rangeCalls, fmt.Sprintf("g%d:\n  call void @%s(%s)\n  br label %%done\n", mg, name, strings.Join(actuals, ", ")))
		groups = append(groups, grp)
		nontemporal = nontemporal || gr.nontemporal
		// A streaming group copies its stack tile out with non-temporal
		// stores; only O3's full unrolling and SROA keep that tile in
		// registers (the flat pipeline left it on the stack).
		flat = flat && !gr.nontemporal
		mergeHelpers(&gr.fn, decls, attrs, &used)
	}
	fmt.Fprintf(&out, "define void @%s(ptr %%args) #0 {\nentry:\n", entry)
	for i := range slots {
		fmt.Fprintf(&out, "  %%p%d = getelementptr inbounds ptr, ptr %%args, i64 %d\n", i, i)
		fmt.Fprintf(&out, "  %%s%d = load ptr, ptr %%p%d, align 8\n", i, i)
	}
	loadErrSlot(&out, errSlot)
	loadScratch(&out, len(slots), errSlot, len(scratch))
	for _, c := range calls {
		out.WriteString(c)
	}
	out.WriteString("  ret void\n}\n\n")
	rangeEntry := ""
	if anySplit {
		rangeEntry = entry + ".range"
		fmt.Fprintf(&out, "define void @%s(ptr %%args, i64 %%group, i64 %%start, i64 %%end, i64 %%size) #0 {\nentry:\n", rangeEntry)
		for i := range slots {
			fmt.Fprintf(&out, "  %%p%d = getelementptr inbounds ptr, ptr %%args, i64 %d\n", i, i)
			fmt.Fprintf(&out, "  %%s%d = load ptr, ptr %%p%d, align 8\n", i, i)
		}
		loadErrSlot(&out, errSlot)
		loadScratch(&out, len(slots), errSlot, len(scratch))
		fmt.Fprintf(&out, "  switch i64 %%group, label %%done [\n%s  ]\n", strings.Join(cases, ""))
		for _, c := range rangeCalls {
			out.WriteString(c)
		}
		out.WriteString("done:\n  ret void\n}\n\n")
	}
	names := make([]string, 0, len(decls))
	for k, d := range decls {
		names = append(names, k)
		// Helpers that only the inliner would open up (the portable
		// exp and tanh, vecmath_more's functions) and calls into libm
		// need the full pipeline; the vector variants of the late-inline
		// helpers reach the vectorizer as they are.
		if !strings.HasPrefix(k, "llvm.") && !strings.Contains(d, "\"gojit-late-inline\"") {
			flat = false
		}
	}
	sort.Strings(names)
	for _, k := range names {
		out.WriteString(decls[k])
		out.WriteByte('\n')
	}
	if w := vectorWidth(g, t, groups, flat && !anySplit); w > 0 {
		md.forceWidth(w)
	}
	if nontemporal || len(md.nodes) > 0 {
		out.WriteString("\n!0 = !{i32 1}\n")
		for _, n := range md.nodes {
			out.WriteString(n + "\n")
		}
	}
	// Group functions stay calls (noinline) so that the entry and the
	// range entry share them, except in a flat module without a range
	// entry: there each has one caller, which passes constant bounds, and
	// the short pipeline inlines it once vectorized (always-inline), which
	// leaves one function to emit instead of two, for the same loop (1 ms
	// less emission on the 6-op function).
	inline := "noinline"
	if flat && !anySplit {
		inline = "alwaysinline"
	}
	out.WriteString("\nattributes #0 = { nounwind }\nattributes #1 = { nounwind " + inline + " \"prefer-vector-width\"=\"512\" }\n")
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		out.WriteString(attrs[k])
	}
	if len(used) > 0 {
		slices.Sort(used)
		used = slices.Compact(used)
		fmt.Fprintf(&out, "\n@llvm.compiler.used = appending global [%d x ptr] [%s], section \"llvm.metadata\"\n", len(used), strings.Join(used, ", "))
	}
	tiny := d == nil
	total := 0
	for _, gr := range groups {
		total += gr.Work
	}
	// A scatter's Work is its result's size; it also visits every update
	// (a few elements can take a million updates).
	for _, r := range p.Roots {
		if n := g.Node(r); n.Op.Kind() == ir.KindScatter {
			total += g.Node(n.Args[2]).Shape.Size()
		}
	}
	tiny = tiny && total <= tinyWork
	return &Module{Text: out.String(), Entry: entry, Slots: slots, RangeEntry: rangeEntry, Groups: groups, ErrorSlot: errSlot, Scratch: scratch, Flat: flat, Tiny: tiny}, nil
}

// tinyWork is the most elements a module may visit in one run and still
// be Tiny. The backend's O0 level saves about 3 ms of CPU per compile
// (BenchmarkCompileBackends: the 6-op function over 16 elements, 10.2 to
// 7.2 ms with its first call), and its code is slower per element: in
// alternating calls (BenchmarkTinyKernelCall) the 6-op function and the
// 5-op chain cost the same within the noise over 16 elements (0.86-1.25x,
// about 250 ns a call, mostly the call itself), 1.0-1.13x over 256 (up
// to 60 ns more) and 1.2-1.5x over 1,000. At 64 elements a kernel thus
// loses at most some 15 ns a call, 10^5 calls to lose the compile time
// saved. No benchmark of a call's run time is that small (the peer
// table's smallest is 1,000 elements, GT2's 10,000); the cold-compile
// case over 16 elements (BenchmarkColdCompile/n=16) is Tiny, and times
// the compile.
const tinyWork = 64

// mergeHelpers adds the declarations, attribute groups and kept
// functions of f to the module's.
func mergeHelpers(f *fn, decls map[string]string, attrs map[int]string, used *[]string) {
	for k, d := range f.decls {
		decls[k] = d
	}
	for k := range f.used {
		*used = append(*used, "ptr @"+k)
	}
	for k, a := range f.attrs {
		attrs[k] = a
	}
}

// flatNest reports whether nest is one group computing elementwise ops of
// values its loop reads at the output's position (Module.Flat).
func flatNest(p *passes.Plan, u *unit, nest []int) bool {
	if len(nest) != 1 || p.MatMul[nest[0]] >= 0 {
		return false
	}
	r := p.Roots[nest[0]]
	gr := &group{unit: u, p: p, g: p.Graph, root: r}
	return p.Graph.Node(r).Op.IsElementwise() && gr.flat(r)
}

// vectorWidth is the vector width to ask of the loop vectorizer
// (metadata.forceWidth) in a flat module without a range entry, whose
// loops therefore run over constant bounds, or 0 to leave it the choice.
// The group functions prefer 512-bit vectors, so on an AVX-512 host a
// module computing only float32 (only float64) gets 16 (8) lanes, which
// the vectorizer's cost model picks for such loops, when every loop's
// trip count is a multiple of 4 vectors (the most it interleaves): then
// no remainder is left and the code is the same
// (TestForcedWidthSameCode). A remainder would come out differently:
// with a width given, LLVM does not vectorize the epilogue. Mixed types,
// whose best width the cost model weighs, and other hosts keep its
// choice.
func vectorWidth(g *ir.Graph, t Target, groups []Group, fixed bool) int {
	if !fixed || !t.AVX512 || len(g.Nodes) == 0 {
		return 0
	}
	dt := g.Nodes[0].DType
	for i := range g.Nodes {
		if g.Nodes[i].DType != dt {
			return 0
		}
	}
	w := 0
	switch dt {
	case ir.Float32:
		w = 16
	case ir.Float64:
		w = 8
	default:
		return 0
	}
	for _, gr := range groups {
		if gr.Extent == 0 || gr.Extent%(4*w) != 0 {
			return 0
		}
	}
	return w
}

// smallNest is the most elements a nest may compute and still be kept
// from unrolling (see generate): four interleaved 16-lane vectors.
const smallNest = 256

// work estimates the elements a group visits: its output, the operand of a
// reduction, or M*N*K for a matmul.
func work(g *ir.Graph, r ir.Value) int {
	n := g.Node(r)
	switch n.Op.Kind() {
	case ir.KindReduce, ir.KindArgReduce:
		return g.Node(n.Args[0]).Shape.Size()
	case ir.KindMatMul:
		a := g.Node(n.Args[0]).Shape
		return n.Shape.Size() * a[len(a)-1]
	}
	return n.Shape.Size()
}

// mmMACsPerElement is how many multiply-adds of a register-tiled matmul
// cost about as much as one element of a streaming elementwise loop, the
// unit of runtime.ParallelWork: the microkernel does 16 float32
// multiply-adds per FMA instruction, with operands in L1, two per cycle.
// Counting a multiply-add as an element split GT2's 100x100x100 product
// (1M of them, 35 us on one thread) across two threads, which made it
// slower (BenchmarkGT2Split matmul: 45 us on one thread, 58 us on two);
// with 96 (32 when ParallelWork was three times larger), products from
// about 146^3 (3.1M multiply-adds) are split.
const mmMACsPerElement = 96

// unit is the function computing one nest of groups.
type unit struct {
	fn
	// dyn describes the dynamic dimension (GenerateDynamic), nil in a
	// static module; grain is the nest's Group.Grain, 0 for 1.
	dyn   *Dynamic
	grain int

	inputs  []ir.Value // materialized values read, in first-use order
	argName map[ir.Value]string
	allocas strings.Builder
	// row is the induction variable of the nest's loop over rows, "" when
	// the nest is a single group with its own outer loop.
	row string
	// local maps the row-local values of the nest to their scratch row.
	local map[ir.Value]localRow
	// outOf maps the other values the nest computes to their output
	// parameter, which later groups of the nest read them from: passing
	// the buffer again as a noalias input would break noalias.
	outOf map[ir.Value]string
	// nontemporal reports that the function marks stores !nontemporal
	// (stream.go), so the module must define the metadata node !0.
	nontemporal bool
	// reread holds the values of the nest that a later group of it reads.
	reread map[ir.Value]bool
	// fenceAtEnd asks for a fence after the nest's loop over rows, which
	// orders the streaming stores of its groups.
	fenceAtEnd bool
	// errs reports that the function checks indices and takes the error
	// slot as its last pointer parameter, %err (indexing.go).
	errs bool
	// anyBad, when not "", is the entry-block flag that checkIndex sets
	// on a bad index instead of branching to the slow path (gather.go).
	anyBad string
	// packOnce lets a static matmul have B packed by a nest of its own
	// (matmul_pack.go); packed is then that matmul's plan, and the
	// function takes the packed B as its last pointer parameter, %packed.
	packOnce bool
	packed   *packPlan
	// blocks, when not nil, says the nest's reduction was computed in
	// blocks by a nest of its own (reduce_blocks.go); the function takes
	// the partials as its last pointer parameter, %partials.
	blocks *blockPlan
}

// localRow is the scratch buffer of a row-local value: buf holds one row,
// the row whose first element has linear offset off.
type localRow struct{ buf, off string }

// group emits the loop nest computing one plan root inside a unit.
type group struct {
	*unit
	p    *passes.Plan
	g    *ir.Graph
	root ir.Value
	out  string // the root's buffer parameter
}

// emitBody writes the group's loops and returns the extent of its outer
// loop (the %end the entry passes when the group is alone in its nest).
func (gr *group) emitBody() int {
	n := &gr.g.Nodes[gr.root]
	mm := gr.p.MatMul[gr.p.Group[gr.root]]
	switch n.Op.Kind() {
	case ir.KindReduce, ir.KindArgReduce:
		if mm >= 0 {
			return gr.emitMatMul(&gr.g.Nodes[mm]) // summing its epilogue
		}
		return gr.emitReduce(n)
	case ir.KindMatMul:
		return gr.emitMatMul(n)
	case ir.KindScan:
		return gr.emitScan(n)
	case ir.KindSort:
		return gr.emitSort(n)
	case ir.KindScatter:
		return gr.emitScatter(n)
	case ir.KindRandom:
		if gr.blockwise(n) {
			return gr.emitUniformRoot(n) // random.go
		}
	}
	if mm >= 0 {
		return gr.emitMatMul(&gr.g.Nodes[mm]) // with the root as its epilogue
	}
	return gr.emitMap(n)
}

// storeRoot stores v at linear offset off of the root's buffer.
func (gr *group) storeRoot(dt ir.DType, off, v string) {
	if l, ok := gr.local[gr.root]; ok {
		gr.store(dt, l.buf, gr.ins("sub nuw nsw i64 %s, %s", off, l.off), v)
		return
	}
	gr.store(dt, gr.out, off, v)
}

// loadRoot loads the root's element at linear offset off.
func (gr *group) loadRoot(dt ir.DType, off string) string {
	if l, ok := gr.local[gr.root]; ok {
		return gr.loadAt(dt, l.buf, gr.ins("sub nuw nsw i64 %s, %s", off, l.off))
	}
	return gr.loadAt(dt, gr.out, off)
}

// loops opens one loop per dimension of value v's shape, the outermost
// over [%start, %end), and returns the loops and an index whose
// coordinates are the induction variables.
func (gr *group) loops(key string, v ir.Value) ([]*loop, *index) {
	ix := gr.indexOf(key, v)
	shape := ix.shape
	var ls []*loop
	for k := range shape {
		start, end := "0", gr.extent(ix, k)
		if k == 0 {
			if gr.row != "" {
				ix.dims[0] = gr.row
				continue
			}
			start, end = "%start", "%end"
		}
		l := gr.openLoop(start, end)
		ls = append(ls, l)
		ix.dims[k] = l.iv
	}
	if len(shape) == 0 {
		ix.lin = "0"
	}
	return ls, ix
}

// indexOf is newIndex for value v's shape, with its dynamic axes.
func (gr *group) indexOf(key string, v ir.Value) *index {
	ix := newIndex(key, gr.g.Nodes[v].Shape)
	if gr.dyn != nil && int(v) < len(gr.dyn.Axes) {
		ix.dyn = gr.dyn.Axes[v]
	}
	return ix
}

func (gr *group) closeLoops(ls []*loop) {
	for i := len(ls) - 1; i >= 0; i-- {
		gr.closeLoop(ls[i])
	}
}

func extentOf(shape ir.Shape) int {
	if len(shape) == 0 {
		return 1
	}
	return shape[0]
}

// emitMap computes an elementwise or layout root one element at a time.
// When everything fused into it is elementwise, the loop nest is one flat
// loop over the linear offset: the form LLVM's vectorizer handles best.
func (gr *group) emitMap(n *ir.Node) int {
	extent := extentOf(n.Shape)
	// compute computes value src (the root, or the value a root reshape
	// relabels: see reshapedLoops) at ix and stores it at the same linear
	// offset of the root.
	compute := func(src ir.Value, ls []*loop, ix *index) {
		v := gr.compute(src, ix)
		gr.storeRoot(n.DType, gr.linear(ix), v)
		gr.closeLoops(ls)
	}
	switch {
	case gr.flat(gr.root):
		extent = n.Shape.Size()
		start, end := "%start", "%end"
		if gr.row != "" {
			// One row of the nest: a contiguous run of the flat range.
			per := extent / n.Shape[0]
			start = gr.ins("mul nuw nsw i64 %s, %d", gr.row, per)
			end = gr.ins("add nuw nsw i64 %s, %d", start, per)
		}
		gr.streamOr(n, func() {
			gr.emitStreamingMap(n, start, end, func(off string) *index {
				ix := gr.indexOf("r", gr.root)
				ix.lin = off
				return ix
			})
		}, func() {
			l := gr.openLoop(start, end)
			ix := gr.indexOf("r", gr.root)
			ix.lin = l.iv
			compute(gr.root, []*loop{l}, ix)
		})
	case gr.row != "" && len(n.Shape) == 2:
		gr.streamOr(n, func() {
			// One row of a nest, contiguous in the output: stream it too.
			per := n.Shape[1]
			start := gr.ins("mul nuw nsw i64 %s, %d", gr.row, per)
			end := gr.ins("add nuw nsw i64 %s, %d", start, per)
			gr.emitStreamingMap(n, start, end, func(off string) *index {
				ix := gr.indexOf("r", gr.root)
				ix.dims[0] = gr.row
				ix.dims[1] = gr.ins("sub nuw nsw i64 %s, %s", off, start)
				ix.lin = off
				return ix
			})
		}, func() {
			ls, ix := gr.loops("r", gr.root)
			compute(gr.root, ls, ix)
		})
	case gr.row == "" && checkIndices && gr.gathers(gr.root, map[ir.Value]bool{}):
		gr.emitDeferredChecks(func() { compute(gr.reshapedLoops()) }) // gather.go
	default:
		compute(gr.reshapedLoops())
	}
	return extent
}

// reshapedLoops is loops over the root, except that a root reshape (or a
// chain of them) of a value fused into the group loops over that value's
// shape: a reshape keeps the row-major order, so the value's linear
// offsets are the root's. An image batch computed flat ([b, h*w*c]) and
// reshaped to [b, h, w, c] then runs as a long inner loop that
// vectorizes, not as an inner loop over 3 channels (measured 6x faster
// on the pipeline's Cutout). Dimension 0 must stay the same, as it is
// the range split across threads.
func (gr *group) reshapedLoops() (ir.Value, []*loop, *index) {
	src := gr.root
	for gr.dyn == nil {
		n := &gr.g.Nodes[src]
		if n.Op != ir.OpReshape || gr.p.Materialized[n.Args[0]] {
			break
		}
		a := gr.g.Nodes[n.Args[0]].Shape
		if len(a) == 0 || len(n.Shape) == 0 || a[0] != n.Shape[0] {
			break
		}
		src = n.Args[0]
	}
	ls, ix := gr.loops("r", src)
	return src, ls, ix
}

// flat reports whether v and everything fused into it are elementwise ops
// or constants, so that one linear offset addresses every operand.
func (gr *group) flat(v ir.Value) bool {
	n := &gr.g.Nodes[v]
	if v != gr.root && gr.p.Materialized[v] {
		return true
	}
	if n.Op == ir.OpConst {
		return true
	}
	if !n.Op.IsElementwise() {
		return false
	}
	for _, a := range n.Args {
		if !gr.flat(a) {
			return false
		}
	}
	return true
}

func (gr *group) store(dt ir.DType, buf, off, v string) {
	mt := memType(dt)
	if dt == ir.Bool {
		v = gr.ins("zext i1 %s to i8", v)
	}
	p := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", mt, buf, off)
	gr.stmt("store %s %s, ptr %s", mt, v, p)
}

func (gr *group) loadAt(dt ir.DType, buf, off string) string {
	mt := memType(dt)
	p := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", mt, buf, off)
	v := gr.ins("load %s, ptr %s", mt, p)
	if dt == ir.Bool {
		v = gr.ins("icmp ne i8 %s, 0", v)
	}
	return v
}

// buf returns the function parameter holding a materialized value's buffer.
func (gr *group) buf(v ir.Value) string {
	if name, ok := gr.outOf[v]; ok {
		return name
	}
	if name, ok := gr.argName[v]; ok {
		return name
	}
	name := fmt.Sprintf("%%in%d", v)
	gr.argName[v] = name
	gr.inputs = append(gr.inputs, v)
	return name
}

// value returns the SSA operand holding v at ix: a load when v is in a
// buffer, otherwise v computed here. Results are memoized per position.
func (gr *group) value(v ir.Value, ix *index) string {
	n := &gr.g.Nodes[v]
	if n.Op == ir.OpConst {
		return gr.constant(v)
	}
	key := strconv.Itoa(int(v)) + "@" + ix.key
	if s, ok := gr.memo[key]; ok {
		return s
	}
	var s string
	if gr.p.Materialized[v] && v != gr.root {
		if l, ok := gr.local[v]; ok {
			s = gr.loadAt(n.DType, l.buf, gr.ins("sub nuw nsw i64 %s, %s", gr.linear(ix), l.off))
		} else {
			s = gr.loadAt(n.DType, gr.buf(v), gr.linear(ix))
		}
	} else {
		s = gr.compute(v, ix)
	}
	gr.memo[key] = s
	return s
}

// compute emits the operation of v at ix from its operands.
func (gr *group) compute(v ir.Value, ix *index) string {
	n := &gr.g.Nodes[v]
	arg := func(i int) string { return gr.value(n.Args[i], ix) }
	switch n.Op.Kind() {
	case ir.KindSource:
		switch n.Op {
		case ir.OpConst:
			return gr.constant(v)
		case ir.OpIota:
			return gr.cast(ir.Int64, n.DType, gr.dim(ix, n.Axes[0]))
		}
	case ir.KindUnary:
		return gr.unary(n.Op, n.DType, arg(0))
	case ir.KindCast:
		return gr.cast(gr.g.Nodes[n.Args[0]].DType, n.DType, arg(0))
	case ir.KindBinary:
		if n.Op == ir.OpDiv && n.DType.IsFloat() && gr.target.AVX512 && gr.innerInvariant(n.Args[1]) {
			return gr.divInvariant(n.DType, arg(0), arg(1))
		}
		return gr.binary(n.Op, n.DType, arg(0), arg(1))
	case ir.KindCompare:
		return gr.compare(n.Op, gr.g.Nodes[n.Args[0]].DType, arg(0), arg(1))
	case ir.KindSelect:
		c, a, b := arg(0), arg(1), arg(2)
		t := regType(n.DType)
		return gr.ins("select i1 %s, %s %s, %s %s", c, t, a, t, b)
	case ir.KindLayout:
		return gr.layout(v, n, ix)
	case ir.KindGather, ir.KindDynamicSlice, ir.KindRandom:
		return gr.computeIndexing(v, n, ix) // indexing.go
	}
	panic(fmt.Sprintf("%s cannot be computed inside a fused loop", ir.FormatNode(gr.g, v)))
}

// constant returns constant v's value: a literal, or in a dynamic module
// (Dynamic.Scale) a multiple of %size converted to its dtype once, in the
// entry block.
func (gr *group) constant(v ir.Value) string {
	n := &gr.g.Nodes[v]
	if gr.dyn == nil || int(v) >= len(gr.dyn.Scale) || gr.dyn.Scale[v] == 0 || n.DType.IsHalf() {
		return constLit(n.DType, n.Const)
	}
	size := gr.times(gr.dyn.Scale[v]*gr.dyn.Size, true)
	t := regType(n.DType)
	if t == "i64" {
		return size
	}
	conv := "trunc"
	if n.DType.IsFloat() {
		conv = "uitofp"
	}
	return gr.define("%const"+strconv.Itoa(int(v)), conv+" i64 "+size+" to "+t)
}

// innerInvariant reports whether v, computed inside the group's loops,
// keeps one value along the innermost loop, which runs over the last axis:
// a constant, a broadcast along that axis, or elementwise ops of such.
func (gr *group) innerInvariant(v ir.Value) bool {
	n := &gr.g.Nodes[v]
	switch {
	case n.Op == ir.OpConst:
		return true
	case gr.p.Materialized[v]:
		return false
	case n.Op == ir.OpBroadcast:
		as := gr.g.Nodes[n.Args[0]].Shape
		return len(as) == 0 || as[len(as)-1] == 1
	case n.Op.IsElementwise():
		for _, a := range n.Args {
			if !gr.innerInvariant(a) {
				return false
			}
		}
		return true
	}
	return false
}

// layout computes a data-movement op by mapping ix to a position in its
// operand: no data is copied unless the op is a group's root.
func (gr *group) layout(v ir.Value, n *ir.Node, ix *index) string {
	a := n.Args[0]
	as := gr.g.Nodes[a].Shape
	switch n.Op {
	case ir.OpReshape:
		in := gr.indexOf("rs"+as.String()+"("+ix.key+")", a)
		in.lin = gr.linear(ix)
		return gr.value(a, in)
	case ir.OpBroadcast:
		in := gr.indexOf("bc"+as.String()+"("+ix.key+")", a)
		off := len(n.Shape) - len(as)
		for k, d := range as {
			if d == 1 {
				in.dims[k] = "0"
			} else {
				in.dims[k] = gr.dim(ix, off+k)
			}
		}
		if len(as) == 0 {
			in.lin = "0"
		}
		return gr.value(a, in)
	case ir.OpTranspose:
		in := gr.indexOf("tr"+ir.Shape(n.Axes).String()+"("+ix.key+")", a)
		for k, p := range n.Axes {
			in.dims[p] = gr.dim(ix, k)
		}
		return gr.value(a, in)
	case ir.OpSlice:
		in := gr.indexOf(fmt.Sprintf("sl%v%v(%s)", n.Starts, n.Steps, ix.key), a)
		for k := range as {
			d := gr.dim(ix, k)
			switch st := n.Steps[k]; {
			case st < 0: // walks backwards from the start: start+d*step >= 0
				d = gr.ins("mul nsw i64 %s, %d", d, st)
				d = gr.ins("add nsw i64 %s, %d", d, n.Starts[k])
			default:
				if st != 1 {
					d = gr.ins("mul nuw nsw i64 %s, %d", d, st)
				}
				if n.Starts[k] != 0 {
					d = gr.ins("add nuw nsw i64 %s, %d", d, n.Starts[k])
				}
			}
			in.dims[k] = d
		}
		return gr.value(a, in)
	case ir.OpConcat:
		return gr.concat(n, ix)
	}
	panic(fmt.Sprintf("codegen: layout op %s", n.Op))
}

// concat reads every operand at its clamped position and selects the one
// whose range holds the coordinate: branch-free, so the loop still
// vectorizes, and never out of bounds.
func (gr *group) concat(n *ir.Node, ix *index) string {
	ax := n.Axes[0]
	d := gr.dim(ix, ax)
	t := regType(n.DType)
	type part struct {
		off string // the first coordinate along ax that is the operand's
		val string
	}
	var parts []part
	off := "0"
	for _, a := range n.Args {
		as := gr.g.Nodes[a].Shape
		if as[ax] == 0 {
			continue
		}
		in := gr.indexOf(fmt.Sprintf("cc%d.%s(%s)", ax, off, ix.key), a)
		// The operand's last coordinate along ax; it follows %size
		// when the axis is dynamic.
		top := strconv.Itoa(as[ax] - 1)
		if size := gr.extent(in, ax); !isConst(size) {
			top = gr.ins("sub nsw i64 %s, 1", size)
		}
		for k := range as {
			if k != ax {
				in.dims[k] = gr.dim(ix, k)
				continue
			}
			c := d
			if off != "0" {
				c = gr.ins("sub i64 %s, %s", d, off)
				neg := gr.ins("icmp slt i64 %s, 0", c)
				c = gr.ins("select i1 %s, i64 0, i64 %s", neg, c)
			}
			over := gr.ins("icmp sgt i64 %s, %s", c, top)
			in.dims[k] = gr.ins("select i1 %s, i64 %s, i64 %s", over, top, c)
		}
		parts = append(parts, part{off, gr.partValue(a, in, gr.extent(in, ax))})
		off = gr.addC(off, gr.extent(in, ax))
	}
	if len(parts) == 0 {
		// Every operand is empty along the axis, so the output has no
		// elements and this code never runs; it still needs a value.
		return zeroLit(n.DType)
	}
	res := parts[len(parts)-1].val
	for j := len(parts) - 2; j >= 0; j-- {
		below := gr.ins("icmp slt i64 %s, %s", d, parts[j+1].off)
		res = gr.ins("select i1 %s, %s %s, %s %s", below, t, parts[j].val, t, res)
	}
	return res
}

// partValue is value(a, in) for an operand of a concat whose size along
// the axis is size. An operand that follows %size has nothing to read at
// size 0, so it is read only when not empty (it is then 0, and not
// selected).
func (gr *group) partValue(a ir.Value, in *index, size string) string {
	if isConst(size) {
		return gr.value(a, in)
	}
	dt := gr.g.Nodes[a].DType
	from, yes, join := gr.cur, gr.newLabel("part"), gr.newLabel("parted")
	gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp sgt i64 %s, 0", size), yes, join)
	gr.block(yes)
	saved := gr.memo // values computed here do not dominate the join
	gr.memo = maps.Clone(saved)
	v := gr.value(a, in)
	end := gr.cur
	gr.stmt("br label %%%s", join)
	gr.block(join)
	gr.memo = saved
	t := regType(dt)
	return gr.ins("phi %s [ %s, %%%s ], [ %s, %%%s ]", t, v, end, zeroLit(dt), from)
}

// zeroLit is the zero of dtype dt as an LLVM constant.
func zeroLit(dt ir.DType) string {
	switch {
	case dt == ir.Bool:
		return "false"
	case dt.IsFloat():
		return floatLit(dt, 0)
	case dt == ir.Float16:
		return "0xH0000"
	}
	return "0"
}

// alloca reserves an entry-block slot of LLVM type t.
func (gr *unit) alloca(t string) string {
	gr.tmp++
	name := "%acc" + strconv.Itoa(gr.tmp)
	fmt.Fprintf(&gr.allocas, "  %s = alloca %s\n", name, t)
	return name
}

// reduced splits the operand's axes into kept (the output's) and reduced.
func reduced(rank int, axes []int) (kept []int) {
	for k := range rank {
		if !slices.Contains(axes, k) {
			kept = append(kept, k)
		}
	}
	return kept
}
