package codegen

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/philox"
)

// Random ops: Philox-4x32-10 in straight-line LLVM IR, the same function
// as internal/philox and the interpreter (internal/interp/random.go), so
// compiled draws equal interpreted ones bit for bit. Each 32x32->64-bit
// product is an i64 multiply of zero-extended words, which the loop
// vectorizer turns into vector multiplies (vpmuludq on x86); the ten
// rounds need no branches, tables or calls. A value is computed from its
// key and its row-major position only, so threads and chunks cannot
// change it.
//
// A uniform float32 root (a tensor of draws written to memory) is emitted
// as a loop over blocks (emitUniformRoot): each block's four words become
// four consecutive elements, a quarter of the work of computing a block
// per element, which is what a fused use does.

// philoxBlock emits the ten rounds on counter c under key k (i32 operands)
// and returns the four words.
func (f *fn) philoxBlock(c [4]string, k [2]string) [4]string {
	c0, c1, c2, c3 := c[0], c[1], c[2], c[3]
	k0, k1 := k[0], k[1]
	for r := range philox.Rounds {
		if r > 0 {
			k0 = f.ins("add i32 %s, %s", k0, i32Bits(philox.W0))
			k1 = f.ins("add i32 %s, %s", k1, i32Bits(philox.W1))
		}
		p0 := f.ins("mul nuw i64 %s, %d", f.ins("zext i32 %s to i64", c0), uint32(philox.M0))
		p1 := f.ins("mul nuw i64 %s, %d", f.ins("zext i32 %s to i64", c2), uint32(philox.M1))
		hi0 := f.ins("trunc i64 %s to i32", f.ins("lshr i64 %s, 32", p0))
		lo0 := f.ins("trunc i64 %s to i32", p0)
		hi1 := f.ins("trunc i64 %s to i32", f.ins("lshr i64 %s, 32", p1))
		lo1 := f.ins("trunc i64 %s to i32", p1)
		n0 := f.ins("xor i32 %s, %s", f.ins("xor i32 %s, %s", hi1, c1), k0)
		n2 := f.ins("xor i32 %s, %s", f.ins("xor i32 %s, %s", hi0, c3), k1)
		c0, c1, c2, c3 = n0, lo1, n2, lo0
	}
	return [4]string{c0, c1, c2, c3}
}

// keyWords loads the two words of random op n's key.
func (gr *group) keyWords(key ir.Value) [2]string {
	var k [2]string
	for w := range k {
		ki := gr.indexOf(fmt.Sprintf("key%d", w), key)
		ki.dims[0] = fmt.Sprint(w)
		ki.lin = fmt.Sprint(w)
		k[w] = gr.value(key, ki)
	}
	return k
}

// counter splits a 64-bit block number into counter words 0 and 1.
func (f *fn) counter(b string, stream uint32, hi uint32) [4]string {
	return [4]string{
		f.ins("trunc i64 %s to i32", b),
		f.ins("trunc i64 %s to i32", f.ins("lshr i64 %s, 32", b)),
		i32Bits(stream), i32Bits(hi),
	}
}

// i32Bits prints a 32-bit word as an LLVM i32 constant (signed).
func i32Bits(w uint32) string { return fmt.Sprint(int32(w)) }

// pick selects word sel (an i64 in 0..3) of w.
func (f *fn) pick(w [4]string, sel string) string {
	lo := f.ins("select i1 %s, i32 %s, i32 %s", f.ins("icmp eq i64 %s, 1", sel), w[1], w[0])
	hi := f.ins("select i1 %s, i32 %s, i32 %s", f.ins("icmp eq i64 %s, 3", sel), w[3], w[2])
	return f.ins("select i1 %s, i32 %s, i32 %s", f.ins("icmp ult i64 %s, 2", sel), lo, hi)
}

// uniform32 maps a random word to a float32 in [0, 1) as philox.Float32.
func (f *fn) uniform32(w string) string {
	x := f.ins("uitofp i32 %s to float", f.ins("lshr i32 %s, 8", w))
	return f.ins("fmul float %s, %s", x, floatLit(ir.Float32, 0x1p-24))
}

// uniform64 maps two words to a float64 in [0, 1) as philox.Float64.
func (f *fn) uniform64(hi, lo string) string {
	x := f.ins("lshr i64 %s, 11", f.join64(hi, lo))
	return f.ins("fmul double %s, %s", f.ins("uitofp i64 %s to double", x), dlit(0x1p-53))
}

// join64 returns hi:lo as an i64.
func (f *fn) join64(hi, lo string) string {
	h := f.ins("shl i64 %s, 32", f.ins("zext i32 %s to i64", hi))
	return f.ins("or i64 %s, %s", h, f.ins("zext i32 %s to i64", lo))
}

// random emits random_uniform, random_normal or split_key at ix.
func (gr *group) random(n *ir.Node, ix *index) string {
	k := gr.keyWords(n.Args[0])
	switch n.Op {
	case ir.OpSplitKey:
		j := gr.dim(ix, 0)
		w := gr.philoxBlock(gr.counter(j, math.MaxUint32, math.MaxUint32), k)
		return gr.ins("select i1 %s, i32 %s, i32 %s", gr.ins("icmp eq i64 %s, 0", gr.dim(ix, 1)), w[0], w[1])
	case ir.OpRandomUniform:
		p := gr.linear(ix)
		if n.DType == ir.Float32 {
			w := gr.philoxBlock(gr.counter(gr.ins("lshr i64 %s, 2", p), interp.StreamUniform, 0), k)
			return gr.uniform32(gr.pick(w, gr.ins("and i64 %s, 3", p)))
		}
		w := gr.philoxBlock(gr.counter(gr.ins("lshr i64 %s, 1", p), interp.StreamUniform, 0), k)
		odd := gr.ins("icmp ne i64 %s, 0", gr.ins("and i64 %s, 1", p))
		hi := gr.ins("select i1 %s, i32 %s, i32 %s", odd, w[2], w[0])
		lo := gr.ins("select i1 %s, i32 %s, i32 %s", odd, w[3], w[1])
		return gr.uniform64(hi, lo)
	}
	return gr.normal(n.DType, gr.linear(ix), k)
}

// normal is interp.Normal: Box-Muller on the block at counter (p, stream
// 1), with interp.Log01 and interp.Cos2Pi written out operation for
// operation (no fused multiply-adds: plain fmul and fadd, which LLVM does
// not contract without fast-math flags).
func (gr *group) normal(dt ir.DType, p string, k [2]string) string {
	w := gr.philoxBlock(gr.counter(p, interp.StreamNormal, 0), k)
	var u1, u2 string
	if dt == ir.Float64 {
		a := gr.ins("lshr i64 %s, 11", gr.join64(w[0], w[1]))
		b := gr.ins("lshr i64 %s, 11", gr.join64(w[2], w[3]))
		u1 = gr.ins("fmul double %s, %s", gr.ins("uitofp i64 %s to double", gr.ins("add i64 %s, 1", a)), dlit(0x1p-53))
		u2 = gr.ins("fmul double %s, %s", gr.ins("uitofp i64 %s to double", b), dlit(0x1p-53))
	} else {
		a := gr.ins("add i64 %s, 1", gr.ins("zext i32 %s to i64", w[0]))
		u1 = gr.ins("fmul double %s, %s", gr.ins("uitofp i64 %s to double", a), dlit(0x1p-32))
		u2 = gr.ins("fmul double %s, %s", gr.ins("uitofp i32 %s to double", w[1]), dlit(0x1p-32))
	}
	lg := gr.log01(u1)
	r := gr.intrinsic1("sqrt", ir.Float64, gr.ins("fmul double %s, %s", dlit(-2), lg))
	z := gr.ins("fmul double %s, %s", r, gr.cos2pi(u2))
	if dt == ir.Float32 {
		return gr.ins("fptrunc double %s to float", z)
	}
	return z
}

// horner evaluates c[0] + x*(c[1] + x*(...)) with separately rounded
// operations.
func (f *fn) horner(c []float64, x string) string {
	acc := dlit(c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		acc = f.ins("fadd double %s, %s", dlit(c[i]), f.ins("fmul double %s, %s", x, acc))
	}
	return acc
}

// log01 is interp.Log01.
func (f *fn) log01(u string) string {
	b := f.ins("bitcast double %s to i64", u)
	e := f.ins("sub i64 %s, 1023", f.ins("lshr i64 %s, 52", b))
	m := f.ins("bitcast i64 %s to double", f.ins("or i64 %s, %d", f.ins("and i64 %s, %d", b, int64(1<<52-1)), int64(1023<<52)))
	big := f.ins("fcmp ogt double %s, %s", m, dlit(math.Sqrt2))
	m = f.ins("select i1 %s, double %s, double %s", big, f.ins("fmul double %s, %s", m, dlit(0.5)), m)
	e = f.ins("select i1 %s, i64 %s, i64 %s", big, f.ins("add i64 %s, 1", e), e)
	s := f.ins("fdiv double %s, %s", f.ins("fsub double %s, %s", m, dlit(1)), f.ins("fadd double %s, %s", m, dlit(1)))
	s2 := f.ins("fmul double %s, %s", s, s)
	poly := f.horner(interp.LogCoeffs[:], s2)
	ef := f.ins("fmul double %s, %s", f.ins("sitofp i64 %s to double", e), dlit(math.Ln2))
	return f.ins("fadd double %s, %s", ef, f.ins("fmul double %s, %s", s, poly))
}

// cos2pi is interp.Cos2Pi.
func (f *fn) cos2pi(t string) string {
	q := f.intrinsic1("floor", ir.Float64, f.ins("fadd double %s, %s", f.ins("fmul double %s, %s", t, dlit(4)), dlit(0.5)))
	r := f.ins("fsub double %s, %s", t, f.ins("fmul double %s, %s", q, dlit(0.25)))
	x := f.ins("fmul double %s, %s", r, dlit(2*math.Pi))
	x2 := f.ins("fmul double %s, %s", x, x)
	cp := f.horner(interp.CosCoeffs[:], x2)
	sp := f.ins("fmul double %s, %s", x, f.horner(interp.SinCoeffs[:], x2))
	quad := f.ins("and i64 %s, 3", f.ins("fptosi double %s to i64", q))
	nsp := f.ins("fneg double %s", sp)
	ncp := f.ins("fneg double %s", cp)
	v := f.ins("select i1 %s, double %s, double %s", f.ins("icmp eq i64 %s, 1", quad), nsp, cp)
	v = f.ins("select i1 %s, double %s, double %s", f.ins("icmp eq i64 %s, 2", quad), ncp, v)
	return f.ins("select i1 %s, double %s, double %s", f.ins("icmp eq i64 %s, 3", quad), sp, v)
}

// blockwise reports whether root n is a float32 uniform that
// emitUniformRoot writes a block at a time: alone in its nest, with a
// static shape.
func (gr *group) blockwise(n *ir.Node) bool {
	if n.Op != ir.OpRandomUniform || n.DType != ir.Float32 || gr.row != "" || n.Shape.Size() < 4 {
		return false
	}
	if _, local := gr.local[gr.root]; local {
		return false
	}
	if gr.dyn != nil && int(gr.root) < len(gr.dyn.Axes) {
		for _, d := range gr.dyn.Axes[gr.root] {
			if d {
				return false
			}
		}
	}
	return true
}

// emitUniformRoot writes a float32 uniform tensor of n elements as a loop
// over its Philox blocks j in [%start, %end): block j's four words are
// elements 4j..4j+3 (the positions interp.random gives them), so each block
// is computed once rather than once per element. The loop covers the
// n/4 whole blocks; the range that reaches the end writes the n%4
// elements of the last, partial block after it. The extent is the number
// of blocks, ceil(n/4).
func (gr *group) emitUniformRoot(n *ir.Node) int {
	size := n.Shape.Size()
	whole, rest := size/4, size%4
	k := gr.keyWords(n.Args[0])
	end := "%end"
	if rest > 0 {
		end = gr.ins("select i1 %s, i64 %d, i64 %%end", gr.ins("icmp sgt i64 %%end, %d", whole), whole)
	}
	l := gr.openLoop("%start", end)
	w := gr.philoxBlock(gr.counter(l.iv, interp.StreamUniform, 0), k)
	base := gr.ins("shl nuw nsw i64 %s, 2", l.iv)
	for i := range 4 {
		off := base
		if i > 0 {
			off = gr.ins("or disjoint i64 %s, %d", base, i)
		}
		gr.storeRoot(ir.Float32, off, gr.uniform32(w[i]))
	}
	gr.closeLoop(l)
	if rest > 0 {
		tail, done := gr.newLabel("tail"), gr.newLabel("tailed")
		gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp sgt i64 %%end, %d", whole), tail, done)
		gr.block(tail)
		w := gr.philoxBlock(gr.counter(strconv.Itoa(whole), interp.StreamUniform, 0), k)
		for i := range rest {
			gr.storeRoot(ir.Float32, strconv.Itoa(4*whole+i), gr.uniform32(w[i]))
		}
		gr.stmt("br label %%%s", done)
		gr.block(done)
	}
	return (size + 3) / 4
}
