package lazy

import (
	"errors"
	"fmt"

	"github.com/gojit/gojit"
)

// Control flow: Cond, While and ForLoop are gojit's (see
// docs/controlflow.md), recorded lazily. Their functions run once, while
// the op is recorded, and record what they do into regions of one
// control-flow node of the pending graph, which the compiled code runs as
// the predicate and the loop decide. Inside those functions, tensors are
// symbolic: they can be combined with each other and with any tensor of
// the Context, and returned, but not read (a read there is an error), and
// the pending graph is not flushed until the op is recorded. While a
// function runs, its Context records into the region: do not use that
// Context from another goroutine meanwhile.

var errReadInRegion = errors.New("lazy: a tensor cannot be read, freed or synced inside a Cond, While or ForLoop function (return it from the function instead)")

// Cond is [gojit.Cond], recorded lazily: the results of then() when pred
// (a 0-D Bool tensor) is true and of otherwise() when it is false. Both
// functions run once, now, and must return the same number of tensors
// with equal dtypes and shapes (a Scalar takes the other branch's).
func Cond(pred *Tensor, then, otherwise func() []*Tensor) []*Tensor {
	c := enter(pred)
	defer c.mu.Unlock()
	p := c.use(pred)
	var th, ot func() []*gojit.Tensor
	if then != nil {
		th = func() []*gojit.Tensor { return c.leave(then()) }
	}
	if otherwise != nil {
		ot = func() []*gojit.Tensor { return c.leave(otherwise()) }
	}
	rs := c.inRegion(func() []*gojit.Tensor { return gojit.Cond(p, th, ot) })
	return c.recordAll(rs, pred)
}

// While is [gojit.While], recorded lazily: body(state) runs while
// cond(state) (a 0-D Bool tensor) is true, from init; While returns the
// final state. cond and body run once, now, on symbolic states, and body
// must return as many tensors as init with the same dtypes and shapes.
func While(init []*Tensor, cond func(state []*Tensor) *Tensor, body func(state []*Tensor) []*Tensor) []*Tensor {
	c := enter(init...)
	defer c.mu.Unlock()
	in := c.uses(init)
	var cf func([]*gojit.Tensor) *gojit.Tensor
	var bf func([]*gojit.Tensor) []*gojit.Tensor
	if cond != nil {
		cf = func(s []*gojit.Tensor) *gojit.Tensor {
			return c.leave([]*Tensor{cond(c.enterState(s))})[0]
		}
	}
	if body != nil {
		bf = func(s []*gojit.Tensor) []*gojit.Tensor { return c.leave(body(c.enterState(s))) }
	}
	rs := c.inRegion(func() []*gojit.Tensor { return gojit.While(in, cf, bf) })
	return c.recordAll(rs, init...)
}

// ForLoop is [gojit.ForLoop], recorded lazily: body(i, state) runs for i =
// lo, ..., hi-1 (0-D integer tensors or Scalar integers) from init, and
// ForLoop returns the final state. body runs once, now, on a symbolic i
// and state.
func ForLoop(lo, hi *Tensor, init []*Tensor, body func(i *Tensor, state []*Tensor) []*Tensor) []*Tensor {
	c := enter(append([]*Tensor{lo, hi}, init...)...)
	defer c.mu.Unlock()
	l, h, in := c.use(lo), c.use(hi), c.uses(init)
	var bf func(*gojit.Tensor, []*gojit.Tensor) []*gojit.Tensor
	if body != nil {
		bf = func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			st := c.enterState(append([]*gojit.Tensor{i}, s...))
			return c.leave(body(st[0], st[1:]))
		}
	}
	rs := c.inRegion(func() []*gojit.Tensor { return gojit.ForLoop(l, h, in, bf) })
	return c.recordAll(rs, append([]*Tensor{lo, hi}, init...)...)
}

// inRegion runs f, which records a control-flow op, with c unlocked (its
// functions record ops of their own) and marked as recording a region.
// c is locked before and after.
func (c *Context) inRegion(f func() []*gojit.Tensor) []*gojit.Tensor {
	c.region++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.region--
	}()
	return f()
}

// enterState wraps the region's state tensors as lazy tensors (c
// unlocked).
func (c *Context) enterState(s []*gojit.Tensor) []*Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Tensor, len(s))
	for i, t := range s {
		out[i] = &Tensor{ctx: c, t: t, region: true}
	}
	return out
}

// leave returns the gojit tensors of a region function's results (c
// unlocked).
func (c *Context) leave(ts []*Tensor) []*gojit.Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.uses(ts)
}

// regionResult wraps r, recorded inside a region (c.region > 0), as a lazy
// tensor of that region. An error stays in the region's trace, where the
// control-flow op reports it with its position.
func (c *Context) regionResult(r *gojit.Tensor, v int) *Tensor {
	t := &Tensor{ctx: c, t: r, region: true}
	if v < 0 {
		t.err = fmt.Errorf("%s: lazy: this op failed inside a Cond, While or ForLoop function; the control-flow op's result reports why", userPos())
	}
	return t
}
