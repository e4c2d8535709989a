package interp

import (
	"fmt"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// rows steps through the leading dimensions of a shape (all but the last)
// in row-major order, keeping a strided offset into another buffer in step,
// so layout ops and reductions share one index walk and run a plain loop
// over each innermost row.
type rows struct {
	shape, strides, idx []int
	off                 int
}

func newRows(shape, strides []int, base int) *rows {
	return &rows{shape: shape, strides: strides, idx: make([]int, max(len(shape)-1, 0)), off: base}
}

// next advances to the following row, carrying like an odometer.
func (w *rows) next() {
	for k := len(w.idx) - 1; k >= 0; k-- {
		w.idx[k]++
		w.off += w.strides[k]
		if w.idx[k] < w.shape[k] {
			return
		}
		w.off -= w.idx[k] * w.strides[k]
		w.idx[k] = 0
	}
}

// scalarAsRow lets rank-0 tensors go through the same row walk as a single
// row of one element.
func scalarAsRow(shape, strides []int) ([]int, []int) {
	if len(shape) == 0 {
		return []int{1}, []int{0}
	}
	return shape, strides
}

// gather fills dst in row-major order of shape: the element at index idx
// reads src[base + Σ idx[k]*strides[k]]. Transpose, broadcast and slice are
// all this with different strides (0 for a broadcast dimension).
func gather[T elem](dst, src []T, shape []int, base int, strides []int) {
	if len(dst) == 0 {
		return
	}
	shape, strides = scalarAsRow(shape, strides)
	n, st := shape[len(shape)-1], strides[len(strides)-1]
	if st != 0 && st != 1 && len(shape) >= 2 && shape[len(shape)-2] > 1 {
		gatherTiled(dst, src, shape, base, strides)
		return
	}
	w := newRows(shape, strides, base)
	for o := 0; o < len(dst); o += n {
		row, off := dst[o:o+n], w.off
		switch st {
		case 1:
			copy(row, src[off:off+n])
		case 0:
			v := src[off]
			for j := range row {
				row[j] = v
			}
		default:
			for j := range row {
				row[j] = src[off]
				off += st
			}
		}
		w.next()
	}
}

// gatherTiled is gather for a strided innermost dimension, as in a
// transpose: it copies each 2-D plane of the last two dimensions in square
// tiles, so the source lines a tile touches stay in cache while it is read,
// instead of every element costing a cache miss. The result is identical.
func gatherTiled[T elem](dst, src []T, shape []int, base int, strides []int) {
	const tile = 32
	r := len(shape)
	m, n := shape[r-2], shape[r-1]
	s2, s1 := strides[r-2], strides[r-1]
	w := newRows(shape[:r-1], strides[:r-1], base)
	for o := 0; o < len(dst); o += m * n {
		plane := dst[o : o+m*n]
		for i0 := 0; i0 < m; i0 += tile {
			i1 := min(i0+tile, m)
			for j0 := 0; j0 < n; j0 += tile {
				j1 := min(j0+tile, n)
				for i := i0; i < i1; i++ {
					row := plane[i*n+j0 : i*n+j1]
					p := w.off + i*s2 + j0*s1
					for j := range row {
						row[j] = src[p]
						p += s1
					}
				}
			}
		}
		w.next()
	}
}

func gatherAny(src any, shape ir.Shape, base int, strides []int) any {
	switch s := src.(type) {
	case []bool:
		return gatherNew(s, shape, base, strides)
	case []uint8:
		return gatherNew(s, shape, base, strides)
	case []int32:
		return gatherNew(s, shape, base, strides)
	case []int64:
		return gatherNew(s, shape, base, strides)
	case []float32:
		return gatherNew(s, shape, base, strides)
	case []float64:
		return gatherNew(s, shape, base, strides)
	case []half.Float16:
		return gatherNew(s, shape, base, strides)
	case []half.BFloat16:
		return gatherNew(s, shape, base, strides)
	}
	panic(fmt.Sprintf("layout op on %T", src))
}

func gatherNew[T elem](src []T, shape ir.Shape, base int, strides []int) []T {
	dst := make([]T, shape.Size())
	gather(dst, src, shape, base, strides)
	return dst
}

// transpose: result dimension k is operand dimension perm[k].
func transpose(src any, in ir.Shape, perm []int, out ir.Shape) any {
	inStr := in.Strides()
	strides := make([]int, len(perm))
	for k, p := range perm {
		strides[k] = inStr[p]
	}
	return gatherAny(src, out, 0, strides)
}

// broadcast aligns dimensions on the right; operand dimensions of size 1,
// and the leading result dimensions the operand lacks, have stride 0.
func broadcast(src any, in, out ir.Shape) any {
	inStr := in.Strides()
	off := len(out) - len(in)
	strides := make([]int, len(out))
	for i := off; i < len(out); i++ {
		if in[i-off] != 1 {
			strides[i] = inStr[i-off]
		}
	}
	return gatherAny(src, out, 0, strides)
}

func slice(src any, in ir.Shape, starts, steps []int, out ir.Shape) any {
	inStr := in.Strides()
	base := 0
	strides := make([]int, len(in))
	for k := range in {
		base += starts[k] * inStr[k]
		strides[k] = steps[k] * inStr[k]
	}
	return gatherAny(src, out, base, strides)
}

func concat(args []any, shapes []ir.Shape, axis int, out ir.Shape) any {
	switch args[0].(type) {
	case []bool:
		return concatOf[bool](args, shapes, axis, out)
	case []uint8:
		return concatOf[uint8](args, shapes, axis, out)
	case []int32:
		return concatOf[int32](args, shapes, axis, out)
	case []int64:
		return concatOf[int64](args, shapes, axis, out)
	case []float32:
		return concatOf[float32](args, shapes, axis, out)
	case []float64:
		return concatOf[float64](args, shapes, axis, out)
	case []half.Float16:
		return concatOf[half.Float16](args, shapes, axis, out)
	case []half.BFloat16:
		return concatOf[half.BFloat16](args, shapes, axis, out)
	}
	panic(fmt.Sprintf("concat of %T", args[0]))
}

// concatOf copies, for each index before the axis, one contiguous block from
// every operand in turn.
func concatOf[T elem](args []any, shapes []ir.Shape, axis int, out ir.Shape) []T {
	dst := make([]T, out.Size())
	outer, _, inner := split(out, axis)
	blocks := make([]int, len(args))
	srcs := make([][]T, len(args))
	for j, a := range args {
		srcs[j] = a.([]T)
		blocks[j] = shapes[j][axis] * inner
	}
	if len(dst) == 0 {
		return dst
	}
	o := 0
	for i := range outer {
		for j, s := range srcs {
			b := blocks[j]
			o += copy(dst[o:o+b], s[i*b:(i+1)*b])
		}
	}
	return dst
}
