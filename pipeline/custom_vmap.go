package pipeline

import (
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/vmap"
)

// tensorKernel batches a TensorOp's function (internal/vmap) into a
// Kernel whose Trace applies it to every sample of the batch inside the
// stage's compiled function. f is fn compiled on its own, probe its
// arguments for one sample (x and, for a random op, a key). An error says
// why the op cannot be fused; it then runs per sample.
func (t tensorOp) tensorKernel(f *gojit.Func, probe []any, out State) (*Kernel, error) {
	g, err := vmap.H.Trace(f, probe)
	if err != nil {
		return nil, err
	}
	plan, err := vmap.New(g)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Name: t.name}
	if kg := plan.Keyed(); kg != nil {
		// The values drawn from the key, alone, are computed per sample
		// before the stage (Draw) and reach it as per-sample inputs,
		// encoded exactly in float32 values (internal/vmap/draws.go).
		for _, n := range kg.Nodes {
			if kind := n.Op.Kind(); kind == ir.KindGather || kind == ir.KindScatter {
				return nil, &ir.Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: "reads at positions drawn from the key, which may be out of range: a per-sample draw cannot report it"}
			}
		}
		draw, err := gojit.Compile(func(key *gojit.Tensor) (*gojit.Tensor, error) {
			outs, err := vmap.H.Splice(kg, []any{key})
			if err != nil {
				return nil, err
			}
			return outs[0].(*gojit.Tensor), nil
		})
		if err != nil {
			return nil, err
		}
		k.PerSample = plan.PerSample()
		if k.PerSample == 0 {
			return nil, fmt.Errorf("the values drawn from the key are empty")
		}
		// Compile it now, so that a problem shows when the loader is made.
		if err := draw.CallInto([]*gojit.Array{gojit.New(gojit.Float32, k.PerSample)}, probe[1]); err != nil {
			return nil, err
		}
		var once sync.Once
		// Each draw's arrays come from a pool (Draw runs on every worker
		// at once): the key and the result wrap the scratch's slices,
		// which a draw rewrites and copies out, so a draw allocates
		// nothing in steady state.
		per := k.PerSample
		pool := sync.Pool{New: func() any { return newDrawScratch(per) }}
		k.Draw = func(s *Sample, dst []float32) {
			sc := pool.Get().(*drawScratch)
			defer pool.Put(sc)
			// The key the per-sample Run would use (see tensorOp.run).
			r := s.Rand()
			sc.key[0], sc.key[1] = int32(r.Uint32()), int32(r.Uint32())
			if err := draw.CallInto(sc.outs, sc.args...); err != nil {
				// Draw cannot fail: the sample's values become NaN (and
				// the problem is logged) rather than stale numbers.
				for i := range dst {
					dst[i] = float32(math.NaN())
				}
				once.Do(func() { slog.Error("pipeline: TensorOp's per-sample draw failed", "op", t.name, "err", err) })
				return
			}
			copy(dst, sc.out)
		}
	}
	k.Trace = func(x, _, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
		n := x.Shape()[0]
		bg, err := plan.Batch(n)
		if err != nil {
			panic(err) // New batched the graph already: not expected
		}
		ins := []any{x}
		if k.PerSample > 0 {
			ins = append(ins, params)
		}
		outs, err := vmap.H.Splice(bg, ins)
		if err != nil {
			panic(err)
		}
		y := outs[0].(*gojit.Tensor)
		if want := append([]int{n}, out.Shape...); y.DType() != out.DType || !slices.Equal(y.Shape(), want) {
			panic(fmt.Sprintf("the batched function returns %s%v, want %s%v", y.DType(), y.Shape(), out.DType, want))
		}
		return y
	}
	return k, nil
}

// drawScratch is one draw's memory: the key and the result, and the
// arrays and argument lists that wrap them.
type drawScratch struct {
	key  []int32
	out  []float32
	outs []*gojit.Array
	args []any
}

func newDrawScratch(per int) *drawScratch {
	sc := &drawScratch{key: make([]int32, 2), out: make([]float32, per)}
	sc.outs = []*gojit.Array{gojit.FromFloat32(sc.out, per)}
	sc.args = []any{gojit.FromInt32(sc.key, 2)}
	return sc
}
