package gojit_test

// The data pipeline's image stage as one kernel: crop, bilinear resize,
// horizontal flip, normalize and HWC -> CHW of a whole batch, written with
// Take over the flattened batch at indices computed from Iota and the
// per-sample parameters. The compiled kernel is checked bit for bit
// against the interpreter and against a plain Go loop doing the same
// float32 arithmetic in the same order.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// resizeTrace returns the trace of the image stage for a batch of B images
// stored in x u8[B,H,W,3], each of height shapes[b,0] and width
// shapes[b,1] (at most H and W), cropped to the box (x0,y0)-(x1,y1) of
// p[b] = (x0, y0, x1, y1, flip), resized to S x S, flipped horizontally
// when flip > 0.5 and normalized. The layout is "chw" (the result is
// f32[B,3,S,S]), "hwc" (the resize produces [B,S,S,3] and a Transpose
// makes it CHW, as composing separate ops would) or "hwc_out" (the result
// is the f32[B,S,S,3] of "hwc", not transposed).
func resizeTrace(B, H, W, S int, layout string) func(x, shapes, p *gojit.Tensor) *gojit.Tensor {
	hwc := layout != "chw"
	const C = 3
	return func(x, shapes, p *gojit.Tensor) *gojit.Tensor {
		col := func(k int) *gojit.Tensor { return p.Slice([]int{0, k}, []int{B, k + 1}) } // [B,1]
		x0, y0, x1, y1, fl := col(0), col(1), col(2), col(3), col(4)
		bh := shapes.Slice([]int{0, 0}, []int{B, 1}).Cast(gojit.Float32)
		bw := shapes.Slice([]int{0, 1}, []int{B, 2}).Cast(gojit.Float32)
		i := gojit.Iota(gojit.Float32, 1, 1, S) // [1,S]
		half := gojit.Scalar(0.5)
		sy := y0.Add(i.Add(half).Mul(y1.Sub(y0).Div(gojit.Scalar(float64(S))))).Sub(half)
		sy = sy.Maximum(gojit.Scalar(0)).Minimum(bh.Sub(gojit.Scalar(1)))
		j := gojit.Where(fl.Greater(half), gojit.Scalar(float64(S-1)).Sub(i), i)
		sx := x0.Add(j.Add(half).Mul(x1.Sub(x0).Div(gojit.Scalar(float64(S))))).Sub(half)
		sx = sx.Maximum(gojit.Scalar(0)).Minimum(bw.Sub(gojit.Scalar(1)))
		fy, fx := sy.Floor(), sx.Floor()
		ty, tx := sy.Sub(fy), sx.Sub(fx)
		iy0 := fy.Cast(gojit.Int32)
		iy1 := fy.Add(gojit.Scalar(1)).Minimum(bh.Sub(gojit.Scalar(1))).Cast(gojit.Int32)
		ix0 := fx.Cast(gojit.Int32)
		ix1 := fx.Add(gojit.Scalar(1)).Minimum(bw.Sub(gojit.Scalar(1))).Cast(gojit.Int32)
		// Index and weight shapes: [B,C,S,S] for CHW, [B,S,S,C] for HWC.
		bs, cs := []int{B, 1, 1, 1}, []int{1, C, 1, 1}
		rs, ks := []int{B, 1, S, 1}, []int{B, 1, 1, S}
		cax := 1
		if hwc {
			cs, rs, ks, cax = []int{1, 1, 1, C}, []int{B, S, 1, 1}, []int{B, 1, S, 1}, 3
		}
		bb := gojit.Iota(gojit.Int32, 0, bs...).Mul(gojit.Scalar(float64(H * W * C)))
		c := gojit.Iota(gojit.Int32, cax, cs...)
		rows := func(iy *gojit.Tensor) *gojit.Tensor { return iy.Reshape(rs...).Mul(gojit.Scalar(float64(W * C))) }
		cols := func(ix *gojit.Tensor) *gojit.Tensor { return ix.Reshape(ks...).Mul(gojit.Scalar(float64(C))) }
		flat := x.Reshape(B * H * W * C)
		g := func(iy, ix *gojit.Tensor) *gojit.Tensor {
			return flat.Take(bb.Add(c).Add(rows(iy)).Add(cols(ix)), 0).Cast(gojit.Float32)
		}
		a, b2, c2, d := g(iy0, ix0), g(iy0, ix1), g(iy1, ix0), g(iy1, ix1)
		txb, tyb := tx.Reshape(ks...), ty.Reshape(rs...)
		top := a.Add(b2.Sub(a).Mul(txb))
		bot := c2.Add(d.Sub(c2).Mul(txb))
		v := top.Add(bot.Sub(top).Mul(tyb))
		mean := gojit.Iota(gojit.Float32, cax, cs...).Mul(gojit.Scalar(1)).Add(gojit.Scalar(120))
		v = v.Sub(mean).Div(gojit.Scalar(58))
		if layout == "hwc" {
			v = v.Transpose(0, 3, 1, 2)
		}
		return v
	}
}

// resizeGo is the plain Go loop of resizeTrace into out (f32[B,3,S,S]),
// with the trace's float32 operations in the same order, each rounded.
func resizeGo(out []float32, x []uint8, shapes []int32, p []float32, B, H, W, S int) {
	const C = 3
	f := func(v float32) float32 { return v } // rounds: no fused multiply-add
	clamp := func(v, hi float32) float32 { return min(max(v, 0), hi) }
	for b := range B {
		x0, y0, x1, y1, fl := p[5*b], p[5*b+1], p[5*b+2], p[5*b+3], p[5*b+4]
		bh, bw := float32(shapes[3*b]), float32(shapes[3*b+1])
		scy, scx := f((y1-y0)/float32(S)), f((x1-x0)/float32(S))
		img := x[b*H*W*C : (b+1)*H*W*C]
		for c := range C {
			mean := float32(c) + 120
			for i := range S {
				sy := clamp(f(y0+f(f(float32(i)+0.5)*scy))-0.5, bh-1)
				fy := float32(math.Floor(float64(sy)))
				ty := sy - fy
				r0, r1 := int(fy)*W*C, int(min(fy+1, bh-1))*W*C
				o := out[((b*C+c)*S+i)*S:][:S]
				for k := range S {
					j := float32(k)
					if fl > 0.5 {
						j = float32(S-1) - j
					}
					sx := clamp(f(x0+f(f(j+0.5)*scx))-0.5, bw-1)
					fx := float32(math.Floor(float64(sx)))
					tx := sx - fx
					c0, c1 := int(fx)*C+c, int(min(fx+1, bw-1))*C+c
					a, b2 := float32(img[r0+c0]), float32(img[r0+c1])
					c2, d := float32(img[r1+c0]), float32(img[r1+c1])
					top := a + f((b2-a)*tx)
					bot := c2 + f((d-c2)*tx)
					v := top + f((bot-top)*ty)
					o[k] = (v - mean) / 58
				}
			}
		}
	}
}

// toCHW returns v, f32[B,S,S,3], as [B,3,S,S].
func toCHW(v []float32, B, S int) []float32 {
	out := make([]float32, len(v))
	for b := range B {
		for i := range S {
			for j := range S {
				for c := range 3 {
					out[((b*3+c)*S+i)*S+j] = v[((b*S+i)*S+j)*3+c]
				}
			}
		}
	}
	return out
}

// resizeInputs returns a batch of B images (pixel values from seed) of
// size H x W, image b of size shapes[b] and cropped to boxes[b].
func resizeInputs(seed uint64, B, H, W int, sizes [][2]int, boxes [][5]float32) (*gojit.Array, *gojit.Array, *gojit.Array) {
	pr := newPRNG(seed)
	xs := make([]uint8, B*H*W*3)
	for i := range xs {
		xs[i] = uint8(pr.intn(256))
	}
	sh := make([]int32, B*3)
	ps := make([]float32, B*5)
	for b := range B {
		s, box := sizes[b%len(sizes)], boxes[b%len(boxes)]
		sh[3*b], sh[3*b+1], sh[3*b+2] = int32(s[0]), int32(s[1]), 3
		copy(ps[5*b:], box[:])
	}
	return gojit.FromUint8(xs, B, H, W, 3), gojit.FromInt32(sh, B, 3), gojit.FromFloat32(ps, B, 5)
}

func TestDiffResize(t *testing.T) {
	for _, tc := range []struct {
		B, H, W, S int
		sizes      [][2]int
		boxes      [][5]float32 // x0, y0, x1, y1, flip
	}{
		// Whole images, edges included, flipped and not.
		{1, 12, 17, 8, [][2]int{{12, 17}}, [][5]float32{{0, 0, 17, 12, 0}}},
		{3, 20, 16, 13, [][2]int{{20, 16}, {15, 9}}, [][5]float32{{0, 0, 16, 20, 1}, {0, 0, 9, 15, 0}, {2.5, 3, 9, 15, 1}}},
		// Crops inside, touching the right and bottom edges, beyond them
		// (clamped), a one-pixel image, upsampling and downsampling.
		{5, 31, 40, 16, [][2]int{{31, 40}, {30, 33}, {1, 1}, {7, 40}, {31, 2}},
			[][5]float32{{10, 5, 40, 31, 0}, {0, 12, 33, 30, 1}, {0, 0, 1, 1, 1}, {-3, -2, 45, 9, 0}, {0.25, 0.75, 1.5, 30.5, 1}}},
		{4, 64, 48, 24, [][2]int{{64, 48}, {50, 41}}, [][5]float32{{7, 9, 27, 40, 1}, {40, 50, 41, 64, 0}, {0, 0, 48, 64, 0}, {1, 1, 2, 2, 1}}},
	} {
		for _, layout := range []string{"chw", "hwc", "hwc_out"} {
			t.Run(fmt.Sprintf("B%d_%dx%d_S%d_%s", tc.B, tc.H, tc.W, tc.S, layout), func(t *testing.T) {
				x, sh, p := resizeInputs(uint64(tc.B*tc.S), tc.B, tc.H, tc.W, tc.sizes, tc.boxes)
				comp, ref, cerr, rerr := runBoth(t, resizeTrace(tc.B, tc.H, tc.W, tc.S, layout), []any{x, sh, p})
				if cerr != nil || rerr != nil {
					t.Fatalf("compiled: %v, interpreter: %v", cerr, rerr)
				}
				if d := diffArrays(comp[0], ref[0], 0); d != "" {
					t.Errorf("compiled differs from interpreter: %s", d)
				}
				want := make([]float32, tc.B*3*tc.S*tc.S)
				resizeGo(want, x.Uint8(), sh.Int32(), p.Float32(), tc.B, tc.H, tc.W, tc.S)
				got := comp[0].Float32()
				if layout == "hwc_out" {
					got = toCHW(got, tc.B, tc.S)
				}
				bad := 0
				for i := range want {
					if got[i] != want[i] {
						if bad < 5 {
							t.Errorf("element %d = %v, the Go loop gives %v", i, got[i], want[i])
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d elements differ from the Go loop", bad, len(want))
				}
			})
		}
	}
}

// TestResizeOutOfRange: an image said to be taller than the batch's rows
// makes the last sample's computed indices run past the buffer; the
// compiled kernel reports the interpreter's error, naming the Take and the
// line it was traced on, and reads nothing out of bounds.
func TestResizeOutOfRange(t *testing.T) {
	const B, H, W, S = 2, 10, 12, 6
	var line string
	inner := resizeTrace(B, H, W, S, "chw")
	fn := func(x, shapes, p *gojit.Tensor) *gojit.Tensor {
		line = hereAt(1)
		return inner(x, shapes, p)
	}
	x, sh, p := resizeInputs(1, B, H, W, [][2]int{{H, W}, {H + 4, W}}, [][5]float32{{0, 0, W, H + 4, 0}})
	comp, _, cerr, rerr := runBoth(t, fn, []any{x, sh, p})
	if cerr == nil || rerr == nil {
		t.Fatalf("no error: compiled %v %v, interpreter %v", comp, cerr, rerr)
	}
	if cerr.Error() != rerr.Error() {
		t.Errorf("compiled and interpreted errors differ:\n%v\n%v", cerr, rerr)
	}
	if !errors.Is(cerr, gojit.ErrIndexOutOfRange) || !strings.Contains(cerr.Error(), "Take") {
		t.Errorf("error %v is not a Take's ErrIndexOutOfRange", cerr)
	}
	if !strings.Contains(cerr.Error(), "diff_resize_test.go:") {
		t.Errorf("error %q names no line of this file (traced at %s)", cerr, line)
	}
}

// TestGatherBytes: byte gathers read as 32-bit words and, on AVX-512, from
// a 64-byte window (internal/codegen gather.go, window.go), with lanes
// inside one window, spread over several, near both ends of the buffer,
// descending, negative (wrapped) and in tables too small for a window.
func TestGatherBytes(t *testing.T) {
	for _, n := range []int{1, 3, 4, 5, 63, 64, 65, 100, 1000} {
		pr := newPRNG(uint64(n))
		tab := make([]uint8, n)
		for i := range tab {
			tab[i] = uint8(pr.intn(256))
		}
		const rows, cols = 12, 64
		idx := make([]int32, rows*cols)
		for r := range rows {
			for c := range cols {
				var v int
				switch r % 6 {
				case 0: // ascending, 3 bytes apart: a window of 16 lanes
					v = (c * 3) % n
				case 1: // descending, flipped
					v = n - 1 - (c*3)%n
				case 2: // the last bytes of the buffer
					v = n - 1 - c%min(n, 20)
				case 3: // spread: no window holds 16 lanes
					v = (c * 37) % n
				case 4: // negative indices count from the end
					v = -1 - (c*5)%n
				default:
					v = pr.intn(2*n) - n
				}
				idx[r*cols+c] = int32(v)
			}
		}
		x, i := gojit.FromUint8(tab, n), gojit.FromInt32(idx, rows, cols)
		fn := func(x, i *gojit.Tensor) []*gojit.Tensor {
			f := x.Take(i, 0).Cast(gojit.Float32).Mul(gojit.Scalar(2))
			b := x.Greater(gojit.Scalar(100)).Take(i, 0)
			return []*gojit.Tensor{f, b}
		}
		comp, ref, cerr, rerr := runBoth(t, fn, []any{x, i})
		if cerr != nil || rerr != nil {
			t.Fatalf("n=%d: compiled %v, interpreter %v", n, cerr, rerr)
		}
		for k := range comp {
			if d := diffArrays(comp[k], ref[k], 0); d != "" {
				t.Errorf("n=%d output %d: compiled differs from interpreter: %s", n, k, d)
			}
		}
		got, gotB := comp[0].Float32(), comp[1].Bool()
		for k, v := range idx {
			j := int(v)
			if j < 0 {
				j += n
			}
			if want := 2 * float32(tab[j]); got[k] != want {
				t.Fatalf("n=%d: element %d (index %d) = %v, want %v", n, k, v, got[k], want)
			}
			if gotB[k] != (tab[j] > 100) {
				t.Fatalf("n=%d: bool element %d (index %d) = %v", n, k, v, gotB[k])
			}
		}
	}
}
