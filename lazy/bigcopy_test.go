package lazy

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"unsafe"
)

// bigCopy copies every element, whatever the length's relation to its
// pieces, for element sizes 1 to 8.
func TestBigCopy(t *testing.T) {
	for _, n := range []int{0, 1, copyPiece - 1, copyPiece, copyPiece + 1, 3*copyPiece + 5, 5 << 20} {
		checkBigCopy(t, n, func(i int) uint8 { return uint8(i * 7) })
		checkBigCopy(t, n/4, func(i int) float32 { return float32(i) * 0.5 })
		checkBigCopy(t, n/8, func(i int) int64 { return int64(i) << 20 })
	}
}

func checkBigCopy[T comparable](t *testing.T, n int, f func(int) T) {
	t.Helper()
	src := make([]T, n)
	for i := range src {
		src[i] = f(i)
	}
	for _, one := range []bool{false, true} {
		oneMemmove = one
		dst := make([]T, n)
		bigCopy(dst, src)
		oneMemmove = false
		if !slices.Equal(dst, src) {
			t.Fatalf("%T, %d elements, one memmove %v: the copy differs", src, n, one)
		}
	}
}

// A host copy larger than hostMax goes outside the heap too (a buffer
// mapped for it): it holds the data as it was when the tensor was made;
// Array gives the user a heap copy of it; its buffer is reused once the
// tensor is unreachable or freed, and a tensor kept meanwhile keeps its
// values.
func TestLargeHostCopiesOutsideTheHeap(t *testing.T) {
	const n = 1<<20 + 3 // float32: just over 4 MiB, not a whole number of pages
	c := newCtx(t)
	fill := func(k float32) []float32 {
		d := make([]float32, n)
		for i := range d {
			d[i] = k + float32(i%1000)
		}
		return d
	}
	check := func(what string, got []float32, k float32) {
		t.Helper()
		for i, v := range got {
			if want := k + float32(i%1000); v != want {
				t.Fatalf("%s: [%d] = %v, want %v", what, i, v, want)
			}
		}
	}
	// One more buffer is mapped per collection at most.
	needHostMem(t)
	var kept *Tensor
	for range 3 {
		runtime.GC()
		if kept = c.FromFloat32(fill(1)); kept.host != nil {
			break
		}
	}
	if kept.host == nil {
		t.Fatalf("a %d-byte copy not outside the heap after 3 collections (%s)", 4*n, bigBudget())
	}
	src := fill(2)
	x := c.FromFloat32(src)
	clear(src) // the caller reuses its slice
	a, err := x.Array()
	if err != nil {
		t.Fatal(err)
	}
	if isHostMem(a) {
		t.Fatal("Array handed out a buffer outside the heap")
	}
	check("x's Array", a.Float32(), 2)
	y := c.FromFloat32(fill(3))
	check("y", mustF32(t, y.Add(Scalar(0))), 3)
	if y.host != nil {
		p := y.host.p
		y.Free()
		if z := c.FromFloat32(fill(4)); z.host == nil || z.host.p != p {
			t.Error("Free did not give a large copy's buffer back to the next copy")
		}
	}
	hits := hostMem.hits
	for round := range 6 {
		z := c.FromFloat32(fill(float32(10 + round)))
		check("z", mustF32(t, z.Add(Scalar(0))), float32(10+round))
		runtime.GC()
	}
	if hostMem.hits == hits {
		t.Fatal("no large copy reused a buffer: the test checks nothing")
	}
	check("kept", mustF32(t, kept.Add(Scalar(0))), 1)
	check("x's Array after reuse", a.Float32(), 2)
}

// When the budget for large copies is used up, free buffers of other
// sizes are unmapped to make room for a new size, and no longer count as
// host memory.
func TestBigRoomUnmapsOtherSizes(t *testing.T) {
	const s1, s2 = 5<<20 + hostPage, 6<<20 + hostPage // sizes no other test copies
	p1 := takeBig(t, s1)
	(&hostBuf{p: p1, size: s1}).give()
	hostMem.Lock()
	defer hostMem.Unlock()
	big := hostMem.big
	hostMem.big = hostBigBytes // as if the budget were used up
	ok := bigRoom(s2)
	freed := hostBigBytes - hostMem.big
	hostMem.big = big - freed
	if !ok || freed < s2 {
		t.Fatalf("bigRoom: %v, %d bytes unmapped, want at least %d", ok, freed, s2)
	}
	listed := false
	for _, c := range hostMem.chunks {
		listed = listed || c[0] == uintptr(p1)
	}
	if free := len(hostMem.free[s1]) > 0; listed != free {
		t.Fatalf("the buffer is free %v and listed as host memory %v", free, listed)
	}
}

// Free buffers over hostMax of a size no copy took since the last idle
// release are unmapped by the next.
func TestIdleLargeBuffersUnmapped(t *testing.T) {
	const size = 7<<20 + hostPage // a size no other test copies
	p := takeBig(t, size)
	(&hostBuf{p: p, size: size}).give()
	releaseIdleHost() // the size was taken since the last run: kept, or dropped by a timer meanwhile
	releaseIdleHost()
	hostMem.Lock()
	defer hostMem.Unlock()
	if n := len(hostMem.free[size]); n != 0 {
		t.Fatalf("%d idle buffers still free", n)
	}
	for _, c := range hostMem.chunks {
		if c[0] == uintptr(p) {
			t.Fatal("an unmapped buffer is still listed as host memory")
		}
	}
}

// needHostMem skips the test where memory cannot be mapped outside the
// heap (hostmem_other.go): every copy then goes to the output pool.
func needHostMem(t *testing.T) {
	t.Helper()
	if p := mapHost(hostPage); p == nil {
		t.Skip("no memory outside the heap on this platform")
	} else if !unmapHost(p, hostPage) {
		t.Fatal("unmapHost failed")
	}
}

// takeBig returns a buffer of size bytes (over hostMax) outside the heap.
// Earlier tests' copies come back once collected, and bigRoom unmaps free
// buffers of other sizes to make room, so after a few collections there
// must be one: failing to get it is a failure, not a reason to skip.
func takeBig(t *testing.T, size uintptr) unsafe.Pointer {
	t.Helper()
	needHostMem(t)
	for range 3 {
		runtime.GC()
		if p := takeHostMem(size); p != nil {
			return p
		}
	}
	t.Fatalf("no %d-byte buffer outside the heap after 3 collections (%s)", size, bigBudget())
	return nil
}

// bigBudget describes the budget for large copies, for failures.
func bigBudget() string {
	hostMem.Lock()
	defer hostMem.Unlock()
	return fmt.Sprintf("%d of %d bytes of the large-copy budget mapped", hostMem.big, hostBigBytes)
}
