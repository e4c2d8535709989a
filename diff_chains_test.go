package gojit_test

// Differential tests of fused multi-op chains, and the errors that tracing and Call report.
// Helpers and comparison rules are in diff_test.go.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

func TestDiffChains(t *testing.T) {
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			x := randArray(dt, 901, 0, 4, 6)
			y := randArray(dt, 902, 0, 6, 4)
			g := randArray(dt, 903, 0, 6)
			b := randArray(dt, 904, 0, 6)
			cs := []dcase{
				{name: "elementwise_into_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Mul(in[0]).Add(gojit.Scalar(1)).Sqrt().Sub(in[0].Abs()).Sum(-1)
				}},
				{name: "elementwise_into_max_axis0", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Sub(in[2]).Maximum(in[3]).Div(gojit.Scalar(3)).Max(0)
				}},
				{name: "softmax_last_axis", ulps: chainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
					return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
				}},
				{name: "layernorm", ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					d := x.Sub(x.Reduce(gojit.ReduceMean, true, -1))
					v := d.Mul(d).Reduce(gojit.ReduceMean, true, -1)
					return d.Mul(v.Add(gojit.Scalar(1e-5)).Rsqrt()).Mul(in[2]).Add(in[3])
				}},
				{name: "layernorm_sqrt_div", ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					mu := x.Mean(-1).ExpandDims(-1)
					d := x.Sub(mu)
					sd := d.Mul(d).Mean(-1).Add(gojit.Scalar(1e-5)).Sqrt().Reshape(4, 1)
					return d.Div(sd)
				}},
				{name: "transpose_then_add", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Transpose().Add(in[0]) }},
				{name: "add_own_transpose", f: func(in []*gojit.Tensor) *gojit.Tensor {
					s := in[0].Slice([]int{0, 0}, []int{4, 4})
					return s.Add(s.Transpose()).Mul(s)
				}},
				{name: "mlp", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].MatMul(in[1]).Add(in[2].Slice([]int{0}, []int{4})).Relu().Sum(0)
				}},
				{name: "shared_intermediate", f: func(in []*gojit.Tensor) *gojit.Tensor {
					s := in[0].Mul(in[0]).Sub(in[2])
					return s.Sum(0).Add(s.Max(0)).Add(s.Slice([]int{1}, []int{2}).Reshape(6))
				}},
				{name: "broadcast_expensive_row", f: func(in []*gojit.Tensor) *gojit.Tensor {
					r := in[2].Mul(in[3]).Sqrt()
					return r.BroadcastTo(4, 6).Add(in[0]).Sum()
				}},
				{name: "slice_concat_reduce", f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					c := gojit.Concat(1, x.Slice([]int{0, 3}, []int{4, 6}), x.Slice([]int{0, 0}, []int{4, 3}).Neg())
					return c.Prod(1).Add(c.Min(0).Sum())
				}},
				{name: "reshape_transpose_reduce", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Reshape(2, 2, 6).Transpose(2, 0, 1).Mul(in[0].Reshape(6, 2, 2)).Sum(1, 2)
				}},
				{name: "argmax_of_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Sub(in[1].Transpose()).Abs().ArgMax(1)
				}},
				{name: "compare_where_cast_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
					m := in[0].Greater(gojit.Scalar(0))
					return gojit.Where(m, in[0], in[0].Mul(gojit.Scalar(0.01))).Add(m.Cast(dt)).Sum(0)
				}},
				{name: "reduce_of_reduce", ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Reduce(gojit.ReduceSum, true, 0).Sub(in[0]).Mean(1).Max()
				}},
				{name: "rounding_ops", f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0].Mul(gojit.Scalar(2))
					return x.Floor().Add(x.Ceil()).Sub(x.Round()).Cast(gojit.Int32).Cast(dt)
				}},
			}
			for _, opt := range []int{0, 3} {
				t.Run(fmt.Sprintf("O%d", opt), func(t *testing.T) {
					comp, ref, cerr, rerr := runBoth(t, casesFn(4, cs), anyArgs([]*gojit.Array{x, y, g, b}), gojit.WithOptLevel(opt))
					if cerr != nil || rerr != nil {
						t.Fatalf("compiled: %v\ninterpreter: %v", cerr, rerr)
					}
					for i, c := range cs {
						if d := diffArrays(comp[i], ref[i], c.ulps); d != "" {
							t.Errorf("%s: compiled differs from interpreter: %s", c.name, d)
						}
					}
				})
			}
		})
	}
	t.Run("int32_chain", func(t *testing.T) {
		x := randArray(gojit.Int32, 11, 0.2, 4, 6)
		checkDiff(t, []dcase{
			{name: "mul_add_div_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Mul(in[0]).Add(gojit.Scalar(7)).Div(in[0]).Sum(-1)
			}},
			{name: "abs_max_prod", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Abs().Maximum(gojit.Scalar(1)).Prod(0) }},
			{name: "matmul_transpose", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[0].Transpose()) }},
			{name: "u8_wrap_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Cast(gojit.Uint8).Mul(gojit.Scalar(3)).Sub(gojit.Scalar(10)).Div(gojit.Scalar(7)).Sum(0)
			}},
		}, x)
	})
	t.Run("outputs_aliasing", func(t *testing.T) {
		// A parameter returned as is, a value returned twice, and a reshape
		// of a parameter.
		x := randArray(gojit.Float32, 12, 0.1, 3, 4)
		checkDiff(t, []dcase{
			{name: "param", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0] }},
			{name: "param_again", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0] }},
			{name: "reshape_param", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Reshape(12) }},
			{name: "sum", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(0) }},
		}, x)
	})
}

// ---------------------------------------------------------------------------
// Unsupported combinations: an error naming the op and this file's line,
// the same in both modes; never a panic.

func TestDiffUnsupported(t *testing.T) {
	bx := gojit.FromBool([]bool{true, false, true, true, false, false}, 2, 3)
	fx := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	var pos string
	cases := []struct {
		name string
		arg  *gojit.Array
		f    func(x *gojit.Tensor) *gojit.Tensor
		want string
	}{
		{"Neg_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Neg() }, ": Neg:"},
		{"Abs_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Abs() }, ": Abs:"},
		{"Floor_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Floor() }, ": Floor:"},
		{"Round_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Round() }, ": Round:"},
		{"Relu_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Relu() }, ": Relu:"},
		{"Add_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(x) }, ": Add:"},
		{"Sub_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Sub(x) }, ": Sub:"},
		{"Mul_bool_scalar", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Mul(gojit.Scalar(2)) }, ": Mul:"},
		{"Div_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Div(x) }, ": Div:"},
		{"Maximum_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Maximum(x) }, ": Maximum:"},
		{"Max_reduce_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Max() }, ": Max:"},
		{"Min_reduce_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Min(0) }, ": Min:"},
		{"ArgMax_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ArgMax(1) }, ": ArgMax:"},
		{"ArgMin_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ArgMin() }, ": ArgMin:"},
		{"MatMul_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(x.Transpose()) }, ": MatMul:"},
		{"Iota_bool", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(gojit.Iota(gojit.Bool, 0, 2, 3)) }, ": Iota:"},
		{"Where_float_cond", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Where(x, x, x) }, ": Where:"},
		{"Add_shapes", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(x.Transpose()) }, ": Add:"},
		{"Reshape_size", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Reshape(4, 2) }, ": Reshape:"},
		{"Reshape_two_minus1", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Reshape(-1, -1) }, ": Reshape:"},
		{"Transpose_bad_perm", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Transpose(0, 0) }, ": Transpose:"},
		{"BroadcastTo_bad", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.BroadcastTo(2, 4) }, ": BroadcastTo:"},
		{"Slice_step0", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Slice([]int{0}, []int{1}, 0) }, ": Slice:"},
		{"Slice_rank", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Slice([]int{0, 0, 0}, []int{1, 1, 1}) }, ": Slice:"},
		{"Concat_shapes", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Concat(0, x, x.Transpose()) }, ": Concat:"},
		{"Concat_axis", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Concat(2, x, x) }, ": Concat:"},
		{"Concat_scalar", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Concat(0, x, gojit.Scalar(1)) }, ": Concat:"},
		{"ExpandDims_range", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ExpandDims(4) }, ": ExpandDims:"},
		{"Squeeze_non1", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Squeeze(0) }, ": Squeeze:"},
		{"Sum_axis_range", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Sum(2) }, ": Sum:"},
		{"Sum_axis_repeated", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Sum(1, -1) }, ": Sum:"},
		{"ArgMax_two_axes", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ArgMax(0, 1) }, ": ArgMax:"},
		{"MatMul_contracting", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(x) }, ": MatMul:"},
		{"MatMul_scalar", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(gojit.Scalar(2)) }, ": MatMul:"},
		{"MatMul_rank0", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(x.Sum()) }, ": MatMul:"},
		{"Cast_invalid", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Cast(gojit.DType(42)) }, ": Cast:"},
		{"nil_operand", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(nil) }, ": Add:"},
		{"poison_propagates", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Neg().Add(x).Sum().Exp() }, ": Neg:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pos = ""
			fn := func(x *gojit.Tensor) *gojit.Tensor { return c.f(x) }
			want := []string{"diff_chains_test.go:", c.want}
			// The first Call traces and sets pos to the op's line.
			cf, _ := gojit.Compile(fn)
			_, err := cf.Call(c.arg)
			if err == nil {
				t.Fatalf("Call succeeded, want an error")
			}
			if !strings.Contains(err.Error(), pos) {
				t.Errorf("error %q does not name the op's line %s", err, pos)
			}
			checkTraceError(t, fn, []any{c.arg}, want...)
		})
	}
}

// ---------------------------------------------------------------------------
// Argument errors, tracing errors and static arguments.

func TestCallErrors(t *testing.T) {
	add, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y) })
	if err != nil {
		t.Fatal(err)
	}
	scale, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor { return x.Mul(gojit.Scalar(float64(k))) })
	if err != nil {
		t.Fatal(err)
	}
	x := gojit.FromFloat32([]float32{1, 2, 3})
	bad := gojit.FromFloat32([]float32{1, 2, 3, 4, 5}, 2, 3)
	negShape := gojit.FromFloat32([]float32{}, -1, 0)
	argCases := []struct {
		name string
		f    *gojit.Func
		args []any
	}{
		{"too_few", add, []any{x}},
		{"too_many", add, []any{x, x, x}},
		{"none", add, nil},
		{"string_for_tensor", add, []any{x, "hello"}},
		{"float_slice_for_tensor", add, []any{x, []float32{1, 2, 3}}},
		{"nil_for_tensor", add, []any{x, nil}},
		{"nil_array", add, []any{x, (*gojit.Array)(nil)}},
		{"array_for_static_int", scale, []any{x, x}},
		{"string_for_static_int", scale, []any{x, "2"}},
		{"nil_for_static_int", scale, []any{x, nil}},
		{"fraction_for_static_int", scale, []any{x, 2.5}},
		{"shape_length_mismatch", add, []any{x, bad}},
		{"negative_dimension", add, []any{negShape, x}},
	}
	for _, c := range argCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.f.Call(c.args...)
			if !errors.Is(err, gojit.ErrArgs) {
				t.Errorf("Call error %v does not wrap ErrArgs", err)
			}
			err = c.f.CallInto([]*gojit.Array{gojit.New(gojit.Float32, 3)}, c.args...)
			if !errors.Is(err, gojit.ErrArgs) {
				t.Errorf("CallInto error %v does not wrap ErrArgs", err)
			}
		})
	}
	if bad.Err() == nil {
		t.Errorf("FromFloat32 with a mismatched shape: Err() is nil")
	}
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		t.Run(fmt.Sprintf("CallInto_interp=%v", interp), func(t *testing.T) {
			f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return x.Neg(), x.Sum() }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
			outsCases := map[string][]*gojit.Array{
				"wrong_shape":       {gojit.New(gojit.Float64, 3, 2), gojit.New(gojit.Float64)},
				"wrong_rank":        {gojit.New(gojit.Float64, 6), gojit.New(gojit.Float64)},
				"wrong_dtype":       {gojit.New(gojit.Float32, 2, 3), gojit.New(gojit.Float64)},
				"scalar_shape":      {gojit.New(gojit.Float64, 2, 3), gojit.New(gojit.Float64, 1)},
				"too_few_outputs":   {gojit.New(gojit.Float64, 2, 3)},
				"too_many_outputs":  {gojit.New(gojit.Float64, 2, 3), gojit.New(gojit.Float64), gojit.New(gojit.Float64)},
				"nil_output":        {nil, gojit.New(gojit.Float64)},
				"malformed_output":  {gojit.FromFloat64(make([]float64, 5), 2, 3), gojit.New(gojit.Float64)},
				"no_outputs_at_all": nil,
			}
			for name, outs := range outsCases {
				err := f.CallInto(outs, x)
				if !errors.Is(err, gojit.ErrArgs) {
					t.Errorf("%s: CallInto error %v does not wrap ErrArgs", name, err)
				}
			}
			// And a correct CallInto, in place: the output is the input.
			in := gojit.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
			sum := gojit.New(gojit.Float64)
			if err := f.CallInto([]*gojit.Array{in, sum}, in); err != nil {
				t.Fatalf("CallInto in place: %v", err)
			}
			if !slices.Equal(in.Float64(), []float64{-1, -2, -3, -4, -5, -6}) || sum.Float64()[0] != 21 {
				t.Errorf("CallInto in place: got %v and %v", in, sum)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	for name, fn := range map[string]any{
		"not_a_function": 42,
		"nil_function":   (func(*gojit.Tensor) *gojit.Tensor)(nil),
		"variadic":       func(xs ...*gojit.Tensor) *gojit.Tensor { return xs[0] },
		"no_results":     func(x *gojit.Tensor) {},
		"int_result":     func(x *gojit.Tensor) int { return 0 },
		"only_error":     func(x *gojit.Tensor) error { return nil },
	} {
		if _, err := gojit.Compile(fn); err == nil {
			t.Errorf("%s: Compile succeeded", name)
		}
	}
}

func TestTraceErrors(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2, 3})
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		t.Run(fmt.Sprintf("interp=%v", interp), func(t *testing.T) {
			t.Run("panic_while_tracing", func(t *testing.T) {
				f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { panic("boom") }, opts...)
				_, err := f.Call(x)
				if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "panicked") {
					t.Errorf("got %v, want an error about the panic", err)
				}
				// A nil dereference inside the traced function too.
				f2, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { var p *[]int; _ = (*p)[0]; return x }, opts...)
				if _, err := f2.Call(x); err == nil {
					t.Errorf("nil dereference while tracing: no error")
				}
				// A failed trace is not cached: a second call reports it again.
				if _, err := f.Call(x); err == nil {
					t.Errorf("second call: no error")
				}
			})
			t.Run("returned_error", func(t *testing.T) {
				sentinel := errors.New("user says no")
				f, _ := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, error) { return x, sentinel }, opts...)
				if _, err := f.Call(x); !errors.Is(err, sentinel) {
					t.Errorf("got %v, want the function's error", err)
				}
			})
			t.Run("nil_result", func(t *testing.T) {
				f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return nil }, opts...)
				if _, err := f.Call(x); err == nil {
					t.Errorf("nil result: no error")
				}
			})
			t.Run("tensor_from_another_trace", func(t *testing.T) {
				var kept *gojit.Tensor
				f1, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { kept = x; return x.Neg() }, opts...)
				if _, err := f1.Call(x); err != nil {
					t.Fatal(err)
				}
				f2, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Add(kept) }, opts...)
				_, err := f2.Call(x)
				if err == nil || !strings.Contains(err.Error(), "different trace") {
					t.Errorf("got %v, want an error mentioning a different trace", err)
				}
				// Returning it directly, and the same Func with a new signature.
				f3, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return kept }, opts...)
				if _, err := f3.Call(x); err == nil || !strings.Contains(err.Error(), "different trace") {
					t.Errorf("returning a kept tensor: got %v", err)
				}
				var first *gojit.Tensor
				f4, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
					if first == nil {
						first = x
						return x
					}
					return x.Mul(first)
				}, opts...)
				if _, err := f4.Call(x); err != nil {
					t.Fatal(err)
				}
				_, err = f4.Call(gojit.FromFloat32([]float32{1, 2}))
				if err == nil || !strings.Contains(err.Error(), "different trace") {
					t.Errorf("same Func, new signature: got %v", err)
				}
			})
		})
	}
}

func TestStaticArgs(t *testing.T) {
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		t.Run(fmt.Sprintf("interp=%v", interp), func(t *testing.T) {
			f, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor {
				return x.Mul(gojit.Scalar(float64(k))).Add(gojit.Scalar(1))
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.FromInt32([]int32{1, 2, 3}, 3)
			r2, err := f.Call(x, 2)
			if err != nil {
				t.Fatal(err)
			}
			r3, err := f.Call(x, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r2[0].Int32(), []int32{3, 5, 7}) || !slices.Equal(r3[0].Int32(), []int32{4, 7, 10}) {
				t.Errorf("k=2 gave %v, k=3 gave %v", r2[0], r3[0])
			}
			if _, err := f.Call(x, 2); err != nil {
				t.Fatal(err)
			}
			if s := f.Stats(); s.Traces != 2 || s.Calls != 3 || s.Signatures != 2 {
				t.Errorf("Stats = %+v, want 2 traces, 3 calls, 2 signatures", s)
			}
			// A new array shape is a new signature; a new array with the
			// same shape is not.
			if _, err := f.Call(gojit.FromInt32([]int32{4, 5, 6}, 3), 2); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Call(gojit.FromInt32([]int32{4, 5}, 2), 2); err != nil {
				t.Fatal(err)
			}
			if s := f.Stats(); s.Traces != 3 {
				t.Errorf("Stats = %+v, want 3 traces", s)
			}
			// Non-comparable static values (a slice) work as well.
			g, err := gojit.Compile(func(x *gojit.Tensor, perm []int) *gojit.Tensor { return x.Transpose(perm...) }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			m := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
			r, err := g.Call(m, []int{1, 0})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r[0].Float32(), []float32{1, 4, 2, 5, 3, 6}) {
				t.Errorf("transpose: got %v", r[0])
			}
			if _, err := g.Call(m, []int{0, 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Call(m, []int{1, 0}); err != nil {
				t.Fatal(err)
			}
			if s := g.Stats(); s.Traces != 2 {
				t.Errorf("slice static arg: Stats = %+v, want 2 traces", s)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Focused tests of the bugs the differential tests found. Each fails until
// its bug is fixed.
