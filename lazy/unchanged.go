package lazy

import (
	"bytes"
	"unsafe"

	"github.com/gojit/gojit"
)

// Host data passed again unchanged.
//
// A loop that makes a tensor from the same host slice every iteration
// without changing it (weights kept in a Go slice, or GT2's benchmark)
// would copy the same bytes every time, into a buffer that is cold: a
// buffer outside the heap is reused only after a collection has found its
// tensor dead (hostmem.go), hundreds of iterations later. A Context
// remembers its last few copies outside the heap, by the slice they were
// copied from; when FromFloat32 (or a sibling) gets the same slice with
// the same shape and the bytes compare equal, the new tensor shares that
// copy: a comparison of two buffers in cache instead of a copy into one
// that is not, and no buffer, cleanup or Array to make.
//
// That is safe because such a copy is never written once made, and never
// handed out: Tensor.Array gives the user a heap copy of its own
// (hostmem.go), and kernels only read their inputs. Equal bytes are the
// same value (a comparison of bits: NaNs and negative zeros included).
// A slice that changed costs the comparison up to the first difference,
// usually in the first few bytes. Remembering a copy keeps its buffer (up
// to unchangedSlots per Context) from being recycled until another copy
// takes its slot.

// unchangedSlots is how many copies a Context remembers.
const unchangedSlots = 4

// hostCopyRef is a copy outside the heap and what it was copied from.
type hostCopyRef struct {
	src   unsafe.Pointer // the host slice's first element
	bytes uintptr
	dt    gojit.DType
	rank  int // -1 for no shape given (1-D)
	shape [4]int
	arr   *gojit.Array
	buf   *hostBuf // arr's buffer
}

// refShape encodes shape for hostCopyRef, or reports that it has more
// dimensions than a ref holds.
func refShape(shape []int) (rank int, s [4]int, ok bool) {
	if shape == nil {
		return -1, s, true
	}
	if len(shape) > len(s) {
		return 0, s, false
	}
	copy(s[:], shape)
	return len(shape), s, true
}

// unchangedCopy returns the copy c remembers of data with shape, and its
// buffer, if data has not changed since, or nil (c locked). The copy is
// then shared: Free leaves its buffer to the cleanup.
func unchangedCopy[T any](c *Context, dt gojit.DType, data []T, shape []int) (*gojit.Array, *hostBuf) {
	var zero T
	n := uintptr(len(data)) * unsafe.Sizeof(zero)
	if n < hostMin || n > hostMax || noUnchanged {
		return nil, nil
	}
	rank, s, ok := refShape(shape)
	if !ok {
		return nil, nil
	}
	p := unsafe.Pointer(unsafe.SliceData(data))
	for i := range c.copies {
		r := &c.copies[i]
		if r.arr == nil || r.src != p || r.bytes != n || r.dt != dt || r.rank != rank || r.shape != s {
			continue
		}
		old := unsafe.Slice((*byte)(dataPtr(r.arr)), n)
		if bytes.Equal(unsafe.Slice((*byte)(p), n), old) {
			stats.shared.Add(1)
			r.buf.shared = true
			return r.arr, r.buf
		}
		*r = hostCopyRef{} // changed: the slot is free
		return nil, nil
	}
	return nil, nil
}

// rememberCopy records a, a new copy of data with shape, if it is
// outside the heap (in buf; c locked).
func rememberCopy[T any](c *Context, dt gojit.DType, data []T, shape []int, a *gojit.Array, buf *hostBuf) {
	var zero T
	n := uintptr(len(data)) * unsafe.Sizeof(zero)
	if n < hostMin || n > hostMax || noUnchanged || buf == nil || a.Err() != nil {
		return
	}
	rank, s, ok := refShape(shape)
	if !ok {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(data))
	slot := -1
	for i := range c.copies {
		if r := &c.copies[i]; r.arr == nil || r.src == p {
			slot = i
			break
		}
	}
	if slot < 0 {
		slot = c.nextCopy
		c.nextCopy = (c.nextCopy + 1) % unchangedSlots
	}
	c.copies[slot] = hostCopyRef{src: p, bytes: n, dt: dt, rank: rank, shape: s, arr: a, buf: buf}
}

// forgetCopy forgets the copy in buf, if c remembers it (c locked).
func (c *Context) forgetCopy(buf *hostBuf) {
	for i := range c.copies {
		if c.copies[i].buf == buf {
			c.copies[i] = hostCopyRef{}
		}
	}
}

// noUnchanged turns the sharing off, for the benchmarks that compare.
var noUnchanged bool
