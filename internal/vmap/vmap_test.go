package vmap

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
)

func parse(t *testing.T, body string) *ir.Graph {
	t.Helper()
	g, err := ir.Parse("graph {\n" + body + "\n}\n")
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	return g
}

// fill returns n random elements of dt.
func fill(r *rand.Rand, dt ir.DType, n int) any {
	s := interp.NewSlice(dt, n)
	v := reflect.ValueOf(s)
	for i := range n {
		switch dt {
		case ir.Bool:
			v.Index(i).SetBool(r.IntN(2) == 1)
		case ir.Uint8, ir.Int32, ir.Int64:
			v.Index(i).SetInt(int64(r.IntN(7)))
			if dt == ir.Uint8 {
				v.Index(i).SetUint(uint64(r.IntN(7)))
			}
		default:
			v.Index(i).SetFloat(float64(r.IntN(2000))/100 - 10)
		}
	}
	return s
}

// part returns elements [i*size, (i+1)*size) of slice s.
func part(s any, i, size int) any {
	return reflect.ValueOf(s).Slice(i*size, (i+1)*size).Interface()
}

// cat concatenates slices of one type.
func cat(parts []any) any {
	v := reflect.ValueOf(parts[0])
	for _, p := range parts[1:] {
		v = reflect.AppendSlice(v, reflect.ValueOf(p))
	}
	return v.Interface()
}

// TestBatchAgainstPerSample: the batched graph, run once by the
// interpreter on a batch, gives bit for bit what the per-sample graph
// gives run on each sample; the keyed graph's values, computed per sample
// from each sample's key, feed it.
func TestBatchAgainstPerSample(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"mixed", `%0 = param 0 : f32[4,5]
  %1 = const 2 : f32[5]
  %2 = broadcast %1 : f32[4,5]
  %3 = add %0, %2 : f32[4,5]
  %4 = const 0.5 : f32[4,5]
  %5 = mul %3, %4 : f32[4,5]
  %6 = reduce_sum %5 axes=[1] : f32[4]
  %7 = transpose %5 axes=[1,0] : f32[5,4]
  %8 = slice %7 starts=[1,0] steps=[2,1] : f32[2,4]
  %9 = concat %8, %8 axes=[0] : f32[4,4]
  %10 = argmax %0 axes=[1] : i64[4]
  %11 = cast %10 : f32[4]
  %12 = lt %6, %11 : bool[4]
  %13 = where %12, %6, %11 : f32[4]
  %14 = reshape %0 : f32[20]
  %15 = matmul %0, %7 : f32[4,4]
  %16 = broadcast %13 : f32[4,4]
  %17 = add %16, %15 : f32[4,4]
  %18 = add %17, %9 : f32[4,4]
  %19 = iota axes=[0] : i32[3]
  %20 = const 1 : f32[5,3]
  %21 = matmul %0, %20 : f32[4,3]
  return %18, %14, %19, %21`},
		{"layout", `%0 = param 0 : i32[3]
  %1 = broadcast %0 : i32[2,3]
  %2 = cumsum %1 axes=[1] : i32[2,3]
  %3 = sort %2 axes=[0] : i32[2,3]
  %4 = const 1 : i32[2]
  %5 = take %3, %4 axes=[1] : i32[2,2]
  %6 = const 0 : i64[2,2]
  %7 = take_along_axis %3, %6 axes=[1] : i32[2,2]
  %8 = add %5, %7 : i32[2,2]
  %9 = const 1 : i32[]
  %10 = dynamic_slice %3, %9, %9 : i32[1,2]
  %11 = const 1 : i32[2]
  %12 = scatter_add %2, %11, %1 axes=[0] : i32[2,3]
  %13 = argsort %12 axes=[1] : i64[2,3]
  return %8, %10, %12, %13`},
		{"keyed", `%0 = param 0 : f32[2,3]
  %1 = param 1 : i32[2]
  %2 = random_uniform %1 : f32[2,3]
  %3 = add %0, %2 : f32[2,3]
  %4 = split_key %1 : i32[2,2]
  %5 = slice %4 starts=[1,0] steps=[1,1] : i32[1,2]
  %6 = reshape %5 : i32[2]
  %7 = random_normal %6 : f32[3]
  %8 = const 0 : f32[3]
  %9 = lt %7, %8 : bool[3]
  %10 = broadcast %9 : bool[2,3]
  %11 = where %10, %3, %0 : f32[2,3]
  %12 = random_uniform %1 : f32[4]
  return %11, %12`},
		{"keyed integers", `%0 = param 0 : i64[2]
  %1 = param 1 : i32[2]
  %2 = split_key %1 : i32[3,2]
  %3 = cast %0 : i32[2]
  %4 = reshape %3 : i32[1,2]
  %5 = broadcast %4 : i32[3,2]
  %6 = add %2, %5 : i32[3,2]
  %7 = random_uniform %1 : f64[2]
  %8 = const 1e15 : f64[2]
  %9 = mul %7, %8 : f64[2]
  %10 = const -5e14 : f64[2]
  %11 = add %9, %10 : f64[2]
  %12 = cast %11 : i64[2]
  %13 = add %0, %12 : i64[2]
  return %6, %13`},
		{"take at per-sample indices", `%0 = param 0 : i32[3,4,2]
  %1 = const 4 : i32[2,3]
  %2 = slice %0 starts=[0,0,0] steps=[1,1,1] : i32[2,3,1]
  %3 = reshape %2 : i32[2,3]
  %4 = mod %3, %1 : i32[2,3]
  %5 = take %0, %4 axes=[1] : i32[3,2,3,2]
  %6 = const 2 : i32[2,3]
  %7 = mod %3, %6 : i32[2,3]
  %8 = take %0, %7 axes=[2] : i32[3,4,2,3]
  %9 = take %0, %7 axes=[0] : i32[2,3,4,2]
  return %5, %8, %9`},
		{"scatter at per-sample indices", `%0 = param 0 : f32[3,4]
  %1 = argmax %0 axes=[1] : i64[3]
  %2 = const 2 : i64[3]
  %3 = sub %1, %2 : i64[3]
  %4 = reshape %3 : i64[3,1]
  %5 = broadcast %4 : i64[3,2]
  %6 = const 1.5 : f32[3,3,2]
  %7 = scatter_add %0, %5, %6 axes=[1] : f32[3,4]
  %8 = cast %3 : i32[3]
  %9 = const 1 : f32[3,4]
  %10 = scatter_add %0, %8, %9 axes=[0] : f32[3,4]
  return %7, %10`},
		{"dynamic slice at per-sample starts", `%0 = param 0 : i32[5,4,2]
  %1 = slice %0 starts=[0,0,0] steps=[1,1,1] : i32[1,1,1]
  %2 = reshape %1 : i32[]
  %3 = const 3 : i32[]
  %4 = sub %2, %3 : i32[]
  %5 = cast %2 : u8[]
  %6 = const 1 : i64[]
  %7 = dynamic_slice %0, %4, %5, %6 : i32[2,3,1]
  %8 = dynamic_slice %0, %5, %6, %4 : i32[3,4,2]
  return %7, %8`},
		{"cond", `%0 = param 0 : f32[2,2]
  %1 = reduce_sum %0 axes=[0,1] : f32[]
  %2 = const 0 : f32[]
  %3 = lt %1, %2 : bool[]
  %4 = const 1.5 : f32[]
  %5 = cond %3, %0, %4 : (f32[2,2], f32[]) {
    %0 = param 0 : f32[2,2]
    %1 = param 1 : f32[]
    %2 = neg %0 : f32[2,2]
    %3 = gt %1, %1 : bool[]
    %4 = cond %3, %0 : (f32[2,2]) {
      %0 = param 0 : f32[2,2]
      return %0
    } {
      %0 = param 0 : f32[2,2]
      %1 = exp %0 : f32[2,2]
      return %1
    }
    %5 = get %4 0 : f32[2,2]
    %6 = add %2, %5 : f32[2,2]
    return %6, %1
  } {
    %0 = param 0 : f32[2,2]
    %1 = param 1 : f32[]
    %2 = reduce_max %0 axes=[1] : f32[2]
    %3 = reduce_max %2 axes=[0] : f32[]
    return %0, %3
  }
  %6 = get %5 0 : f32[2,2]
  %7 = get %5 1 : f32[]
  return %6, %7`},
		{"loop", `%0 = param 0 : f32[3]
  %1 = const 0 : i32[]
  %2 = const 0 : f32[3]
  %3 = const 2 : f32[3]
  %4 = while %1, %2, %0, %3 : (i32[], f32[3]) {
    %0 = param 0 : i32[]
    %1 = param 1 : f32[3]
    %2 = param 2 : f32[3]
    %3 = param 3 : f32[3]
    %4 = const 4 : i32[]
    %5 = lt %0, %4 : bool[]
    return %5
  } {
    %0 = param 0 : i32[]
    %1 = param 1 : f32[3]
    %2 = param 2 : f32[3]
    %3 = param 3 : f32[3]
    %4 = const 1 : i32[]
    %5 = add %0, %4 : i32[]
    %6 = mul %1, %3 : f32[3]
    %7 = add %6, %2 : f32[3]
    return %5, %7
  }
  %5 = get %4 1 : f32[3]
  %6 = get %4 0 : i32[]
  return %5, %6`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := parse(t, tc.body)
			p, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			const n = 3
			r := rand.New(rand.NewPCG(1, 2))
			x := g.Node(g.Params[0])
			xs := fill(r, x.DType, n*x.Shape.Size())
			var keys []int32
			for range 2 * n {
				keys = append(keys, int32(r.Uint32()))
			}
			// Per sample.
			want := make([][]any, len(g.Outputs))
			for i := range n {
				in := []any{part(xs, i, x.Shape.Size())}
				if len(g.Params) == 2 {
					in = append(in, keys[2*i:2*i+2])
				}
				outs, err := interp.Run(g, in)
				if err != nil {
					t.Fatal(err)
				}
				for j, o := range outs {
					want[j] = append(want[j], o)
				}
			}
			// Batched, with the keyed values computed per sample.
			b, err := p.Batch(n)
			if err != nil {
				t.Fatal(err)
			}
			in := []any{xs}
			if kg := p.Keyed(); kg != nil {
				var drawn []float32
				for i := range n {
					o, err := interp.Run(kg, []any{keys[2*i : 2*i+2]})
					if err != nil {
						t.Fatal(err)
					}
					if len(o[0].([]float32)) != p.PerSample() {
						t.Fatalf("keyed graph gives %d values, PerSample %d", len(o[0].([]float32)), p.PerSample())
					}
					drawn = append(drawn, o[0].([]float32)...)
				}
				in = append(in, drawn)
			} else if p.PerSample() != 0 {
				t.Fatal("per-sample values without a keyed graph")
			}
			got, err := interp.Run(b, in)
			if err != nil {
				t.Fatalf("%v\n%s", err, ir.Print(b, false))
			}
			for j := range got {
				if w := cat(want[j]); !reflect.DeepEqual(got[j], w) {
					t.Errorf("output %d: batched %v, per sample %v", j, got[j], w)
				}
			}
		})
	}
}

// TestNoRule: ops without a batching rule are refused with a reason that
// names them.
func TestNoRule(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`%0 = param 0 : f32[4]
  %1 = param 1 : i32[2]
  %2 = cast %0 : i32[4]
  %3 = slice %2 starts=[0] steps=[1] : i32[2]
  %4 = random_uniform %3 : f32[4]
  return %4`, "its key depends on the sample"},
		{`%0 = param 0 : f32[4]
  %1 = param 1 : i32[2]
  %2 = random_uniform %1 : f64[4]
  %3 = cast %0 : f64[4]
  %4 = add %2, %3 : f64[4]
  return %4`, "float32 draws carry only"},
		{`%0 = param 0 : f32[4]
  %1 = reduce_sum %0 axes=[0] : f32[]
  %2 = const 0 : f32[]
  %3 = lt %1, %2 : bool[]
  %4 = const 1 : i64[1]
  %5 = cond %3, %0, %4 : (f32[1]) {
    %0 = param 0 : f32[4]
    %1 = param 1 : i64[1]
    %2 = take %0, %1 axes=[0] : f32[1]
    return %2
  } {
    %0 = param 0 : f32[4]
    %1 = param 1 : i64[1]
    %2 = slice %0 starts=[0] steps=[1] : f32[1]
    return %2
  }
  %6 = get %5 0 : f32[1]
  return %6`, "a branch has a take"},
		{`%0 = param 0 : f32[4]
  %1 = const 0 : i32[]
  %2 = while %0, %1 : (f32[4], i32[]) {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = reduce_sum %0 axes=[0] : f32[]
    %3 = const 100 : f32[]
    %4 = lt %2, %3 : bool[]
    return %4
  } {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = add %0, %0 : f32[4]
    %3 = const 1 : i32[]
    %4 = add %1, %3 : i32[]
    return %2, %4
  }
  %3 = get %2 0 : f32[4]
  return %3`, "the loop's condition depends on the sample"},
	} {
		_, err := New(parse(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New: %v, want an error containing %q", err, tc.want)
		}
	}
}

// TestConstantControlFlow: control flow over constants alone is copied
// unbatched and broadcast where it meets the sample.
func TestConstantControlFlow(t *testing.T) {
	g := parse(t, `%0 = param 0 : f32[4]
  %1 = const true : bool[]
  %2 = const 1 : f32[4]
  %3 = cond %1, %2 : (f32[4]) {
    %0 = param 0 : f32[4]
    return %0
  } {
    %0 = param 0 : f32[4]
    %1 = neg %0 : f32[4]
    return %1
  }
  %4 = get %3 0 : f32[4]
  %5 = add %0, %4 : f32[4]
  return %5`)
	p, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Batch(2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(b, []any{[]float32{1, 2, 3, 4, 5, 6, 7, 8}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{2, 3, 4, 5, 6, 7, 8, 9}; fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got[0], want)
	}
}

// TestDrawsBeforeBroadcast: a value drawn from the key crosses to the
// stage before it is broadcast to the sample's shape: the draws carry 3
// values per sample, not 12.
func TestDrawsBeforeBroadcast(t *testing.T) {
	p, err := New(parse(t, `%0 = param 0 : f32[4,3]
  %1 = param 1 : i32[2]
  %2 = random_uniform %1 : f32[3]
  %3 = broadcast %2 : f32[4,3]
  %4 = mul %0, %3 : f32[4,3]
  return %4`))
	if err != nil {
		t.Fatal(err)
	}
	if p.PerSample() != 3 {
		t.Errorf("PerSample %d, want 3", p.PerSample())
	}
}

// TestScatterOutOfRange: an index out of range in one sample fails the
// batched run, as it fails that sample's run; in range everywhere
// (negative ones too), the run succeeds.
func TestScatterOutOfRange(t *testing.T) {
	g := parse(t, `%0 = param 0 : f32[3]
  %1 = slice %0 starts=[0] steps=[1] : f32[1]
  %2 = cast %1 : i32[1]
  %3 = const 1 : f32[1]
  %4 = scatter_add %0, %2, %3 axes=[0] : f32[3]
  return %4`)
	p, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Batch(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		x  []float32
		ok bool
	}{{[]float32{1, 0, 0, -3, 0, 0}, true}, {[]float32{1, 0, 0, 3, 0, 0}, false}, {[]float32{-4, 0, 0, 0, 0, 0}, false}} {
		_, err := interp.Run(b, []any{tc.x})
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ir.ErrIndexOutOfRange) {
			t.Errorf("x %v: %v, want ok %v", tc.x, err, tc.ok)
		}
	}
}
