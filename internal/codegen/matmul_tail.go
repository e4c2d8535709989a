package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// The dot-product tail of matmul (see emitMatMul): the columns right of
// the last whole vector, computed as dot products along k.

// useDotTail reports whether the w columns right of the last whole
// vector of a float matmul over k = K (both constants) are better computed as dot
// products along k (dotTail) than as a tail panel of w-lane vectors: the
// panel takes one multiply-add per k and row, the dot products w per
// vector of k (the last one partial) and row, plus about two vector
// operations per column to fold the w sums (reduceColumns). GT2's
// 100x100x100 product has a tail of 4 columns: 4*7+2*4 = 36 operations
// per row against 100. The transposed copy of B's tail lives on the
// stack, so it is bounded (64 KiB).
func (mm *mmCtx) useDotTail(w, K int) bool {
	kp := mm.tailStride(K)
	if w == 0 || (mm.dt != ir.Float32 && mm.dt != ir.Float64) || w*kp*mm.dt.Size() > 64<<10 {
		return false
	}
	return w*(kp/mm.lanes)+2*w < K
}

// tailStride is the elements between the columns of packTail's copy: K
// rounded up to whole vectors, so that every column starts a vector and
// dotTail reads the last, partial one whole.
func (mm *mmCtx) tailStride(K int) int { return (K + mm.lanes - 1) / mm.lanes * mm.lanes }

// packTail copies columns [c0, c0+w) of the batch's matrix of B into a
// stack buffer, transposed: column j's K values contiguous from
// j*tailStride(K), followed by zeros up to the next whole vector, so
// dotTail reads them as vectors.
func (mm *mmCtx) packTail(c0, w, K int) string {
	gr, dt := mm.gr, mm.dt
	kp := mm.tailStride(K)
	bt := gr.alloca(fmt.Sprintf("[%d x %s], align 64", w*kp, memType(dt)))
	if kp > K {
		// Each column's last vector is zeroed first; the copy below
		// then overwrites its first K % lanes elements.
		vt := fmt.Sprintf("<%d x %s>", mm.lanes, regType(dt))
		for j := range w {
			p := gr.ins("getelementptr inbounds %s, ptr %s, i64 %d", memType(dt), bt, j*kp+kp-mm.lanes)
			gr.stmt("store %s zeroinitializer, ptr %s, align 64", vt, p)
		}
	}
	k := gr.openLoop("0", strconv.Itoa(K))
	k.noUnroll = true // see row
	src := gr.ins("add nuw nsw i64 %s, %s", mm.bBase, gr.ins("mul nuw nsw i64 %s, %s", k.iv, mm.N))
	for j := range w {
		x := gr.loadAt(dt, mm.B, gr.ins("add nuw nsw i64 %s, %d", src, c0+j))
		gr.store(dt, bt, gr.ins("add nuw nsw i64 %s, %d", k.iv, j*kp), x)
	}
	gr.closeLoop(k)
	return bt
}

// dotTail computes columns [c0, c0+w) of output row i (within the batch's
// matrix) as w dot products of the row of A with the transposed columns
// in bt (packTail): vectors of lanes values of k multiplied and added into
// one accumulator per column, the last, partial vector of the row read
// with a masked load (its lanes past K are zero, as are bt's), then the
// accumulators folded into the w sums together (reduceColumns). The sums
// round differently from the tiles' (another order of the same products,
// within the tolerance of internal/interp/doc.go).
func (mm *mmCtx) dotTail(i, bt string, c0, w, K int) {
	gr, dt := mm.gr, mm.dt
	t := regType(dt)
	L := mm.lanes
	vt := fmt.Sprintf("<%d x %s>", L, t)
	kp := mm.tailStride(K)
	aRow := gr.ins("add nuw nsw i64 %s, %s", mm.aBase, gr.ins("mul nuw nsw i64 %s, %s", i, mm.K))
	accs := make([]string, w)
	for j := range accs {
		accs[j] = gr.alloca(vt)
		gr.stmt("store %s zeroinitializer, ptr %s", vt, accs[j])
	}
	step := func(k0, a string) {
		for j := range w {
			bp := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, bt, gr.ins("add nuw nsw i64 %s, %d", k0, j*kp))
			b := gr.ins("load %s, ptr %s, align %d", vt, bp, L*dt.Size())
			cur := gr.ins("load %s, ptr %s", vt, accs[j])
			gr.stmt("store %s %s, ptr %s", vt, mm.mulAdd(vt, a, b, cur), accs[j])
		}
	}
	if nvk := K / L; nvk > 0 {
		// Left to LLVM's unroller (not marked done, though vectorized by
		// hand): unrolled, GT2's 100x100x100 product, whose tail is 4
		// columns over 6 vectors of k, ran as before; kept a loop, its
		// median call took 3-4% longer (BenchmarkGT2Split, alternated).
		kv := gr.openLoop("0", strconv.Itoa(nvk))
		k0 := gr.ins("mul nuw nsw i64 %s, %d", kv.iv, L)
		ap := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, mm.A, gr.ins("add nuw nsw i64 %s, %s", aRow, k0))
		step(k0, gr.ins("load %s, ptr %s, align %d", vt, ap, dt.Size()))
		gr.closeLoop(kv)
	}
	if rest := K % L; rest > 0 {
		// The lanes past the row's end are neither read nor multiplied
		// with anything but bt's zeros (0*inf would be NaN).
		k0 := K / L * L
		mask := make([]string, L)
		for l := range mask {
			mask[l] = fmt.Sprintf("i1 %t", l < rest)
		}
		name := fmt.Sprintf("llvm.masked.load.v%d%s.p0", L, intrinsicSuffix(dt))
		gr.declare(name, fmt.Sprintf("declare %s @%s(ptr, i32 immarg, <%d x i1>, %s)", vt, name, L, vt))
		ap := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, mm.A, gr.ins("add nuw nsw i64 %s, %d", aRow, k0))
		a := gr.ins("call %s @%s(ptr %s, i32 %d, <%d x i1> <%s>, %s zeroinitializer)", vt, name, ap, dt.Size(), L, strings.Join(mask, ", "), vt)
		step(strconv.Itoa(k0), a)
	}
	vals := make([]string, w)
	for j := range w {
		vals[j] = gr.ins("load %s, ptr %s", vt, accs[j])
	}
	sums := mm.reduceColumns(vals)
	oRow := gr.ins("add nuw nsw i64 %s, %s", mm.oBase, gr.ins("mul nuw nsw i64 %s, %s", i, mm.N))
	for j := range w {
		gr.store(dt, mm.C, gr.ins("add nuw nsw i64 %s, %d", oRow, c0+j), gr.ins("extractelement %s %s, i64 %d", sums.typ, sums.v, j))
	}
}

// folded is a vector of c sums of columns, lanes of each side by side:
// lane i*p+q holds the q-th of column i's p partial sums.
type folded struct {
	v, typ string
	c, p   int
}

// reduceColumns sums the lanes of each of the vectors vals (fewer than
// lanes of them) and returns a vector whose lane j holds the sum of
// vals[j]. Instead of one horizontal sum per vector (about log2(lanes)
// shuffles and adds each), pairs of vectors are folded into one of twice
// the columns with half the partial sums (two shuffles and an add, one
// vpermt2ps each on AVX-512), then the last vector's partial sums
// within itself. The order of the additions is fixed: the same sums on
// every target.
func (mm *mmCtx) reduceColumns(vals []string) folded {
	gr, L := mm.gr, mm.lanes
	t := regType(mm.dt)
	vt := fmt.Sprintf("<%d x %s>", L, t)
	idx := func(ix []int) string {
		parts := make([]string, len(ix))
		for k, x := range ix {
			parts[k] = "i32 " + strconv.Itoa(x)
		}
		return "<" + strings.Join(parts, ", ") + ">"
	}
	level := make([]folded, len(vals))
	for j, v := range vals {
		level[j] = folded{v: v, typ: vt, c: 1, p: L}
	}
	for len(level) > 1 {
		var next []folded
		for m := 0; m < len(level); m += 2 {
			x, y := level[m], folded{v: "zeroinitializer", c: level[m].c, p: level[m].p}
			if m+1 < len(level) {
				y = level[m+1]
			}
			// Lane i*(p/2)+q of the result: partials q and q+p/2 of
			// column i of x (i < c) or of y (i >= c, lanes L.. of the
			// shuffle's pair).
			h := x.p / 2
			lo, hi := make([]int, L), make([]int, L)
			for i := range 2 * x.c {
				for q := range h {
					src := i*x.p + q
					if i >= x.c {
						src = L + (i-x.c)*x.p + q
					}
					lo[i*h+q], hi[i*h+q] = src, src+h
				}
			}
			a := gr.ins("shufflevector %s %s, %s %s, <%d x i32> %s", vt, x.v, vt, y.v, L, idx(lo))
			b := gr.ins("shufflevector %s %s, %s %s, <%d x i32> %s", vt, x.v, vt, y.v, L, idx(hi))
			next = append(next, folded{v: gr.ins("fadd %s %s, %s", vt, a, b), typ: vt, c: 2 * x.c, p: h})
		}
		level = next
	}
	f := level[0]
	for f.p > 1 {
		h := f.p / 2
		n := f.c * h
		lo, hi := make([]int, n), make([]int, n)
		for i := range f.c {
			for q := range h {
				lo[i*h+q], hi[i*h+q] = i*f.p+q, i*f.p+q+h
			}
		}
		nt := fmt.Sprintf("<%d x %s>", n, t)
		a := gr.ins("shufflevector %s %s, %s poison, <%d x i32> %s", f.typ, f.v, f.typ, n, idx(lo))
		b := gr.ins("shufflevector %s %s, %s poison, <%d x i32> %s", f.typ, f.v, f.typ, n, idx(hi))
		f = folded{v: gr.ins("fadd %s %s, %s", nt, a, b), typ: nt, c: f.c, p: h}
	}
	return f
}
