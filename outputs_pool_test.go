package gojit

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// poolSize is a buffer size no other test or Call uses, so that these
// tests own its pool.
const poolSize = 5<<20 + 3*slabAlign

// ownPoolSize gives the test the pool of poolSize with stats st, and
// empties the pool at its end (the stats stay: a finalizer still to run
// finds them).
func ownPoolSize(t *testing.T, st *sizeStats) {
	t.Helper()
	waitCollecting()
	outputPool.Lock()
	dropFree(poolSize)
	outputPool.sizes[poolSize] = st
	outputPool.Unlock()
	t.Cleanup(func() {
		outputPool.Lock()
		dropFree(poolSize)
		outputPool.Unlock()
	})
}

// The pool hands out the buffer written last first, whatever order the
// finalizers give them back in; a full pool keeps the warmer of a buffer
// given back and its coldest one.
func TestPoolWarmestFirst(t *testing.T) {
	ownPoolSize(t, &sizeStats{keep: 3, base: 3})
	bufs := map[unsafe.Pointer]uint64{}
	give := func(stamp uint64) {
		p := unsafe.Pointer(unsafe.SliceData(make([]byte, poolSize)))
		bufs[p] = stamp
		outputPool.Lock()
		outputPool.written[uintptr(p)] = stamp
		outputPool.Unlock()
		giveBuffer(p, poolSize)
	}
	give(5)
	give(2)
	give(9)
	give(7) // full: 2, the coldest, goes
	give(1) // colder than every pooled one: dropped
	var got []uint64
	outputPool.Lock()
	for range 4 {
		p := takeBuffer(poolSize)
		if p == nil {
			break
		}
		got = append(got, bufs[p])
	}
	outputPool.Unlock()
	want := []uint64{9, 7, 5}
	if len(got) != len(want) {
		t.Fatalf("took buffers written at %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("took buffers written at %v, want %v", got, want)
		}
	}
}

// The pool of a size doubles when a Call finds it empty during a
// collection Call started, once per collection, up to maxGrow times its
// first size and outputPoolBytes' worth.
func TestPoolGrowsWhenDry(t *testing.T) {
	st := &sizeStats{keep: 4, base: 4, makeNanos: 1}
	ownPoolSize(t, st)
	playCollection(t) // no collection of its own: the test plays them
	keep := func() int {
		outputPool.Lock()
		defer outputPool.Unlock()
		return st.keep
	}
	miss := func() { // the pool is empty: a new buffer
		p := recycled(poolSize, 4)
		runtime.SetFinalizer((*byte)(p), nil)
	}
	outputPool.Lock()
	outputPool.collecting = false
	outputPool.Unlock()
	miss() // outside a collection
	if k := keep(); k != 4 {
		t.Fatalf("after a miss outside a collection the pool keeps %d, want 4", k)
	}
	outputPool.Lock()
	outputPool.collecting = true
	outputPool.Unlock()
	miss()
	if k := keep(); k != 8 {
		t.Fatalf("after a miss during a collection the pool keeps %d, want 8", k)
	}
	outputPool.Lock()
	st.keep = 5 // as if grown less: once per collection
	outputPool.Unlock()
	miss()
	if k := keep(); k != 5 {
		t.Fatalf("after a second miss during one collection the pool keeps %d, want 5", k)
	}
	for _, want := range []int{10, 4 * maxGrow, 4 * maxGrow} {
		outputPool.Lock()
		outputPool.collections++
		outputPool.Unlock()
		miss()
		if k := keep(); k != want {
			t.Fatalf("after a miss during the next collection the pool keeps %d, want %d (at most maxGrow times 4)", k, want)
		}
	}

	// A size whose first pool is already outputPoolBytes' worth or more
	// does not grow.
	big := &sizeStats{keep: 8, base: 8}
	outputPool.Lock()
	outputPool.collections++
	big.grow(40 << 20)
	outputPool.Unlock()
	if big.keep != 8 {
		t.Errorf("a pool of 8 buffers of 40 MiB grew to %d", big.keep)
	}
}

// The pooled buffers' heap gives them back warmest first, and coldest
// finds the coldest, against a sort of the same stamps.
func TestPooledHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 64, 1000} {
		var list []pooled
		var stamps []uint64
		for range n {
			s := r.Uint64N(uint64(n))
			stamps = append(stamps, s)
			list = pushPooled(list, pooled{stamp: s})
		}
		slices.Sort(stamps)
		if c := list[coldest(list)].stamp; c != stamps[0] {
			t.Errorf("n=%d: coldest %d, want %d", n, c, stamps[0])
		}
		for i := n - 1; i >= 0; i-- {
			if list[0].stamp != stamps[i] {
				t.Fatalf("n=%d: popped %d, want %d", n, list[0].stamp, stamps[i])
			}
			list = popWarmest(list)
		}
	}
}

// A grown pool goes back to its first size when the idle release drops
// its buffers: the Calls it grew for are gone, and a pool kept at 4 times
// its size would hold that much again (and collect that much more rarely)
// the next time that size is used, without a miss to show it is needed.
func TestGrownPoolShrinksWhenIdle(t *testing.T) {
	st := &sizeStats{keep: 4 * maxGrow, base: 4}
	ownPoolSize(t, st)
	setIdleRelease(t, 20*time.Millisecond)
	giveBuffer(unsafe.Pointer(unsafe.SliceData(make([]byte, poolSize))), poolSize)
	pooled := func() int {
		outputPool.Lock()
		defer outputPool.Unlock()
		return len(outputPool.free[poolSize])
	}
	if pooled() != 1 {
		t.Fatal("the buffer given back was not pooled")
	}
	for deadline := time.Now().Add(10 * time.Second); pooled() > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if k := pooled(); k > 0 {
		t.Fatalf("%d idle buffers still pooled after 10 s", k)
	}
	outputPool.Lock()
	keep := st.keep
	outputPool.Unlock()
	if keep != st.base {
		t.Errorf("after the idle release the pool keeps %d buffers, want its first %d", keep, st.base)
	}
}

// The first Call of a size finds its pool empty because there never was
// one, not because a collection outlasted it: it does not grow the pool,
// even during a collection.
func TestNewSizeDoesNotGrowPool(t *testing.T) {
	const size = poolSize + 2*slabAlign // a size no other test uses
	outputPool.Lock()
	delete(outputPool.sizes, size) // new again under -count
	outputPool.Unlock()
	waitCollecting()
	playCollection(t)
	p := recycled(size, 4)
	runtime.SetFinalizer((*byte)(p), nil)
	outputPool.Lock()
	keep := outputPool.sizes[size].keep
	delete(outputPool.written, uintptr(p))
	outputPool.Unlock()
	if keep != 4 {
		t.Errorf("a size's first Call, during a collection, made its pool keep %d, want 4", keep)
	}
}

// setIdleRelease makes the pool's idle release d for the rest of the
// test.
func setIdleRelease(t *testing.T, d time.Duration) {
	outputPool.Lock()
	old := idleRelease
	idleRelease = d
	outputPool.Unlock()
	t.Cleanup(func() {
		outputPool.Lock()
		idleRelease = old
		outputPool.Unlock()
	})
}

// playCollection marks a collection started by Call as running, and
// keeps Call from starting one, for the rest of the test.
func playCollection(t *testing.T) {
	outputPool.Lock()
	noForce := outputPool.noForce
	outputPool.noForce, outputPool.collecting = true, true
	outputPool.collections++
	outputPool.Unlock()
	t.Cleanup(func() {
		outputPool.Lock()
		outputPool.collecting, outputPool.noForce = false, noForce
		outputPool.Unlock()
	})
}

// A slab cursor no Call carved from for a while is dropped, and with it
// the partly used slab it pinned; one still in use is kept.
func TestIdleSlabCursorDropped(t *testing.T) {
	f, err := Compile(func(a *Tensor) *Tensor { return a.Add(a) })
	if err != nil {
		t.Fatal(err)
	}
	setIdleRelease(t, 100*time.Millisecond)
	const n = 1031 // 4,124 bytes of float32: a slab size no other test uses
	size := uintptr((n*4 + slabAlign - 1) &^ (slabAlign - 1))
	x := FromFloat32(make([]float32, n))
	if _, err := f.Call(x); err != nil {
		t.Fatal(err)
	}
	cursorOf := func() *slabCursor {
		outputPool.Lock()
		defer outputPool.Unlock()
		return outputPool.carving[size]
	}
	c0 := cursorOf()
	if c0 == nil {
		t.Fatalf("no slab cursor for %d-byte outputs after a Call", size)
	}
	// In use: a Call every 2 ms keeps the same cursor through several
	// idle releases (every 100 ms here).
	for range 250 {
		if _, err := f.Call(x); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if c := cursorOf(); c != c0 {
		t.Fatal("the cursor of a size in use was dropped")
	}
	for deadline := time.Now().Add(10 * time.Second); cursorOf() != nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("an idle slab cursor still pinned its slab after 10 s")
		}
	}
}
