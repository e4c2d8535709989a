package bench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

// The peer workloads. Each is written three ways here: a gojit function
// (traced and compiled), a plain Go loop over float32 slices (the
// independent reference every gojit result is checked against, and a
// baseline), and where gonum has the operations, gonum. bench/peers/peers.py
// writes the same computations in NumPy and Numba.

// RowSum sums over the last axis: [R, C] -> [R].
func RowSum(x *gojit.Tensor) *gojit.Tensor { return x.Sum(-1) }

// Softmax is the row softmax of a [R, C] tensor:
// e = exp(x - max(x, -1)); e / sum(e, -1).
func Softmax(x *gojit.Tensor) *gojit.Tensor {
	e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
	return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
}

// LayerNormEps is the epsilon added to the variance in LayerNorm.
const LayerNormEps = 1e-5

// LayerNorm normalizes each row of x [R, C] and applies gamma and beta [C]:
// d = x - mean(x); d / sqrt(mean(d*d) + 1e-5) * gamma + beta.
func LayerNorm(x, gamma, beta *gojit.Tensor) *gojit.Tensor {
	d := x.Sub(x.Reduce(gojit.ReduceMean, true, -1))
	v := d.Mul(d).Reduce(gojit.ReduceMean, true, -1)
	return d.Div(v.Add(gojit.Scalar(LayerNormEps)).Sqrt()).Mul(gamma).Add(beta)
}

// MatMulBiasRelu is relu(a @ b + bias) for a [M, K], b [K, N], bias [N].
func MatMulBiasRelu(a, b, bias *gojit.Tensor) *gojit.Tensor {
	return a.MatMul(b).Add(bias).Relu()
}

// Mix20 is a 20-op graph mixing elementwise, broadcast and reduce ops over
// x, y [R, C] and w, bias [C]. The same 20 steps, in this order, are the
// Go loop (Mix20Loop) and the NumPy and Numba versions in peers.py:
//
//	 1 a  = x * w               11 k   = h * x
//	 2 b  = a + y               12 l   = tanh(y)
//	 3 c  = abs(b)              13 p   = k + l
//	 4 d  = sqrt(c)             14 q   = minimum(p, 0.5)
//	 5 e  = d - y               15 mu  = mean(q, -1)
//	 6 m  = max(e, -1)          16 r   = q - mu
//	 7 f  = e - m               17 u   = r * r
//	 8 g  = exp(f)              18 v   = u * w
//	 9 s  = sum(g, -1)          19 z   = v + bias
//	10 h  = g / s               20 out = maximum(z, r)
//
// Reductions are over the last axis and keep it, so they broadcast back.
func Mix20(x, y, w, bias *gojit.Tensor) *gojit.Tensor {
	e := x.Mul(w).Add(y).Abs().Sqrt().Sub(y)
	g := e.Sub(e.Reduce(gojit.ReduceMax, true, -1)).Exp()
	h := g.Div(g.Reduce(gojit.ReduceSum, true, -1))
	q := h.Mul(x).Add(y.Tanh()).Minimum(gojit.Scalar(0.5))
	r := q.Sub(q.Reduce(gojit.ReduceMean, true, -1))
	return r.Mul(r).Mul(w).Add(bias).Maximum(r)
}

// RowSumLoop is RowSum as a Go loop: a sequential float32 sum per row.
func RowSumLoop(out, x []float32, cols int) {
	for i := range out {
		row := x[i*cols : (i+1)*cols]
		var s float32
		for _, v := range row {
			s += v
		}
		out[i] = s
	}
}

// SoftmaxLoop is Softmax as a Go loop, one row at a time.
func SoftmaxLoop(out, x []float32, cols int) {
	for i := 0; i < len(x); i += cols {
		row, o := x[i:i+cols], out[i:i+cols]
		m := float32(math.Inf(-1))
		for _, v := range row {
			m = max(m, v)
		}
		var s float32
		for j, v := range row {
			e := float32(math.Exp(float64(v - m)))
			o[j] = e
			s += e
		}
		for j := range o {
			o[j] /= s
		}
	}
}

// LayerNormLoop is LayerNorm as a Go loop, one row at a time.
func LayerNormLoop(out, x, gamma, beta []float32) {
	cols := len(gamma)
	n := float32(cols)
	for i := 0; i < len(x); i += cols {
		row, o := x[i:i+cols], out[i:i+cols]
		var s float32
		for _, v := range row {
			s += v
		}
		mean := s / n
		var ss float32
		for _, v := range row {
			d := v - mean
			ss += d * d
		}
		sd := float32(math.Sqrt(float64(ss/n + LayerNormEps)))
		for j, v := range row {
			o[j] = (v-mean)/sd*gamma[j] + beta[j]
		}
	}
}

// MatMulBiasReluLoop is MatMulBiasRelu as a Go loop in i-k-j order (rows
// of b streamed, the inner loop contiguous), then bias and relu per row.
func MatMulBiasReluLoop(out, a, b, bias []float32, m, k int) {
	n := len(bias)
	for i := range m {
		o := out[i*n : (i+1)*n]
		clear(o)
		for p, av := range a[i*k : (i+1)*k] {
			br := b[p*n : (p+1)*n]
			for j, bv := range br {
				o[j] += av * bv
			}
		}
		for j := range o {
			o[j] = max(o[j]+bias[j], 0)
		}
	}
}

// Mix20Loop is Mix20 as a Go loop: the 20 steps row by row, with one
// scratch row (len(w) elements) for the values between reductions.
func Mix20Loop(out, x, y, w, bias, scratch []float32) {
	cols := len(w)
	e := scratch[:cols]
	for i := 0; i < len(x); i += cols {
		xr, yr, o := x[i:i+cols], y[i:i+cols], out[i:i+cols]
		m := float32(math.Inf(-1))
		for j := range e {
			b := xr[j]*w[j] + yr[j]
			e[j] = float32(math.Sqrt(float64(abs32(b)))) - yr[j]
			m = max(m, e[j])
		}
		var s float32
		for j := range e {
			e[j] = float32(math.Exp(float64(e[j] - m)))
			s += e[j]
		}
		var qs float32
		for j := range e {
			q := min(e[j]/s*xr[j]+float32(math.Tanh(float64(yr[j]))), 0.5)
			e[j] = q
			qs += q
		}
		mu := qs / float32(cols)
		for j := range e {
			r := e[j] - mu
			o[j] = max(r*r*w[j]+bias[j], r)
		}
	}
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// Spec sets the sizes of the peer workloads. Rows and columns are
// [rows, cols] pairs.
type Spec struct {
	ChainSizes []int
	RowSum     [2]int
	Softmax    [2]int
	LayerNorm  [2]int
	MatMul     int // square: [n, n] @ [n, n] + bias[n]
	Mix20      [2]int
}

// Only returns spec with the workloads of the kinds not in kinds left out
// (their sizes zero, which Workloads skips); no kinds keeps them all.
func (spec Spec) Only(kinds ...Kind) Spec {
	if len(kinds) == 0 {
		return spec
	}
	keep := func(k Kind) bool { return slices.Contains(kinds, k) }
	if !keep(KindChain5) {
		spec.ChainSizes = nil
	}
	if !keep(KindRowSum) {
		spec.RowSum = [2]int{}
	}
	if !keep(KindSoftmax) {
		spec.Softmax = [2]int{}
	}
	if !keep(KindLayerNorm) {
		spec.LayerNorm = [2]int{}
	}
	if !keep(KindMatMul) {
		spec.MatMul = 0
	}
	if !keep(KindMix20) {
		spec.Mix20 = [2]int{}
	}
	return spec
}

// DefaultSpec is issue 3's sizes.
func DefaultSpec() Spec {
	return Spec{
		ChainSizes: []int{1e3, 1e4, 1e5, 1e6, 1e7},
		RowSum:     [2]int{4096, 4096},
		Softmax:    [2]int{4096, 1024},
		LayerNorm:  [2]int{4096, 1024},
		MatMul:     1024,
		Mix20:      [2]int{4096, 1024},
	}
}

// Kind names a workload's computation; peers.py dispatches on it.
type Kind string

// The workload kinds.
const (
	KindChain5    Kind = "chain5"
	KindRowSum    Kind = "rowsum"
	KindSoftmax   Kind = "softmax"
	KindLayerNorm Kind = "layernorm"
	KindMatMul    Kind = "matmul"
	KindMix20     Kind = "mix20"
)

// Kinds returns every workload kind, in the table's order.
func Kinds() []Kind {
	return []Kind{KindChain5, KindRowSum, KindSoftmax, KindLayerNorm, KindMatMul, KindMix20}
}

// Floor names the gojit streaming kernel a workload's throughput is
// compared with.
type Floor string

// The streaming floors.
const (
	// FloorStream is out = a + b: read two arrays, write one.
	FloorStream Floor = "stream"
	// FloorRead is the sum or the maximum of one array, whichever is
	// faster: read one, write a scalar.
	FloorRead Floor = "read"
	// FloorNone marks a compute-bound workload (matmul), for which memory
	// throughput is not the limit.
	FloorNone Floor = ""
)

// System is one implementation of a workload, measured per call.
type System struct {
	Name string // "gojit", "Go loop", "gonum"
	Note string // such as "f64" when it computes in another dtype
	Run  func(b *testing.B)
}

// Workload is one peer-benchmark workload, ready to measure.
type Workload struct {
	Name  string // unique, e.g. "softmax 4096×1024"
	Kind  Kind
	Shape []int // chain5: [n]; matmul: [n]; others: [rows, cols]
	// Inputs are the operands in call order; peers.py generates the same
	// values from them.
	Inputs []Input
	// Sum is the checksum of the Go loop's output (see OutputSum), which
	// the peers' results are compared with.
	Sum Checksum
	// Bytes is the least memory traffic: each input read once, each output
	// written once.
	Bytes int64
	// Elems is the number of elements of the largest operand, the size
	// the streaming floor kernel runs at.
	Elems int
	Floor Floor
	// Threads, when not 0, is the thread count gojit and the peers run
	// this workload with (a matmul's one-thread line); 0 means every
	// thread (GOMAXPROCS).
	Threads int
	// Peers, when set, are the peer systems worth measuring besides
	// NumPy; nil means all of them. The matmul's one-thread line names
	// PyTorch only: Numba's loops take seconds a call, and numexpr's
	// matmul is NumPy's.
	Peers []string
	// Systems are the Go-side implementations, gojit first. Each was
	// checked against the Go loop when the Workload was made.
	Systems []System
}

// Workloads compiles and checks every workload of spec (those whose
// size is zero are left out). It fails if a
// gojit or gonum result differs from the plain Go loop by more than the
// workload's tolerance (see check).
func Workloads(spec Spec) ([]Workload, error) {
	var ws []Workload
	for _, n := range spec.ChainSizes {
		w, err := chainWorkload(n)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	makers := []struct {
		size int
		mk   func(Spec) (Workload, error)
	}{
		{spec.RowSum[0] * spec.RowSum[1], rowSumWorkload},
		{spec.Softmax[0] * spec.Softmax[1], softmaxWorkload},
		{spec.LayerNorm[0] * spec.LayerNorm[1], layerNormWorkload},
		{spec.MatMul, func(s Spec) (Workload, error) { return matMulWorkload(s, 0) }},
		// The same matmul on one thread, gojit's and the peers' (BLAS
		// targets are set per thread count); only where the default
		// line uses more.
		{spec.MatMul * min(runtime.GOMAXPROCS(0)-1, 1), func(s Spec) (Workload, error) { return matMulWorkload(s, 1) }},
		{spec.Mix20[0] * spec.Mix20[1], mix20Workload},
	}
	for _, m := range makers {
		if m.size == 0 {
			continue // left out of spec (Spec.Only)
		}
		w, err := m.mk(spec)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// gojitRun compiles fn, runs it once into out and returns the measured
// steady-state call (preallocated output, warm cache).
func gojitRun(fn any, out *gojit.Array, args ...any) (func(*testing.B), error) {
	return gojitRunOpts(fn, nil, out, args...)
}

// gojitRunOpts is gojitRun with compile options.
func gojitRunOpts(fn any, opts []gojit.Option, out *gojit.Array, args ...any) (func(*testing.B), error) {
	f, err := gojit.Compile(fn, opts...)
	if err != nil {
		return nil, err
	}
	outs := []*gojit.Array{out}
	if err := f.CallInto(outs, args...); err != nil {
		return nil, err
	}
	return func(tb *testing.B) {
		for tb.Loop() {
			if err := f.CallInto(outs, args...); err != nil {
				tb.Fatal(err)
			}
		}
	}, nil
}

// loop wraps a plain function as a measured call.
func loop(fn func()) func(*testing.B) {
	return func(tb *testing.B) {
		for tb.Loop() {
			fn()
		}
	}
}

func chainWorkload(n int) (Workload, error) {
	ins := []Input{{Shape: []int{n}, Seed: 1}, {Shape: []int{n}, Seed: 2}}
	a, b := ins[0].Data(), ins[1].Data()
	A, B := gojit.FromFloat32(a), gojit.FromFloat32(b)
	out := gojit.New(gojit.Float32, n)
	run, err := gojitRun(Chain5, out, A, B)
	if err != nil {
		return Workload{}, err
	}
	ref := make([]float32, n)
	Chain5Fused(ref, a, b)
	name := fmt.Sprintf("chain5 n=%s", fmtCount(n))
	// Elementwise without transcendental functions: bit-exact.
	if err := check(name, "gojit", out.Float32(), ref, 0, 0); err != nil {
		return Workload{}, err
	}
	a64, b64, o64 := widen(a), widen(b), make([]float64, n)
	gonumChain5(o64, a64, b64)
	if err := check(name, "gonum", narrow(o64), ref, 1e-6, 1e-6); err != nil {
		return Workload{}, err
	}
	return Workload{
		Name: name, Inputs: ins, Sum: OutputSum(ref), Kind: KindChain5, Shape: []int{n}, Bytes: 12 * int64(n), Elems: n, Floor: FloorStream,
		Systems: []System{
			{Name: "gojit", Run: run},
			{Name: "Go loop", Run: loop(func() { Chain5Fused(ref, a, b) })},
			{Name: "gonum", Note: "f64", Run: loop(func() { gonumChain5(o64, a64, b64) })},
		},
	}, nil
}

func rowSumWorkload(spec Spec) (Workload, error) {
	r, c := spec.RowSum[0], spec.RowSum[1]
	ins := []Input{{Shape: []int{r, c}, Seed: 3}}
	x := ins[0].Data()
	X := gojit.FromFloat32(x, r, c)
	out := gojit.New(gojit.Float32, r)
	run, err := gojitRun(RowSum, out, X)
	if err != nil {
		return Workload{}, err
	}
	ref := make([]float32, r)
	RowSumLoop(ref, x, c)
	name := fmt.Sprintf("rowsum %d×%d", r, c)
	// A float32 sum may be reassociated (vectorized, split across
	// threads); each row's error is then bounded by about
	// c·eps32·sum|x|, and in practice is far below sum|x|·1e-5.
	atol := sumAbsBound(x, c) * 1e-5
	if err := check(name, "gojit", out.Float32(), ref, atol, 0); err != nil {
		return Workload{}, err
	}
	x64, o64 := widen(x), make([]float64, r)
	gonumRowSum(o64, x64, c)
	if err := check(name, "gonum", narrow(o64), ref, atol, 0); err != nil {
		return Workload{}, err
	}
	return Workload{
		Name: name, Inputs: ins, Sum: OutputSum(ref), Kind: KindRowSum, Shape: []int{r, c}, Bytes: 4 * int64(r*c+r), Elems: r * c, Floor: FloorRead,
		Systems: []System{
			{Name: "gojit", Run: run},
			{Name: "Go loop", Run: loop(func() { RowSumLoop(ref, x, c) })},
			{Name: "gonum", Note: "f64", Run: loop(func() { gonumRowSum(o64, x64, c) })},
		},
	}, nil
}

func softmaxWorkload(spec Spec) (Workload, error) {
	r, c := spec.Softmax[0], spec.Softmax[1]
	ins := []Input{{Shape: []int{r, c}, Seed: 4, Scale: 4}}
	x := ins[0].Data()
	X := gojit.FromFloat32(x, r, c)
	out := gojit.New(gojit.Float32, r, c)
	run, err := gojitRun(Softmax, out, X)
	if err != nil {
		return Workload{}, err
	}
	ref := make([]float32, r*c)
	SoftmaxLoop(ref, x, c)
	name := fmt.Sprintf("softmax %d×%d", r, c)
	// exp may differ by an ulp (libm vs Go) and the row sum may be
	// reassociated: a relative tolerance of 1e-5 on values near 1/c.
	if err := check(name, "gojit", out.Float32(), ref, 1e-9, 1e-5); err != nil {
		return Workload{}, err
	}
	x64, o64 := widen(x), make([]float64, r*c)
	gonumSoftmax(o64, x64, c)
	if err := check(name, "gonum", narrow(o64), ref, 1e-9, 1e-5); err != nil {
		return Workload{}, err
	}
	return Workload{
		Name: name, Inputs: ins, Sum: OutputSum(ref), Kind: KindSoftmax, Shape: []int{r, c}, Bytes: 8 * int64(r*c), Elems: r * c, Floor: FloorStream,
		Systems: []System{
			{Name: "gojit", Run: run},
			{Name: "Go loop", Run: loop(func() { SoftmaxLoop(ref, x, c) })},
			{Name: "gonum", Note: "f64", Run: loop(func() { gonumSoftmax(o64, x64, c) })},
		},
	}, nil
}

func layerNormWorkload(spec Spec) (Workload, error) {
	r, c := spec.LayerNorm[0], spec.LayerNorm[1]
	ins := []Input{{Shape: []int{r, c}, Seed: 5, Scale: 3}, {Shape: []int{c}, Seed: 6}, {Shape: []int{c}, Seed: 7}}
	x, gamma, beta := ins[0].Data(), ins[1].Data(), ins[2].Data()
	X, G, B := gojit.FromFloat32(x, r, c), gojit.FromFloat32(gamma), gojit.FromFloat32(beta)
	out := gojit.New(gojit.Float32, r, c)
	run, err := gojitRun(LayerNorm, out, X, G, B)
	if err != nil {
		return Workload{}, err
	}
	ref := make([]float32, r*c)
	LayerNormLoop(ref, x, gamma, beta)
	name := fmt.Sprintf("layernorm %d×%d", r, c)
	// Outputs are O(1); mean and variance are float32 sums over a row
	// that may be reassociated.
	if err := check(name, "gojit", out.Float32(), ref, 1e-4, 1e-4); err != nil {
		return Workload{}, err
	}
	x64, g64, b64, o64 := widen(x), widen(gamma), widen(beta), make([]float64, r*c)
	gonumLayerNorm(o64, x64, g64, b64)
	if err := check(name, "gonum", narrow(o64), ref, 1e-4, 1e-4); err != nil {
		return Workload{}, err
	}
	return Workload{
		Name: name, Inputs: ins, Sum: OutputSum(ref), Kind: KindLayerNorm, Shape: []int{r, c}, Bytes: 4 * int64(2*r*c+2*c), Elems: r * c, Floor: FloorStream,
		Systems: []System{
			{Name: "gojit", Run: run},
			{Name: "Go loop", Run: loop(func() { LayerNormLoop(ref, x, gamma, beta) })},
			{Name: "gonum", Note: "f64", Run: loop(func() { gonumLayerNorm(o64, x64, g64, b64) })},
		},
	}, nil
}

// matMulWorkload is the matmul on every thread (threads 0), or on that
// many threads for gojit and the peers, with gojit as its only Go-side
// system (the Go loop and gonum are the default line's).
func matMulWorkload(spec Spec, threads int) (Workload, error) {
	n := spec.MatMul
	ins := []Input{{Shape: []int{n, n}, Seed: 8}, {Shape: []int{n, n}, Seed: 9}, {Shape: []int{n}, Seed: 10}}
	a, b, bias := ins[0].Data(), ins[1].Data(), ins[2].Data()
	A, B, Bias := gojit.FromFloat32(a, n, n), gojit.FromFloat32(b, n, n), gojit.FromFloat32(bias)
	out := gojit.New(gojit.Float32, n, n)
	var opts []gojit.Option
	if threads > 0 {
		opts = append(opts, gojit.WithThreads(threads))
	}
	run, err := gojitRunOpts(MatMulBiasRelu, opts, out, A, B, Bias)
	if err != nil {
		return Workload{}, err
	}
	ref := make([]float32, n*n)
	MatMulBiasReluLoop(ref, a, b, bias, n, n)
	name := fmt.Sprintf("matmul %d×%d +bias relu", n, n)
	if threads > 0 {
		name += fmt.Sprintf(", %d thread", threads)
		if threads > 1 {
			name += "s"
		}
	}
	// Each output is a float32 dot product of length n over values in
	// [-1, 1), accumulated in any order or blocking: its error is below
	// n·eps32·1 ≈ n·6e-8; 1e-5·n leaves room and still catches a lost
	// or doubled term (about 0.3 on average).
	atol := 1e-5 * float64(n)
	if err := check(name, "gojit", out.Float32(), ref, atol, 0); err != nil {
		return Workload{}, err
	}
	w := Workload{
		Name: name, Inputs: ins, Sum: OutputSum(ref), Kind: KindMatMul, Shape: []int{n}, Bytes: 4 * int64(3*n*n+n), Elems: n * n, Floor: FloorNone,
		Threads: threads, Systems: []System{{Name: "gojit", Run: run}},
	}
	if threads > 0 {
		w.Peers = []string{"PyTorch"}
		return w, nil
	}
	g := make([]float32, n*n)
	gonumMatMulBiasRelu(g, a, b, bias, n)
	if err := check(name, "gonum", g, ref, atol, 0); err != nil {
		return Workload{}, err
	}
	w.Systems = append(w.Systems,
		System{Name: "Go loop", Run: loop(func() { MatMulBiasReluLoop(ref, a, b, bias, n, n) })},
		System{Name: "gonum", Note: "blas32", Run: loop(func() { gonumMatMulBiasRelu(g, a, b, bias, n) })},
	)
	return w, nil
}

func mix20Workload(spec Spec) (Workload, error) {
	r, c := spec.Mix20[0], spec.Mix20[1]
	ins := []Input{{Shape: []int{r, c}, Seed: 11}, {Shape: []int{r, c}, Seed: 12}, {Shape: []int{c}, Seed: 13}, {Shape: []int{c}, Seed: 14}}
	x, y, w, bias := ins[0].Data(), ins[1].Data(), ins[2].Data(), ins[3].Data()
	X, Y := gojit.FromFloat32(x, r, c), gojit.FromFloat32(y, r, c)
	W, Bias := gojit.FromFloat32(w), gojit.FromFloat32(bias)
	out := gojit.New(gojit.Float32, r, c)
	run, err := gojitRun(Mix20, out, X, Y, W, Bias)
	if err != nil {
		return Workload{}, err
	}
	ref := make([]float32, r*c)
	scratch := make([]float32, c)
	Mix20Loop(ref, x, y, w, bias, scratch)
	name := fmt.Sprintf("mix20 %d×%d", r, c)
	// exp, tanh and sqrt round once each, the three row reductions may be
	// reassociated; outputs are O(1).
	if err := check(name, "gojit", out.Float32(), ref, 1e-5, 1e-4); err != nil {
		return Workload{}, err
	}
	x64, y64, w64, b64, o64 := widen(x), widen(y), widen(w), widen(bias), make([]float64, r*c)
	s64 := make([]float64, c)
	gonumMix20(o64, x64, y64, w64, b64, s64)
	if err := check(name, "gonum", narrow(o64), ref, 1e-5, 1e-4); err != nil {
		return Workload{}, err
	}
	return Workload{
		Name: name, Inputs: ins, Sum: OutputSum(ref), Kind: KindMix20, Shape: []int{r, c}, Bytes: 4 * int64(3*r*c+2*c), Elems: r * c, Floor: FloorStream,
		Systems: []System{
			{Name: "gojit", Run: run},
			{Name: "Go loop", Run: loop(func() { Mix20Loop(ref, x, y, w, bias, scratch) })},
			{Name: "gonum", Note: "f64", Run: loop(func() { gonumMix20(o64, x64, y64, w64, b64, s64) })},
		},
	}, nil
}

// FloorKernels returns gojit's streaming kernels of the given kind over n
// float32 elements, each measured per call, and the bytes one call moves.
// The floor is the fastest of them: for FloorRead, the sum and the maximum
// of one array (which of the two gojit compiles to the faster loop depends
// on its reduction code generation).
func FloorKernels(kind Floor, n int) ([]func(*testing.B), int64, error) {
	// Inputs as the workloads' (Input.Data): the floor reads the same
	// kind of memory.
	a := gojit.FromFloat32(Input{Shape: []int{n}, Seed: 21}.Data())
	switch kind {
	case FloorStream:
		b := gojit.FromFloat32(Input{Shape: []int{n}, Seed: 22}.Data())
		out := gojit.New(gojit.Float32, n)
		run, err := gojitRun(func(a, b *gojit.Tensor) *gojit.Tensor { return a.Add(b) }, out, a, b)
		if err != nil {
			return nil, 0, err
		}
		return []func(*testing.B){run}, 12 * int64(n), nil
	case FloorRead:
		var runs []func(*testing.B)
		for _, fn := range []func(*gojit.Tensor) *gojit.Tensor{
			func(a *gojit.Tensor) *gojit.Tensor { return a.Sum() },
			func(a *gojit.Tensor) *gojit.Tensor { return a.Max() },
		} {
			run, err := gojitRun(fn, gojit.New(gojit.Float32), a)
			if err != nil {
				return nil, 0, err
			}
			runs = append(runs, run)
		}
		return runs, 4 * int64(n), nil
	}
	return nil, 0, fmt.Errorf("unknown streaming floor %q", kind)
}

// check compares got with want element by element:
// |got-want| <= atol + rtol·|want|, and NaN only where want is NaN.
func check(workload, system string, got, want []float32, atol, rtol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %s gave %d values, the Go loop %d", workload, system, len(got), len(want))
	}
	for i, g := range got {
		w := float64(want[i])
		d := math.Abs(float64(g) - w)
		if d <= atol+rtol*math.Abs(w) || (math.IsNaN(w) && math.IsNaN(float64(g))) {
			continue
		}
		return fmt.Errorf("%s: %s[%d] = %v, Go loop %v (tolerance %g + %g·|want|)", workload, system, i, g, w, atol, rtol)
	}
	return nil
}

// sumAbsBound is the largest sum of |x| over a row of cols elements.
func sumAbsBound(x []float32, cols int) float64 {
	var worst float64
	for i := 0; i < len(x); i += cols {
		var s float64
		for _, v := range x[i : i+cols] {
			s += math.Abs(float64(v))
		}
		worst = max(worst, s)
	}
	return worst
}

func widen(s []float32) []float64 {
	d := make([]float64, len(s))
	for i, v := range s {
		d[i] = float64(v)
	}
	return d
}

func narrow(s []float64) []float32 {
	d := make([]float32, len(s))
	for i, v := range s {
		d[i] = float32(v)
	}
	return d
}

// fmtCount writes n as 1e6 when it is a power of ten, else in digits.
func fmtCount(n int) string {
	e := 0
	for m := n; m >= 10 && m%10 == 0; m /= 10 {
		e++
	}
	if n > 1 && n == int(math.Pow10(e)) {
		return fmt.Sprintf("1e%d", e)
	}
	return fmt.Sprint(n)
}

// Input is one generated float32 operand: HashFloat32 values times Scale
// (1 when 0) in the given shape.
type Input struct {
	Shape []int   `json:"shape"`
	Seed  uint32  `json:"seed"`
	Scale float32 `json:"scale,omitempty"`
}

// Data returns the operand's values. An operand of hugeMinBytes or more
// lies in memory the kernel is asked to back with 2 MiB pages
// (hugeFloat32), as NumPy places every array that large, and so every
// peer's inputs: the Go side then reads the same kind of memory as the
// peers do.
func (in Input) Data() []float32 {
	n := 1
	for _, d := range in.Shape {
		n *= d
	}
	s := fillHash(hugeFloat32(n), in.Seed)
	if in.Scale != 0 {
		for i := range s {
			s[i] *= in.Scale
		}
	}
	return s
}

// HashFloat32 returns n pseudo-random values in [-1, 1) that are simple
// to reproduce exactly in another language (peers.py does, with NumPy):
// element i is h/2^31 - 1 in float64, rounded to float32, where h is the
// 32-bit integer hash lowbias32(i + seed·0x9E3779B9), all arithmetic mod 2^32.
func HashFloat32(n int, seed uint32) []float32 {
	return fillHash(make([]float32, n), seed)
}

// fillHash sets s[i] to HashFloat32's element i and returns s.
func fillHash(s []float32, seed uint32) []float32 {
	for i := range s {
		h := uint32(i) + seed*0x9E3779B9
		h ^= h >> 16
		h *= 0x7feb352d
		h ^= h >> 15
		h *= 0x846ca68b
		h ^= h >> 16
		s[i] = float32(float64(h)/(1<<31) - 1)
	}
	return s
}

// Checksum summarizes an output for comparing implementations that round
// differently: Sum is sum(out[i]·w[i]) and Abs is sum(|out[i]|·w[i]) in
// float64, with weights w[i] = i mod 7 + 1 so that misplaced elements
// change it.
type Checksum struct {
	Sum float64 `json:"sum"`
	Abs float64 `json:"abs"`
}

// OutputSum is the Checksum of out.
func OutputSum(out []float32) Checksum {
	var c Checksum
	for i, v := range out {
		w := float64(i%7 + 1)
		c.Sum += float64(v) * w
		c.Abs += math.Abs(float64(v)) * w
	}
	return c
}

// ChecksumTol is the relative tolerance of Checksum.Agrees.
const ChecksumTol = 1e-5

// Agrees reports whether c, from another implementation, matches want:
// |c.Sum - want.Sum| <= ChecksumTol·want.Abs. Float32 rounding in any
// order moves each term by far less than that; a wrong formula, operand or
// element does not.
func (c Checksum) Agrees(want Checksum) bool {
	return math.Abs(c.Sum-want.Sum) <= ChecksumTol*want.Abs
}
