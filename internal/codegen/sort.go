package codegen

import (
	"fmt"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Sort and argsort along one axis (issue 10). Each row is heap-sorted in
// place in the output: in O(n log n) with no scratch memory, so any row
// length works. Heap sort is not stable, but the order it sorts by is
// total, so the result is the interpreter's exactly: elements compare by
// an unsigned key (sortKeyDef: IEEE totalOrder for floats, -0 before +0,
// with every NaN last and equal to the others, which only NaN payloads
// could tell apart), and argsort breaks ties by index.

// emitSort computes a sort or argsort root: for each row (every index of
// the other axes; rows split across threads unless the axis is 0), the
// row is written to the output (the operand's values for sort, 0..n-1 for
// argsort) and a helper function heap-sorts it.
func (gr *group) emitSort(n *ir.Node) int {
	ax := n.Axes[0]
	a := n.Args[0]
	adt := gr.g.Nodes[a].DType
	ix := gr.indexOf("r", gr.root)
	extent := extentOf(n.Shape)
	var ls []*loop
	if ax == 0 {
		ls = append(ls, gr.openLoop("%start", "%end"))
		extent = 1
	}
	for k := range n.Shape {
		if k == ax {
			ix.dims[k] = "0"
			continue
		}
		start, end := "0", gr.extent(ix, k)
		if k == 0 {
			start, end = "%start", "%end"
		}
		l := gr.openLoop(start, end)
		ls = append(ls, l)
		ix.dims[k] = l.iv
	}
	base := gr.linear(ix)
	st := gr.stride(ix, ax)
	cnt := gr.extent(ix, ax)
	l := gr.openLoop("0", cnt)
	jx := gr.indexOf(fmt.Sprintf("sort%d", gr.tmp), gr.root)
	copy(jx.dims, ix.dims)
	jx.dims[ax] = l.iv
	off := gr.linear(jx)
	if n.Op == ir.OpSort {
		gr.storeRoot(n.DType, off, gr.value(a, jx))
	} else {
		gr.storeRoot(ir.Int64, off, l.iv)
	}
	gr.closeLoop(l)
	row := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", memType(n.DType), gr.out, base)
	name := gr.defineSort(n.Op, adt)
	if n.Op == ir.OpSort {
		gr.stmt("call void @%s(ptr %s, i64 %s, i64 %s)", name, row, st, cnt)
	} else {
		keys := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", memType(adt), gr.buf(a), base)
		gr.stmt("call void @%s(ptr %s, ptr %s, i64 %s, i64 %s)", name, keys, row, st, cnt)
	}
	gr.closeLoops(ls)
	return extent
}

// defineSort adds the heap sort for op on dtype dt (and what it calls) to
// the module and returns its name.
func (f *fn) defineSort(op ir.Op, dt ir.DType) string {
	sfx := intrinsicSuffix(dt)
	key := "gojit.sortkey." + sfx
	f.declare(key, sortKeyDef(key, dt))
	name := "gojit." + op.String() + "." + sfx
	sift := name + ".sift"
	f.declare(sift, siftDef(sift, key, op, dt))
	et := memType(dt)
	if op == ir.OpArgSort {
		et = "i64"
	}
	f.declare(name, heapSortDef(name, sift, op, et))
	return name
}

// sortKeyDef defines i64 key(T x), whose unsigned order is the sort order.
func sortKeyDef(name string, dt ir.DType) string {
	var s straight
	t := regType(dt)
	var k string
	switch dt {
	case ir.Uint8:
		k = s.ins("zext i8 %%x to i64")
	case ir.Int32:
		u := s.ins("xor i32 %%x, -2147483648")
		k = s.ins("zext i32 %s to i64", u)
	case ir.Int64:
		k = s.ins("xor i64 %%x, -9223372036854775808")
	default:
		it := "i32"
		if dt == ir.Float64 {
			it = "i64"
		}
		sign := map[string]string{"i32": "-2147483648", "i64": "-9223372036854775808"}[it]
		b := s.ins("bitcast %s %%x to %s", t, it)
		neg := s.ins("icmp slt %s %s, 0", it, b)
		nb := s.ins("xor %s %s, -1", it, b)
		pb := s.ins("or %s %s, %s", it, b, sign)
		kk := s.ins("select i1 %s, %s %s, %s %s", neg, it, nb, it, pb)
		nan := s.ins("fcmp uno %s %%x, %%x", t)
		k = s.ins("select i1 %s, %s -1, %s %s", nan, it, it, kk)
		if it == "i32" {
			k = s.ins("zext i32 %s to i64", k)
		}
	}
	return fmt.Sprintf("define internal i64 @%s(%s %%x) %s {\nentry:\n%s  ret i64 %s\n}\n", name, t, vecAttrs, s.b.String(), k)
}

// siftDef defines the heap's sift-down: sort's over T values at b[i*s],
// argsort's over i64 positions at b[i*s] whose keys are keys[pos*s].
func siftDef(name, key string, op ir.Op, dt ir.DType) string {
	t := memType(dt)
	et := t // the type of the heap's elements
	params := "ptr %b, i64 %s, i64 %root0, i64 %len"
	if op == ir.OpArgSort {
		et = "i64"
		params = "ptr %keys, " + params
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	// elem loads element i: its value and its comparison key (argsort:
	// the key of its position, then the position as tie-break).
	elem := func(p, i string) {
		w("  %%%s.o = mul i64 %s, %%s", p, i)
		w("  %%%s.p = getelementptr inbounds %s, ptr %%b, i64 %%%s.o", p, et, p)
		w("  %%%s = load %s, ptr %%%s.p", p, et, p)
		if op == ir.OpArgSort {
			w("  %%%s.ko = mul i64 %%%s, %%s", p, p)
			w("  %%%s.kp = getelementptr inbounds %s, ptr %%keys, i64 %%%s.ko", p, t, p)
			w("  %%%s.kv = load %s, ptr %%%s.kp", p, t, p)
			w("  %%%s.k = call i64 @%s(%s %%%s.kv)", p, key, t, p)
		} else {
			w("  %%%s.k = call i64 @%s(%s %%%s)", p, key, t, p)
		}
	}
	// less sets %r to element x < element y.
	less := func(r, x, y string) {
		w("  %%%s.lt = icmp ult i64 %%%s.k, %%%s.k", r, x, y)
		if op == ir.OpArgSort {
			w("  %%%s.eq = icmp eq i64 %%%s.k, %%%s.k", r, x, y)
			w("  %%%s.il = icmp slt i64 %%%s, %%%s", r, x, y)
			w("  %%%s.ti = and i1 %%%s.eq, %%%s.il", r, r, r)
			w("  %%%s = or i1 %%%s.lt, %%%s.ti", r, r, r)
		} else {
			w("  %%%s = or i1 %%%s.lt, false", r, r)
		}
	}
	w("define internal void @%s(%s) nounwind {", name, params)
	w("entry:\n  br label %%loop\nloop:")
	w("  %%root = phi i64 [ %%root0, %%entry ], [ %%child, %%swap ]")
	w("  %%c0s = shl i64 %%root, 1\n  %%c0 = add i64 %%c0s, 1")
	w("  %%has = icmp slt i64 %%c0, %%len\n  br i1 %%has, label %%pick, label %%done\npick:")
	w("  %%c1 = add i64 %%c0, 1\n  %%has1 = icmp slt i64 %%c1, %%len")
	w("  %%c1s = select i1 %%has1, i64 %%c1, i64 %%c0")
	elem("e0", "%c0")
	elem("e1", "%c1s")
	less("l01", "e0", "e1")
	w("  %%child = select i1 %%l01, i64 %%c1s, i64 %%c0")
	elem("ec", "%child")
	elem("er", "%root")
	less("go", "er", "ec")
	w("  br i1 %%go, label %%swap, label %%done\nswap:")
	w("  store %s %%ec, ptr %%er.p\n  store %s %%er, ptr %%ec.p\n  br label %%loop", et, et)
	w("done:\n  ret void\n}")
	return b.String()
}

// heapSortDef defines the sort of n elements of type et at b[i*s]
// (argsort: with their keys at keys[pos*s]): build a max-heap, then move
// its top to the end n-1 times.
func heapSortDef(name, sift string, op ir.Op, et string) string {
	params, args := "ptr %b, i64 %s, i64 %n", "ptr %b, i64 %s"
	if op == ir.OpArgSort {
		params, args = "ptr %keys, ptr %b, i64 %s, i64 %n", "ptr %keys, ptr %b, i64 %s"
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("define internal void @%s(%s) nounwind {", name, params)
	w("entry:\n  %%half = lshr i64 %%n, 1\n  br label %%build\nbuild:")
	w("  %%i = phi i64 [ %%half, %%entry ], [ %%im, %%buildbody ]")
	w("  %%more = icmp sgt i64 %%i, 0\n  br i1 %%more, label %%buildbody, label %%pop\nbuildbody:")
	w("  %%im = sub i64 %%i, 1\n  call void @%s(%s, i64 %%im, i64 %%n)\n  br label %%build\npop:", sift, args)
	w("  %%e = phi i64 [ %%n, %%build ], [ %%em, %%popbody ]")
	w("  %%more2 = icmp sgt i64 %%e, 1\n  br i1 %%more2, label %%popbody, label %%done\npopbody:")
	w("  %%em = sub i64 %%e, 1\n  %%lo = mul i64 %%em, %%s")
	w("  %%pe = getelementptr inbounds %s, ptr %%b, i64 %%lo", et)
	w("  %%v0 = load %s, ptr %%b\n  %%ve = load %s, ptr %%pe", et, et)
	w("  store %s %%ve, ptr %%b\n  store %s %%v0, ptr %%pe", et, et)
	w("  call void @%s(%s, i64 0, i64 %%em)\n  br label %%pop", sift, args)
	w("done:\n  ret void\n}")
	return b.String()
}
