package lazy

import (
	"errors"

	"github.com/gojit/gojit/internal/ir"
)

// ErrDerivedFromFreed is the error of a tensor derived from one that Free
// released while the tensor was pending in a graph already flushed, in a
// Context made WithFreeDropsDerived.
var ErrDerivedFromFreed = errors.New("lazy: tensor derived from a freed tensor was not computed before the Free (WithFreeDropsDerived)")

// Giving a host copy's buffer back at Free.
//
// A copy of host data outside the heap (hostmem.go) is reused once the
// collector has found its Array unreachable, which in a loop that makes
// new inputs every iteration is hundreds of iterations later: each copy
// then goes to memory that left the cache long ago. Free is the user
// saying that the tensor is done with, so Free gives the buffer back at
// once, last in first out, when it can prove that nothing can read the
// Array again. The Array's holders are:
//
//   - the Tensor itself (t.arr), which Free empties;
//   - other Tensors sharing the copy: of unchanged host data
//     (unchanged.go, which marks the buffer shared), or an op whose
//     result is the input's own node (record marks the graph aliased);
//   - the Context's memory of its last copies (c.copies), which Free
//     forgets, since no other Tensor shares the copy;
//   - the pending graph the Tensor was made in, which lists the Array as
//     an input, and any later graph it was brought into: by Context.use
//     (the Tensor, which marks the buffer escaped) or by importNode, which
//     brings a retired graph's pending node into a new graph with the
//     values it uses (and marks the older graph exported);
//   - the pending nodes of that graph that use it, directly or not: a
//     Tensor the user kept may ask for any of them later, and lazy cannot
//     tell a kept Tensor from a dropped one before a collection. Only
//     when every one of them has been computed and stored does no future
//     flush read the Array;
//   - a flush's argument lists (Context.ins, cleared after the run) and
//     the kernel or interpreter run, which read it only while the flush
//     runs, under the Context's lock, as Free does;
//   - the user, never: Tensor.Array gives a heap copy, and then t.arr no
//     longer is the host copy.
//
// When any of these may remain, the buffer is left to the cleanup.
//
// In a Context made WithFreeDropsDerived the pending nodes do not keep
// the buffer: Free lists the input in its graph's freed inputs, and a
// pending node of that graph that needs it (needsFreed) can no longer be
// computed: Context.use (an op) and flushRead (a read), the only ways a
// retired graph's pending node is reached again, return an error
// instead. The graph the input was made in is then retired: Free of an
// input that pending ops of the current graph use computes them first.

// freeSkip turns checks of freeHost off: for the tests that make sure
// the tests catch a buffer reused too early.
var freeSkip uint

const (
	skipShared  uint = 1 << iota // another Tensor shares the copy
	skipEscaped                  // the copy is an input of a later graph
	skipUsers                    // an op using the copy is pending
	skipGraph                    // the graph was exported or aliased
	skipDropped                  // the use of a dropped tensor (needsFreed)
)

// freeHost gives t's host copy's buffer back if nothing but t can read it
// (c locked; after the free flush, if any).
func (c *Context) freeHost(t *Tensor) {
	k, a, g := t.host, t.arr, t.gen
	// a.Err: the user released a, the heap copy Array gave (dataPtr
	// would panic on its nil data); the host copy is never handed out.
	if k == nil || a == nil || g == nil || a.Err() != nil || dataPtr(a) != k.p {
		return
	}
	switch {
	case k.shared && freeSkip&skipShared == 0,
		k.escaped && freeSkip&skipEscaped == 0,
		(g.exported || g.aliased) && freeSkip&skipGraph == 0,
		g.resident(t.v) != a:
		return
	}
	if freeSkip&skipUsers == 0 && !c.usersComputed(g, t.v) {
		if !c.freeDrops || !g.retired {
			return
		}
		g.freed = append(g.freed, t.v)
	}
	c.forgetCopy(k)
	k.give()
	stats.freed.Add(1)
}

// usersComputed reports whether every node of g that depends on v has
// been computed and stored.
func (c *Context) usersComputed(g *generation, v ir.Value) bool {
	nodes := g.g.Nodes
	if cap(c.need) < len(nodes) {
		c.need = make([]bool, len(nodes)+len(nodes)/2)
	}
	dep := c.need[:len(nodes)]
	clear(dep)
	dep[v] = true
	for i := int(v) + 1; i < len(nodes); i++ {
		for _, a := range nodes[i].Args {
			if dep[a] {
				dep[i] = true
				break
			}
		}
		if dep[i] && g.resident(ir.Value(i)) == nil {
			return false
		}
	}
	return true
}

// needsFreed reports whether computing node v of g needs an input whose
// host copy Free gave back (WithFreeDropsDerived).
func (g *generation) needsFreed(v ir.Value) bool {
	if len(g.freed) == 0 || freeSkip&skipDropped != 0 {
		return false
	}
	seen := make(map[ir.Value]bool)
	stack := []ir.Value{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[v] {
			continue
		}
		seen[v] = true
		if g.resident(v) != nil {
			for _, f := range g.freed {
				if f == v {
					return true
				}
			}
			continue
		}
		stack = append(stack, g.g.Nodes[v].Args...)
	}
	return false
}
