package lazy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// Flush reasons, as Stats and the log name them.
const (
	ReasonRead  = "read"
	ReasonFree  = "free"
	ReasonSync  = "sync"
	ReasonBatch = "batch size"
)

func inspect(t *gojit.Tensor) (any, ir.Value, bool, float64) { return lazycore.H.Inspect(t) }

// Sync computes every tensor of the default Context that is still pending
// and returns the errors of ops recorded since the last Sync that no read
// has returned.
func Sync() error { return Default().Sync() }

// Sync computes every tensor of c that is still pending (see the package
// documentation: every tensor recorded since the last flush is stored)
// and returns the errors of ops recorded since the last Sync that no read
// has returned.
func (c *Context) Sync() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.region > 0 {
		return fmt.Errorf("%s: %w", userPos(), errReadInRegion)
	}
	c.weaken()
	var err error
	if g := c.gen; g != nil && !g.retired && len(g.handles) > 0 {
		err = c.flush(ReasonSync, c.handleTargets(g, len(g.g.Nodes)), len(g.g.Nodes))
	}
	err = errors.Join(append(c.unreported, err)...)
	c.unreported = nil
	return err
}

// handleTargets returns the nodes below cut that a Tensor holds.
func (c *Context) handleTargets(g *generation, cut int) []ir.Value {
	var out []ir.Value
	for _, h := range g.handles {
		if int(h.v) < cut && h.live(g) != nil {
			out = append(out, h.v)
		}
	}
	return out
}

func (c *Context) flushRead(t *Tensor) error {
	g := t.gen
	if g.retired { // pending in a retired graph: bring it into the current one
		if g.needsFreed(t.v) {
			return fmt.Errorf("%s: %w", userPos(), ErrDerivedFromFreed)
		}
		c.use(t)
		g = t.gen
	}
	return c.flush(ReasonRead, []ir.Value{t.v}, len(g.g.Nodes))
}

// hasUsers reports whether a node of g uses v.
func (c *Context) hasUsers(g *generation, v ir.Value) bool {
	for i := int(v) + 1; i < len(g.g.Nodes); i++ {
		if slices.Contains(g.g.Nodes[i].Args, v) {
			return true
		}
	}
	return false
}

// flushFree computes the tensors of the pending graph that depend on t.
func (c *Context) flushFree(t *Tensor) {
	g := t.gen
	dep := make([]bool, len(g.g.Nodes))
	dep[t.v] = true
	for i := int(t.v) + 1; i < len(g.g.Nodes); i++ {
		for _, a := range g.g.Nodes[i].Args {
			if dep[a] {
				dep[i] = true
				break
			}
		}
	}
	var targets []ir.Value
	for _, h := range g.handles {
		if dep[h.v] && h.v != t.v && h.live(g) != nil {
			targets = append(targets, h.v)
		}
	}
	if err := c.flush(ReasonFree, targets, len(g.g.Nodes)); err != nil {
		c.unreported = append(c.unreported, err)
	}
}

// flushBatch flushes when the pending graph reaches the batch size. The
// cut goes after the node with the smallest structural hash (the latest of
// equals) among those recorded: in a loop that repeats a pattern, that is
// the same point of the pattern every time, so the batches repeat and hit
// the cache whenever a batch holds at least one repetition.
func (c *Context) flushBatch() {
	g := c.gen
	nodes := g.g.Nodes
	// Nodes carried over from the last cut are not candidates: cutting
	// among them would leave most of the batch for the next one.
	best, bestHash := -1, uint64(math.MaxUint64)
	start := g.carried
	if start >= len(nodes) {
		start = 0
	}
	for i := start; i < len(nodes); i++ {
		if g.resident(ir.Value(i)) != nil {
			continue
		}
		if nodes[i].Op.Kind() == ir.KindControl || i+1 < len(nodes) && nodes[i+1].Op == ir.OpGet {
			continue // never between a control-flow op and its results
		}
		if h := structHash(g, i); h <= bestHash {
			best, bestHash = i, h
		}
	}
	if best < 0 {
		return
	}
	cut := best + 1
	// Store what the nodes after the cut use and what live Tensors hold
	// that no op of the batch uses (an intermediate is fused away: the
	// outputs of a cut do not depend on when the garbage collector ran,
	// so a repeated pattern keeps one signature); dead Tensors store
	// nothing.
	used := make([]bool, len(nodes))
	for i := range nodes {
		for _, a := range nodes[i].Args {
			used[a] = true
		}
	}
	var targets []ir.Value
	for _, v := range c.handleTargets(g, cut) {
		if !used[v] {
			targets = append(targets, v)
		}
	}
	for i := cut; i < len(nodes); i++ {
		for _, a := range nodes[i].Args {
			if int(a) < cut && g.resident(a) == nil {
				targets = append(targets, a)
			}
		}
	}
	handles := g.handles
	if err := c.flush(ReasonBatch, targets, cut); err != nil {
		c.unreported = append(c.unreported, err)
		return
	}
	// The nodes after the cut start the next pending graph, in the order
	// they were recorded, so that it holds what a cut at the same point
	// of the pattern always leaves: the next batch repeats too. (A dead
	// one among them is carried but never computed.)
	ng := c.cur()
	for i := cut; i < len(nodes); i++ {
		ng.importNode(g, ir.Value(i))
	}
	ng.carried = len(ng.g.Nodes)
	for _, h := range handles {
		if t := h.live(g); t != nil && int(h.v) >= cut {
			t.gen, t.v = ng, ng.imports[importKey{g, h.v}]
			t.t = nil // made again by core if a method needs it
			h.v = t.v
			ng.handles = append(ng.handles, h)
		}
	}
}

// liveNeeds marks the nodes of g that a live Tensor still needs: the
// pending nodes of live Tensors and the pending nodes they depend on.
// What no live Tensor needs is dead: a flush neither computes nor stores
// it. A Tensor the user dropped counts as live until the garbage
// collector has found it unreachable (its weak handle is cleared then).
func (c *Context) liveNeeds(g *generation) []bool {
	if cap(c.need) < len(g.g.Nodes) {
		c.need = make([]bool, len(g.g.Nodes)+len(g.g.Nodes)/2)
	}
	need := c.need[:len(g.g.Nodes)]
	clear(need)
	stack := c.stack[:0]
	for _, h := range g.handles {
		if h.live(g) != nil {
			stack = append(stack, h.v)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if need[v] || g.resident(v) != nil {
			continue
		}
		need[v] = true
		stack = append(stack, g.g.Nodes[v].Args...)
	}
	c.stack = stack
	return need
}

// structHash hashes node i's op, dtype, shape, attributes and constant,
// and its operands' dtypes and shapes: not where they are, nor whether
// they are inputs or pending, so that the hash of a node of a repeated
// pattern is the same in every repetition, whatever the cuts before it.
func structHash(g *generation, i int) uint64 {
	n := &g.g.Nodes[i]
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
	}
	mix(uint64(n.Op)<<8 | uint64(n.DType))
	for _, d := range n.Shape {
		mix(uint64(d))
	}
	for _, a := range n.Args {
		an := &g.g.Nodes[a]
		mix(1<<40 | uint64(an.DType))
		for _, d := range an.Shape {
			mix(uint64(d))
		}
	}
	for _, x := range n.Axes {
		mix(uint64(x))
	}
	for _, x := range n.Starts {
		mix(uint64(x))
	}
	for _, x := range n.Steps {
		mix(uint64(x))
	}
	mix(math.Float64bits(n.Const.F) ^ uint64(n.Const.I))
	for _, r := range n.Regions {
		mix(uint64(len(r.Nodes)))
	}
	return h
}

// flush computes targets (nodes of the pending graph below cut) and every
// value they need that other pending nodes also use, stores them, and
// retires the pending graph.
func (c *Context) flush(reason string, targets []ir.Value, cut int) error {
	g := c.gen
	var start time.Time
	if c.logger != nil {
		start = time.Now()
	}
	stats.ops.Add(c.ops)
	c.ops = 0
	g.retired = true
	if len(targets) == 0 {
		return nil
	}
	sub, outs, ins := c.extract(g, targets, cut)
	// The graph and the lists are the Context's, reused by its next
	// flush (runGraph keeps a clone when it compiles); the arrays must
	// not stay reachable from them.
	defer clear(ins)
	if len(outs) == 0 {
		return nil // every target was already computed
	}
	run, err := c.runGraph(sub, ins, g)
	if err != nil {
		return err
	}
	for j, v := range outs {
		g.setRes(v, run.outs[j])
	}
	clear(run.outs)
	for _, h := range g.handles {
		if t := h.live(g); t != nil {
			if a := g.resident(h.v); a != nil && t.arr == nil {
				t.arr = a
			}
		}
	}
	g.handles = nil
	stats.flush(reason, len(sub.Nodes)-len(sub.Params), run.interpreted)
	if l := c.log(); l != nil {
		l.Debug("lazy: flush", "reason", reason, "at", userPos(), "nodes", len(sub.Nodes), "outputs", len(outs),
			"cache", run.how, "took", time.Since(start))
	}
	return nil
}

func (c *Context) log() *slog.Logger { return c.logger }

// extract builds the graph that computes targets from the resident values
// they depend on: its inputs are those values, its outputs the targets
// plus every computed node that another pending node uses.
func (c *Context) extract(g *generation, targets []ir.Value, cut int) (*ir.Graph, []ir.Value, []*gojit.Array) {
	nodes := g.g.Nodes
	if len(c.mark) < len(nodes) {
		c.mark = make([]uint32, len(nodes)+len(nodes)/2)
		c.outMark = make([]uint32, len(c.mark))
		c.remap = make([]ir.Value, len(c.mark))
	}
	c.stamp++
	if c.stamp == 0 {
		clear(c.mark)
		clear(c.outMark)
		c.stamp = 1
	}
	st, mark, outMark, remap := c.stamp, c.mark, c.outMark, c.remap
	need := c.liveNeeds(g)
	stack := append(c.stack[:0], targets...)
	count, nargs := 0, 0
	var gets []ir.Value
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if mark[v] == st {
			continue
		}
		mark[v] = st
		count++
		if g.resident(v) == nil {
			stack = append(stack, nodes[v].Args...)
			nargs += len(nodes[v].Args)
			if nodes[v].Op.Kind() == ir.KindControl {
				// A control-flow op's value is a tuple, never stored:
				// its results that live tensors need are computed and
				// stored with it, so that the loop does not run again.
				for j := int(v) + 1; j < len(nodes) && j < cut; j++ {
					if nodes[j].Op == ir.OpGet && nodes[j].Args[0] == v && need[j] {
						stack = append(stack, ir.Value(j))
						gets = append(gets, ir.Value(j))
					}
				}
			}
		}
	}
	c.stack = stack
	// A computed node used by a node this flush does not compute, and
	// that a live Tensor needs, is stored, so that nothing is computed
	// twice; dead nodes (see liveNeeds) store nothing.
	for _, v := range targets {
		outMark[v] = st
	}
	for _, v := range gets {
		outMark[v] = st
	}
	for i := range nodes {
		if mark[i] == st && g.resident(ir.Value(i)) == nil || !need[i] {
			continue
		}
		for _, a := range nodes[i].Args {
			if mark[a] == st && g.resident(a) == nil && nodes[a].Op.Kind() != ir.KindControl {
				outMark[a] = st
			}
		}
	}
	sub := &c.sub
	sub.Nodes, sub.Params = slices.Grow(sub.Nodes[:0], count), sub.Params[:0]
	args := slices.Grow(c.subArgs[:0], nargs)
	ins, outs := c.ins[:0], c.outs[:0]
	if len(c.posOf) < count {
		c.posOf = make([]ir.Value, count+count/2)
	}
	for i := range cut {
		v := ir.Value(i)
		if mark[i] != st {
			continue
		}
		n := nodes[i]
		if a := g.resident(v); a != nil {
			n = ir.Node{Op: ir.OpParam, DType: n.DType, Shape: n.Shape, Index: len(sub.Params)}
			sub.Params = append(sub.Params, ir.Value(len(sub.Nodes)))
			ins = append(ins, a)
		} else {
			k := len(args)
			for _, a := range n.Args {
				args = append(args, remap[a])
			}
			n.Args = args[k:len(args):len(args)]
			n.Pos, n.Call = "", ""
			if outMark[i] == st {
				outs = append(outs, v)
			}
		}
		remap[v] = ir.Value(len(sub.Nodes))
		c.posOf[len(sub.Nodes)] = v // where the user recorded it, for the engine's errors
		sub.Nodes = append(sub.Nodes, n)
	}
	sub.Outputs = sub.Outputs[:0]
	for _, v := range outs {
		sub.Outputs = append(sub.Outputs, remap[v])
	}
	c.subArgs, c.ins, c.outs = args, ins, outs
	return sub, outs, ins
}

// key appends the exact signature of sub to buf: every node's op, dtype,
// shape, operands and attributes, the inputs and the outputs.
func key(buf []byte, sub *ir.Graph, shapes bool) []byte {
	u := func(x uint64) { buf = binary.AppendUvarint(buf, x) }
	i := func(x int) { buf = binary.AppendVarint(buf, int64(x)) }
	ints := func(xs []int) {
		u(uint64(len(xs)))
		for _, x := range xs {
			i(x)
		}
	}
	u(uint64(len(sub.Nodes)))
	for k := range sub.Nodes {
		n := &sub.Nodes[k]
		buf = append(buf, byte(n.Op), byte(n.DType))
		u(uint64(len(n.Args)))
		for _, a := range n.Args {
			u(uint64(k - int(a)))
		}
		ints(n.Axes)
		if shapes {
			ints(n.Shape)
			ints(n.Starts)
			ints(n.Steps)
			u(math.Float64bits(n.Const.F))
			i(int(n.Const.I))
		} else {
			u(uint64(len(n.Shape)))
		}
		i(n.Index)
		u(uint64(len(n.Regions))) // a control-flow op's functions, in full
		for _, r := range n.Regions {
			buf = key(buf, r, true)
		}
	}
	u(uint64(len(sub.Outputs)))
	for _, o := range sub.Outputs {
		u(uint64(o))
	}
	return buf
}
