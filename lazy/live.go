package lazy

import (
	"runtime"
	"sync/atomic"
	"weak"

	"github.com/gojit/gojit/internal/ir"
)

// Knowing which tensors are alive.
//
// A generation lists the Tensors recorded in it (handles), so that Sync
// can compute them and a cut can store them. A Tensor the user dropped
// must not be computed, so the list must not keep it alive: it must hold
// it weakly. But a weak pointer costs more than recording an op (the
// runtime attaches a record to the object under a heap lock: about 1.5
// µs on the development machine, against 0.5 µs for the rest of the op),
// and it tells something only once a garbage collection has run since the
// Tensor was dropped. So a handle starts strong, and at the first op a
// Context records after a collection (gcEpoch moved), the Context turns
// the strong handles of its pending graph weak: the next collection then
// clears those the user dropped. Most Tensors are flushed, and leave the
// list, before any collection, and never pay for a weak pointer; a dropped
// one is known dead after two collections.

// gcEpoch counts garbage collections (see armEpoch).
var gcEpoch atomic.Uint64

type sentinel struct{ _ *byte } // a pointer, so not batched by the tiny allocator

func armEpoch() {
	runtime.AddCleanup(&sentinel{}, func(struct{}) {
		gcEpoch.Add(1)
		armEpoch()
	}, struct{}{})
}

func init() { armEpoch() }

// handleRef is a Tensor recorded in (or brought into) a generation: held
// strongly until the Context weakens it, then weakly.
type handleRef struct {
	v      ir.Value
	strong *Tensor
	w      weak.Pointer[Tensor]
}

// live returns the handle's Tensor if it still exists and is pending in g.
func (h handleRef) live(g *generation) *Tensor {
	t := h.strong
	if t == nil {
		t = h.w.Value()
	}
	if t != nil && t.gen == g {
		return t
	}
	return nil
}

// weaken turns the strong handles of c's pending graph weak if a
// collection ran since it last looked (c locked).
func (c *Context) weaken() {
	e := gcEpoch.Load()
	if e == c.epoch {
		return
	}
	c.epoch = e
	if g := c.gen; g != nil && !g.retired {
		// Newest first: the runtime keeps an object's weak handle in its
		// span's list sorted by address, which Tensors allocated one after
		// the other ascend, so that each weak.Make then inserts at the
		// head of the list instead of walking it to the end.
		for i := len(g.handles) - 1; i >= 0; i-- {
			if h := &g.handles[i]; h.strong != nil {
				h.w, h.strong = weak.Make(h.strong), nil
			}
		}
	}
}
