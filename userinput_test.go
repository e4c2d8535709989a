package gojit_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// Every method of an Array built by a public constructor (and of a nil
// *Array) works, whatever was wrong with its construction.
func TestArrayMethodsNeverPanic(t *testing.T) {
	var nilArray *gojit.Array
	cases := []struct {
		name    string
		a       *gojit.Array
		wantErr string
	}{
		{"short_slice", gojit.FromFloat32(make([]float32, 5), 10, 10), "shape [10,10] needs 100 elements, slice has 5"},
		{"long_slice", gojit.FromInt32(make([]int32, 50), 3), "shape [3] needs 3 elements, slice has 50"},
		{"negative_dim", gojit.FromUint8(nil, -1, 4), "negative dimension in shape [-1,4]"},
		{"new_negative", gojit.New(gojit.Float64, 3, -2), "negative dimension in shape [3,-2]"},
		{"new_overflow", gojit.New(gojit.Float32, 1<<32, 1<<32), "shape [4294967296,4294967296] is too large"},
		{"wrap_overflow", gojit.FromFloat32(nil, 1<<62, 4), "shape [4611686018427387904,4] is too large"},
		{"new_too_big", gojit.New(gojit.Int64, 1<<46), "shape [70368744177664] is too large"},
		{"invalid_dtype", gojit.New(gojit.DType(42), 3), "invalid dtype 42"},
		{"nil", nilArray, "nil *Array"},
		{"scalar_bad_value", gojit.ScalarArray(2.5, gojit.Int32), "2.5 is not a i32 value"},
		{"fine", gojit.FromBool([]bool{true}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			a := c.a
			err := a.Err()
			if (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("Err() = %v, want %q", err, c.wantErr)
			}
			s := a.String()
			if c.wantErr != "" && !strings.Contains(s, "invalid") && !strings.Contains(s, "nil") {
				t.Errorf("String() = %q does not say the array is invalid", s)
			}
			_, _, _ = a.DType(), a.Shape(), a.Data()
			if n := a.Size(); n < 0 || n > 100 {
				t.Errorf("Size() = %d, want the number of elements the array holds", n)
			}
			_, _, _, _, _, _ = a.Float32(), a.Float64(), a.Int32(), a.Int64(), a.Uint8(), a.Bool()
			f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Neg() })
			_, err = f.Call(a)
			if c.wantErr != "" && (err == nil || !errors.Is(err, gojit.ErrArgs)) {
				t.Errorf("Call error %v, want ErrArgs", err)
			}
			_ = f.CallInto([]*gojit.Array{a}, gojit.New(gojit.Bool, 1))
		})
	}
}

// The elements of a long array are cut, and an invalid one shows what it
// holds.
func TestArrayString(t *testing.T) {
	long := make([]int32, 40)
	for _, c := range []struct {
		a    *gojit.Array
		want string
	}{
		{gojit.FromInt32(long[:3]), "i32[3] [0 0 0]"},
		{gojit.FromInt32(long, 4, 10), "i32[4,10] [0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 ...]"},
		{gojit.FromFloat32([]float32{1, 2}, 10, 10), "f32[10,10] (invalid: shape [10,10] needs 100 elements, slice has 2) [1 2]"},
		{gojit.New(gojit.Float32), "f32[] [0]"},
	} {
		if got := c.a.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// Shapes whose element count or byte size overflows are errors naming the
// shape, wherever a shape is built.
func TestShapeOverflow(t *testing.T) {
	x := af32(1, 2, 3, 4)
	cases := []struct {
		name string
		f    func(x *gojit.Tensor) *gojit.Tensor
		want string
	}{
		{"Reshape", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(1<<32, 1<<32) }, ": Reshape: shape [4294967296,4294967296] is too large"},
		{"Reshape_infer", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(1<<40, 1<<40, -1) }, ": Reshape: shape [1099511627776,1099511627776,1] is too large"},
		{"Full", func(x *gojit.Tensor) *gojit.Tensor { return x.Add(gojit.Full(gojit.Float32, 1, 1<<31, 1<<31, 4)) }, ": Full: shape [2147483648,2147483648,4] is too large"},
		{"Full_negative", func(x *gojit.Tensor) *gojit.Tensor { return x.Add(gojit.Full(gojit.Float32, 1, -4)) }, ": Full: negative dimension in shape [-4]"},
		{"Iota", func(x *gojit.Tensor) *gojit.Tensor { return x.Add(gojit.Iota(gojit.Float32, 0, 1<<50)) }, ": Iota: shape [1125899906842624] is too large"},
		{"BroadcastTo", func(x *gojit.Tensor) *gojit.Tensor { return x.BroadcastTo(1<<60, 4) }, ": BroadcastTo: shape [1152921504606846976,4] is too large"},
		{"ExpandDims_then_broadcast", func(x *gojit.Tensor) *gojit.Tensor {
			return x.ExpandDims(0).BroadcastTo(1<<20, 4).ExpandDims(0).BroadcastTo(1<<30, 1<<20, 4)
		}, ": BroadcastTo: shape [1073741824,1048576,4] is too large"},
		{"Concat", func(x *gojit.Tensor) *gojit.Tensor {
			big := x.ExpandDims(0).BroadcastTo(1<<43, 4)
			return gojit.Concat(0, big, big, big, big)
		}, ": Concat: shape [35184372088832,4] is too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkTraceError(t, c.f, []any{x}, "userinput_test.go:", c.want) })
	}
}

// Every option checks its arguments, and Compile returns the error.
func TestInvalidOptions(t *testing.T) {
	fn := func(x *gojit.Tensor, k int, y *gojit.Tensor) *gojit.Tensor { return x.Add(y) }
	cases := []struct {
		name string
		opt  gojit.Option
		want string
	}{
		{"dynamic_static_param", gojit.WithDynamicDim(1, 0), "WithDynamicDim(1, 0): parameter 1 of gojit_test.TestInvalidOptions.func1 is a static int, not a *gojit.Tensor"},
		{"dynamic_no_param", gojit.WithDynamicDim(3, 0), "WithDynamicDim(3, 0): gojit_test.TestInvalidOptions.func1 has 3 parameters"},
		{"dynamic_negative_arg", gojit.WithDynamicDim(-1, 0), "WithDynamicDim(-1, 0): negative parameter index"},
		{"dynamic_negative_axis", gojit.WithDynamicDim(0, -1), "WithDynamicDim(0, -1): negative axis"},
		{"opt_level_7", gojit.WithOptLevel(7), "WithOptLevel: level 7 is not 0, 1, 2 or 3"},
		{"opt_level_negative", gojit.WithOptLevel(-1), "WithOptLevel: level -1"},
		{"pass_dump_nil", gojit.WithPassDump(nil), "WithPassDump: nil io.Writer"},
		{"pass_dump_unknown", gojit.WithPassDump(&bytes.Buffer{}, "nope"), `WithPassDump: unknown pass "nope"`},
		{"logger_nil", gojit.WithLogger(nil), "WithLogger: nil *slog.Logger"},
		{"nil_option", nil, "option 0 is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := gojit.Compile(fn, c.opt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Compile = %v, %v; want an error containing %q", f, err, c.want)
			}
		})
	}
	// Valid settings still compile.
	for _, opt := range []gojit.Option{gojit.WithDynamicDim(2, 0), gojit.WithOptLevel(0), gojit.WithThreads(-1),
		gojit.WithRecompileLimit(0), gojit.WithLogger(slog.Default()), gojit.WithPassDump(&bytes.Buffer{}, "cse")} {
		if _, err := gojit.Compile(fn, opt); err != nil {
			t.Errorf("Compile with a valid option: %v", err)
		}
	}
	for _, c := range []gojit.CacheConfig{{MaxEntries: -1}, {MaxBytes: -5}, {DiskMaxBytes: -1}} {
		if err := gojit.ConfigureCache(c); err == nil || !strings.Contains(err.Error(), "negative limit") {
			t.Errorf("ConfigureCache(%+v) = %v, want an error about a negative limit", c, err)
		}
	}
}

// Errors about arguments say what was wrong with them.
func TestArgumentErrors(t *testing.T) {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Neg() })
	var typedNil *gojit.Array
	for _, c := range []struct {
		arg  any
		want string
	}{
		{typedNil, "argument 0 is a nil *gojit.Array"},
		{nil, "argument 0 is nil, want a *gojit.Array"},
		{[]float32{1}, "argument 0 is []float32, want *gojit.Array"},
		{gojit.FromFloat32(nil, 3), "argument 0: gojit: shape [3] needs 3 elements, slice has 0"},
	} {
		_, err := f.Call(c.arg)
		if err == nil || !errors.Is(err, gojit.ErrArgs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Call(%#v) error %v, want ErrArgs with %q", c.arg, err, c.want)
		}
	}
}

// A panic in the traced function comes back as its value and the line that
// panicked, without a goroutine dump; the stack goes to the debug log.
func TestPanicWhileTracing(t *testing.T) {
	var pos string
	fn := func(x *gojit.Tensor, idx []int) *gojit.Tensor {
		pos = hereAt(1)
		return x.Reshape(idx[3])
	}
	var log bytes.Buffer
	f, _ := gojit.Compile(fn, gojit.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err := f.Call(af32(1), []int{1})
	if err == nil {
		t.Fatal("Call succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, pos+": runtime error: index out of range [3] with length 1") {
		t.Errorf("error %q does not give the panic at %s", msg, pos)
	}
	if strings.Contains(msg, "goroutine") || strings.Count(msg, "\n") > 0 {
		t.Errorf("error has a stack dump:\n%s", msg)
	}
	if !strings.Contains(log.String(), "panic while tracing") || !strings.Contains(log.String(), "goroutine") {
		t.Errorf("debug log lacks the stack: %q", log.String())
	}
	// A panic value of the user's own.
	g, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		pos = hereAt(1)
		panic(fmt.Sprintf("bad input %d", 7))
	})
	_, err = g.Call(af32(1))
	if err == nil || !strings.Contains(err.Error(), pos+": bad input 7") {
		t.Errorf("error %v, want the panic value at %s", err, pos)
	}
}

// A valid shape far beyond the machine's memory is an error naming the op,
// not an out-of-memory crash, compiled and interpreted.
func TestResultLargerThanMemory(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("the machine's memory is only known on Linux")
	}
	var pos string
	fn := func(x *gojit.Tensor) *gojit.Tensor {
		pos = hereAt(1)
		return x.Reshape(1, 4).BroadcastTo(1<<40, 4)
	}
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, _ := gojit.Compile(fn, opts...)
		_, err := f.Call(af32(1, 2, 3, 4))
		if err == nil || !strings.Contains(err.Error(), pos+": BroadcastTo makes f32[1099511627776,4] (16.0 TiB)") ||
			!strings.Contains(err.Error(), "more than this machine's") {
			t.Errorf("Call error %v, want one naming BroadcastTo at %s", err, pos)
		}
	}
	// Interpreted, an intermediate counts too; compiled, it is fused away.
	sum := func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(1, 4).BroadcastTo(1<<40, 4).Sum() }
	f, _ := gojit.Compile(sum, gojit.WithInterpreter())
	if _, err := f.Call(af32(1, 2, 3, 4)); err == nil || !strings.Contains(err.Error(), "BroadcastTo makes f32[1099511627776,4]") {
		t.Errorf("interpreted Call error %v, want one naming BroadcastTo", err)
	}
}

// Every method of a nil *Tensor (a variable never assigned) and of a nil
// *Func records or returns an error instead of panicking.
func TestNilReceivers(t *testing.T) {
	tt := reflect.TypeFor[*gojit.Tensor]()
	for i := range tt.NumMethod() {
		m := tt.Method(i)
		t.Run(m.Name, func(t *testing.T) {
			fn := func(x *gojit.Tensor) *gojit.Tensor {
				var nilT *gojit.Tensor
				args := []reflect.Value{reflect.ValueOf(nilT)}
				for k := 1; k < m.Type.NumIn(); k++ {
					in := m.Type.In(k)
					switch {
					case m.Type.IsVariadic() && k == m.Type.NumIn()-1:
					case in == tt:
						args = append(args, reflect.ValueOf(x))
					default:
						args = append(args, reflect.Zero(in))
					}
				}
				out := m.Func.Call(args)
				if len(out) == 1 && out[0].Type() == tt {
					return x.Add(out[0].Interface().(*gojit.Tensor).Cast(gojit.Float32).Sum().Reshape(1))
				}
				return x // accessors: DType, Shape, Rank, String
			}
			_, err := runBothNoPanic(t, fn, af32(1))
			if err != nil && !strings.Contains(err.Error(), "nil *Tensor") && !strings.Contains(err.Error(), "needs a tensor operand") {
				t.Errorf("error %v does not name the nil *Tensor", err)
			}
		})
	}
	var f *gojit.Func
	if _, err := f.Call(af32(1)); err == nil || !strings.Contains(err.Error(), "nil *Func") {
		t.Errorf("nil Func Call: %v", err)
	}
	if err := f.CallInto(nil, af32(1)); err == nil {
		t.Error("nil Func CallInto: no error")
	}
	if _, err := f.Lower(af32(1)); err == nil {
		t.Error("nil Func Lower: no error")
	}
	_ = f.Stats()
}

// runBothNoPanic calls fn compiled and interpreted and requires the same
// outcome; a panic while tracing fails the test.
func runBothNoPanic(t *testing.T, fn any, args ...*gojit.Array) ([]*gojit.Array, error) {
	t.Helper()
	comp, _, cerr, rerr := runBoth(t, fn, anyArgs(args))
	if (cerr == nil) != (rerr == nil) {
		t.Fatalf("compiled %v, interpreted %v", cerr, rerr)
	}
	if cerr != nil && strings.Contains(cerr.Error(), "panicked") {
		t.Fatalf("panic: %v", cerr)
	}
	return comp, cerr
}

// TestAxisOutOfRange: every op taking one axis rejects an axis outside
// [-rank, rank) with an error naming the op, the axis and the rank, and
// accepts the negative form of a valid one.
func TestAxisOutOfRange(t *testing.T) {
	x := gojit.FromFloat32(make([]float32, 6), 2, 3)
	for _, c := range []struct {
		op      string
		fn      func(a *gojit.Tensor) *gojit.Tensor
		wantErr string
	}{
		{"Sort", func(a *gojit.Tensor) *gojit.Tensor { return a.Sort(2) }, "axis 2 out of range for rank 2"},
		{"ArgSort", func(a *gojit.Tensor) *gojit.Tensor { return a.ArgSort(-3) }, "axis -3 out of range for rank 2"},
		{"CumSum", func(a *gojit.Tensor) *gojit.Tensor { return a.CumSum(5) }, "axis 5 out of range for rank 2"},
		{"Stack", func(a *gojit.Tensor) *gojit.Tensor { return gojit.Stack(3, a, a) }, "axis 3 out of range for rank 3"},
		{"Split", func(a *gojit.Tensor) *gojit.Tensor { return a.Split(2, 2)[0] }, "axis 2 out of range for rank 2"},
		{"SplitAt", func(a *gojit.Tensor) *gojit.Tensor { return a.SplitAt(-3, 1)[0] }, "axis -3 out of range for rank 2"},
		{"Concat", func(a *gojit.Tensor) *gojit.Tensor { return gojit.Concat(2, a, a) }, "axis 2 out of range for rank 2"},
		{"ExpandDims", func(a *gojit.Tensor) *gojit.Tensor { return a.ExpandDims(3) }, "axis 3 out of range for rank 3"},
		{"valid negative", func(a *gojit.Tensor) *gojit.Tensor { return gojit.Concat(-1, a.CumSum(-1), a.Sort(-2)) }, ""},
	} {
		f, err := gojit.Compile(c.fn, gojit.WithInterpreter())
		if err == nil {
			_, err = f.Call(x)
		}
		if (err == nil) != (c.wantErr == "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: error %v, want %q", c.op, err, c.wantErr)
		}
	}
}
