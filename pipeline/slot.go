package pipeline

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gojit/gojit"
)

// slot is one batch's memory: per buffer, the samples' values, their
// shapes and side values, and the compiled ops' per-sample inputs, with
// arrays over them for a full batch and for the last, shorter one.
type slot struct {
	data   [][]byte    // BatchSize * per bytes
	shapes [][]int     // BatchSize * rank
	shp32  [][]int32   // the same shapes as Int32, for Batch.Shapes and kernels
	side   [][]float32 // BatchSize * side
	gov    [][]any     // Go values

	arrs, tails      []*gojit.Array // the values
	shpFull, shpTail []*gojit.Array // the shapes
	params           [][]float32    // compiled stages' per-sample inputs (Kernel.Draw), by stage
	parFull, parTail []*gojit.Array

	// calls holds each compiled stage's arguments and outputs over this
	// slot, for a full batch and for the last one, made once.
	calls []stageCall

	batch   Batch
	pending atomic.Int32
	done    chan struct{}
	errMu   sync.Mutex
	err     error
	errAt   int // the batch position of the sample err is about
}

func (l *Loader) newSlot() *slot {
	B, T := l.cfg.BatchSize, l.lastLen
	s := &slot{done: make(chan struct{}, 1)}
	s.batch.slot = s
	s.batch.l = l
	for _, b := range l.bufs {
		var (
			gov                       []any
			data                      []byte
			arr, tail, shFull, shTail *gojit.Array
			shapes                    []int
			sh32                      []int32
			side                      []float32
		)
		if b.alloc.GoValue {
			gov = make([]any, B)
		} else {
			arr = gojit.New(b.alloc.DType, append([]int{B}, b.alloc.Shape...)...)
			tail = prefix(arr, T, b.alloc.Shape)
			data = bytesOf(arr)
			shapes = make([]int, B*b.rank)
			sh32 = make([]int32, B*b.rank)
			shFull, shTail = gojit.FromInt32(sh32, B, b.rank), gojit.FromInt32(sh32[:T*b.rank], T, b.rank)
			side = make([]float32, B*b.side)
		}
		s.gov, s.data, s.shapes, s.shp32, s.side = append(s.gov, gov), append(s.data, data), append(s.shapes, shapes), append(s.shp32, sh32), append(s.side, side)
		s.arrs, s.tails, s.shpFull, s.shpTail = append(s.arrs, arr), append(s.tails, tail), append(s.shpFull, shFull), append(s.shpTail, shTail)
	}
	for _, sg := range l.stages {
		var par []float32
		var full, tail *gojit.Array
		if k := sg.npar; k > 0 {
			par = make([]float32, B*k)
			full, tail = gojit.FromFloat32(par, B, k), gojit.FromFloat32(par[:T*k], T, k)
		}
		s.params, s.parFull, s.parTail = append(s.params, par), append(s.parFull, full), append(s.parTail, tail)
	}
	// A compiled op's fixed-size output has the same shape in every batch.
	for _, p := range l.plans {
		for _, st := range p.steps {
			if st.kernel == nil || st.buf < 0 || st.out.Variable {
				continue
			}
			r := l.bufs[st.buf].rank
			for j := range B {
				for d, x := range st.out.Shape {
					s.shapes[st.buf][j*r+d] = x
					s.shp32[st.buf][j*r+d] = int32(x)
				}
			}
		}
	}
	s.batch.indices = make([]int, B)
	s.calls = make([]stageCall, len(l.stages))
	for i := range l.stages {
		if sg := &l.stages[i]; sg.compiled {
			c := &s.calls[i]
			c.args, c.outs = l.stageArgs(sg, s, B)
			c.tailArgs, c.tailOuts = l.stageArgs(sg, s, T)
		}
	}
	return s
}

// stageCall is a compiled stage's arguments and outputs over one slot.
type stageCall struct {
	args, tailArgs []any
	outs, tailOuts []*gojit.Array
}

// arr returns buffer b's values and shapes as arrays for a batch of n
// samples (BatchSize, or the last batch's size).
func (s *slot) arr(b, n int) (vals, shapes *gojit.Array) {
	if n == len(s.batch.indices) {
		return s.arrs[b], s.shpFull[b]
	}
	return s.tails[b], s.shpTail[b]
}

// par returns the per-sample inputs of stage i as an array for a batch of
// n samples.
func (s *slot) par(i, n int) *gojit.Array {
	if n == len(s.batch.indices) {
		return s.parFull[i]
	}
	return s.parTail[i]
}

// bytesOf views an array's elements as bytes.
func bytesOf(a *gojit.Array) []byte {
	n := a.Size() * a.DType().Size()
	if n == 0 {
		return nil
	}
	var p unsafe.Pointer
	switch d := a.Data().(type) {
	case []bool:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []uint8:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []int32:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []int64:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []gojit.F16:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []float32:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []float64:
		p = unsafe.Pointer(unsafe.SliceData(d))
	}
	return unsafe.Slice((*byte)(p), n)
}

// prefix returns an array over the first n samples of a batch array.
func prefix(a *gojit.Array, n int, shape []int) *gojit.Array {
	sh := append([]int{n}, shape...)
	k := n
	for _, d := range shape {
		k *= d
	}
	switch d := a.Data().(type) {
	case []bool:
		return gojit.FromBool(d[:k], sh...)
	case []uint8:
		return gojit.FromUint8(d[:k], sh...)
	case []int32:
		return gojit.FromInt32(d[:k], sh...)
	case []int64:
		return gojit.FromInt64(d[:k], sh...)
	case []gojit.F16:
		return gojit.FromFloat16(d[:k], sh...)
	case []float32:
		return gojit.FromFloat32(d[:k], sh...)
	case []float64:
		return gojit.FromFloat64(d[:k], sh...)
	}
	return nil
}

func (s *slot) firstErr() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// setErr records the error of the sample at position j, keeping the
// earliest sample's, so the error reported does not depend on timing.
func (s *slot) setErr(j int, err error) {
	s.errMu.Lock()
	if s.err == nil || j < s.errAt {
		s.err, s.errAt = err, j
	}
	s.errMu.Unlock()
}

// value returns sample j's value in buffer b: its data trimmed to its
// shape when trim is set, else the whole per-sample memory.
func (l *Loader) value(s *slot, b, j int, trim bool) Value {
	bf := &l.bufs[b]
	if bf.alloc.GoValue {
		return Value{Go: s.gov[b][j]}
	}
	v := Value{DType: bf.alloc.DType, Shape: s.shapes[b][j*bf.rank : (j+1)*bf.rank : (j+1)*bf.rank]}
	v.Data = s.data[b][j*bf.per : (j+1)*bf.per : (j+1)*bf.per]
	if bf.side > 0 {
		v.Side = s.side[b][j*bf.side : (j+1)*bf.side : (j+1)*bf.side]
	}
	if trim {
		v.Data = v.Data[:v.Elems()*bf.alloc.DType.Size()]
	}
	return v
}
