package gojit_test

// Differential tests of the indexing ops (Take, TakeAlongAxis, ScatterAdd,
// DynamicSlice): compiled == interpreter bit for bit, and the interpreter
// against plain Go loops; out-of-range indices give the same error both
// ways, naming the op, the user's line, the value and its position.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// indexArray returns n indices in [lo, hi) of dtype dt.
func indexArray(dt gojit.DType, seed uint64, lo, hi int, shape ...int) *gojit.Array {
	p := newPRNG(seed)
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(lo + p.intn(hi-lo))
	}
	switch dt {
	case gojit.Uint8:
		s := make([]uint8, n)
		for i := range s {
			s[i] = uint8(v[i])
		}
		return gojit.FromUint8(s, shape...)
	case gojit.Int32:
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(v[i])
		}
		return gojit.FromInt32(s, shape...)
	}
	return gojit.FromInt64(v, shape...)
}

func TestDiffIndexing(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0.05, 5, 7, 3)
	xi := randArray(gojit.Int32, 2, 0.05, 5, 7, 3)
	i1 := indexArray(gojit.Int64, 3, -5, 5, 4)
	i2 := indexArray(gojit.Int32, 4, -7, 7, 2, 3)
	i3 := indexArray(gojit.Uint8, 5, 0, 3, 6)
	along := indexArray(gojit.Int64, 6, -7, 7, 5, 4, 3)
	upd := randArray(gojit.Float32, 7, 0, 5, 2, 3, 3)
	big := randArray(gojit.Float32, 8, 0, 3000, 64)
	bigIdx := indexArray(gojit.Int32, 9, -3000, 3000, 2000)
	cases := []dcase{
		{name: "take0", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Take(in[2], 0) }},
		{name: "take1_2d", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Take(in[3], 1) }},
		{name: "take_last_u8", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Take(in[4], -1) }},
		{name: "take_int", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Take(in[3], 1) }},
		{name: "take_scalar_index", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Take(gojit.Scalar(-1), 0) }},
		{name: "take_fused_add", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Take(in[3], 1).Mul(gojit.Scalar(2)).Add(gojit.Scalar(1)).Relu()
		}},
		{name: "take_of_computed", ulps: 1, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Exp().Take(in[2], 0) }},
		{name: "take_sum", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Take(in[2], 0).Sum(1) }},
		{name: "take_slice", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Take(in[2], 0).Slice([]int{1}, []int{3})
		}},
		{name: "take_computed_indices", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Take(in[4].Cast(gojit.Int32).Sub(gojit.Scalar(1)), 2)
		}},
		{name: "take_along", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].TakeAlongAxis(in[5], 1) }},
		{name: "take_along_bcast", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].TakeAlongAxis(in[5].Slice([]int{0, 0, 0}, []int{1, 4, 1}), 1)
		}},
	}
	checkDiff(t, cases, x, xi, i1, i2, i3, along)
	// in: x, xi, i2, upd, big, bigIdx
	cases = []dcase{
		{name: "scatter_add", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].ScatterAdd(in[2], in[3], 1) }},
		{name: "scatter_add_int_scalar", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[1].ScatterAdd(in[2], gojit.Scalar(1), 1)
		}},
		{name: "scatter_add_fused", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(gojit.Scalar(3)).ScatterAdd(in[2], in[3].Abs(), 1).Add(gojit.Scalar(1))
		}},
		{name: "dynamic_slice", f: func(in []*gojit.Tensor) *gojit.Tensor {
			s := in[2].Reshape(-1).Take(gojit.Scalar(0), 0)
			return in[0].DynamicSlice([]*gojit.Tensor{s, s.Add(gojit.Scalar(9)), gojit.Scalar(-4)}, []int{2, 3, 1})
		}},
		{name: "dynamic_slice_fused", f: func(in []*gojit.Tensor) *gojit.Tensor {
			s := in[2].Reshape(-1).Take(gojit.Scalar(1), 0)
			return in[0].Abs().DynamicSlice([]*gojit.Tensor{s, gojit.Scalar(1), gojit.Scalar(0)}, []int{5, 4, 3}).Sum(0)
		}},
		{name: "take_big_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[4].Take(in[5], 0) }},
		{name: "scatter_big", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[4].ScatterAdd(in[5], in[4].Take(in[5], 0), 0)
		}},
	}
	checkDiff(t, cases, x, xi, i2, upd, big, bigIdx)
}

// TestIndexingAgainstLoops checks the interpreter's (and so the compiled)
// results against plain Go loops.
func TestIndexingAgainstLoops(t *testing.T) {
	x := []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11} // 4x3
	idx := []int64{2, -1, 0, 2}
	fn := func(x, i *gojit.Tensor) []*gojit.Tensor {
		s := gojit.Full(gojit.Float32, 0, 4).ScatterAdd(i, gojit.Full(gojit.Float32, 1, 4), 0)
		ta := x.TakeAlongAxis(i.Reshape(4, 1).Add(gojit.Scalar(0)).Minimum(gojit.Scalar(2)), 1)
		ds := x.DynamicSlice([]*gojit.Tensor{i.Take(gojit.Scalar(0), 0), gojit.Scalar(5)}, []int{2, 2})
		return []*gojit.Tensor{x.Take(i, 0), s, ta, ds}
	}
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		f, err := gojit.Compile(fn, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromFloat32(x, 4, 3), gojit.FromInt64(idx, 4))
		if err != nil {
			t.Fatal(err)
		}
		var take, along []float32
		count := make([]float32, 4)
		for r, i := range idx {
			row := int((i + 4) % 4)
			take = append(take, x[row*3:row*3+3]...)
			count[row]++
			col := min((i+3)%3, 2)
			if i >= 0 {
				col = min(i, 2)
			}
			along = append(along, x[r*3+int(col)])
		}
		ds := []float32{x[2*3+1], x[2*3+2], x[3*3+1], x[3*3+2]} // start (2, 5) clamped to (2, 1)
		for k, want := range [][]float32{take, count, along, ds} {
			if got := out[k].Float32(); !slices.Equal(got, want) {
				t.Errorf("interp=%v: output %d = %v, want %v", interp, k, got, want)
			}
		}
	}
}

func TestIndexOutOfRange(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0, 6, 4)
	for _, tc := range []struct {
		name string
		idx  []int64
		bad  string
	}{
		{"too_big", []int64{0, 1, 6, 7, 2}, "index 6 at indices[2] is out of range for axis 0 of size 6"},
		{"too_small", []int64{0, -7, 3, 9, 2}, "index -7 at indices[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var line string
			fn := func(x, i *gojit.Tensor) *gojit.Tensor {
				line = hereAt(1)
				return x.Take(i, 0).Add(gojit.Scalar(1))
			}
			checkTraceError(t, fn, []any{x, gojit.FromInt64(tc.idx, len(tc.idx))}, tc.bad, "Take", "")
			_, _, cerr, _ := runBoth(t, fn, []any{x, gojit.FromInt64(tc.idx, len(tc.idx))})
			if !strings.Contains(cerr.Error(), line) {
				t.Errorf("error %q does not name the line %s", cerr, line)
			}
			if !errors.Is(cerr, gojit.ErrIndexOutOfRange) {
				t.Errorf("error %v does not wrap ErrIndexOutOfRange", cerr)
			}
		})
	}
	// The first error in trace order, then in position order, whatever the
	// threads: many bad indices in a large gather split across threads.
	big := randArray(gojit.Float32, 2, 0, 1000, 64)
	idx := indexArray(gojit.Int32, 3, 0, 1000, 4000, 2)
	raw := idx.Int32()
	raw[5001], raw[7000], raw[3999] = 1000, -2000, 5000
	fn := func(x, i *gojit.Tensor) []*gojit.Tensor {
		a := x.Take(i, 0)
		b := x.TakeAlongAxis(i.Slice([]int{0, 1}, []int{64, 2}).BroadcastTo(64, 64), 0)
		c := x.ScatterAdd(i.Reshape(-1), gojit.Scalar(1), 0)
		return []*gojit.Tensor{a.Sum(2), b, c}
	}
	checkTraceError(t, fn, []any{big, idx}, "index 5000 at indices[1999,1]", "Take")
	_, _, _, want := runBoth(t, fn, []any{big, idx})
	for _, threads := range []int{1, 2} {
		f, err := gojit.Compile(fn, gojit.WithThreads(threads))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Call(big, idx); err == nil || err.Error() != want.Error() {
			t.Errorf("threads=%d: error %v, want %v", threads, err, want)
		}
	}
	// ScatterAdd and TakeAlongAxis report their own op.
	small := gojit.FromInt64([]int64{1, 2, 8}, 3)
	checkTraceError(t, func(x, i *gojit.Tensor) *gojit.Tensor {
		return x.ScatterAdd(i, gojit.Scalar(2), 0)
	}, []any{x, small}, "ScatterAdd: index 8 at indices[2]")
	checkTraceError(t, func(x, i *gojit.Tensor) *gojit.Tensor {
		return x.TakeAlongAxis(i.Reshape(3, 1).BroadcastTo(3, 4), 0)
	}, []any{x, small}, "TakeAlongAxis: index 8 at indices[2,0]")
}

// TestIndexOutOfRangeScalar: a 0-D index read by a gather fused into
// arithmetic (a group with no loops) is checked too; the second copy of
// the group, which reports the error, once reused the first copy's
// unchecked values and returned a result. FuzzCompiledVsInterpreter found
// it.
func TestIndexOutOfRangeScalar(t *testing.T) {
	for _, v := range []float64{1, -2, 254} {
		fn := func(x, i *gojit.Tensor) *gojit.Tensor { return x.Take(i, 0).Sin() }
		checkTraceError(t, fn, []any{gojit.FromFloat32([]float32{0.5}, 1), gojit.ScalarArray(v, gojit.Int32)},
			fmt.Sprintf("Take: index %d at indices[] is out of range for axis 0 of size 1", int(v)), "Take")
	}
	ok := func(x, i *gojit.Tensor) *gojit.Tensor { return x.Take(i, 0).Sin() }
	if _, _, cerr, ierr := runBoth(t, ok, []any{gojit.FromFloat32([]float32{0.5}, 1), gojit.ScalarArray(-1, gojit.Int32)}); cerr != nil || ierr != nil {
		t.Errorf("index -1: compiled %v, interpreted %v", cerr, ierr)
	}
}

// TestIndexOutOfRangeWithLoops: a function with a loop runs its steps in
// generated drivers when it can; a step that checks indices must still
// report a bad index, after the loop, inside its body, and along an empty
// axis. The drivers once dropped it (FuzzCompiledVsInterpreter found it).
func TestIndexOutOfRangeWithLoops(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2, 3, 4}, 4)
	loop := func(s0 *gojit.Tensor, body func(s *gojit.Tensor) *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{s0}, func(_ *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{body(s[0])}
		})[0]
	}
	after := func(x, i *gojit.Tensor) *gojit.Tensor {
		return loop(x, func(s *gojit.Tensor) *gojit.Tensor { return s.Add(x) }).Take(i, 0)
	}
	inside := func(x, i *gojit.Tensor) *gojit.Tensor {
		return loop(x, func(s *gojit.Tensor) *gojit.Tensor { return s.Add(x.Take(i, 0)) })
	}
	bad := gojit.FromInt32([]int32{0, 7, 1, 2}, 4)
	checkTraceError(t, after, []any{x, bad}, "Take: index 7 at indices[1] is out of range for axis 0 of size 4")
	checkTraceError(t, inside, []any{x, bad}, "Take: index 7 at indices[1] is out of range for axis 0 of size 4")
	good := gojit.FromInt32([]int32{0, 3, 1, 2}, 4)
	for _, fn := range []func(x, i *gojit.Tensor) *gojit.Tensor{after, inside} {
		comp, ref, cerr, rerr := runBoth(t, fn, []any{x, good})
		if cerr != nil || rerr != nil || diffArrays(comp[0], ref[0], 0) != "" {
			t.Errorf("good indices: compiled %v %v, interpreted %v %v", comp, cerr, ref, rerr)
		}
	}
	empty := func(x *gojit.Tensor) *gojit.Tensor {
		return loop(x, func(s *gojit.Tensor) *gojit.Tensor { return s.LogicalOr(x) }).Take(gojit.Scalar(0), 0).LogicalNot()
	}
	checkTraceError(t, empty, []any{gojit.New(gojit.Bool, 0, 4)}, "Take: index 0 at indices[] is out of range for axis 0 of size 0")
}

// TestIndexEmptyAxis: along an axis of size 0 every index is out of range;
// the compiled code must report it without reading or writing (the buffer
// is empty). The fuzzer found the read (testdata/fuzz).
func TestIndexEmptyAxis(t *testing.T) {
	x := gojit.New(gojit.Int64, 3, 0)
	i := gojit.FromInt64([]int64{0}, 1)
	checkTraceError(t, func(x, i *gojit.Tensor) *gojit.Tensor {
		return x.Take(i.Take(gojit.Scalar(0), 0), 1)
	}, []any{x, i}, "Take: index 0 at indices[] is out of range for axis 1 of size 0")
	// An empty result reads no index (docs/indexing.md), even when the
	// updates are not empty.
	comp, ref, cerr, rerr := runBoth(t, func(x, i *gojit.Tensor) *gojit.Tensor {
		return x.Transpose().ScatterAdd(i, gojit.Scalar(5), 0)
	}, []any{x, i})
	if cerr != nil || rerr != nil || len(comp[0].Int64()) != 0 || len(ref[0].Int64()) != 0 {
		t.Errorf("empty ScatterAdd: %v %v, %v %v", comp, cerr, ref, rerr)
	}
	checkTraceError(t, func(x, i *gojit.Tensor) *gojit.Tensor {
		return x.TakeAlongAxis(i.Reshape(1, 1).BroadcastTo(3, 1), 1)
	}, []any{x, i}, "TakeAlongAxis: index 0 at indices[0,0] is out of range for axis 1 of size 0")
}

// TestIndexingDynamicBatch: the indexing and random ops in a kernel that
// serves every batch size (WithDynamicDim) give the interpreter's results
// and errors at each size.
func TestIndexingDynamicBatch(t *testing.T) {
	fn := func(x, idx, key *gojit.Tensor) []*gojit.Tensor {
		n := gojit.Normal(key, gojit.Float32, x.Shape()...)
		u := gojit.Uniform(key, gojit.Float32, x.Shape()...)
		g := x.Take(idx, 1).Sum(1)
		s := x.ScatterAdd(idx, gojit.Scalar(1), 1)
		rows := x.TakeAlongAxis(idx.Reshape(1, -1).BroadcastTo(x.Shape()[0], idx.Shape()[0]), 1)
		return []*gojit.Tensor{x.Add(n), u, g, s, rows}
	}
	cf, err := gojit.Compile(fn, gojit.WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := gojit.Compile(fn, gojit.WithInterpreter())
	if err != nil {
		t.Fatal(err)
	}
	key := gojit.RandomKey(5)
	for _, b := range []int{1, 7, 33, 2} {
		x := randArray(gojit.Float32, uint64(b), 0, b, 9)
		for _, idx := range []*gojit.Array{gojit.FromInt32([]int32{0, 8, -9, 3}, 4), gojit.FromInt32([]int32{0, 9, 2}, 3)} {
			got, cerr := cf.Call(x, idx, key)
			want, rerr := rf.Call(x, idx, key)
			if (cerr == nil) != (rerr == nil) || (cerr != nil && cerr.Error() != rerr.Error()) {
				t.Fatalf("batch %d: errors differ: compiled %v, interpreted %v", b, cerr, rerr)
			}
			if rerr != nil {
				continue
			}
			for i := range want {
				if d := diffArrays(got[i], want[i], 0); d != "" {
					t.Errorf("batch %d output %d: %s", b, i, d)
				}
			}
		}
	}
}

// TestScatterAddSplit: a scatter wide enough to be split across threads
// over its columns, with many duplicate indices and float updates whose sum
// depends on the order: bit for bit the interpreter's sums, and the same
// error for a bad index, on 1 and 2 threads.
func TestScatterAddSplit(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0, 64, 4096)
	upd := randArray(gojit.Float32, 2, 0.1, 300, 4096)
	idx := indexArray(gojit.Int64, 3, -64, 64, 300)
	fn := func(x, i, u *gojit.Tensor) *gojit.Tensor { return x.ScatterAdd(i, u.Mul(gojit.Scalar(1.5)), 0) }
	rf, err := gojit.Compile(fn, gojit.WithInterpreter())
	if err != nil {
		t.Fatal(err)
	}
	want, err := rf.Call(x, idx, upd)
	if err != nil {
		t.Fatal(err)
	}
	bad := indexArray(gojit.Int64, 3, -64, 64, 300)
	bad.Int64()[77], bad.Int64()[200] = 64, -65
	_, wantErr := rf.Call(x, bad, upd)
	if wantErr == nil {
		t.Fatal("no error for a bad index")
	}
	for _, threads := range []int{1, 2} {
		f, err := gojit.Compile(fn, gojit.WithThreads(threads))
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Call(x, idx, upd)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffArrays(got[0], want[0], 0); d != "" {
			t.Errorf("threads=%d: %s", threads, d)
		}
		if _, err := f.Call(x, bad, upd); err == nil || err.Error() != wantErr.Error() {
			t.Errorf("threads=%d: error %v, want %v", threads, err, wantErr)
		}
	}
}

// TestIndexErrorNamesOwnLine: two Funcs whose graphs differ only in their
// source lines share one kernel (the signature leaves positions out); an
// index error must still name the line of the Func that was called, not of
// the one that built the kernel. Also for a dynamic dimension and a loop.
func TestIndexErrorNamesOwnLine(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2, 3, 4}, 4)
	bad := gojit.FromInt32([]int32{0, 7}, 2)
	var line1, line2 string
	first := func(x, i *gojit.Tensor) *gojit.Tensor {
		line1 = hereAt(1)
		return x.Take(i, 0).Mul(gojit.Scalar(3))
	}
	second := func(x, i *gojit.Tensor) *gojit.Tensor {
		line2 = hereAt(1)
		return x.Take(i, 0).Mul(gojit.Scalar(3))
	}
	looped := func(x, i *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(2), []*gojit.Tensor{x}, func(_ *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{s[0].Add(first(x, i).Sum(0))}
		})[0]
	}
	loopedToo := func(x, i *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(2), []*gojit.Tensor{x}, func(_ *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{s[0].Add(second(x, i).Sum(0))}
		})[0]
	}
	for _, tc := range []struct {
		name        string
		a, b        any
		opts        []gojit.Option
		args, args2 []any
	}{
		{"static", first, second, nil, []any{x, bad}, []any{x, bad}},
		{"dynamic", first, second, []gojit.Option{gojit.WithDynamicDim(1, 0)},
			[]any{x, gojit.FromInt32([]int32{0, 1, 2}, 3)}, []any{x, gojit.FromInt32([]int32{1, 9, 2, 3}, 4)}},
		{"loop", looped, loopedToo, nil, []any{x, bad}, []any{x, bad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fa, err := gojit.Compile(tc.a, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			fb, err := gojit.Compile(tc.b, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fa.Call(tc.args...); tc.name == "dynamic" && err != nil {
				t.Fatal(err) // the dynamic case warms up on good indices
			}
			if tc.name == "dynamic" {
				if _, err := fa.Call(x, gojit.FromInt32([]int32{1, 1}, 2)); err != nil {
					t.Fatal(err)
				}
			}
			_, err = fb.Call(tc.args2...)
			if err == nil || !strings.Contains(err.Error(), line2) || strings.Contains(err.Error(), line1) {
				t.Errorf("second Func's error %v: want its own line %s, not %s", err, line2, line1)
			}
			if !errors.Is(err, gojit.ErrIndexOutOfRange) {
				t.Errorf("error %v does not wrap ErrIndexOutOfRange", err)
			}
			_, err = fa.Call(tc.args2...)
			if err == nil || !strings.Contains(err.Error(), line1) {
				t.Errorf("first Func's error %v: want its line %s", err, line1)
			}
		})
	}
}
