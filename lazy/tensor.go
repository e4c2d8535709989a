package lazy

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// Tensor is an array whose value may not be computed yet. Its methods have
// the names and semantics of gojit.Tensor's (they call them, on a trace the
// Context keeps): they record an operation and return at once. The value
// is computed at a sync point: a read (Array, Float32 ..., Item), Free,
// Sync, or the pending graph reaching the Context's batch size.
//
// An op that fails (shapes that do not broadcast, a bad axis ...) returns
// a Tensor carrying the error, named with the op and the user's file:line;
// Err reports it at once, and every read of a Tensor that depends on it
// returns it.
type Tensor struct {
	ctx *Context    // nil for a weak scalar
	gen *generation // where t is recorded; nil once only arr is known
	// t is the recording core's tensor for node v of gen, made on first
	// use (core) for a tensor of a fast path, which needs none: one
	// allocation of 64 bytes per op instead of 96.
	t   *gojit.Tensor
	arr *gojit.Array // the value, once computed
	err error
	// host is the buffer outside the heap of the copy of host data t
	// was made with (FromFloat32 ...), which Free may give back at once
	// (freeHost); nil for other tensors.
	host *hostBuf
	v    ir.Value // t's node in gen
	// region marks a tensor of a Cond, While or ForLoop function: its t
	// belongs to the region's trace and it cannot be read (control.go).
	region bool
	fast   bool // recorded by a fast path (for the tests)
}

// core returns t's recording core tensor, making it if t has none yet
// (a tensor of a fast path, pending in gen).
func (t *Tensor) core() *gojit.Tensor {
	if t.t == nil && t.gen != nil {
		t.t = lazycore.H.Wrap(t.gen.tr, t.v).(*gojit.Tensor)
	}
	return t.t
}

var errFreed = errors.New("lazy: tensor used after Free")

// usedAfterFree names the user's file:line in err if it is errFreed, the
// error of a freed tensor: its use is rare, and Free is called in loops,
// where finding its own caller's line would cost more than the rest of
// Free (even runtime.Callers costs about 0.5 µs).
func usedAfterFree(err error) error {
	if err == errFreed {
		return fmt.Errorf("%s: %w", userPos(), errFreed)
	}
	return err
}

func (c *Context) fromArray(a *gojit.Array) *Tensor {
	if a == nil {
		return c.failed(fmt.Errorf("%s: FromArray: nil *gojit.Array", userPos()))
	}
	if err := a.Err(); err != nil {
		return c.failed(fmt.Errorf("%s: %w", userPos(), err))
	}
	g := c.cur()
	v := g.paramValue(a)
	if v < 0 {
		_, t := g.param(a)
		return c.record(t)
	}
	stats.inputs.Add(1)
	return &Tensor{ctx: c, gen: g, v: v, arr: a, fast: true}
}

func (c *Context) failed(err error) *Tensor {
	c.unreported = append(c.unreported, err)
	return &Tensor{ctx: c, err: err}
}

// FromArray returns a tensor holding a in the default Context. The tensor
// uses a's memory: a must not be modified while the tensor is in use.
func FromArray(a *gojit.Array) *Tensor { return Default().FromArray(a) }

// FromArray returns a tensor of c holding a (see the function FromArray).
func (c *Context) FromArray(a *gojit.Array) *Tensor {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fromArray(a)
}

func from[T any](c *Context, dt gojit.DType, wrap func([]T, ...int) *gojit.Array, data []T, shape []int) *Tensor {
	c.mu.Lock()
	a, buf := unchangedCopy(c, dt, data, shape) // unchanged.go
	c.mu.Unlock()
	made := a == nil
	if made {
		a, buf = hostCopy(dt, wrap, data, shape) // outside the lock: other goroutines may record meanwhile
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if made {
		rememberCopy(c, dt, data, shape, a, buf)
	}
	t := c.fromArray(a)
	if t.err == nil {
		t.host = buf
	}
	return t
}

// FromFloat32 returns a tensor of the default Context holding a copy of
// data with the given shape (1-D when none is given).
func FromFloat32(data []float32, shape ...int) *Tensor {
	return from(Default(), gojit.Float32, gojit.FromFloat32, data, shape)
}

// FromFloat64 is FromFloat32 for float64 data.
func FromFloat64(data []float64, shape ...int) *Tensor {
	return from(Default(), gojit.Float64, gojit.FromFloat64, data, shape)
}

// FromInt32 is FromFloat32 for int32 data.
func FromInt32(data []int32, shape ...int) *Tensor {
	return from(Default(), gojit.Int32, gojit.FromInt32, data, shape)
}

// FromInt64 is FromFloat32 for int64 data.
func FromInt64(data []int64, shape ...int) *Tensor {
	return from(Default(), gojit.Int64, gojit.FromInt64, data, shape)
}

// FromUint8 is FromFloat32 for uint8 data.
func FromUint8(data []uint8, shape ...int) *Tensor {
	return from(Default(), gojit.Uint8, gojit.FromUint8, data, shape)
}

// FromBool is FromFloat32 for bool data.
func FromBool(data []bool, shape ...int) *Tensor {
	return from(Default(), gojit.Bool, gojit.FromBool, data, shape)
}

// FromFloat32 is the function FromFloat32 in Context c.
func (c *Context) FromFloat32(data []float32, shape ...int) *Tensor {
	return from(c, gojit.Float32, gojit.FromFloat32, data, shape)
}

// FromFloat64 is the function FromFloat64 in Context c.
func (c *Context) FromFloat64(data []float64, shape ...int) *Tensor {
	return from(c, gojit.Float64, gojit.FromFloat64, data, shape)
}

// FromInt32 is the function FromInt32 in Context c.
func (c *Context) FromInt32(data []int32, shape ...int) *Tensor {
	return from(c, gojit.Int32, gojit.FromInt32, data, shape)
}

// FromInt64 is the function FromInt64 in Context c.
func (c *Context) FromInt64(data []int64, shape ...int) *Tensor {
	return from(c, gojit.Int64, gojit.FromInt64, data, shape)
}

// FromUint8 is the function FromUint8 in Context c.
func (c *Context) FromUint8(data []uint8, shape ...int) *Tensor {
	return from(c, gojit.Uint8, gojit.FromUint8, data, shape)
}

// FromBool is the function FromBool in Context c.
func (c *Context) FromBool(data []bool, shape ...int) *Tensor {
	return from(c, gojit.Bool, gojit.FromBool, data, shape)
}

// Err returns the error of the op that made t, or of one it depends on,
// without computing anything; nil if the ops recorded so far are valid.
// Errors found only when the value is computed are returned by the reads.
func (t *Tensor) Err() error {
	if t == nil {
		return errors.New("lazy: nil *Tensor")
	}
	if t.ctx == nil {
		return t.err
	}
	t.ctx.mu.Lock()
	defer t.ctx.mu.Unlock()
	return usedAfterFree(t.err)
}

// Array computes t if it is pending and returns its value. The Array is
// t's own memory, shared with later ops that use t: do not modify it
// (copy it first). For a tensor made by FromFloat32 or a sibling, whose
// copy of the host data may live in memory lazy reuses once the tensor is
// gone, the first Array moves the value to memory of its own (one more
// copy), which you may keep as long as you like.
func (t *Tensor) Array() (*gojit.Array, error) {
	if t == nil {
		return nil, errors.New("lazy: Array of a nil *Tensor")
	}
	if t.ctx == nil { // a weak scalar: a Float32 scalar, as used alone
		_, _, _, val := inspect(t.t)
		return gojit.ScalarArray(val, gojit.Float32), nil
	}
	c := t.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.materialize(t)
	if a != nil && isHostMem(a) {
		// A host copy outside the heap is reused once its Array is
		// collected, which says nothing of the slices a user may take
		// from it: the user gets a heap copy (hostmem.go).
		a = heapCopy(a)
		t.arr = a
	}
	return a, err
}

// value computes t and returns its value for lazy's own reads, which copy
// what they return.
func (t *Tensor) value() (*gojit.Array, error) {
	if t == nil || t.ctx == nil {
		return t.Array()
	}
	c := t.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.materialize(t)
}

// materialize computes t (c locked).
func (c *Context) materialize(t *Tensor) (*gojit.Array, error) {
	if t.region || c.region > 0 {
		return nil, fmt.Errorf("%s: %w", userPos(), errReadInRegion)
	}
	if t.err != nil {
		c.reported(t.err)
		return nil, usedAfterFree(t.err)
	}
	if t.arr != nil {
		if err := t.arr.Err(); err != nil { // the user released it
			return nil, fmt.Errorf("%s: lazy: %w", userPos(), err)
		}
		return t.arr, nil
	}
	if err := c.flushRead(t); err != nil {
		return nil, err
	}
	if t.arr == nil {
		panic("lazy: a read flush did not compute its target") // broken invariant
	}
	return t.arr, nil
}

// reported drops err from the errors Sync would return.
func (c *Context) reported(err error) {
	c.unreported = slices.DeleteFunc(c.unreported, func(e error) bool { return e == err })
}

func read[T any](t *Tensor, dt gojit.DType, get func(*gojit.Array) []T) ([]T, error) {
	a, err := t.value()
	if err != nil {
		return nil, err
	}
	if a.DType() != dt {
		return nil, fmt.Errorf("lazy: %s: tensor is %s, not %s", userPos(), a.DType(), dt)
	}
	return slices.Clone(get(a)), nil
}

// Float32 computes t and returns a copy of its elements; t must be
// Float32.
func (t *Tensor) Float32() ([]float32, error) {
	return read(t, gojit.Float32, (*gojit.Array).Float32)
}

// Float64 is Float32 for a Float64 tensor.
func (t *Tensor) Float64() ([]float64, error) {
	return read(t, gojit.Float64, (*gojit.Array).Float64)
}

// Int32 is Float32 for an Int32 tensor.
func (t *Tensor) Int32() ([]int32, error) { return read(t, gojit.Int32, (*gojit.Array).Int32) }

// Int64 is Float32 for an Int64 tensor.
func (t *Tensor) Int64() ([]int64, error) { return read(t, gojit.Int64, (*gojit.Array).Int64) }

// Uint8 is Float32 for a Uint8 tensor.
func (t *Tensor) Uint8() ([]uint8, error) { return read(t, gojit.Uint8, (*gojit.Array).Uint8) }

// Bool is Float32 for a Bool tensor.
func (t *Tensor) Bool() ([]bool, error) { return read(t, gojit.Bool, (*gojit.Array).Bool) }

// Item computes t, which must have exactly one element, and returns it as
// a float64 (Bool as 0 or 1).
func (t *Tensor) Item() (float64, error) {
	a, err := t.value()
	if err != nil {
		return 0, err
	}
	if a.Size() != 1 {
		return 0, fmt.Errorf("lazy: %s: Item of a tensor of shape %v (want one element)", userPos(), a.Shape())
	}
	switch d := a.Data().(type) {
	case []float32:
		return float64(d[0]), nil
	case []float64:
		return d[0], nil
	case []int32:
		return float64(d[0]), nil
	case []int64:
		return float64(d[0]), nil
	case []uint8:
		return float64(d[0]), nil
	case []bool:
		if d[0] {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("lazy: Item: unexpected data %T", a.Data())
}

// Free releases t. Pending tensors of the current pending graph that need
// t are computed first (a flush, reason "free"), so that the memory goes
// as soon as nothing else refers to it; using t afterwards is an error.
//
// For a tensor made by FromFloat32 or a sibling whose copy of the host
// data lives outside the Go heap (32 KiB to 16 MiB), Free gives the copy's
// buffer back at once, so that the next copy of that size goes to memory
// in cache, when nothing else can read it: no other tensor shares the
// copy, it was never brought into a later pending graph, and every
// pending op that uses it has been computed (see the package
// documentation, "Sync points"). Otherwise the buffer is reused once the
// garbage collector has found the copy unreachable, as without Free. In
// a Context made WithFreeDropsDerived, pending ops of graphs already
// flushed do not keep the buffer: their tensors are dropped instead.
func (t *Tensor) Free() {
	if t == nil || t.ctx == nil {
		return
	}
	c := t.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.err != nil || t.region {
		return
	}
	if c.region > 0 {
		c.unreported = append(c.unreported, fmt.Errorf("%s: %w", userPos(), errReadInRegion))
		return
	}
	if g := t.gen; g != nil && g == c.gen && !g.retired && c.hasUsers(g, t.v) {
		c.flushFree(t)
	}
	c.freeHost(t)
	t.arr, t.t, t.gen, t.host = nil, nil, nil, nil
	t.err = errFreed
}

// lock locks t's Context, if it has one, and returns the unlock.
func (t *Tensor) lock() func() {
	if t == nil || t.ctx == nil {
		return func() {}
	}
	t.ctx.mu.Lock()
	return t.ctx.mu.Unlock
}

// DType returns t's element type.
func (t *Tensor) DType() gojit.DType {
	defer t.lock()()
	switch {
	case t == nil:
		return gojit.Float32
	case t.arr != nil:
		return t.arr.DType()
	}
	return t.core().DType()
}

// Shape returns t's shape ([] for a scalar).
func (t *Tensor) Shape() []int {
	defer t.lock()()
	switch {
	case t == nil:
		return []int{}
	case t.arr != nil:
		return t.arr.Shape()
	case t.core() == nil:
		return []int{}
	}
	return t.t.Shape()
}

// Rank is the number of dimensions.
func (t *Tensor) Rank() int { return len(t.Shape()) }

// String describes t: its dtype and shape, and whether it is computed.
func (t *Tensor) String() string {
	switch {
	case t == nil:
		return "lazy.Tensor(nil)"
	case t.err != nil:
		return "lazy.Tensor(<error>)"
	case t.ctx == nil:
		return "lazy." + t.t.String()
	}
	dt, shape := t.DType(), t.Shape()
	defer t.lock()()
	if t.arr != nil {
		return fmt.Sprintf("lazy.Tensor(%s%v computed)", dt, ir.Shape(shape))
	}
	return fmt.Sprintf("lazy.Tensor(%s%v pending)", dt, ir.Shape(shape))
}
