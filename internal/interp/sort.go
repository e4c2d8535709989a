package interp

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// sortAxis evaluates sort and argsort along axis. The order is ascending
// by sortKey: IEEE totalOrder (-Inf < ... < -0 < +0 < ... < +Inf) with
// every NaN last; argsort breaks ties by index (a stable sort), so both
// results are fully determined and the code generator, which heap-sorts,
// gives the same.
func sortAxis(op ir.Op, src any, shape ir.Shape, axis int) any {
	switch s := src.(type) {
	case []uint8:
		return sortOf(op, s, shape, axis, func(x uint8) uint64 { return uint64(x) })
	case []int32:
		return sortOf(op, s, shape, axis, func(x int32) uint64 { return uint64(uint32(x) ^ 1<<31) })
	case []int64:
		return sortOf(op, s, shape, axis, func(x int64) uint64 { return uint64(x) ^ 1<<63 })
	case []float32:
		return sortOf(op, s, shape, axis, func(x float32) uint64 {
			b := math.Float32bits(x)
			switch {
			case x != x:
				return math.MaxUint32
			case b>>31 == 1:
				return uint64(^b)
			}
			return uint64(b | 1<<31)
		})
	case []float64:
		return sortOf(op, s, shape, axis, sortKey64)
	}
	panic(fmt.Sprintf("%s on %T", op, src))
}

// sortKey64 maps a float64 to an unsigned key whose order is the sort
// order.
func sortKey64(x float64) uint64 {
	b := math.Float64bits(x)
	switch {
	case x != x:
		return math.MaxUint64
	case b>>63 == 1:
		return ^b
	}
	return b | 1<<63
}

func sortOf[T number](op ir.Op, src []T, shape ir.Shape, axis int, key func(T) uint64) any {
	outer, dim, inner := split(shape, axis)
	vals := make([]T, len(src))
	idx := make([]int64, len(src))
	row := make([]int64, dim)
	for o := range outer {
		for j := range inner {
			base := o*dim*inner + j
			for k := range row {
				row[k] = int64(k)
			}
			slices.SortStableFunc(row, func(a, b int64) int {
				return cmp.Compare(key(src[base+int(a)*inner]), key(src[base+int(b)*inner]))
			})
			for k, r := range row {
				idx[base+k*inner] = r
				vals[base+k*inner] = src[base+int(r)*inner]
			}
		}
	}
	if op == ir.OpArgSort {
		return idx
	}
	return vals
}
