package gojit_test

// Regression tests for bugs found by the differential tests and the fuzzer, and checks of the interpreter against correctly rounded values.
// Helpers and comparison rules are in diff_test.go.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestConcatAllEmpty is a regression test (found by TestDiffLayout, fixed
// in 369bbd6): a Concat whose operands all have size 0 along the
// concatenation axis failed to compile ("codegen: runtime error: index out
// of range [-1]"): codegen's concat skipped the empty operands and then
// read the last of no parts.
func TestConcatAllEmpty(t *testing.T) {
	cases := []struct {
		name  string
		axis  int
		shape []int
	}{
		{"axis0_0x3", 0, []int{0, 3}},
		{"axis1_3x0", 1, []int{3, 0}},
		{"axis0_0", 0, []int{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := func(x *gojit.Tensor) *gojit.Tensor { return gojit.Concat(c.axis, x, x, x) }
			comp, ref, cerr, rerr := runBoth(t, fn, []any{gojit.New(gojit.Float32, c.shape...)})
			if rerr != nil {
				t.Fatalf("interpreter: %v", rerr)
			}
			if cerr != nil {
				t.Fatalf("compiled Concat(%d) of three f32%v: %v (interpreter gives %v)", c.axis, c.shape, cerr, ref[0])
			}
			if d := diffArrays(comp[0], ref[0], 0); d != "" {
				t.Errorf("%s", d)
			}
		})
	}
}

// knownF64 is a float64 op applied to arguments whose correctly rounded
// result, computed with 300-bit mpmath, is want.
type knownF64 struct {
	name string
	f    func(x, y *gojit.Tensor) *gojit.Tensor
	x, y float64
	want float64
}

// checkKnownF64 runs every case compiled and interpreted. The compiled
// result (the C library) must be within transULPs of the true value; the
// interpreted one within interpULPs, or within interpAbs in absolute terms
// when interpAbs is not 0.
func checkKnownF64(t *testing.T, interpULPs uint64, interpAbs float64, cases []knownF64) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := func(x, y *gojit.Tensor) *gojit.Tensor { return c.f(x, y) }
			comp, ref, cerr, rerr := runBoth(t, fn, []any{gojit.FromFloat64([]float64{c.x}), gojit.FromFloat64([]float64{c.y})})
			if cerr != nil || rerr != nil {
				t.Fatalf("compiled: %v; interpreter: %v", cerr, rerr)
			}
			g, r := comp[0].Float64()[0], ref[0].Float64()[0]
			check := func(who string, v float64) {
				d := ulpDist(ordered64(v), ordered64(c.want))
				switch {
				case interpAbs != 0 && math.Abs(v-c.want) > interpAbs:
					t.Errorf("%s gives %v, %.3g from the true %v (documented bound %.3g)", who, v, math.Abs(v-c.want), c.want, interpAbs)
				case interpAbs == 0 && d > interpULPs:
					t.Errorf("%s gives %v, %d ulps from the true %v (allowed %d)", who, v, d, c.want, interpULPs)
				}
			}
			if gojit.LLVMVersion() == "" {
				// No LLVM: "compiled" is the interpreter too.
				check("compiled (interpreter)", g)
			} else if d := ulpDist(ordered64(g), ordered64(c.want)); d > transULPs {
				t.Errorf("compiled gives %v, %d ulps from the true %v", g, d, c.want)
			}
			check("interpreter", r)
		})
	}
}

// TestInterpLogSubnormalF64 is a regression test: Go's amd64 math.Log
// drops the exponent of subnormal float64 arguments (golang/go#56600), so
// the interpreter's Log(5e-324) was -709.09 where the truth is -744.44.
func TestInterpLogSubnormalF64(t *testing.T) {
	log := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Log() }
	checkKnownF64(t, transULPs, 0, []knownF64{
		{"Log_5e-324", log, 5e-324, 0, -744.4400719213812},
		{"Log_1e-310", log, 1e-310, 0, -713.8013788281542},
		{"Log_minNormal/4", log, minNormal64 / 4, 0, -709.782712893384},
	})
}

// interpPowDocULPs is interp/doc.go's bound for the interpreter's float64
// pow: Go's math.Pow loses accuracy as |y*log2(x)| grows, to a few hundred
// ulps (relative error around 1e-13).
const interpPowDocULPs = 1024

// TestInterpPowF64Accuracy: the compiled pow (the C library) is correctly
// rounded on these cases; the interpreter's (math.Pow) stays within the
// documented bound.
func TestInterpPowF64Accuracy(t *testing.T) {
	pow := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Pow(y) }
	checkKnownF64(t, interpPowDocULPs, 0, []knownF64{
		{"Pow_1.044_30.8", pow, 1.044078348056745, 30.81540457208517, 3.7780502717604008},
		{"Pow_1e19_-2.5", pow, 1e19, -2.5, 3.162277660168379e-48},
		{"Pow_1e300_0.94", pow, 1e300, 0.94, 9.999999999999633e+281},
		{"Pow_subnormal_1e-310_-0.25", pow, 1e-310, -0.25, 3.1622776601683816e+77},
		{"Pow_1.08e-296_-0.505", pow, 1.0767077582211616e-296, -0.5054543333472941, 3.9651413824144037e+149},
		{"Pow_3.45e121_0.4007", pow, 3.4545508204271056e+121, 0.40072127207807284, 5.046832401986203e+48},
	})
}

// TestInterpSinCosLargeF64 checks interp/doc.go's bound for |x| >= 2^29:
// "math.Sin and math.Cos ... have absolute errors around 1e-16".
func TestInterpSinCosLargeF64(t *testing.T) {
	sin := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Sin() }
	cos := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Cos() }
	checkKnownF64(t, 0, 2e-16, []knownF64{
		{"Sin_735663826.87", sin, 735663826.8683479, 0, 1.3507328804476923e-05},
		{"Sin_near_3e8pi", sin, 942477830.6344571, 0, 4.966787605994791e-08},
		{"Cos_2^63", cos, 9.223372036854776e18, 0, 0.011800076512800236},
		{"Cos_-2.6e14", cos, -264768136152581.16, 0, 9.513866212115757e-06},
	})
}

// TestInterpSinNearMultiplesOfPiF64: near multiples of pi the true sine is
// tiny and Go's argument reduction leaves an absolute error of up to about
// 1e-16 (many ulps of the tiny result), the bound interp/doc.go states; the
// compiled code is correctly rounded.
func TestInterpSinNearMultiplesOfPiF64(t *testing.T) {
	sin := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Sin() }
	checkKnownF64(t, transULPs, 1e-16, []knownF64{
		{"Sin_314168.69", sin, 314168.6901369401, 0, -8.866942007598101e-12},
		{"Sin_3141614.64", sin, 3141614.644738368, 0, 1.4266271443147556e-10},
		{"Sin_31415986.23", sin, 31415986.22615835, 0, -1.1540249924416819e-10},
		{"Sin_314159287.35", sin, 314159287.3501279, 0, 2.3169915884519576e-08},
	})
}

// TestSLPMiscompileBatchedMatMul is a regression test (found by
// FuzzCompiledVsInterpreter, fixed in 369bbd6 by making the group
// functions noinline): a batched matmul with K = 1 whose result is also
// compared, selected or maxed elementwise gave wrong values at -O2 and -O3
// (right at -O0 and -O1), for f32 and integer dtypes alike: x = [1..6] as
// f32[2,3,1], m = x.MatMul(x.Transpose(0, 2, 1)) should start
// [1 2 3 2 4 6 ...] and came out [3 3 3 6 6 6 ...]. With the groups
// inlined into the entry function and fully unrolled, LLVM 19.1.7's
// SLPVectorizerPass on the entry function (pinned with -opt-bisect-limit)
// built a shuffle whose lanes 0, 1, 3, 4 are poison; the IR before that
// pass is well defined (compiled with llc both ways and run, only the
// post-SLP version was wrong), and -vectorize-slp=false avoided it, while
// LLVMPassBuilderOptionsSetSLPVectorization(pbo, 0) did not keep the pass
// out of default<O2>. It looks like llvm/llvm-project#117170.
func TestSLPMiscompileBatchedMatMul(t *testing.T) {
	cases := []struct {
		name string
		x    *gojit.Array
		fn   any
	}{
		{"f32_where", gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3, 1), func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			m := x.MatMul(x.Transpose(0, 2, 1))
			return m, gojit.Where(m.Greater(gojit.Scalar(0)), m, gojit.Scalar(1.5))
		}},
		{"i32_maximum", gojit.FromInt32([]int32{-4, 5, -11, 15, -7, 7}, 2, 3, 1), func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			m := x.MatMul(x.Transpose(0, 2, 1))
			return m, m.Maximum(gojit.Scalar(0))
		}},
	}
	for _, c := range cases {
		for _, opt := range []int{0, 1, 2, 3} {
			t.Run(fmt.Sprintf("%s/O%d", c.name, opt), func(t *testing.T) {
				comp, ref, cerr, rerr := runBoth(t, c.fn, []any{c.x}, gojit.WithOptLevel(opt))
				if cerr != nil || rerr != nil {
					t.Fatalf("compiled: %v; interpreter: %v", cerr, rerr)
				}
				for i := range ref {
					if d := diffArrays(comp[i], ref[i], 0); d != "" {
						t.Errorf("result %d: %s\ncompiled:    %v\ninterpreted: %v", i, d, comp[i], ref[i])
					}
				}
			})
		}
	}
}

// TestDiffLarge uses tensors big enough (2**16 elements of work and more)
// for the runtime to split each group across threads, through the
// module's range entry.
func TestDiffLarge(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0.001, 300, 300)
	y := randArray(gojit.Float32, 2, 0.001, 300, 300)
	a := randArray(gojit.Float64, 3, 0, 2, 96, 130)
	b := randArray(gojit.Float64, 4, 0, 2, 130, 80)
	n := randArray(gojit.Int64, 5, 0.05, 70001)
	u := randArray(gojit.Uint8, 6, 0.05, 3, 70000)
	checkDiff(t, []dcase{
		{name: "elementwise_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(in[1]).Sub(in[0].Abs().Sqrt()).Maximum(in[1])
		}},
		{name: "transpose_add", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Transpose().Add(in[1]) }},
		{name: "sum_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(in[1]).Sum(1) },
			bound: func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(in[0].Mul(in[1]), gojit.ReduceSum, false, 1) }},
		{name: "sum_cols", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(0) }},
		{name: "argmin_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].ArgMin(-1) }},
		{name: "softmax_rows", ulps: chainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
			e := in[0].Sub(in[0].Reduce(gojit.ReduceMax, true, -1)).Exp()
			return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
		}},
		{name: "matmul_f32", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Slice([]int{0, 0}, []int{200, 150}).MatMul(in[1].Slice([]int{0, 0}, []int{150, 120}))
		}, bound: func(in []*gojit.Tensor) *gojit.Tensor {
			return matmulBound(in[0].Slice([]int{0, 0}, []int{200, 150}), in[1].Slice([]int{0, 0}, []int{150, 120}))
		}},
		{name: "batched_matmul_f64", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[2].MatMul(in[3]) },
			bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[2], in[3]) }},
		{name: "i64_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[4].Mul(gojit.Scalar(3)).Div(gojit.Scalar(7)).Sub(in[4].Neg())
		}},
		{name: "i64_prod", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[4].Prod() }},
		{name: "u8_broadcast_where", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return gojit.Where(in[5].Greater(gojit.Scalar(100)), in[5], in[5].Slice([]int{1}, []int{2}))
		}},
		{name: "u8_max_axis0", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[5].Max(0) }},
		{name: "concat_slices", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(0, in[4].Slice([]int{1}, []int{70001}, 2), in[4].Slice([]int{0}, []int{70001}, 2))
		}},
	}, x, y, a, b, n, u)
}

// TestWhereWithoutTensorOperand is a regression test (fixed in 369bbd6):
// Where whose operands include no tensor (three weak scalars) or a nil
// *Tensor recorded no error: it returned a poisoned Tensor that belonged to
// no trace, and tracer.own treated such a tensor as "not ok" without
// recording anything. The result silently disappeared: Call returned one
// array fewer than the function has results and no error, an op using it
// was silently poisoned too, and a function whose only result it was
// failed with "ir: graph has no outputs", naming neither op nor line.
func TestWhereWithoutTensorOperand(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2})
	var pos string
	cases := map[string]any{
		"three_scalars_second_result": func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			pos = hereAt(1)
			return x.Neg(), gojit.Where(gojit.Scalar(1), gojit.Scalar(2), gojit.Scalar(3))
		},
		"nil_condition": func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			pos = hereAt(1)
			return x.Neg(), gojit.Where(nil, x, x)
		},
		"used_by_add": func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			pos = hereAt(1)
			return x.Neg(), x.Add(gojit.Where(gojit.Scalar(1), gojit.Scalar(2), gojit.Scalar(3)))
		},
		"only_result": func(x *gojit.Tensor) *gojit.Tensor {
			pos = hereAt(1)
			return gojit.Where(nil, x, x)
		},
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
				f, err := gojit.Compile(fn, opts...)
				if err != nil {
					t.Fatal(err)
				}
				out, err := f.Call(x)
				if err == nil {
					t.Errorf("Call returned %d arrays (%v) and no error; want an error naming where at %s", len(out), out, pos)
					continue
				}
				if !strings.Contains(err.Error(), pos) || !strings.Contains(err.Error(), ": Where:") {
					t.Errorf("error %q does not name where at %s", err, pos)
				}
			}
		})
	}
}

// TestReduceKeepDimsShapes: with keepDims every reduced axis stays as a
// dimension of size 1, as in NumPy and JAX. (ArgMax and ArgMin over the
// whole tensor used to keep one dimension, f32[2,3,4] -> i64[1]; fixed in
// 369bbd6.)
func TestReduceKeepDimsShapes(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0, 2, 3, 4)
	cases := []struct {
		kind gojit.ReduceKind
		axes []int
		want []int
	}{
		{gojit.ReduceSum, nil, []int{1, 1, 1}},
		{gojit.ReduceMax, []int{1}, []int{2, 1, 4}},
		{gojit.ReduceMean, []int{0, -1}, []int{1, 3, 1}},
		{gojit.ReduceArgMax, []int{1}, []int{2, 1, 4}},
		{gojit.ReduceArgMin, []int{-1}, []int{2, 3, 1}},
		{gojit.ReduceArgMax, nil, []int{1, 1, 1}},
		{gojit.ReduceArgMin, nil, []int{1, 1, 1}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v_%v", c.kind, c.axes), func(t *testing.T) {
			f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Reduce(c.kind, true, c.axes...) }, gojit.WithInterpreter())
			if err != nil {
				t.Fatal(err)
			}
			out, err := f.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out[0].Shape(), c.want) {
				t.Errorf("Reduce(%v, true, %v) of f32[2,3,4] has shape %v, want %v", c.kind, c.axes, out[0].Shape(), c.want)
			}
		})
	}
}

// TestStaticSliceArgMutated is a regression test (fixed in 369bbd6): a
// non-comparable static argument (a slice, a map) was kept by reference in
// the signature, and the fast path compared it with reflect.DeepEqual,
// which is true at once for the same slice. A caller that changed its
// slice between two calls got the function traced for the old contents:
// a permutation changed from [1 0] to [0 1] still transposed.
func TestStaticSliceArgMutated(t *testing.T) {
	m := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		g, err := gojit.Compile(func(x *gojit.Tensor, perm []int) *gojit.Tensor { return x.Transpose(perm...) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		perm := []int{1, 0}
		if _, err := g.Call(m, perm); err != nil {
			t.Fatal(err)
		}
		perm[0], perm[1] = 0, 1
		r, err := g.Call(m, perm)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r[0].Shape(), []int{2, 3}) || !slices.Equal(r[0].Float32(), m.Float32()) {
			t.Errorf("Transpose(0, 1) after Transpose(1, 0) with the same slice: got %v, want %v (Stats %+v)", r[0], m, g.Stats())
		}

		h, err := gojit.Compile(func(x *gojit.Tensor, s map[string]float64) *gojit.Tensor { return x.Mul(gojit.Scalar(s["k"])) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		k := map[string]float64{"k": 2}
		if _, err := h.Call(m, k); err != nil {
			t.Fatal(err)
		}
		k["k"] = 3
		r, err = h.Call(m, k)
		if err != nil {
			t.Fatal(err)
		}
		if got := r[0].Float32()[0]; got != 3 {
			t.Errorf("x*k with k changed from 2 to 3 in the same map: got %v, want 3", got)
		}
	}
}

// TestConstantOpErrorLost is a regression test (fixed in 369bbd6): an op
// that fails on a traced tensor fails the Call even when its result is
// unused, but the same failure on a tensor made only of constants (Full,
// Iota) was recorded in that constant's own tracer and never reported
// unless the poisoned result reached the trace.
func TestConstantOpErrorLost(t *testing.T) {
	var pos string
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		c := gojit.Full(gojit.Float32, 1, 3)
		pos = hereAt(1)
		_ = c.Reshape(5)
		return x.Add(c)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.FromFloat32([]float32{1, 2, 3}))
	if err == nil || !strings.Contains(err.Error(), pos) {
		t.Errorf("Call = %v, %v; want the reshape error at %s, as for a traced tensor", out, err, pos)
	}
}

// TestCallIntoAliasing: outputs may share memory with inputs (entirely or
// in part) and with each other; the results are as if computed into fresh
// arrays and then copied in output order.
func TestCallIntoAliasing(t *testing.T) {
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			return x.Mul(gojit.Scalar(2)), x.Reshape(2, 2).Transpose().Reshape(4)
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		// Output 0 shifted by one element over the input.
		buf := []float32{1, 2, 3, 4, 5}
		other := gojit.New(gojit.Float32, 4)
		if err := f.CallInto([]*gojit.Array{gojit.FromFloat32(buf[1:5]), other}, gojit.FromFloat32(buf[0:4])); err != nil {
			t.Fatal(err)
		}
		if want := []float32{1, 2, 4, 6, 8}; !slices.Equal(buf, want) {
			t.Errorf("partially overlapping output: buf = %v, want %v", buf, want)
		}
		if want := []float32{1, 3, 2, 4}; !slices.Equal(other.Float32(), want) {
			t.Errorf("second output = %v, want %v", other.Float32(), want)
		}
		// Both outputs in one array, which is also the input: the later
		// output wins.
		buf = []float32{1, 2, 3, 4}
		a := gojit.FromFloat32(buf)
		if err := f.CallInto([]*gojit.Array{a, a}, a); err != nil {
			t.Fatal(err)
		}
		if want := []float32{1, 3, 2, 4}; !slices.Equal(buf, want) {
			t.Errorf("one array for input and both outputs: %v, want %v", buf, want)
		}
	}
}

// TestManyBuffers: a graph with more buffers than llvm.MaxDirect (16)
// passes them through a pinned pointer array instead of C arguments.
func TestManyBuffers(t *testing.T) {
	// 12 inputs and 12 outputs: 24 slots.
	g, err := gojit.Compile(func(a, b, c, d, e, f, g, h, i, j, k, l *gojit.Tensor) []*gojit.Tensor {
		in := []*gojit.Tensor{a, b, c, d, e, f, g, h, i, j, k, l}
		out := make([]*gojit.Tensor, len(in))
		for n, x := range in {
			out[n] = x.Mul(gojit.Scalar(float64(n + 1))).Add(in[(n+1)%len(in)])
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	const size = 33
	args := make([]any, 12)
	data := make([][]float32, 12)
	for n := range args {
		data[n] = make([]float32, size)
		for i := range data[n] {
			data[n][i] = float32(n*size + i)
		}
		args[n] = gojit.FromFloat32(data[n])
	}
	outs, err := g.Call(args...)
	if err != nil {
		t.Fatal(err)
	}
	for n, o := range outs {
		for i, v := range o.Float32() {
			want := data[n][i]*float32(n+1) + data[(n+1)%12][i]
			if v != want {
				t.Fatalf("output %d[%d] = %v, want %v", n, i, v, want)
			}
		}
	}
}

// TestErrorsNameTheFunction: messages name the traced function, not just
// its type.
func TestErrorsNameTheFunction(t *testing.T) {
	f, err := gojit.Compile(addTwo)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Call(gojit.New(gojit.Float32, 3), gojit.New(gojit.Float32, 4))
	if err == nil || !strings.Contains(err.Error(), "gojit_test.addTwo") {
		t.Errorf("error %v does not name gojit_test.addTwo", err)
	}
}

func addTwo(a, b *gojit.Tensor) *gojit.Tensor { return a.Add(b) }

// TestPowConstantPowerOfTwoBase is a regression test (found by
// FuzzCompiledVsInterpreter): LLVM rewrites pow(2^n, y) as exp2(n*y) when
// the base is a constant power of two, and the rounding of n*y made the
// compiled result 9 ulps off in float32 and 313 in float64 for a base of
// 2^31. The reference takes n*y exactly, as a sum hi+lo of two doubles
// (an FMA gives lo), and 2^(hi+lo) = 2^floor(hi) * 2^(hi-floor(hi)) *
// 2^lo: within an ulp or two.
func TestPowConstantPowerOfTwoBase(t *testing.T) {
	const m = 4096
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		for _, n := range []int{31, 3, -10} {
			t.Run(fmt.Sprintf("2^%d/%s", n, dt), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n+100), 7))
				ys := make([]float64, m)
				want := make([]float64, m)
				for i := range ys {
					// |n*y| up to 990: results from 2^-990 to 2^990.
					ys[i] = (rng.Float64()*2 - 1) * 990 / float64(max(n, -n))
					if i%2 == 0 {
						ys[i] /= 8 // more within float32's range
					}
					if dt == gojit.Float32 {
						ys[i] = float64(float32(ys[i]))
					}
					hi := float64(n) * ys[i]
					lo := math.FMA(float64(n), ys[i], -hi)
					fl := math.Floor(hi)
					want[i] = math.Ldexp(math.Exp2(hi-fl)*(1+lo*math.Ln2), int(fl))
				}
				f, err := gojit.Compile(func(y *gojit.Tensor) *gojit.Tensor {
					return gojit.Full(dt, math.Ldexp(1, n)).Pow(y)
				})
				if err != nil {
					t.Fatal(err)
				}
				var in *gojit.Array
				if dt == gojit.Float32 {
					ys32 := make([]float32, m)
					for i, y := range ys {
						ys32[i] = float32(y)
					}
					in = gojit.FromFloat32(ys32, m)
				} else {
					in = gojit.FromFloat64(ys, m)
				}
				out, err := f.Call(in)
				if err != nil {
					t.Fatal(err)
				}
				tol := uint64(transULPs)
				if dt == gojit.Float64 && gojit.LLVMVersion() == "" {
					// No LLVM: "compiled" is the interpreter, whose pow is
					// Go's math.Pow (see TestInterpPowF64Accuracy).
					tol = interpPowDocULPs
				}
				bad, checked := 0, 0
				for i, w := range want {
					var d uint64
					var got float64
					if dt == gojit.Float32 {
						if math.Abs(w) > math.MaxFloat32 || math.Abs(w) < 0x1p-126 {
							continue // outside float32's normal range
						}
						g := out[0].Float32()[i]
						got, d = float64(g), ulpDist(ordered32(g), ordered32(float32(w)))
					} else {
						got = out[0].Float64()[i]
						d = ulpDist(ordered64(got), ordered64(w))
					}
					checked++
					if d > tol {
						if bad++; bad <= 3 {
							t.Errorf("y = %v: got %v, %d ulps from %v", ys[i], got, d, w)
						}
					}
				}
				if bad > 3 {
					t.Errorf("and %d more", bad-3)
				}
				if checked < m/4 {
					t.Fatalf("only %d of %d results checked", checked, m)
				}
			})
		}
	}
}

// TestTraceErrorKeptWhenShared is a regression test (found by
// FuzzCompiledVsInterpreter): a poisoned value of a constant-only trace
// (a Cond with a constant predicate that reads a traced tensor; a bad
// Reshape of a Full) used by two ops, one of them dropped, lost its error
// to the dropped op, and the function compiled to a graph without
// outputs ("ir: graph has no outputs") instead of reporting the mistake
// at the user's line.
func TestTraceErrorKeptWhenShared(t *testing.T) {
	cond := func(v *gojit.Tensor) *gojit.Tensor {
		return gojit.Cond(gojit.Full(gojit.Bool, 1),
			func() []*gojit.Tensor { return []*gojit.Tensor{v} },
			func() []*gojit.Tensor { return []*gojit.Tensor{v} })[0]
	}
	cases := []struct {
		name string
		fn   any
		want string
	}{
		{"cond", func(v0, v1 *gojit.Tensor) *gojit.Tensor {
			v4 := cond(v1).Cast(gojit.Float32).Sin()
			_ = gojit.Iota(gojit.Float32, 0, 3, 0).Minimum(v4) // dropped
			return v4.Sin()
		}, "only constants (Full, Iota, Scalar) as predicate"},
		{"reshape", func(v0, v1 *gojit.Tensor) *gojit.Tensor {
			bad := gojit.Full(gojit.Float32, 1, 2, 3).Reshape(5)
			_ = gojit.Iota(gojit.Float32, 0, 5).Add(bad) // dropped
			return v0.Cast(gojit.Float32).Sum().Add(bad.Sum())
		}, "Reshape"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := gojit.Compile(c.fn)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.New(gojit.Bool, 3, 0)
			_, err = f.Call(x, x)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "regression_test.go:") {
				t.Fatalf("error %v, want the trace error (%q) at this file's line", err, c.want)
			}
			if n := strings.Count(err.Error(), c.want); n != 1 {
				t.Errorf("the error is reported %d times:\n%v", n, err)
			}
		})
	}
}
