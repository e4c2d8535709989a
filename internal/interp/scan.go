package interp

import (
	"fmt"

	"github.com/gojit/gojit/internal/ir"
)

// scan evaluates cumsum and cumprod along axis: element i along the axis is
// the sum (product) of elements 0..i, accumulated in index order, so float
// results are the sequential fold (the code generator emits the same
// order). Integers wrap.
func scan(op ir.Op, src any, shape ir.Shape, axis int) any {
	switch s := src.(type) {
	case []uint8:
		return scanOf(op, s, shape, axis)
	case []int32:
		return scanOf(op, s, shape, axis)
	case []int64:
		return scanOf(op, s, shape, axis)
	case []float32:
		return scanOf(op, s, shape, axis)
	case []float64:
		return scanOf(op, s, shape, axis)
	}
	panic(fmt.Sprintf("%s on %T", op, src))
}

func scanOf[T number](op ir.Op, src []T, shape ir.Shape, axis int) []T {
	out := make([]T, len(src))
	outer, dim, inner := split(shape, axis)
	for o := range outer {
		base := o * dim * inner
		for k := range dim {
			for j := range inner {
				i := base + k*inner + j
				x := src[i]
				if k > 0 {
					if op == ir.OpCumSum {
						x = out[i-inner] + x
					} else {
						x = out[i-inner] * x
					}
				}
				out[i] = x
			}
		}
	}
	return out
}
