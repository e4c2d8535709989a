package passes

import (
	"slices"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

func TestFuse(t *testing.T) {
	for _, tc := range []struct {
		name, graph string
		want        string // Plan.String()
	}{
		{
			name: "elementwise chain is one group",
			graph: `graph {
  %0 = param 0 : f32[8]
  %1 = param 1 : f32[8]
  %2 = add %0, %1 : f32[8]
  %3 = exp %2 : f32[8]
  %4 = mul %3, %0 : f32[8]
  return %4
}`,
			want: "group 0 -> %4 (mul): %2 %3 %4\n",
		},
		{
			name: "producers fuse into the reduction",
			graph: `graph {
  %0 = param 0 : f32[4,8]
  %1 = exp %0 : f32[4,8]
  %2 = reduce_sum %1 axes=[1] : f32[4]
  %3 = const 2 : f32[4]
  %4 = mul %2, %3 : f32[4]
  return %4
}`,
			want: "group 0 -> %2 (reduce_sum): %1 %2\ngroup 1 -> %4 (mul): %4\n",
		},
		{
			name: "a value two groups use is materialized",
			graph: `graph {
  %0 = param 0 : f32[4,8]
  %1 = exp %0 : f32[4,8]
  %2 = reduce_sum %1 axes=[1] : f32[4]
  %3 = broadcast %2 : f32[8,4]
  %4 = transpose %1 axes=[1,0] : f32[8,4]
  %5 = div %4, %3 : f32[8,4]
  return %5
}`,
			want: "group 0 -> %1 (exp): %1\ngroup 1 -> %2 (reduce_sum): %2\ngroup 2 -> %5 (div): %3 %4 %5\n",
		},
		{
			name: "matmul operands are materialized",
			graph: `graph {
  %0 = param 0 : f32[4,8]
  %1 = param 1 : f32[8,4]
  %2 = neg %1 : f32[8,4]
  %3 = matmul %0, %2 : f32[4,4]
  %4 = const 0 : f32[4,4]
  %5 = max %3, %4 : f32[4,4]
  return %5
}`,
			want: "group 0 -> %2 (neg): %2\ngroup 1 -> %5 (max): %3 %5\n",
		},
		{
			name: "bias and relu are the matmul's epilogue",
			graph: `graph {
  %0 = param 0 : f32[4,8]
  %1 = param 1 : f32[8,4]
  %2 = param 2 : f32[4]
  %3 = matmul %0, %1 : f32[4,4]
  %4 = broadcast %2 : f32[4,4]
  %5 = add %3, %4 : f32[4,4]
  %6 = const 0 : f32[4,4]
  %7 = max %5, %6 : f32[4,4]
  return %7
}`,
			want: "group 0 -> %7 (max): %3 %4 %5 %7\n",
		},
		{
			name: "a matmul that is an output, or another group reads, is its own group",
			graph: `graph {
  %0 = param 0 : f32[4,4]
  %1 = matmul %0, %0 : f32[4,4]
  %2 = neg %1 : f32[4,4]
  %3 = matmul %0, %0 : f32[4,4]
  %4 = exp %3 : f32[4,4]
  %5 = reduce_sum %3 axes=[1] : f32[4]
  return %1, %2, %4, %5
}`,
			want: "group 0 -> %1 (matmul): %1\ngroup 1 -> %2 (neg): %2\ngroup 2 -> %3 (matmul): %3\ngroup 3 -> %4 (exp): %4\ngroup 4 -> %5 (reduce_sum): %5\n",
		},
		{
			name: "an epilogue that changes the dtype or the layout is its own group",
			graph: `graph {
  %0 = param 0 : f32[4,4]
  %1 = matmul %0, %0 : f32[4,4]
  %2 = cast %1 : f64[4,4]
  %3 = matmul %0, %0 : f32[4,4]
  %4 = transpose %3 axes=[1,0] : f32[4,4]
  %5 = neg %4 : f32[4,4]
  return %2, %5
}`,
			want: "group 0 -> %1 (matmul): %1\ngroup 1 -> %2 (cast): %2\ngroup 2 -> %3 (matmul): %3\ngroup 3 -> %5 (neg): %4 %5\n",
		},
		{
			name: "one matmul per epilogue",
			graph: `graph {
  %0 = param 0 : f32[4,4]
  %1 = matmul %0, %0 : f32[4,4]
  %2 = transpose %0 axes=[1,0] : f32[4,4]
  %3 = matmul %2, %0 : f32[4,4]
  %4 = add %1, %3 : f32[4,4]
  return %4
}`,
			want: "group 0 -> %1 (matmul): %1\ngroup 1 -> %2 (transpose): %2\ngroup 2 -> %4 (add): %3 %4\n",
		},
		{
			name: "an expensive value is not recomputed per broadcast copy",
			graph: `graph {
  %0 = param 0 : f32[8]
  %1 = exp %0 : f32[8]
  %2 = broadcast %1 : f32[16,8]
  %3 = param 1 : f32[16,8]
  %4 = add %2, %3 : f32[16,8]
  return %4
}`,
			want: "group 0 -> %1 (exp): %1\ngroup 1 -> %4 (add): %2 %4\n",
		},
		{
			name: "a stretched sum of index terms is recomputed, not kept in memory",
			graph: `graph {
  %0 = param 0 : i32[4,1,1]
  %1 = param 1 : i32[1,8,1]
  %2 = broadcast %0 : i32[4,8,1]
  %3 = broadcast %1 : i32[4,8,1]
  %4 = const 3 : i32[4,8,1]
  %5 = mul %3, %4 : i32[4,8,1]
  %6 = add %2, %5 : i32[4,8,1]
  %7 = broadcast %6 : i32[4,8,3]
  %8 = iota axes=[2] : i32[4,8,3]
  %9 = add %7, %8 : i32[4,8,3]
  %10 = param 2 : f32[4,8,1]
  %11 = exp %10 : f32[4,8,1]
  %12 = broadcast %11 : f32[4,8,3]
  %13 = cast %9 : f32[4,8,3]
  %14 = add %12, %13 : f32[4,8,3]
  return %14
}`,
			want: "group 0 -> %11 (exp): %11\ngroup 1 -> %14 (add): %2 %3 %5 %6 %7 %9 %12 %13 %14\n",
		},
		{
			name: "layout ops over a reduction are index maps, not copies",
			graph: `graph {
  %0 = param 0 : f32[2,3]
  %1 = reduce_max %0 axes=[1] : f32[2]
  %2 = reshape %1 : f32[2,1]
  %3 = broadcast %2 : f32[2,3]
  %4 = sub %0, %3 : f32[2,3]
  return %4
}`,
			want: "group 0 -> %1 (reduce_max): %1\ngroup 1 -> %4 (sub): %2 %3 %4\n",
		},
		{
			name: "constants are recomputed wherever used",
			graph: `graph {
  %0 = param 0 : f32[8]
  %1 = const 1 : f32[8]
  %2 = add %0, %1 : f32[8]
  %3 = reduce_sum %2 axes=[0] : f32[]
  %4 = sub %0, %1 : f32[8]
  return %3, %4
}`,
			want: "group 0 -> %3 (reduce_sum): %2 %3\ngroup 1 -> %4 (sub): %4\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ir.Parse(tc.graph)
			if err != nil {
				t.Fatal(err)
			}
			p := Fuse(g)
			if got := p.String(); got != tc.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, tc.want)
			}
			// Every root is materialized and every materialized non-param
			// value is a root.
			for v, m := range p.Materialized {
				isRoot := slices.Contains(p.Roots, ir.Value(v))
				if m != (isRoot || g.Nodes[v].Op == ir.OpParam) {
					t.Errorf("%%%d: materialized=%v root=%v", v, m, isRoot)
				}
			}
		})
	}
}

func TestRowNests(t *testing.T) {
	for _, tc := range []struct {
		name, graph string
		want        string // Plan.String()
	}{
		{
			name: "softmax is one nest with row-local intermediates",
			graph: `graph {
  %0 = param 0 : f32[16,8]
  %1 = reduce_max %0 axes=[1] : f32[16]
  %2 = reshape %1 : f32[16,1]
  %3 = broadcast %2 : f32[16,8]
  %4 = sub %0, %3 : f32[16,8]
  %5 = exp %4 : f32[16,8]
  %6 = reduce_sum %5 axes=[1] : f32[16]
  %7 = reshape %6 : f32[16,1]
  %8 = broadcast %7 : f32[16,8]
  %9 = div %5, %8 : f32[16,8]
  return %9
}`,
			want: "group 0 -> %1 (reduce_max): %1\ngroup 1 -> %5 (exp): %2 %3 %4 %5\ngroup 2 -> %6 (reduce_sum): %6\ngroup 3 -> %9 (div): %7 %8 %9\nnest: 0* 1* 2* 3\n",
		},
		{
			name: "a layout op over a parameter used by two groups is recomputed, not copied",
			graph: `graph {
  %0 = param 0 : f32[16,16]
  %1 = reshape %0 : f32[16,2,8]
  %2 = reduce_max %1 axes=[2] : f32[16,2]
  %3 = reduce_sum %1 axes=[1] : f32[16,8]
  return %2, %3
}`,
			want: "group 0 -> %2 (reduce_max): %2\ngroup 1 -> %3 (reduce_sum): %3\n",
		},
		{
			name: "layer norm is one nest, per-row scalars included",
			graph: `graph {
  %0 = param 0 : f32[16,8]
  %1 = param 1 : f32[8]
  %2 = reduce_sum %0 axes=[1] : f32[16]
  %3 = const 0.125 : f32[16]
  %4 = mul %2, %3 : f32[16]
  %5 = reshape %4 : f32[16,1]
  %6 = broadcast %5 : f32[16,8]
  %7 = sub %0, %6 : f32[16,8]
  %8 = mul %7, %7 : f32[16,8]
  %9 = reduce_sum %8 axes=[1] : f32[16]
  %10 = mul %9, %3 : f32[16]
  %11 = reshape %10 : f32[16,1]
  %12 = rsqrt %11 : f32[16,1]
  %13 = broadcast %12 : f32[16,8]
  %14 = mul %7, %13 : f32[16,8]
  %15 = broadcast %1 : f32[16,8]
  %16 = mul %14, %15 : f32[16,8]
  return %16
}`,
			want: "group 0 -> %2 (reduce_sum): %2\ngroup 1 -> %5 (reshape): %4 %5\ngroup 2 -> %7 (sub): %6 %7\ngroup 3 -> %9 (reduce_sum): %8 %9\ngroup 4 -> %12 (rsqrt): %10 %11 %12\ngroup 5 -> %16 (mul): %13 %14 %15 %16\nnest: 0* 1* 2* 3* 4* 5\n",
		},
		{
			name: "a value read across rows starts a new nest",
			graph: `graph {
  %0 = param 0 : f32[16,8]
  %1 = reduce_sum %0 axes=[1] : f32[16]
  %2 = reshape %1 : f32[16,1]
  %3 = transpose %0 axes=[1,0] : f32[8,16]
  %4 = reshape %3 : f32[16,8]
  %5 = broadcast %2 : f32[16,8]
  %6 = add %4, %5 : f32[16,8]
  return %6
}`,
			want: "group 0 -> %1 (reduce_sum): %1\ngroup 1 -> %6 (add): %2 %3 %4 %5 %6\nnest: 0* 1\n",
		},
		{
			name: "a reduction result read whole by every row is not row-local",
			graph: `graph {
  %0 = param 0 : f32[16,8]
  %1 = reduce_sum %0 axes=[0] : f32[8]
  %2 = broadcast %1 : f32[16,8]
  %3 = mul %0, %2 : f32[16,8]
  return %3
}`,
			want: "group 0 -> %1 (reduce_sum): %1\ngroup 1 -> %3 (mul): %2 %3\n",
		},
		{
			name: "an output of the nest stays in memory; short rows do not nest",
			graph: `graph {
  %0 = param 0 : f32[16,8]
  %1 = reduce_max %0 axes=[1] : f32[16]
  %2 = reshape %1 : f32[16,1]
  %3 = broadcast %2 : f32[16,8]
  %4 = sub %0, %3 : f32[16,8]
  %5 = param 1 : f32[16,4]
  %6 = reduce_sum %5 axes=[1] : f32[16]
  %7 = reshape %6 : f32[16,1]
  %8 = broadcast %7 : f32[16,4]
  %9 = div %5, %8 : f32[16,4]
  return %1, %4, %9
}`,
			want: "group 0 -> %1 (reduce_max): %1\ngroup 1 -> %4 (sub): %2 %3 %4\ngroup 2 -> %6 (reduce_sum): %6\ngroup 3 -> %9 (div): %7 %8 %9\nnest: 0 1\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ir.Parse(tc.graph)
			if err != nil {
				t.Fatal(err)
			}
			p := Fuse(g)
			if got := p.String(); got != tc.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, tc.want)
			}
			// The nests partition the groups in execution order.
			var order []int
			for _, n := range p.Nests {
				order = append(order, n...)
			}
			for i, gi := range order {
				if gi != i {
					t.Fatalf("nests %v do not list the groups in order", p.Nests)
				}
			}
			if len(order) != len(p.Roots) {
				t.Fatalf("nests %v cover %d of %d groups", p.Nests, len(order), len(p.Roots))
			}
		})
	}
}
