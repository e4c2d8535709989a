package codegen

import (
	"fmt"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Windowed byte gathers (AVX-512 targets). On the development machine a
// 16-lane vpgatherdd costs about as much as 16 scalar loads (some 20-35
// cycles: the microcode that mitigates Gather Data Sampling), and a fused
// bilinear resize does four per 16 outputs. Its lanes, though, read
// neighbouring bytes: a row of a crop, 16 output columns apart by about
// 3 bytes each. So a byte gather is a call of
//
//	i32 @gojit.gather8(i64 %base, i32 %off, i32 %n)
//
// (the byte at offset off of the n-byte buffer at address base, zero
// extended) whose 16-lane vector variant loads the 64-byte window that
// starts at the smaller of the first and last lanes' offsets (aligned
// down to 4, moved back when it would end past the buffer) and picks each
// lane's byte from it with vpermd and a shift. When some lane falls
// outside the window it gathers 32-bit words instead (gatherByte's
// trick). The base is passed as an integer: a call with pointer arguments
// keeps the loop vectorizer off the loop. Like the division of divide.go
// the helper is inlined after vectorization (gojit-late-inline); the
// scalar remainder loop inlines the scalar body, gatherByte's word load.

// windowBytes is the window's size, and the least buffer size for which
// gathers use it.
const windowBytes = 64

const gather8Name = "gojit.gather8"

// gatherWindow returns the byte at offset off (i32, checked) of the
// size-byte buffer buf, as a value of dtype dt (Uint8 or Bool).
func (gr *group) gatherWindow(buf, off string, size int, dt ir.DType) string {
	gr.defineGather8()
	base := gr.ins("ptrtoint ptr %s to i64", buf)
	w := gr.ins("call i32 @%s(i64 %s, i32 %s, i32 %d) #%d", gather8Name, base, off, size, attrGather8)
	b := gr.ins("trunc i32 %s to i8", w)
	if dt == ir.Bool {
		b = gr.ins("icmp ne i8 %s, 0", b)
	}
	return b
}

// gather8Attrs is the helper's memory and inlining attributes: it reads
// the buffer, which nothing in a group writes.
const gather8Attrs = `noinline optnone nounwind memory(read) willreturn "gojit-late-inline"`

func (f *fn) defineGather8() {
	f.declare(gather8Name, fmt.Sprintf("define linkonce_odr i32 @%s(i64 %%base, i32 %%off, i32 %%n) %s {\nentry:\n%s}\n",
		gather8Name, gather8Attrs, wordGatherBody(1)))
	var vs []string
	for _, lanes := range []int{4, 8, 16} {
		vname := fmt.Sprintf("%s.x%d", gather8Name, lanes)
		vs = append(vs, variant(lanes, "uvu", gather8Name, vname))
		vt := fmt.Sprintf("<%d x i32>", lanes)
		body := wordGatherBody(lanes)
		if lanes == 16 {
			body = windowGather()
		}
		f.declare(vname, fmt.Sprintf("define linkonce_odr %s @%s(i64 %%base, %s %%off, i32 %%n) %s {\nentry:\n%s}\n",
			vt, vname, vt, gather8Attrs, body))
		f.keep(vname)
	}
	for _, d := range []string{
		"declare <16 x i32> @llvm.x86.avx512.permvar.si.512(<16 x i32>, <16 x i32>)",
		"declare i1 @llvm.vector.reduce.or.v16i1(<16 x i1>)",
		"declare i32 @llvm.umin.i32(i32, i32)",
	} {
		f.declare(d[strings.Index(d, "@")+1:strings.Index(d, "(")], d)
	}
	for _, lanes := range []int{4, 8, 16} {
		n := fmt.Sprintf("llvm.masked.gather.v%di32.v%dp0", lanes, lanes)
		f.declare(n, fmt.Sprintf("declare <%d x i32> @%s(<%d x ptr>, i32, <%d x i1>, <%d x i32>)", lanes, n, lanes, lanes, lanes))
	}
	f.attr(attrGather8, variantsAttr(attrGather8, vs))
}

// splatOf is the instructions making a lanes-wide splat of i32 x, and
// its name.
func splatOf(s *straight, lanes int, x string) string {
	vt := fmt.Sprintf("<%d x i32>", lanes)
	v := s.ins("insertelement %s poison, i32 %s, i64 0", vt, x)
	return s.ins("shufflevector %s %s, %s poison, <%d x i32> zeroinitializer", vt, v, vt, lanes)
}

// wordGatherBody is the body of a helper returning wordGather of its
// arguments.
func wordGatherBody(lanes int) string {
	var s straight
	r := wordGather(&s, lanes, "%off", "%n")
	t := "i32"
	if lanes > 1 {
		t = fmt.Sprintf("<%d x i32>", lanes)
	}
	return s.b.String() + fmt.Sprintf("  ret %s %s\n", t, r)
}

// wordGather appends to s the instructions computing the bytes at
// offsets off (lanes of them, 1 for a scalar) of the n-byte buffer at
// %base, and returns their name: each byte is read as the low byte of the
// 32-bit word that starts there, or for the last three bytes as a higher
// byte of the buffer's last word.
func wordGather(s *straight, lanes int, off, n string) string {
	t, last := "i32", s.ins("sub i32 %s, 4", n)
	if lanes > 1 {
		t = fmt.Sprintf("<%d x i32>", lanes)
		last = splatOf(s, lanes, last)
	}
	big := s.ins("icmp ugt %s %s, %s", t, off, last)
	at := s.ins("select %s %s, %s %s, %s %s", boolOf(lanes), big, t, last, t, off)
	sh := s.ins("shl %s %s, %s", t, s.ins("sub %s %s, %s", t, off, at), splatLit(lanes, 3))
	p := s.ins("inttoptr i64 %%base to ptr")
	var w string
	if lanes == 1 {
		w = s.ins("load i32, ptr %s, align 1", s.ins("getelementptr inbounds i8, ptr %s, i32 %s", p, at))
	} else {
		pt := fmt.Sprintf("<%d x ptr>", lanes)
		ps := s.ins("getelementptr inbounds i8, ptr %s, %s %s", p, t, at)
		w = s.ins("call %s @llvm.masked.gather.v%di32.v%dp0(%s %s, i32 1, <%d x i1> %s, %s poison)",
			t, lanes, lanes, pt, ps, lanes, "splat (i1 true)", t)
	}
	return s.ins("and %s %s, %s", t, s.ins("lshr %s %s, %s", t, w, sh), splatLit(lanes, 255))
}

// windowGather is the 16-lane body: the 64-byte window when every lane
// falls in it, else wordGather.
func windowGather() string {
	var s straight
	const vt = "<16 x i32>"
	o0 := s.ins("extractelement %s %%off, i64 0", vt)
	o15 := s.ins("extractelement %s %%off, i64 15", vt)
	lo := s.ins("and i32 %s, -4", s.ins("call i32 @llvm.umin.i32(i32 %s, i32 %s)", o0, o15))
	lo = s.ins("call i32 @llvm.umin.i32(i32 %s, i32 %s)", lo, s.ins("sub i32 %%n, %d", windowBytes))
	rel := s.ins("sub %s %%off, %s", vt, splatOf(&s, 16, lo))
	out := s.ins("icmp ugt %s %s, %s", vt, rel, splatLit(16, windowBytes-1))
	any := s.ins("call i1 @llvm.vector.reduce.or.v16i1(<16 x i1> %s)", out)
	s.b.WriteString(fmt.Sprintf("  br i1 %s, label %%words, label %%window\nwindow:\n", any))
	p := s.ins("getelementptr inbounds i8, ptr %s, i32 %s", s.ins("inttoptr i64 %%base to ptr"), lo)
	win := s.ins("load %s, ptr %s, align 1", vt, p)
	w := s.ins("call %s @llvm.x86.avx512.permvar.si.512(%s %s, %s %s)", vt, vt, win, vt, s.ins("lshr %s %s, %s", vt, rel, splatLit(16, 2)))
	sh := s.ins("shl %s %s, %s", vt, s.ins("and %s %s, %s", vt, rel, splatLit(16, 3)), splatLit(16, 3))
	r := s.ins("and %s %s, %s", vt, s.ins("lshr %s %s, %s", vt, w, sh), splatLit(16, 255))
	s.b.WriteString(fmt.Sprintf("  ret %s %s\nwords:\n", vt, r))
	r = wordGather(&s, 16, "%off", "%n")
	return s.b.String() + fmt.Sprintf("  ret %s %s\n", vt, r)
}

// splatLit is the i32 constant c, splat over lanes lanes when lanes > 1.
func splatLit(lanes, c int) string {
	if lanes == 1 {
		return fmt.Sprint(c)
	}
	return fmt.Sprintf("splat (i32 %d)", c)
}
