package source

import (
	"go/types"
	"math"
	goruntime "runtime"
	"sync"
	"unsafe"

	"golang.org/x/tools/go/ssa"

	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/runtime"
)

// The Go side of parallel loops: run the segments, and between them each
// loop's chunks on the worker pool (see parallel.go).

// parMinChunk is the fewest iterations worth a chunk of its own: below
// about that, waking a worker costs more than the work.
const parMinChunk = 2048

// parInfo is what running a function with parallel loops needs.
type parInfo struct {
	loops []*parLoop
	addrs []uintptr // chunk entry points
	words int       // spill area size
	slots map[ssa.Value]int
	spill sync.Pool // of *parBuf
}

// resolve looks the chunk functions up in the loaded kernel.
func (p *parInfo) resolve(k *llvm.Kernel) error {
	p.addrs = p.addrs[:0]
	for _, pl := range p.loops {
		a, err := k.Lookup(pl.chunk)
		if err != nil {
			return err
		}
		p.addrs = append(p.addrs, a)
	}
	return nil
}

// runPar runs the function: segment 0, the loop it yields to, the segment
// after it, and so on until a segment returns.
func (n *native) runPar(frame []uint64) error {
	p := n.par
	buf, _ := p.spill.Get().(*parBuf)
	if buf == nil {
		buf = &parBuf{frame: make([]uint64, len(frame)), spill: make([]uint64, p.words)}
	}
	defer p.spill.Put(buf)
	// The caller's frame may be on its stack: work on a copy, so that the
	// pointer handed to the pool's goroutines is to the heap.
	copy(buf.frame, frame)
	defer copy(frame, buf.frame)
	return n.runSegments(buf.frame, buf.spill)
}

// parBuf is the memory one call of a function with parallel loops needs.
type parBuf struct{ frame, spill []uint64 }

func (n *native) runSegments(frame, spill []uint64) error {
	spill[0] = 0 // the segment to run: the function's start
	for {
		spill[1] = 0
		var ptrs [llvm.MaxDirect]unsafe.Pointer
		ptrs[0] = unsafe.Pointer(&frame[0])
		ptrs[1] = unsafe.Pointer(&spill[0])
		n.kernel.CallDirect(&ptrs, 2)
		if frame[0] != 0 {
			return n.runtimeError((*[statusWords]uint64)(frame))
		}
		j := spill[1]
		if j == 0 {
			return nil
		}
		if err := n.runLoop(n.par.loops[j-1], n.par.addrs[j-1], frame, spill); err != nil {
			return err
		}
		spill[0] = j
	}
}

// runLoop runs parallel loop pl over its chunks and combines its
// reductions into the spill slots the following segment reads.
func (n *native) runLoop(pl *parLoop, addr uintptr, frame, spill []uint64) error {
	count := int64(spill[pl.nSlot])
	if count < 0 {
		count = 0
	}
	threads := int64(runtime.SharedPool().Threads())
	if n.threads > 0 {
		threads = min(threads, int64(n.threads))
	}
	chunks := min(count/parMinChunk, threads*4, maxChunkRecords)
	if chunks < 1 {
		chunks = 1
	}
	cw := statusWords + len(pl.reds)
	for c := range chunks {
		rec := spill[pl.partBase+int(c)*cw:][:cw]
		clear(rec)
	}
	var ptrs [llvm.MaxDirect]unsafe.Pointer
	ptrs[0] = unsafe.Pointer(&frame[0])
	ptrs[1] = unsafe.Pointer(&spill[0])
	run := func(c int) {
		start, end := count*int64(c)/chunks, count*int64(c+1)/chunks
		if start < end {
			llvm.CallRangeDirect(addr, &ptrs, int64(c), start, end, 0)
		}
	}
	if chunks == 1 {
		run(0)
	} else {
		runtime.SharedPool().Run(int(chunks), run)
	}
	goruntime.KeepAlive(ptrs)
	for c := range chunks {
		rec := spill[pl.partBase+int(c)*cw:][:cw]
		if rec[0] != 0 {
			copy(frame[:statusWords], rec[:statusWords])
			return n.runtimeError((*[statusWords]uint64)(frame))
		}
	}
	for i, r := range pl.reds {
		acc := spill[pl.initSlot+i]
		for c := range chunks {
			acc = combine(r.op, r.kind, acc, spill[pl.partBase+int(c)*cw+statusWords+i])
		}
		for _, v := range []ssa.Value{r.phi, r.update} {
			if w, ok := n.par.slots[v]; ok {
				spill[w] = acc
			}
		}
	}
	return nil
}

// combine applies reduction op to two words holding values of kind k.
func combine(op string, k types.BasicKind, a, b uint64) uint64 {
	switch k {
	case types.Float64:
		return math.Float64bits(combineT(op, math.Float64frombits(a), math.Float64frombits(b)))
	case types.Float32:
		return uint64(math.Float32bits(combineT(op, math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b)))))
	case types.Int, types.Int64:
		return uint64(combineT(op, int64(a), int64(b)))
	case types.Int32:
		return uint64(uint32(combineT(op, int32(a), int32(b))))
	case types.Int16:
		return uint64(uint16(combineT(op, int16(a), int16(b))))
	case types.Int8:
		return uint64(uint8(combineT(op, int8(a), int8(b))))
	case types.Uint32:
		return uint64(combineT(op, uint32(a), uint32(b)))
	case types.Uint16:
		return uint64(combineT(op, uint16(a), uint16(b)))
	case types.Uint8:
		return uint64(combineT(op, uint8(a), uint8(b)))
	}
	return combineT(op, a, b)
}

func combineT[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](op string, a, b T) T {
	switch op {
	case "+":
		return a + b
	case "*":
		return a * b
	case "min":
		return min(a, b)
	}
	return max(a, b)
}
