package runtime

import (
	"slices"
	"unsafe"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/passes"
)

// Memory planning: the intermediates that must live in memory (temporaries:
// materialized values that are neither parameters nor outputs) share one
// arena per call frame. Each temporary is live from the loop nest that
// writes it to the last nest that reads it; two temporaries whose live
// ranges do not overlap may occupy the same bytes. The arena's size and
// every offset are fixed when the executable is built, and a frame's arena
// is reused across calls (frames are pooled), so steady-state calls
// allocate nothing.

// arenaAlign is each temporary's alignment in the arena: a cache line, and
// enough for any vector load.
const arenaAlign = 64

// interval is a temporary's live range in nests, inclusive.
type interval struct{ def, last int }

func (a interval) overlaps(b interval) bool { return a.def <= b.last && b.def <= a.last }

// liveRanges returns, for each slot that is a temporary, its live range.
// A value is read by the nest of every group that uses it, and by the nests
// that use a value recomputed in place (Group -1, such as a transpose of it)
// wherever that value is read.
func liveRanges(p *passes.Plan, mod *codegen.Module, slots []source) []interval {
	g := p.Graph
	nestOf := make([]int, len(p.Roots))
	for ni, nest := range p.Nests {
		for _, gi := range nest {
			nestOf[gi] = ni
		}
	}
	users := g.Users()
	// lastUse[v] is the last nest reading v, or -1; values are numbered
	// in topological order, so users come later and are done first.
	lastUse := make([]int, len(g.Nodes))
	for v := len(g.Nodes) - 1; v >= 0; v-- {
		lastUse[v] = -1
		for _, u := range users[v] {
			n := lastUse[u]
			if gi := p.Group[u]; gi >= 0 {
				n = nestOf[gi]
			}
			lastUse[v] = max(lastUse[v], n)
		}
	}
	var out []interval
	for i, s := range slots {
		if s.kind != fromTemp {
			continue
		}
		if i >= len(mod.Slots) {
			// A scratch buffer (codegen.Scratch), after the slots and the
			// error slot, in order: live during its nest only.
			sc := mod.Scratch[i-(len(slots)-len(mod.Scratch))]
			out = append(out, interval{sc.Nest, sc.Nest})
			continue
		}
		v := mod.Slots[i]
		def := nestOf[p.Group[v]]
		out = append(out, interval{def, max(def, lastUse[v])})
	}
	return out
}

// planArena assigns each temporary an offset in a shared arena: the
// largest first, each at the lowest aligned offset that overlaps no
// temporary placed before it whose live range it overlaps. It returns the
// offsets and the arena's size in bytes.
func planArena(sizes []int, live []interval) (offsets []int, size int) {
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return sizes[b] - sizes[a] })
	offsets = make([]int, len(sizes))
	var placed []int
	for _, i := range order {
		need := alignUp(sizes[i])
		// Candidate offsets: 0 and the end of every conflicting block.
		var conflicts []int
		for _, j := range placed {
			if live[i].overlaps(live[j]) {
				conflicts = append(conflicts, j)
			}
		}
		slices.SortFunc(conflicts, func(a, b int) int { return offsets[a] - offsets[b] })
		off := 0
		for _, j := range conflicts {
			if off+need <= offsets[j] {
				break
			}
			off = max(off, offsets[j]+alignUp(sizes[j]))
		}
		offsets[i] = off
		size = max(size, off+need)
		placed = append(placed, i)
	}
	return offsets, size
}

func alignUp(n int) int { return (n + arenaAlign - 1) / arenaAlign * arenaAlign }

// arenaLayout computes the shared layout of e's temporaries.
func (e *Executable) arenaLayout() (offsets []int, size int) {
	if len(e.tempBytes) == 0 {
		return nil, 0
	}
	return planArena(e.tempBytes, liveRanges(e.Plan, e.Module, e.slots))
}

// newFrame allocates a call frame whose temporaries are views of one arena.
// A dynamic executable's temporaries are left to growTemps, which sizes
// them for each call's batch instead of the trace's.
func (e *Executable) newFrame() *frame {
	fr := &frame{args: make([]unsafe.Pointer, len(e.slots)), temps: make([][]uint64, len(e.tempBytes))}
	if e.ArenaBytes > 0 && e.Dynamic == nil {
		// The index-error slot shares the allocation, so a call pins one
		// object for all of them (see pinArgs).
		arena := make([]uint64, e.ArenaBytes/8+errWords)
		fr.arena = arena
		fr.errs = arena[e.ArenaBytes/8:]
		for i, b := range e.tempBytes {
			w := e.arenaOffsets[i] / 8
			fr.temps[i] = arena[w : w+(b+7)/8 : w+(b+7)/8]
		}
	}
	return fr
}
