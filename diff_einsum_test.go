package gojit_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// einsumRef evaluates spec on int64 operands by brute force: a loop over
// every assignment of every label, independent of the lowering to MatMul.
func einsumRef(spec string, shapes [][]int, data [][]int64) ([]int64, []int) {
	lhs, out, _ := strings.Cut(spec, "->")
	ins := strings.Split(lhs, ",")
	size := map[byte]int{}
	var labels []byte
	for i, in := range ins {
		for k := range len(in) {
			size[in[k]] = shapes[i][k]
			if !slices.Contains(labels, in[k]) {
				labels = append(labels, in[k])
			}
		}
	}
	oshape := make([]int, len(out))
	osize := 1
	for k := range len(out) {
		oshape[k] = size[out[k]]
		osize *= oshape[k]
	}
	res := make([]int64, osize)
	idx := map[byte]int{}
	var rec func(d int)
	rec = func(d int) {
		if d == len(labels) {
			p := int64(1)
			for i, in := range ins {
				off := 0
				for k := range len(in) {
					off = off*shapes[i][k] + idx[in[k]]
				}
				p *= data[i][off]
			}
			off := 0
			for k := range len(out) {
				off = off*oshape[k] + idx[out[k]]
			}
			res[off] += p
			return
		}
		for v := range size[labels[d]] {
			idx[labels[d]] = v
			rec(d + 1)
		}
	}
	rec(0)
	return res, oshape
}

var einsumSpecs = []struct {
	spec   string
	shapes [][]int
}{
	{"bij,bjk->bik", [][]int{{2, 3, 4}, {2, 4, 5}}},
	{"ij,jk->ik", [][]int{{3, 4}, {4, 2}}},
	{"ij,jk", [][]int{{3, 4}, {4, 2}}}, // implicit: ik
	{"ij->ji", [][]int{{3, 4}}},
	{"ij->", [][]int{{3, 4}}},
	{"ijk->kj", [][]int{{2, 3, 4}}},
	{"i,j->ij", [][]int{{3}, {4}}},
	{"i,i->", [][]int{{5}, {5}}},
	{"bij,bkj->bki", [][]int{{2, 3, 4}, {2, 5, 4}}},
	{"abc,cd->dba", [][]int{{2, 3, 4}, {4, 2}}},
	{"ij,kl->ikjl", [][]int{{2, 3}, {2, 2}}},
	{"ijk,jl->l", [][]int{{2, 3, 2}, {3, 4}}},
	{"ij,jk,kl->il", [][]int{{2, 3}, {3, 4}, {4, 2}}},
	{"bhqd,bhkd->bhqk", [][]int{{2, 2, 3, 4}, {2, 2, 5, 4}}},
	{"ij,j->i", [][]int{{3, 0}, {0}}},
	{"ii->i", [][]int{{3, 3}}},
	{"ii->", [][]int{{4, 4}}},
	{"iij->ji", [][]int{{3, 3, 2}}},
	{"ij,jj->i", [][]int{{2, 3}, {3, 3}}},
	{"bii->bi", [][]int{{2, 3, 3}}},
	{"jii,ij->j", [][]int{{2, 3, 3}, {3, 2}}},
}

func TestEinsumKnown(t *testing.T) {
	for si, c := range einsumSpecs {
		var args []*gojit.Array
		var data [][]int64
		for i, s := range c.shapes {
			n := 1
			for _, d := range s {
				n *= d
			}
			p := newPRNG(uint64(100*si + i))
			d := make([]int64, n)
			for k := range d {
				d[k] = int64(p.intn(11) - 5)
			}
			data = append(data, d)
			args = append(args, gojit.FromInt64(d, s...))
		}
		spec := c.spec
		if !strings.Contains(spec, "->") {
			spec += "->ik" // the implicit output of the one implicit case
		}
		want, wshape := einsumRef(spec, c.shapes, data)
		for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
			f, err := gojit.Compile(fnOf(len(args), func(in []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{gojit.Einsum(c.spec, in...)}
			}), opts...)
			if err != nil {
				t.Fatal(err)
			}
			out, err := f.Call(anyArgs(args)...)
			if err != nil {
				t.Fatalf("%s: %v", c.spec, err)
			}
			if got := out[0].Int64(); !slices.Equal(got, want) || !slices.Equal(out[0].Shape(), wshape) {
				t.Errorf("%s (%d options): got %v %v, want %v %v", c.spec, len(opts), got, out[0].Shape(), want, wshape)
			}
		}
	}
}

func TestDiffEinsum(t *testing.T) {
	for _, dt := range numDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			a := smallArray(dt, 1, 2, 3, 4)
			b := smallArray(dt, 2, 2, 4, 5)
			checkDiff(t, []dcase{
				{name: "bmm", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Einsum("bij,bjk->bik", in[0], in[1]) }},
				{name: "bmm_t", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Einsum("bij,bkj->bki", in[0], in[0]) }},
				{name: "sum_transpose", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Einsum("bij->jb", in[0]) }},
				{name: "mixed", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Einsum("bij,bjk->ki", in[0], in[1].Cast(gojit.Float32))
				}},
			}, a, b)
		})
	}
}

func TestEinsumErrors(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := []struct {
		name string
		fn   any
		want string
	}{
		{"rank", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("ijk->i", x) }, "rank 2"},
		{"count", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("ij,jk->ik", x) }, "names 2 operands, got 1"},
		{"sizes", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("ij,ij->i", x, x.Transpose()) }, "label i is 2"},
		{"diagonal", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("ii->i", x) }, "repeated label i names axes of sizes 2 and 3"},
		{"ellipsis2", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("...i...->i", x) }, "more than one ..."},
		{"ellipsis_rank", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("...ijk->i", x) }, "fewer than the 3 labels"},
		{"ellipsis_sizes", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("...i,...i->...", x, x.Transpose()) }, "a ... dimension is 2"},
		{"output", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("ij->iz", x) }, "output label z"},
		{"badlabel", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("i1->i", x) }, "not a label"},
		{"bool", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Einsum("ij,jk->ik", x.Less(x), x.Less(x).Transpose())
		}, "bool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkTraceError(t, c.fn, []any{x}, "diff_einsum_test.go:", "Einsum", c.want)
		})
	}
}

// TestEinsumEllipsis checks "..." against the same contraction written
// with letters (einsumRef) and, with broadcasting, against MatMul.
func TestEinsumEllipsis(t *testing.T) {
	p := newPRNG(5)
	ints := func(shape ...int) ([]int64, *gojit.Array) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		d := make([]int64, n)
		for i := range d {
			d[i] = int64(p.intn(9) - 4)
		}
		return d, gojit.FromInt64(d, shape...)
	}
	ad, a := ints(2, 3, 4)
	bd, b := ints(2, 4, 5)
	cd, c := ints(4, 5)
	want1, _ := einsumRef("bij,bjk->bik", [][]int{{2, 3, 4}, {2, 4, 5}}, [][]int64{ad, bd})
	want2, _ := einsumRef("bij,jk->bik", [][]int{{2, 3, 4}, {4, 5}}, [][]int64{ad, cd})
	want3, _ := einsumRef("bij->j", [][]int{{2, 3, 4}}, [][]int64{ad})
	_, x := ints(2, 1, 3, 4)
	_, y := ints(5, 4, 2)
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(a, b, c, x, y *gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{
				gojit.Einsum("...ij,...jk->...ik", a, b),
				gojit.Einsum("...ij,jk", a, c), // implicit: ...ik
				gojit.Einsum("...j->j", a),
				gojit.Einsum("...ij,...jk->...ik", x, y),
				x.MatMul(y),
			}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(a, b, c, x, y)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range [][]int64{want1, want2, want3, out[4].Int64()} {
			if got := out[i].Int64(); !slices.Equal(got, w) {
				t.Errorf("%d options: output %d = %v, want %v", len(opts), i, got, w)
			}
		}
		if !slices.Equal(out[3].Shape(), []int{2, 5, 3, 2}) {
			t.Errorf("broadcast shape %v, want [2 5 3 2]", out[3].Shape())
		}
	}
}

// TestEinsumTrace checks implicit mode with a repeated label: "ii" is the
// trace (i appears twice, so the output has no labels), as in NumPy.
func TestEinsumTrace(t *testing.T) {
	x := gojit.FromInt64([]int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3)
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			return gojit.Einsum("ii", x), gojit.Einsum("ij->ji", x)
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		if got := out[0].Int64(); len(out[0].Shape()) != 0 || got[0] != 15 {
			t.Errorf("%d options: trace = %v %v, want 15 (a scalar)", len(opts), got, out[0].Shape())
		}
		if got := out[1].Int64(); !slices.Equal(got, []int64{1, 4, 7, 2, 5, 8, 3, 6, 9}) {
			t.Errorf("%d options: transpose = %v", len(opts), got)
		}
	}
}
