package interp

import (
	"errors"
	"reflect"
	"testing"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/philox"
)

func TestTakeAndScatter(t *testing.T) {
	g := mustParse(t, graph(
		"%0 = param 0 : i32[3,4]",
		"%1 = param 1 : i64[2,2]",
		"%2 = take %0, %1 axes=[1] : i32[3,2,2]",
		"%3 = param 2 : i32[3,2,2]",
		"%4 = scatter_add %0, %1, %3 axes=[1] : i32[3,4]",
		"%5 = const 2 : i64[]",
		"%6 = const -9 : i64[]",
		"%7 = dynamic_slice %0, %5, %6 : i32[2,3]",
		"return %2, %4, %7"))
	x := []int32{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}
	idx := []int64{3, -1, 0, 3} // -1 is 3: duplicates
	upd := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	out, err := Run(g, []any{x, idx, upd})
	if err != nil {
		t.Fatal(err)
	}
	// Plain loops.
	var take []int32
	sc := append([]int32(nil), x...)
	u := 0
	for r := range 3 {
		for _, i := range idx {
			c := (int(i) + 4) % 4
			take = append(take, x[r*4+c])
			sc[r*4+c] += upd[u]
			u++
		}
	}
	ds := []int32{10, 11, 12, 20, 21, 22} // start (2, -9) clamped to (1, 0)
	for k, want := range [][]int32{take, sc, ds} {
		if !reflect.DeepEqual(out[k], want) {
			t.Errorf("output %d = %v, want %v", k, out[k], want)
		}
	}
}

func TestIndexErrors(t *testing.T) {
	g := mustParse(t, graph(
		"%0 = param 0 : f32[3,4]",
		"%1 = param 1 : i32[2,3]",
		"%2 = take %0, %1 axes=[0] : f32[2,3,4]",
		"return %2"))
	x := make([]float32, 12)
	_, err := Run(g, []any{x, []int32{0, 1, 2, -3, 3, -4}})
	var ie *ir.IndexError
	if !errors.As(err, &ie) || ie.Index != 3 || !reflect.DeepEqual(ie.At, []int{1, 1}) || ie.Node != 2 {
		t.Fatalf("error %v, want index 3 at [1,1] of node 2", err)
	}
	if !errors.Is(err, ir.ErrIndexOutOfRange) {
		t.Errorf("%v does not wrap ErrIndexOutOfRange", err)
	}
	// An empty result reads no index, so checks none.
	g = mustParse(t, graph(
		"%0 = param 0 : f32[3,0]",
		"%1 = param 1 : i32[2]",
		"%2 = take %0, %1 axes=[0] : f32[2,0]",
		"return %2"))
	if _, err := Run(g, []any{[]float32{}, []int32{7, 8}}); err != nil {
		t.Errorf("empty take: %v", err)
	}
}

func TestRandomInterp(t *testing.T) {
	g := mustParse(t, graph(
		"%0 = param 0 : i32[2]",
		"%1 = random_uniform %0 : f32[9]",
		"%2 = split_key %0 : i32[3,2]",
		"%3 = random_normal %0 : f64[4]",
		"return %1, %2, %3"))
	k := philox.Key{0xdeadbeef, 0x12345678}
	out, err := Run(g, []any{[]int32{int32(k[0]), int32(k[1])}})
	if err != nil {
		t.Fatal(err)
	}
	for p, v := range out[0].([]float32) {
		if want := philox.Float32(philox.Uint32(k, 0, uint64(p))); v != want {
			t.Errorf("uniform[%d] = %v, want %v", p, v, want)
		}
	}
	for j, s := range philox.Split(k, 3) {
		if got := out[1].([]int32)[2*j : 2*j+2]; uint32(got[0]) != s[0] || uint32(got[1]) != s[1] {
			t.Errorf("key %d = %v, want %v", j, got, s)
		}
	}
	for p, v := range out[2].([]float64) {
		if want := Normal(k, uint64(p), true); v != want {
			t.Errorf("normal[%d] = %v, want %v", p, v, want)
		}
	}
}
