package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

func reduce(op ir.Op, src any, in ir.Shape, axes []int, size int) any {
	switch s := src.(type) {
	case []uint8:
		return reduceOf(op, s, in, axes, size)
	case []int32:
		return reduceOf(op, s, in, axes, size)
	case []int64:
		return reduceOf(op, s, in, axes, size)
	case []float32:
		return reduceOf(op, s, in, axes, size)
	case []float64:
		return reduceOf(op, s, in, axes, size)
	}
	panic(fmt.Sprintf("%s on %T", op, src))
}

// reduceOf walks the operand once in row-major order, folding each element
// into its output slot. For a fixed output slot the reduced indices then
// come in lexicographic order, which is the order the IR specifies, so the
// result is the sequential fold the code generator also emits, while the
// memory access stays contiguous whichever axes are reduced.
func reduceOf[T number](op ir.Op, src []T, in ir.Shape, axes []int, size int) []T {
	dst := fill(make([]T, size), startValue[T](op))
	if len(src) == 0 {
		return dst
	}
	// ostr[k] is how far one step along operand axis k moves in dst.
	ostr := make([]int, len(in))
	acc := 1
	for k := len(in) - 1; k >= 0; k-- {
		if !slices.Contains(axes, k) {
			ostr[k] = acc
			acc *= in[k]
		}
	}
	shape, strides := scalarAsRow(in, ostr)
	n, st := shape[len(shape)-1], strides[len(strides)-1]
	w := newRows(shape, strides, 0)
	for i := 0; i < len(src); i += n {
		foldRow(op, dst, src[i:i+n], w.off, st)
		w.next()
	}
	return dst
}

// foldRow folds one contiguous operand row into dst starting at o, moving
// st per element: 0 when the last axis is reduced (one accumulator), 1
// when it is kept.
func foldRow[T number](op ir.Op, dst, row []T, o, st int) {
	if st == 0 {
		acc := dst[o]
		switch op {
		case ir.OpReduceSum:
			for _, x := range row {
				acc = acc + x
			}
		case ir.OpReduceProd:
			for _, x := range row {
				acc = acc * x
			}
		case ir.OpReduceMax:
			for _, x := range row {
				acc = max(acc, x)
			}
		case ir.OpReduceMin:
			for _, x := range row {
				acc = min(acc, x)
			}
		default:
			panic(fmt.Sprintf("reduction %s", op))
		}
		dst[o] = acc
		return
	}
	d := dst[o : o+(len(row)-1)*st+1]
	switch op {
	case ir.OpReduceSum:
		for j, x := range row {
			d[j*st] = d[j*st] + x
		}
	case ir.OpReduceProd:
		for j, x := range row {
			d[j*st] = d[j*st] * x
		}
	case ir.OpReduceMax:
		for j, x := range row {
			d[j*st] = max(d[j*st], x)
		}
	case ir.OpReduceMin:
		for j, x := range row {
			d[j*st] = min(d[j*st], x)
		}
	default:
		panic(fmt.Sprintf("reduction %s", op))
	}
}

// startValue is the accumulator's initial value, which is also the result
// of reducing an empty axis.
func startValue[T number](op ir.Op) T {
	var v T
	switch op {
	case ir.OpReduceSum:
	case ir.OpReduceProd:
		v = 1
	case ir.OpReduceMax:
		setLimit(&v, -1)
	case ir.OpReduceMin:
		setLimit(&v, 1)
	}
	return v
}

// setLimit sets *p to the dtype's largest value (sign > 0) or smallest
// (sign < 0): ±Inf for floats, so that a reduction of finite values and
// an empty reduction agree with IEEE max/min.
func setLimit[T number](p *T, sign int) {
	switch q := any(p).(type) {
	case *uint8:
		*q = 0
		if sign > 0 {
			*q = math.MaxUint8
		}
	case *int32:
		*q = math.MinInt32
		if sign > 0 {
			*q = math.MaxInt32
		}
	case *int64:
		*q = math.MinInt64
		if sign > 0 {
			*q = math.MaxInt64
		}
	case *float32:
		*q = float32(math.Inf(sign))
	case *float64:
		*q = math.Inf(sign)
	}
}

func argReduce(op ir.Op, src any, in ir.Shape, axis, size int) []int64 {
	switch s := src.(type) {
	case []uint8:
		return argOf(op, s, in, axis, size)
	case []int32:
		return argOf(op, s, in, axis, size)
	case []int64:
		return argOf(op, s, in, axis, size)
	case []float32:
		return argOf(op, s, in, axis, size)
	case []float64:
		return argOf(op, s, in, axis, size)
	}
	panic(fmt.Sprintf("%s on %T", op, src))
}

// argOf returns the index of the first extreme element along axis. The
// first NaN wins outright (NumPy's rule): once best is NaN nothing replaces
// it, and a NaN replaces any non-NaN best. x != x is never true for
// integers, so the same loop serves them.
func argOf[T number](op ir.Op, src []T, in ir.Shape, axis, size int) []int64 {
	dst := make([]int64, size)
	outer, dim, inner := split(in, axis)
	if dim == 0 || size == 0 {
		return dst
	}
	for o := range outer {
		for j := range inner {
			base := o*dim*inner + j
			best, bi := src[base], 0
			if op == ir.OpArgMax {
				for i := 1; i < dim && best == best; i++ {
					if x := src[base+i*inner]; x > best || x != x {
						best, bi = x, i
					}
				}
			} else {
				for i := 1; i < dim && best == best; i++ {
					if x := src[base+i*inner]; x < best || x != x {
						best, bi = x, i
					}
				}
			}
			dst[o*inner+j] = int64(bi)
		}
	}
	return dst
}

// matmul multiplies [...,M,K] by [...,K,N] batch by batch.
func matmul(a, b any, ashape, out ir.Shape) any {
	r := len(out)
	batch, m, k, n := out[:r-2].Size(), out[r-2], ashape[r-1], out[r-1]
	switch x := a.(type) {
	case []uint8:
		return matmulInt(x, b.([]uint8), batch, m, k, n)
	case []int32:
		return matmulInt(x, b.([]int32), batch, m, k, n)
	case []int64:
		return matmulInt(x, b.([]int64), batch, m, k, n)
	case []float32:
		return matmulF32(x, b.([]float32), batch, m, k, n)
	case []float64:
		return matmulF64(x, b.([]float64), batch, m, k, n)
	}
	panic(fmt.Sprintf("matmul on %T", a))
}

// The matmul kernels loop i, k, j so the inner loop runs along rows of b
// and of the result. For each result element the products are still added
// in ascending k onto an accumulator that starts at 0, which is the
// specified order, so the loop order changes speed but not the result.

func matmulInt[T integer](a, b []T, batch, m, k, n int) []T {
	dst := make([]T, batch*m*n)
	for bi := range batch {
		A, B, C := a[bi*m*k:][:m*k], b[bi*k*n:][:k*n], dst[bi*m*n:][:m*n]
		for i := range m {
			crow := C[i*n:][:n]
			for kk := range k {
				av, brow := A[i*k+kk], B[kk*n:][:n]
				for j := range crow {
					crow[j] += av * brow[j]
				}
			}
		}
	}
	return dst
}

// The float kernels are written per type, not generically, so that the
// explicit conversion of each product is a plain float32/float64
// conversion, which the Go spec guarantees rounds the product and so
// keeps the compiler from fusing it into a multiply-add (it would on
// arm64); the compiled code never fuses either.

func matmulF32(a, b []float32, batch, m, k, n int) []float32 {
	dst := make([]float32, batch*m*n)
	for bi := range batch {
		A, B, C := a[bi*m*k:][:m*k], b[bi*k*n:][:k*n], dst[bi*m*n:][:m*n]
		for i := range m {
			crow := C[i*n:][:n]
			for kk := range k {
				av, brow := A[i*k+kk], B[kk*n:][:n]
				for j := range crow {
					crow[j] = crow[j] + float32(av*brow[j])
				}
			}
		}
	}
	return dst
}

func matmulF64(a, b []float64, batch, m, k, n int) []float64 {
	dst := make([]float64, batch*m*n)
	for bi := range batch {
		A, B, C := a[bi*m*k:][:m*k], b[bi*k*n:][:k*n], dst[bi*m*n:][:m*n]
		for i := range m {
			crow := C[i*n:][:n]
			for kk := range k {
				av, brow := A[i*k+kk], B[kk*n:][:n]
				for j := range crow {
					crow[j] = crow[j] + float64(av*brow[j])
				}
			}
		}
	}
	return dst
}
