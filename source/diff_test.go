package source

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The differential tests: each kernel of kernels_test.go compiled, and run
// by Go on the same random inputs (with edge values: zero, -1, the extreme
// integers, NaN, infinities, signed zeros, out-of-range floats); results
// and every slice argument after the call must agree bit for bit.

// randValue returns a random value of type t with edge cases mixed in.
func randValue(r *rand.Rand, t reflect.Type, n int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Slice:
		if n > 0 && r.IntN(5) == 0 {
			n += r.IntN(3) - 1 // slices of different lengths
		}
		s := reflect.MakeSlice(t, n, n+r.IntN(3))
		for i := range n {
			s.Index(i).Set(randValue(r, t.Elem(), n))
		}
		return s
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		edges := []int64{0, 1, -1, 2, 7, -7, math.MinInt64 >> (64 - bits), math.MaxInt64 >> (64 - bits), int64(bits), int64(bits - 1)}
		if r.IntN(3) == 0 {
			v.SetInt(edges[r.IntN(len(edges))])
		} else if r.IntN(2) == 0 {
			v.SetInt(int64(r.IntN(41) - 20))
		} else {
			v.SetInt(int64(r.Uint64()))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits := t.Bits()
		edges := []uint64{0, 1, 2, 3, math.MaxUint64 >> (64 - bits), uint64(bits), uint64(bits - 1), 1 << (bits - 1)}
		if r.IntN(3) == 0 {
			v.SetUint(edges[r.IntN(len(edges))])
		} else if r.IntN(2) == 0 {
			v.SetUint(uint64(r.IntN(20)))
		} else {
			v.SetUint(r.Uint64())
		}
	case reflect.Float32, reflect.Float64:
		edges := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2.5, -2.5, math.NaN(), math.Inf(1), math.Inf(-1),
			1e10, -1e10, 3e9, 5e9, -3e9, 1e19, -1e19, 1e20, 9.3e18, 255.9, 300, -128.5, 65535.5, 4294967295.5, math.MaxFloat64, math.SmallestNonzeroFloat64}
		switch r.IntN(4) {
		case 0:
			v.SetFloat(edges[r.IntN(len(edges))])
		case 1:
			v.SetFloat(r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)))
		default:
			v.SetFloat(r.NormFloat64() * 10)
		}
	default:
		panic("randValue: " + t.String())
	}
	return v
}

func cloneValue(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Slice {
		return v
	}
	c := reflect.MakeSlice(v.Type(), v.Len(), v.Cap())
	reflect.Copy(c, v)
	return c
}

// same compares a and b bit for bit (all NaNs are equal: Go and LLVM may
// produce different NaN payloads, which Go programs cannot tell apart
// except through Float64bits).
func same(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
		return math.Float64bits(x) == math.Float64bits(y)
	}
	return a.Interface() == b.Interface()
}

// differential compiles fn and compares it with Go on trials random
// inputs of slice length up to maxLen; fix may adjust the inputs.
func differential(t *testing.T, fn any, trials, maxLen int, fix func(args []reflect.Value)) {
	t.Helper()
	f := compileT(t, fn)
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	r := rand.New(rand.NewPCG(1, uint64(ft.NumIn())))
	for trial := range trials {
		n := r.IntN(maxLen + 1)
		args := make([]reflect.Value, ft.NumIn())
		for i := range args {
			args[i] = randValue(r, ft.In(i), n)
		}
		if fix != nil {
			fix(args)
		}
		goArgs := make([]reflect.Value, len(args))
		natArgs := make([]any, len(args))
		for i, a := range args {
			goArgs[i] = cloneValue(a)
			natArgs[i] = cloneValue(a).Interface()
		}
		want, goErr := callGo(fv, goArgs)
		got, err := f.Call(natArgs...)
		if (goErr != nil) != (err != nil) {
			t.Fatalf("trial %d: args %v: Go error %v, compiled error %v", trial, fmtArgs(args), goErr, err)
		}
		if err != nil {
			continue
		}
		for i := range want {
			if !same(want[i], reflect.ValueOf(got[i])) {
				t.Fatalf("trial %d: args %v: result %d: Go %v, compiled %v", trial, fmtArgs(args), i, want[i], got[i])
			}
		}
		for i := range args {
			if !same(goArgs[i], reflect.ValueOf(natArgs[i])) {
				t.Fatalf("trial %d: args %v: argument %d after the call: Go %v, compiled %v", trial, fmtArgs(args), i, goArgs[i], natArgs[i])
			}
		}
	}
}

func callGo(fv reflect.Value, args []reflect.Value) (out []reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return fv.Call(args), nil
}

func fmtArgs(args []reflect.Value) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		if a.Kind() == reflect.Slice && a.Len() > 8 {
			s += fmt.Sprintf("%v(len %d)", a.Type(), a.Len())
			continue
		}
		s += fmt.Sprintf("%v", a)
	}
	return "(" + s + ")"
}

func TestDifferential(t *testing.T) {
	nonneg := func(i int) func([]reflect.Value) {
		return func(a []reflect.Value) {
			if a[i].Int() < 0 {
				a[i].SetInt(-a[i].Int())
			}
		}
	}
	for _, tc := range []struct {
		name string
		fn   any
		fix  func([]reflect.Value)
	}{
		{"saxpy", saxpy, nil},
		{"sumAt", sumAt, func(a []reflect.Value) {
			for i := range a[1].Len() {
				a[1].Index(i).SetInt(a[1].Index(i).Int() % int64(a[0].Len()+2))
			}
		}},
		{"countDown", countDown, nil},
		{"threeIndex", threeIndex, func(a []reflect.Value) {
			for i := 1; i <= 3; i++ {
				a[i].SetInt(a[i].Int() % 16)
			}
		}},
		{"rangeInt", rangeInt, func(a []reflect.Value) { a[2].SetInt(int64(a[0].Len()) + a[2].Int()%2) }},
		{"loopVariants", loopVariants, func(a []reflect.Value) { a[1].SetInt(a[1].Int() % 4); a[2].SetInt(a[2].Int() % 14) }},
		{"sumInts", sumInts, nil},
		{"divmod", divmod, nil},
		{"divmod32", divmod32, nil},
		{"udiv", udiv, nil},
		{"shifts", shifts, nil},
		{"arith", arith, nil},
		{"compare", compare, nil},
		{"f2i", f2i, nil},
		{"f32toi", f32toi, nil},
		{"i2f", i2f, nil},
		{"intConv", intConv, nil},
		{"mathExact", mathExact, nil},
		{"mathMisc", mathMisc, nil},
		{"minmaxInt", minmaxInt, nil},
		{"control", control, nil},
		{"whileLoop", whileLoop, nil},
		{"callsHelpers", callsHelpers, nil},
		{"index", index, nil},
		{"sliceSum", sliceSum, nil},
		{"localArray", localArray, nil},
		{"boolSlice", boolSlice, nil},
		{"newton", newton, func(a []reflect.Value) {
			for i := range a[0].Len() {
				a[0].Index(i).SetFloat(math.Abs(a[0].Index(i).Float()))
			}
		}},
		{"pairwise", pairwise, func(a []reflect.Value) {
			if a[1].Int()%3 == 0 {
				a[1].SetInt(3)
				a[2].SetInt(4)
				return
			}
			n, d := a[1].Int()%5, a[2].Int()%5
			if n < 0 {
				n = -n
			}
			if d < 0 {
				d = -d
			}
			a[1].SetInt(n)
			a[2].SetInt(d)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = nonneg
			differential(t, tc.fn, 300, 12, tc.fix)
		})
	}
}

// TestRecursionRejected: compiled code runs on the calling thread's fixed
// stack, so recursion (which could overflow it and crash the process rather
// than grow a goroutine stack) is rejected at each recursive call.
func TestRecursionRejected(t *testing.T) {
	_, err := CompileFunc(fibs)
	var e *Error
	if !errors.As(err, &e) || len(e.Diags) != 2 {
		t.Fatalf("CompileFunc(fibs) = %v, want two recursion diagnostics", err)
	}
	for _, d := range e.Diags {
		if !strings.Contains(d.Msg, "recursive call to fib") || !strings.HasSuffix(d.Pos.Filename, "kernels_test.go") {
			t.Errorf("diagnostic %v", d)
		}
	}
}
