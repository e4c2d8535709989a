package source

import (
	"testing"

	"github.com/gojit/gojit"
)

// BenchmarkFormula measures Formula.EvalInto on the 6-operation shop
// formula over 1e6 float64 rows against the same expression as a plain Go
// loop, in one run: compare the two ns/op (make bench-formula compares
// with expr-lang/expr in internal/bench/exprpeer).
func BenchmarkFormula(b *testing.B) {
	const n = 1_000_000
	cols, want := fShopColumns(n)
	f := fMust(b, fShopFormula, fShopSchema)
	dst := gojit.New(gojit.Float64, n)
	if err := f.EvalInto(dst, cols); err != nil {
		b.Fatal(err)
	}
	for i, v := range dst.Float64() {
		if v != want[i] {
			b.Fatalf("row %d = %v, want %v", i, v, want[i])
		}
	}
	b.Run("EvalInto", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(6 * 8 * n)
		for b.Loop() {
			if err := f.EvalInto(dst, cols); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GoLoop", func(b *testing.B) {
		p, q, d, t, fee := cols["price"].Float64(), cols["qty"].Float64(), cols["discount"].Float64(), cols["tax"].Float64(), cols["fee"].Float64()
		out := dst.Float64()
		b.ReportAllocs()
		b.SetBytes(6 * 8 * n)
		for b.Loop() {
			for i := range out {
				out[i] = p[i]*q[i]*(1-d[i]) + t[i]*p[i] - fee[i]
			}
		}
	})
}
