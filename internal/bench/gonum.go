package bench

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/floats"
)

// The gonum versions of the peer workloads, written the way a gonum user
// would: one floats call per operation where floats has it, a loop where it
// does not (max with a scalar, exp, tanh). gonum's floats and mat packages
// are float64-only, so these run on float64 copies of the inputs (twice the
// memory traffic of the float32 versions); the matmul uses blas32, gonum's
// pure-Go float32 BLAS, which does keep float32.

// gonumChain5 is Chain5: out = max((a+b)*a - b*0.5, 0).
func gonumChain5(out, a, b []float64) {
	floats.AddTo(out, a, b)
	floats.Mul(out, a)
	floats.AddScaled(out, -0.5, b)
	for i, v := range out {
		out[i] = max(v, 0)
	}
}

// gonumRowSum is RowSum with floats.Sum per row.
func gonumRowSum(out, x []float64, cols int) {
	for i := range out {
		out[i] = floats.Sum(x[i*cols : (i+1)*cols])
	}
}

// gonumSoftmax is Softmax with floats per row.
func gonumSoftmax(out, x []float64, cols int) {
	for i := 0; i < len(x); i += cols {
		o := out[i : i+cols]
		copy(o, x[i:i+cols])
		floats.AddConst(-floats.Max(o), o)
		for j, v := range o {
			o[j] = math.Exp(v)
		}
		floats.Scale(1/floats.Sum(o), o)
	}
}

// gonumLayerNorm is LayerNorm with floats per row.
func gonumLayerNorm(out, x, gamma, beta []float64) {
	cols := len(gamma)
	n := float64(cols)
	for i := 0; i < len(x); i += cols {
		o := out[i : i+cols]
		copy(o, x[i:i+cols])
		floats.AddConst(-floats.Sum(o)/n, o)
		v := floats.Dot(o, o) / n
		floats.Scale(1/math.Sqrt(v+LayerNormEps), o)
		floats.Mul(o, gamma)
		floats.Add(o, beta)
	}
}

// gonumMatMulBiasRelu is MatMulBiasRelu with blas32.Gemm (float32), then
// bias and relu per row.
func gonumMatMulBiasRelu(out, a, b, bias []float32, n int) {
	A := blas32.General{Rows: n, Cols: n, Stride: n, Data: a}
	B := blas32.General{Rows: n, Cols: n, Stride: n, Data: b}
	C := blas32.General{Rows: n, Cols: n, Stride: n, Data: out}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, A, B, 0, C)
	for i := 0; i < len(out); i += n {
		o := out[i : i+n]
		for j := range o {
			o[j] = max(o[j]+bias[j], 0)
		}
	}
}

// gonumMix20 is Mix20 with floats per row; scratch holds one row.
func gonumMix20(out, x, y, w, bias, scratch []float64) {
	cols := len(w)
	e := scratch[:cols]
	for i := 0; i < len(x); i += cols {
		xr, yr, o := x[i:i+cols], y[i:i+cols], out[i:i+cols]
		floats.MulTo(e, xr, w) // 1
		floats.Add(e, yr)      // 2
		for j, v := range e {  // 3, 4
			e[j] = math.Sqrt(math.Abs(v))
		}
		floats.Sub(e, yr)                  // 5
		floats.AddConst(-floats.Max(e), e) // 6, 7
		for j, v := range e {              // 8
			e[j] = math.Exp(v)
		}
		floats.Scale(1/floats.Sum(e), e) // 9, 10 (as a multiply by 1/s)
		floats.Mul(e, xr)                // 11
		for j, v := range yr {           // 12, 13, 14
			e[j] = min(e[j]+math.Tanh(v), 0.5)
		}
		floats.AddConst(-floats.Sum(e)/float64(cols), e) // 15, 16
		floats.MulTo(o, e, e)                            // 17
		floats.Mul(o, w)                                 // 18
		floats.Add(o, bias)                              // 19
		for j, r := range e {                            // 20
			o[j] = max(o[j], r)
		}
	}
}
