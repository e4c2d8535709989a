package passes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
)

// The property every pass must have: the interpreter, which defines the
// IR's semantics, computes bit-identical outputs (any NaN equal to any
// other) from the graph before and after it, on inputs full of the values
// where floating point identities fail (±0, NaN, ±Inf, extreme integers).

var (
	allDTypes  = []ir.DType{ir.Bool, ir.Uint8, ir.Int32, ir.Int64, ir.Float32, ir.Float64}
	genShapes  = []ir.Shape{{}, {1}, {4}, {3, 1}, {1, 4}, {3, 4}, {2, 3, 4}, {2, 1, 4}, {0, 4}, {2, 3, 1}}
	specialF   = []float64{0, math.Copysign(0, -1), 1, -1, 2, 0.5, 0.25, -2, 3, -7, 255, 1e10, 1e-40, math.NaN(), math.Inf(1), math.Inf(-1)}
	specialI   = []int64{0, 1, -1, 2, 3, -7, 255, 256, 1<<24 + 1, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	unaryOps   = []ir.Op{ir.OpNeg, ir.OpAbs, ir.OpExp, ir.OpLog, ir.OpSqrt, ir.OpRsqrt, ir.OpSin, ir.OpCos, ir.OpTanh, ir.OpSigmoid, ir.OpFloor, ir.OpCeil, ir.OpRound}
	binaryOps  = []ir.Op{ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpPow, ir.OpMax, ir.OpMin, ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe}
	reduceOps  = []ir.Op{ir.OpReduceSum, ir.OpReduceProd, ir.OpReduceMax, ir.OpReduceMin, ir.OpArgMax, ir.OpArgMin}
	genMaxOps  = 24
	genMaxTry  = 200
	genInputs  = 3 // input sets per graph
	inputSeeds = uint64(0x9e3779b97f4a7c15)
)

// genGraph builds a random valid graph from rng. It favours the patterns
// the passes rewrite: constants of special values next to the value they
// combine with, an op applied to its own result, x op x.
func genGraph(rng *rand.Rand) *ir.Graph {
	g := &ir.Graph{}
	for range 1 + rng.IntN(3) {
		g.AddParam(allDTypes[rng.IntN(len(allDTypes))], genShapes[rng.IntN(len(genShapes))].Clone(), "")
	}
	pick := func() ir.Value {
		// prefer recent values
		n := len(g.Nodes)
		if rng.IntN(3) > 0 {
			return ir.Value(n - 1 - rng.IntN(min(n, 3)))
		}
		return ir.Value(rng.IntN(n))
	}
	constLike := func(v ir.Value) ir.Value {
		n := g.Node(v)
		c := ir.Const{F: specialF[rng.IntN(len(specialF))], I: specialI[rng.IntN(len(specialI))]}
		if n.DType == ir.Bool {
			c.I &= 1
		}
		if rng.IntN(2) == 0 { // the constants identities are about
			c.F = specialF[rng.IntN(4)]  // ±0, ±1
			c.I = int64(rng.IntN(3)) - 1 // 0, 1, -1
		}
		r, _ := g.Add(ir.Node{Op: ir.OpConst, DType: n.DType, Shape: n.Shape.Clone(), Const: c})
		return r
	}
	for added, tries := 0, 0; added < genMaxOps && tries < genMaxTry; tries++ {
		a := pick()
		an := *g.Node(a)
		var n ir.Node
		switch rng.IntN(12) {
		case 0:
			constLike(a)
			added++
			continue
		case 1, 2:
			n = ir.Node{Op: unaryOps[rng.IntN(len(unaryOps))], Args: []ir.Value{a}}
			if an.Op.Kind() == ir.KindUnary && rng.IntN(2) == 0 { // the same or a related op again
				n.Op = []ir.Op{an.Op, ir.OpNeg, ir.OpAbs, ir.OpFloor, ir.OpRound}[rng.IntN(5)]
			}
		case 3:
			n = ir.Node{Op: ir.OpCast, DType: allDTypes[rng.IntN(len(allDTypes))], Args: []ir.Value{a}}
			if an.Op == ir.OpCast && rng.IntN(2) == 0 { // a round trip
				n.DType = g.Node(an.Args[0]).DType
			}
		case 4, 5, 6:
			var b ir.Value
			switch rng.IntN(3) {
			case 0:
				b = constLike(a)
			case 1:
				b = a
			default:
				b = pick()
			}
			args := []ir.Value{a, b}
			if rng.IntN(4) == 0 {
				args[0], args[1] = b, a
			}
			n = ir.Node{Op: binaryOps[rng.IntN(len(binaryOps))], Args: args}
		case 7:
			c := pick()
			if g.Node(c).DType != ir.Bool {
				c = constLike(a)
				g.Nodes[c].DType = ir.Bool
				g.Nodes[c].Const.I &= 1
			}
			n = ir.Node{Op: ir.OpWhere, Args: []ir.Value{c, a, pick()}}
			if rng.IntN(3) == 0 {
				n.Args[2] = a
			}
		case 8:
			op := reduceOps[rng.IntN(len(reduceOps))]
			var axes []int
			for ax := range an.Shape.Rank() {
				if rng.IntN(2) == 0 {
					axes = append(axes, ax)
				}
			}
			if op == ir.OpArgMax || op == ir.OpArgMin {
				axes = []int{rng.IntN(max(an.Shape.Rank(), 1))}
			}
			n = ir.Node{Op: op, Args: []ir.Value{a}, Axes: axes}
		case 9, 10:
			n = genLayout(rng, g, a)
		default:
			switch rng.IntN(3) {
			case 0:
				if r := an.Shape.Rank(); r >= 2 {
					perm := make([]int, r)
					for i := range perm {
						perm[i] = i
					}
					perm[r-1], perm[r-2] = r-2, r-1
					t, err := g.Add(ir.Node{Op: ir.OpTranspose, Args: []ir.Value{a}, Axes: perm})
					if err == nil {
						n = ir.Node{Op: ir.OpMatMul, Args: []ir.Value{a, t}}
					}
				}
			case 1:
				s := genShapes[rng.IntN(len(genShapes))].Clone()
				if len(s) > 0 {
					n = ir.Node{Op: ir.OpIota, DType: allDTypes[1+rng.IntN(len(allDTypes)-1)], Shape: s, Axes: []int{rng.IntN(len(s))}}
				}
			default:
				n = ir.Node{Op: ir.OpConcat, Args: []ir.Value{a, pick()}, Axes: []int{0}}
			}
		}
		if n.Op == ir.OpInvalid {
			continue
		}
		if _, err := g.Add(n); err == nil {
			added++
		}
	}
	// Most values nothing reads are outputs, so a wrong rewrite anywhere
	// shows; the rest are dead code.
	users := g.Users()
	for v := range g.Nodes {
		if len(users[v]) == 0 && g.Nodes[v].Op != ir.OpParam && rng.IntN(4) > 0 {
			g.Outputs = append(g.Outputs, ir.Value(v))
		}
	}
	g.Outputs = append(g.Outputs, pick())
	return g
}

// genLayout returns a random layout op over a.
func genLayout(rng *rand.Rand, g *ir.Graph, a ir.Value) ir.Node {
	an := g.Node(a)
	s := an.Shape
	switch rng.IntN(4) {
	case 0: // reshape: flatten, or add or drop unit dims
		var to ir.Shape
		switch rng.IntN(3) {
		case 0:
			to = ir.Shape{s.Size()}
		case 1:
			to = append(ir.Shape{1}, s...)
		default:
			for _, d := range s {
				if d != 1 {
					to = append(to, d)
				}
			}
		}
		return ir.Node{Op: ir.OpReshape, Shape: to, Args: []ir.Value{a}}
	case 1:
		perm := rng.Perm(s.Rank())
		if perm == nil {
			perm = []int{}
		}
		return ir.Node{Op: ir.OpTranspose, Args: []ir.Value{a}, Axes: perm}
	case 2:
		to := s.Clone()
		for i := range to {
			if to[i] == 1 {
				to[i] = 1 + rng.IntN(3)
			}
		}
		if rng.IntN(2) == 0 {
			to = append(ir.Shape{2}, to...)
		}
		return ir.Node{Op: ir.OpBroadcast, Shape: to, Args: []ir.Value{a}}
	default:
		r := s.Rank()
		n := ir.Node{Op: ir.OpSlice, Args: []ir.Value{a}, Starts: make([]int, r), Steps: make([]int, r), Shape: make(ir.Shape, r)}
		for i, d := range s {
			if d == 0 {
				n.Steps[i] = 1
				continue
			}
			n.Starts[i] = rng.IntN(d)
			n.Steps[i] = 1 + rng.IntN(2)
			n.Shape[i] = (d-n.Starts[i]+n.Steps[i]-1)/n.Steps[i] - rng.IntN(2)
			n.Shape[i] = max(n.Shape[i], 0)
		}
		return n
	}
}

// genInput returns data for a value of dtype dt and size n, mostly special
// values.
func genInput(rng *rand.Rand, dt ir.DType, n int) any {
	s := interp.NewSlice(dt, n)
	for i := range n {
		f := specialF[rng.IntN(len(specialF))]
		k := specialI[rng.IntN(len(specialI))]
		if rng.IntN(3) == 0 {
			f = rng.NormFloat64() * 4
			k = int64(rng.IntN(21)) - 10
		}
		switch x := s.(type) {
		case []bool:
			x[i] = k&1 != 0
		case []uint8:
			x[i] = uint8(k)
		case []int32:
			x[i] = int32(k)
		case []int64:
			x[i] = k
		case []float32:
			x[i] = float32(f)
		case []float64:
			x[i] = f
		}
	}
	return s
}

// sameBits reports whether two interpreter slices hold the same values bit
// for bit, any NaN matching any NaN, and describes the first difference.
func sameBits(x, y any) (bool, string) {
	switch a := x.(type) {
	case []float32:
		b := y.([]float32)
		for i := range a {
			if !(a[i] != a[i] && b[i] != b[i]) && math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				return false, fmt.Sprintf("element %d: %v vs %v", i, a[i], b[i])
			}
		}
		return len(a) == len(b), "lengths"
	case []float64:
		b := y.([]float64)
		for i := range a {
			if !(a[i] != a[i] && b[i] != b[i]) && math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false, fmt.Sprintf("element %d: %v vs %v", i, a[i], b[i])
			}
		}
		return len(a) == len(b), "lengths"
	}
	return fmt.Sprint(x) == fmt.Sprint(y), fmt.Sprintf("%v vs %v", x, y)
}

// checkEquivalent runs before and after in the interpreter on random
// inputs and fails t unless every output is bit-identical.
func checkEquivalent(t testing.TB, before, after *ir.Graph, seed uint64) {
	t.Helper()
	if err := sameInterface(before, after); err != nil {
		t.Fatalf("%v\nbefore:\n%s\nafter:\n%s", err, before, after)
	}
	rng := rand.New(rand.NewPCG(seed, inputSeeds))
	for range genInputs {
		in := make([]any, len(before.Params))
		for i, p := range before.Params {
			n := before.Node(p)
			in[i] = genInput(rng, n.DType, n.Shape.Size())
		}
		want, err := interp.Run(before, in)
		if err != nil {
			t.Fatalf("interpreter on the graph before: %v\n%s", err, before)
		}
		got, err := interp.Run(after, in)
		if err != nil {
			t.Fatalf("interpreter on the graph after: %v\n%s", err, after)
		}
		for i := range want {
			if ok, diff := sameBits(want[i], got[i]); !ok {
				t.Fatalf("output %d differs: %s\ninputs: %v\nbefore:\n%s\nafter:\n%s", i, diff, in, before, after)
			}
		}
	}
}

// TestOptimizePreservesSemantics is the property test: random graphs give
// the same results before and after the whole pipeline and after each pass
// alone, and every intermediate graph verifies.
func TestOptimizePreservesSemantics(t *testing.T) {
	graphs := 1500
	if testing.Short() {
		graphs = 300
	}
	changed := 0
	passChanged := make(map[string]int)
	for seed := range uint64(graphs) {
		g := genGraph(rand.New(rand.NewPCG(seed, 1)))
		if err := ir.Verify(g); err != nil {
			t.Fatalf("seed %d: generator made an invalid graph: %v\n%s", seed, err, g)
		}
		orig := ir.Print(g, true)
		opt, err := Optimize(g, Options{Verify: true})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, g)
		}
		if ir.Print(g, true) != orig {
			t.Fatalf("seed %d: Optimize modified its input", seed)
		}
		checkEquivalent(t, g, opt, seed)
		live, _ := ir.Compact(g)
		if len(opt.Nodes) < len(live.Nodes) {
			changed++
		}
		for _, p := range Passes() {
			one, err := p.Run(g)
			if err != nil {
				t.Fatalf("seed %d: %s alone: %v", seed, p.Name, err)
			}
			if err := ir.Verify(one); err != nil {
				t.Fatalf("seed %d: %s alone made an invalid graph: %v\n%s", seed, p.Name, err, one)
			}
			checkEquivalent(t, g, one, seed)
			if c, _ := ir.Compact(one); ir.Print(c, false) != ir.Print(live, false) {
				passChanged[p.Name]++
			}
		}
	}
	// The generator is built to hit the rewrites; if it stops doing so the
	// test has gone blind.
	if changed < graphs/4 {
		t.Errorf("only %d of %d random graphs lost live nodes", changed, graphs)
	}
	for _, name := range []string{"fold", "simplify", "cse"} {
		if passChanged[name] < graphs/10 {
			t.Errorf("%s changed only %d of %d random graphs", name, passChanged[name], graphs)
		}
	}
	t.Logf("%d of %d random graphs lost live nodes; changed by each pass alone: %v", changed, graphs, passChanged)
}

// FuzzOptimize is the property test driven by the fuzzer's seeds.
func FuzzOptimize(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42} {
		f.Add(s, s*7)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		g := genGraph(rand.New(rand.NewPCG(a, b)))
		opt, err := Optimize(g, Options{Verify: true})
		if err != nil {
			t.Fatalf("%v\n%s", err, g)
		}
		checkEquivalent(t, g, opt, a^b)
	})
}

// randFor returns a deterministic generator for seed.
func randFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, inputSeeds)) }
