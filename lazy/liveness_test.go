package lazy

import (
	"bytes"
	"log/slog"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

// collect runs the garbage collector until the tensors dropped before it
// are known dead to c: one collection, c turning its handles weak, and
// another (see live.go).
func collect(c *Context) {
	e := gcEpoch.Load()
	runtime.GC()
	for range 1000 {
		if gcEpoch.Load() != e {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.mu.Lock()
	c.weaken()
	c.mu.Unlock()
	runtime.GC()
}

// flushLog returns a Context whose flushes are logged to the buffer.
func flushLog(t *testing.T) (*Context, *bytes.Buffer) {
	var log bytes.Buffer
	c := newCtx(t, WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	return c, &log
}

var outputsRE = regexp.MustCompile(`msg="lazy: flush" .* nodes=(\d+) outputs=(\d+)`)

// lastFlush returns the nodes and outputs of the last flush logged.
func lastFlush(t *testing.T, log *bytes.Buffer) (nodes, outputs int) {
	t.Helper()
	m := outputsRE.FindAllStringSubmatch(log.String(), -1)
	if len(m) == 0 {
		t.Fatalf("no flush logged:\n%s", log.String())
	}
	nodes, _ = strconv.Atoi(m[len(m)-1][1])
	outputs, _ = strconv.Atoi(m[len(m)-1][2])
	return nodes, outputs
}

// At Sync, tensors the user dropped (and the collector found
// unreachable) are neither computed nor stored; the same program keeping
// them computes and stores them all.
func TestSyncSkipsDeadTensors(t *testing.T) {
	run := func(keep bool) (nodes, outputs int, got []float32) {
		c, log := flushLog(t)
		x := c.FromFloat32([]float32{1, 2, 3})
		live := x.Mul(Scalar(2)).Add(Scalar(1))
		var held []*Tensor
		for i := range 5 {
			d := x.Exp().Mul(Scalar(float64(i))) // dead unless held
			if keep {
				held = append(held, d)
			}
		}
		collect(c)
		if err := c.Sync(); err != nil {
			t.Fatal(err)
		}
		nodes, outputs = lastFlush(t, log)
		runtime.KeepAlive(held)
		return nodes, outputs, mustF32(t, live)
	}
	nd, od, got := run(false)
	nk, ok, _ := run(true)
	for i, v := range []float32{1, 2, 3} {
		if got[i] != v*2+1 {
			t.Fatalf("live[%d] = %v, want %v", i, got[i], v*2+1)
		}
	}
	// Dropped: x, two constants and the two ops of live; one output.
	if od != 1 || nd != 5 {
		t.Fatalf("Sync after dropping 5 tensors: %d nodes, %d outputs; want 5 and 1 (only the live tensor)", nd, od)
	}
	// Held: the five Exp*i chains are computed too (and their Mul
	// results stored; each Exp is an intermediate of the flush).
	if ok != 6 || nk <= nd {
		t.Fatalf("Sync holding 5 tensors: %d nodes, %d outputs; want more than %d nodes and 6 outputs", nk, ok, nd)
	}
}

// A read stores a value it computes for other pending tensors only if a
// live tensor needs it: once the other user is dropped (and collected),
// the shared value is fused away.
func TestReadStoresOnlyWhatLiveTensorsNeed(t *testing.T) {
	run := func(keepOther bool) (int, []float32) {
		c, log := flushLog(t)
		// Recorded in a function of its own, so that no stack slot of
		// this one holds the other user when it is dropped.
		b, other := func() (*Tensor, *Tensor) {
			x := c.FromFloat32([]float32{1, 2})
			a := x.Add(Scalar(1))
			other := a.Sub(Scalar(3)) // uses a too
			if !keepOther {
				return a.Mul(Scalar(2)), nil
			}
			return a.Mul(Scalar(2)), other
		}()
		collect(c)
		got := mustF32(t, b)
		_, outputs := lastFlush(t, log)
		if keepOther {
			if o := mustF32(t, other); o[1] != 0 {
				t.Fatalf("other = %v, want [-1 0]", o)
			}
		}
		return outputs, got
	}
	dead, got := run(false)
	if got[0] != 4 || got[1] != 6 {
		t.Fatalf("b = %v, want [4 6]", got)
	}
	alive, _ := run(true)
	if dead != 1 || alive != 2 {
		t.Fatalf("outputs: %d with the other user dropped, %d with it alive; want 1 and 2", dead, alive)
	}
}

// A batch-size cut stores what crosses the cut and the live tensors no
// op of the batch uses; the intermediates of a chain are fused away, and
// dropped tensors are not computed at all.
func TestCutSkipsIntermediates(t *testing.T) {
	c, log := flushLog(t)
	c.batch = 12
	x := c.FromFloat32([]float32{0.5, 1})
	w := x
	want := []float32{0.5, 1}
	for range 8 { // 2 nodes per step: the constant and the Mul
		w = w.Mul(Scalar(1.5))
		for i := range want {
			want[i] *= 1.5
		}
	}
	got := mustF32(t, w)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("w[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	for _, m := range outputsRE.FindAllStringSubmatch(log.String(), -1) {
		if m[2] != "1" {
			t.Fatalf("a flush stored %s values, want 1 (the value crossing the cut or read):\n%s", m[2], log.String())
		}
	}
	if n := len(outputsRE.FindAllString(log.String(), -1)); n < 2 {
		t.Fatalf("%d flushes, want a cut and a read:\n%s", n, log.String())
	}
}

// Many inputs in one pending graph (past the list the generation scans,
// into its index), each array an input once however often it is used.
func TestManyInputsInOneBatch(t *testing.T) {
	c := newCtx(t, WithBatchSize(1000))
	var arrs []*gojit.Array
	for i := range 40 {
		arrs = append(arrs, gojit.FromFloat32([]float32{float32(i), 1}))
	}
	sum := c.FromArray(arrs[0])
	for i := 1; i < 40; i++ {
		sum = sum.Add(c.FromArray(arrs[i])).Add(c.FromArray(arrs[i%7])) // repeats
	}
	got := mustF32(t, sum)
	want := float32(0)
	for i := 1; i < 40; i++ {
		want += float32(i) + float32(i%7)
	}
	if got[0] != want || got[1] != 79 {
		t.Fatalf("sum = %v, want [%v 79]", got, want)
	}
	if n := len(c.gen.arrays); n != 40 {
		t.Fatalf("%d inputs, want 40 (one per array)", n)
	}
}
