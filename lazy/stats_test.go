package lazy

import (
	"testing"
	"unsafe"
)

// TestOpsRecordedAtFlush checks Statistics.OpsRecorded as documented: a
// Context's ops are counted by its next flush, each once, including the
// ops a batch-size flush carries into the next pending graph, and ops
// with a weak scalar or outside the fast paths alike.
func TestOpsRecordedAtFlush(t *testing.T) {
	for _, batch := range []int{0, 3} {
		var opts []Option
		if batch > 0 {
			opts = append(opts, WithBatchSize(batch))
		}
		c := newCtx(t, opts...)
		x := c.FromFloat32([]float32{1, 2, 3, 4}, 4)
		before := Stats().OpsRecorded
		y := x.Add(x).Mul(x).Exp().Add(Scalar(1)) // 4 ops
		y = y.Reshape(2, 2).Sum(1).Neg()          // 3 more
		if batch == 0 {
			if n := Stats().OpsRecorded - before; n != 0 {
				t.Errorf("%d ops counted before the Context flushed, want 0", n)
			}
		}
		if err := c.Sync(); err != nil {
			t.Fatal(err)
		}
		if n := Stats().OpsRecorded - before; n != 7 {
			t.Errorf("batch size %d: %d ops counted after Sync, want 7", batch, n)
		}
		if err := c.Sync(); err != nil { // nothing pending: nothing more
			t.Fatal(err)
		}
		if n := Stats().OpsRecorded - before; n != 7 {
			t.Errorf("batch size %d: %d ops counted after a second Sync, want 7", batch, n)
		}
		if _, err := y.Float32(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTensorSize guards the 64-byte Tensor docs/lazy.md describes: one
// allocation of that size class per op recorded by a fast path.
func TestTensorSize(t *testing.T) {
	if s := unsafe.Sizeof(Tensor{}); s > 64 {
		t.Errorf("a Tensor is %d bytes, more than 64", s)
	}
}
