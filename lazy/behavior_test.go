package lazy

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
)

func newCtx(t *testing.T, opts ...Option) *Context {
	t.Helper()
	c, err := NewContext(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustF32(t *testing.T, x *Tensor) []float32 {
	t.Helper()
	v, err := x.Float32()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// GT2 hashed op names and input counts only, so two batches with the same
// ops wired differently shared a compiled function. Here they must not.
func TestWiringGetsItsOwnKernel(t *testing.T) {
	c := newCtx(t)
	a, b := []float32{1, 2, 3}, []float32{10, 20, 30}
	before := Stats()
	x, y := c.FromFloat32(a), c.FromFloat32(b)
	first := mustF32(t, x.Add(y).Mul(x)) // (a+b)*a
	x, y = c.FromFloat32(a), c.FromFloat32(b)
	second := mustF32(t, x.Add(y).Mul(y)) // (a+b)*b: same op names and input count
	after := Stats()
	for i := range a {
		if want := (a[i] + b[i]) * a[i]; first[i] != want {
			t.Fatalf("first batch [%d] = %v, want %v", i, first[i], want)
		}
		if want := (a[i] + b[i]) * b[i]; second[i] != want {
			t.Fatalf("second batch [%d] = %v, want %v", i, second[i], want)
		}
	}
	if n := after.CacheMisses - before.CacheMisses; n != 2 {
		t.Fatalf("%d cache misses for two differently wired batches, want 2 (one kernel each)", n)
	}
	// The same wiring again is a hit.
	x, y = c.FromFloat32(a), c.FromFloat32(b)
	_ = mustF32(t, x.Add(y).Mul(y))
	if n := Stats().CacheHits - after.CacheHits; n != 1 {
		t.Fatalf("%d hits for a repeated batch, want 1", n)
	}
}

func TestKeyIsExact(t *testing.T) {
	// Graphs that differ only in a constant, a shape or an attribute
	// have different keys.
	g := func(v float64, n int, axis int) *ir.Graph {
		var g ir.Graph
		p, _ := g.AddParam(ir.Float32, ir.Shape{n, 3}, "")
		k, _ := g.Add(ir.Node{Op: ir.OpConst, DType: ir.Float32, Shape: ir.Shape{n, 3}, Const: ir.Const{F: v}})
		s, _ := g.Add(ir.Node{Op: ir.OpAdd, Args: []ir.Value{p, k}})
		r, err := g.Add(ir.Node{Op: ir.OpReduceSum, Args: []ir.Value{s}, Axes: []int{axis}})
		if err != nil {
			t.Fatal(err)
		}
		g.Outputs = []ir.Value{r}
		return &g
	}
	base := string(key(nil, g(1, 2, 0), true))
	for name, other := range map[string]*ir.Graph{"constant": g(2, 2, 0), "shape": g(1, 4, 0), "axis": g(1, 2, 1)} {
		if string(key(nil, other, true)) == base {
			t.Errorf("graphs differing in %s have the same key", name)
		}
	}
	if string(key(nil, g(1, 2, 0), true)) != base {
		t.Error("equal graphs have different keys")
	}
}

var lineRE = regexp.MustCompile(`behavior_test\.go:\d+`)

func TestErrorsNameOpAndLine(t *testing.T) {
	c := newCtx(t)
	x, y := c.FromFloat32([]float32{1, 2, 3}), c.FromFloat32([]float32{1, 2})
	bad := x.Add(y) // the line reported
	err := bad.Err()
	if err == nil || !strings.Contains(err.Error(), "Add") || !lineRE.MatchString(err.Error()) || !strings.Contains(err.Error(), "broadcast") {
		t.Fatalf("Err() = %v; want the op (Add), this file's line and the problem", err)
	}
	dep := bad.Mul(x).Sum()
	if _, err2 := dep.Item(); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("reading a dependent: %v, want the original error %v", err2, err)
	}
	// Valid work of the same Context is unaffected.
	if v, err := x.Sum().Item(); err != nil || v != 6 {
		t.Fatalf("x.Sum() = %v, %v", v, err)
	}
	// Sync reports errors no read returned.
	other := x.Reshape(7)
	_ = other
	if err := c.Sync(); err == nil || !strings.Contains(err.Error(), "Reshape") {
		t.Fatalf("Sync() = %v, want the Reshape error", err)
	}
	if err := c.Sync(); err != nil {
		t.Fatalf("second Sync() = %v, want nil (errors are reported once)", err)
	}
}

func TestMixingContextsIsAnError(t *testing.T) {
	c1, c2 := newCtx(t), newCtx(t)
	r := c1.FromFloat32([]float32{1}).Add(c2.FromFloat32([]float32{2}))
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "another lazy.Context") || !lineRE.MatchString(err.Error()) {
		t.Fatalf("Err() = %v", err)
	}
}

func TestDeadIntermediatesAreNotComputed(t *testing.T) {
	c := newCtx(t)
	a, b := c.FromFloat32([]float32{1, 2}), c.FromFloat32([]float32{3, 4})
	_ = a.Add(b).Exp().Sin() // never read
	d := a.Mul(b)
	before := Stats()
	got := mustF32(t, d)
	if got[0] != 3 || got[1] != 8 {
		t.Fatalf("got %v", got)
	}
	if n := Stats().OpsCompiled + Stats().OpsInterpreted - before.OpsCompiled - before.OpsInterpreted; n != 1 {
		t.Fatalf("the flush ran %d nodes, want 1 (the Mul alone)", n)
	}
}

func TestSharedValuesStayResident(t *testing.T) {
	c := newCtx(t)
	a := c.FromFloat32([]float32{0, 1})
	x := a.Exp()
	y := x.Add(Scalar(1))
	z := x.Mul(Scalar(2)) // uses x too, recorded before the read of y
	if got := mustF32(t, y); got[1] != float32(math.E)+1 {
		t.Fatalf("y = %v", got)
	}
	before := Stats()
	if got := mustF32(t, z); got[1] != 2*float32(math.E) {
		t.Fatalf("z = %v", got)
	}
	ran := Stats().OpsCompiled + Stats().OpsInterpreted - before.OpsCompiled - before.OpsInterpreted
	if ran != 2 { // the constant 2 and the Mul: Exp is not recomputed
		t.Fatalf("z's flush ran %d nodes, want 2 (x stayed resident)", ran)
	}
}

func TestFreeFlushesDependents(t *testing.T) {
	c := newCtx(t)
	a := c.FromFloat32([]float32{1, 2, 3})
	s := a.Mul(a).Sum()
	before := Stats()
	a.Free()
	if Stats().FlushFree-before.FlushFree != 1 {
		t.Fatal("Free of a tensor with pending users did not flush")
	}
	if v, err := s.Item(); err != nil || v != 14 {
		t.Fatalf("s = %v, %v", v, err)
	}
	if err := a.Sum().Err(); err == nil || !errors.Is(err, errFreed) {
		t.Fatalf("using a freed tensor: %v", err)
	}
}

func TestFallbackToInterpreter(t *testing.T) {
	var log bytes.Buffer
	c := newCtx(t, WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	compileHook = func(*ir.Graph) error { return errors.New("injected compile failure") }
	defer func() { compileHook = nil }()
	before := Stats()
	for i := range 3 {
		x := c.FromFloat32([]float32{1, 2, 3, float32(i)})
		// A pattern no other test uses, so that it misses the cache.
		got, err := x.Sub(Scalar(0.25)).Abs().Sum().Item()
		if err != nil {
			t.Fatal(err)
		}
		if want := 0.75 + 1.75 + 2.75 + math.Abs(float64(i)-0.25); got != want {
			t.Fatalf("iteration %d: %v, want %v", i, got, want)
		}
	}
	after := Stats()
	if after.Fallbacks-before.Fallbacks != 1 || after.OpsInterpreted == before.OpsInterpreted {
		t.Fatalf("fallbacks %d, interpreted ops %d", after.Fallbacks-before.Fallbacks, after.OpsInterpreted-before.OpsInterpreted)
	}
	if n := strings.Count(log.String(), "compiling a batch failed"); n != 1 {
		t.Fatalf("%d warnings, want one per signature:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "injected compile failure") {
		t.Fatalf("the warning does not say why:\n%s", log.String())
	}
}

// A loop that never reads: the batch size cuts it, at a point of the
// pattern that does not depend on the loop's offset, so from the second
// cut on every batch is a cache hit.
func TestStraddlingPatternHitsTheCache(t *testing.T) {
	for _, batch := range []int{10, 16, 23, 40} {
		c := newCtx(t, WithBatchSize(batch))
		w := c.FromFloat32([]float32{0.5, -1, 2})
		ref := []float32{0.5, -1, 2}
		var misses []int64
		for it := range 40 {
			before := Stats().CacheMisses
			// 7 ops, 13 nodes per iteration
			w = w.Mul(Scalar(0.9)).Add(Scalar(0.1)).Tanh().Mul(Scalar(1.5)).Sub(Scalar(0.01)).Maximum(Scalar(-1)).Minimum(Scalar(1))
			for i, v := range ref {
				ref[i] = min(max(float32(math.Tanh(float64(v*0.9+0.1)))*1.5-0.01, -1), 1)
			}
			misses = append(misses, Stats().CacheMisses-before)
			_ = it
		}
		got := mustF32(t, w)
		for i := range ref {
			if math.Abs(float64(got[i]-ref[i])) > 1e-5 {
				t.Fatalf("batch %d: w[%d] = %v, want %v", batch, i, got[i], ref[i])
			}
		}
		total, late := int64(0), int64(0)
		for i, m := range misses {
			total += m
			if i >= 10 {
				late += m
			}
		}
		// The first batch starts where the loop does and the second
		// carries what the first cut left; from the third on, batches
		// start at the cut point of the pattern with the same carry and
		// repeat. A batch shorter than the pattern (13 nodes: each op
		// with a scalar records its constant too) settles into a cycle of several.
		limit := int64(3)
		if batch < 13 {
			limit = 12
		}
		if total > limit || late != 0 {
			t.Fatalf("batch size %d: misses per iteration %v; want no miss after iteration 10 and at most %d in all", batch, misses, limit)
		}
		t.Logf("batch %d: misses per iteration %v", batch, misses)
		if Stats().FlushBatch == 0 {
			t.Fatal("no batch-size flush happened")
		}
	}
}

func TestVaryingLeadingDimension(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Log("without LLVM every size is interpreted; checking results only")
	}
	c := newCtx(t)
	wdata := []float32{1, -2, 0.5, 3, -1, 2, 0.25, 1, -0.5, 2, 1, -3}
	before := Stats()
	for _, n := range []int{32, 17, 32, 5, 9, 24, 3} {
		xdata := make([]float32, n*4)
		for i := range xdata {
			xdata[i] = float32(i%7) - 3
		}
		x, w := c.FromFloat32(xdata, n, 4), c.FromFloat32(wdata, 4, 3)
		y := x.MatMul(w).Add(Scalar(0.5)).Relu().Sum(1)
		got := mustF32(t, y)
		if len(got) != n {
			t.Fatalf("size %d: %d results", n, len(got))
		}
		for i := range n {
			want := float32(0)
			for j := range 3 {
				s := float32(0)
				for k := range 4 {
					s += xdata[i*4+k] * wdata[k*3+j]
				}
				want += max(s+0.5, 0)
			}
			if got[i] != want {
				t.Fatalf("size %d row %d: %v, want %v", n, i, got[i], want)
			}
		}
	}
	after := Stats()
	if gojit.LLVMVersion() != "" && !c.interpret {
		if m := after.CacheMisses - before.CacheMisses; m > 2 {
			t.Fatalf("6 sizes compiled %d kernels, want at most 2 (%s)", m, after.LastMiss)
		}
		if after.DynamicKernels-before.DynamicKernels != 1 {
			t.Fatalf("%d dynamic kernels, want 1", after.DynamicKernels-before.DynamicKernels)
		}
	}
}

func TestLogNamesReasonAndLine(t *testing.T) {
	var log bytes.Buffer
	c := newCtx(t, WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	x := c.FromFloat32([]float32{1, 2})
	_, _ = x.Neg().Item()
	if !strings.Contains(log.String(), "reason=read") || !lineRE.MatchString(log.String()) {
		t.Fatalf("log does not name the reason and this file's line:\n%s", log.String())
	}
	log.Reset()
	e := x.Exp() // kept alive: Sync computes only live tensors
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(e)
	if !strings.Contains(log.String(), "reason=sync") || !lineRE.MatchString(log.String()) {
		t.Fatalf("log does not name the reason and this file's line:\n%s", log.String())
	}
}

func TestStatsExplainMiss(t *testing.T) {
	c := newCtx(t)
	x := c.FromFloat32([]float32{1, 2, 3})
	_, _ = x.Mul(Scalar(3)).Sum().Item()
	_, _ = x.Mul(Scalar(3)).Prod().Item()
	s := Stats()
	if !strings.Contains(s.LastMiss, "reduce_prod") && !strings.Contains(s.LastMiss, "prod") {
		t.Fatalf("LastMiss = %q; want it to name the differing node", s.LastMiss)
	}
	if s.Flushes() == 0 || s.MaxOpsPerFlush < s.MinOpsPerFlush || s.AvgOpsPerFlush <= 0 || s.HitRate() < 0 || s.HitRate() > 1 {
		t.Fatalf("inconsistent stats: %+v", s)
	}
}

// GOJIT_LOG=lazy, read by the root package's logger setup, logs each flush
// to standard error. The variable is read once per process, so the check
// runs in a child process.
func TestEnvLogLazy(t *testing.T) {
	if os.Getenv("LAZY_LOG_CHILD") == "1" {
		x := FromFloat32([]float32{1, 2, 3})
		if _, err := x.Sum().Item(); err != nil {
			t.Fatal(err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvLogLazy$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LAZY_LOG_CHILD=1", "GOJIT_LOG=lazy")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "lazy: flush") || !strings.Contains(string(out), "reason=read") || !lineRE.MatchString(string(out)) {
		t.Fatalf("GOJIT_LOG=lazy did not log the flush with its reason and line:\n%s", out)
	}
}

func TestDescribe(t *testing.T) {
	c := newCtx(t)
	x := c.FromInt32([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := x.Mul(Scalar(2)).Transpose()
	if y.DType() != gojit.Int32 || !slicesEqual(y.Shape(), []int{3, 2}) || y.Rank() != 2 {
		t.Fatalf("y: %s %v rank %d", y.DType(), y.Shape(), y.Rank())
	}
	if s := y.String(); s != "lazy.Tensor(i32[3,2] pending)" {
		t.Fatalf("String() = %q", s)
	}
	got, err := y.Int32()
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(got, []int32{2, 8, 4, 10, 6, 12}) {
		t.Fatalf("y = %v", got)
	}
	if s := y.String(); s != "lazy.Tensor(i32[3,2] computed)" {
		t.Fatalf("String() = %q", s)
	}
	if _, err := y.Float32(); err == nil {
		t.Fatal("Float32 of an Int32 tensor did not fail")
	}
	if _, err := y.Item(); err == nil {
		t.Fatal("Item of 6 elements did not fail")
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The engine's cache may evict a kernel lazy holds; the next batch
// rebuilds it (from the disk cache when possible) and stays correct.
func TestEvictedKernelIsRebuilt(t *testing.T) {
	c := newCtx(t)
	run := func() float64 {
		x := c.FromFloat32([]float32{1, 2, 3, 4})
		v, err := x.Mul(x).Add(Scalar(0.5)).Sum().Item()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := run(); v != 32 {
		t.Fatalf("got %v, want 32", v)
	}
	gojit.PurgeCache()
	if v := run(); v != 32 {
		t.Fatalf("after eviction: got %v, want 32", v)
	}
}

func TestBatchSizeOptionAndEnv(t *testing.T) {
	if _, err := NewContext(WithBatchSize(0)); err == nil {
		t.Fatal("WithBatchSize(0) accepted")
	}
	if _, err := NewContext(nil); err == nil {
		t.Fatal("a nil option accepted")
	}
	t.Setenv(EnvBatchSize, "3")
	c := newCtx(t)
	before := Stats().FlushBatch
	x := c.FromFloat32([]float32{1})
	for range 4 {
		x = x.Neg()
	}
	if Stats().FlushBatch == before {
		t.Fatalf("%s=3: no batch-size flush after 4 ops", EnvBatchSize)
	}
	if v, err := x.Item(); err != nil || v != 1 {
		t.Fatalf("x = %v, %v", v, err)
	}
}

// A family sliced along its varying axis with fixed bounds: the engine
// builds its dynamic kernel or, if the code depends on the size in a way
// it does not support, lazy compiles each size; either way the results
// are right and the log says which.
func TestVaryingSizeSlicedAxis(t *testing.T) {
	var log bytes.Buffer
	c := newCtx(t, WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	before := Stats()
	defer func() {
		if t.Failed() || c.interpret || gojit.LLVMVersion() == "" {
			return
		}
		s := Stats()
		dyn, misses := s.DynamicKernels-before.DynamicKernels, s.CacheMisses-before.CacheMisses
		refused := strings.Contains(log.String(), "no dynamic kernel")
		if refused && (dyn != 0 || misses != 3) || !refused && (dyn != 1 || misses > 2) {
			t.Fatalf("dynamic kernels %d, misses %d, refusal logged %v", dyn, misses, refused)
		}
	}()
	for _, n := range []int{10, 12, 14} {
		data := make([]float32, n*2)
		for i := range data {
			data[i] = float32(i)
		}
		x := c.FromFloat32(data, n, 2)
		got, err := x.Slice([]int{3, 0}, []int{7, 2}).Sum().Item()
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i := 6; i < 14; i++ {
			want += float64(i)
		}
		if got != want {
			t.Fatalf("size %d: %v, want %v", n, got, want)
		}
	}
}

func TestConstantsScalarsAndPackageOps(t *testing.T) {
	c := newCtx(t)
	// Weak scalars alone fold, as in gojit.
	if v, err := Scalar(2).Add(Scalar(3)).Item(); err != nil || v != 5 {
		t.Fatalf("Scalar(2)+Scalar(3) = %v, %v", v, err)
	}
	// Full and Iota make tensors of the Context; an invalid Full is an
	// error naming the call and this file's line.
	bad := c.Full(gojit.Int32, 2.5, 3)
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "Full") || !lineRE.MatchString(err.Error()) {
		t.Fatalf("Full(Int32, 2.5).Err() = %v", err)
	}
	io := c.Iota(gojit.Int32, 0, 4)
	x := c.FromInt32([]int32{5, -1, 7, 0})
	// Where and Concat over a computed tensor (a retired graph) and
	// pending ones.
	if _, err := x.Sum().Item(); err != nil {
		t.Fatal(err)
	}
	sel := Where(x.Greater(io), x, io.Neg())
	cat := Concat(0, sel, io, x.Mul(Scalar(2)))
	got, err := cat.Int32()
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{5, -1, 7, -3, 0, 1, 2, 3, 10, -2, 14, 0}
	if !slicesEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Promotion is gojit's: Int32 with a fractional weak scalar is
	// Float32.
	if dt := x.Mul(Scalar(0.5)).DType(); dt != gojit.Float32 {
		t.Fatalf("Int32 * Scalar(0.5) is %s, want f32", dt)
	}
}

func TestFromChecksShapeAndCopies(t *testing.T) {
	c := newCtx(t)
	if err := c.FromFloat32([]float32{1, 2, 3}, 2, 2).Err(); err == nil || !lineRE.MatchString(err.Error()) {
		t.Fatalf("3 elements for shape [2,2]: %v", err)
	}
	big := make([]float32, 1<<15) // large enough to come from the buffer pool
	for i := range big {
		big[i] = 1
	}
	x := c.FromFloat32(big)
	s := x.Sum()
	big[0] = 1000 // FromFloat32 copied: the pending sum does not see it
	if v, err := s.Item(); err != nil || v != 1<<15 {
		t.Fatalf("sum = %v, %v; want %d", v, err, 1<<15)
	}
}

// TestIndexErrorOwnLine: two batches that differ only in the lines that
// recorded them share one kernel; an out-of-range index must be reported
// at the line of the batch that met it, not of the one that built the
// kernel. Both errors match the interpreter's.
func TestIndexErrorOwnLine(t *testing.T) {
	lines := make([]int, 2)
	take := func(k int, idx []int32) error {
		x := FromFloat32([]float32{1, 2, 3, 4}, 4)
		i := FromInt32(idx, 2)
		var y *Tensor
		if k == 0 {
			_, _, lines[0], _ = runtime.Caller(0)
			y = x.Take(i, 0).Mul(Scalar(3))
		} else {
			_, _, lines[1], _ = runtime.Caller(0)
			y = x.Take(i, 0).Mul(Scalar(3))
		}
		_, err := y.Float32()
		return err
	}
	for _, k := range []int{0, 1, 0} {
		err := take(k, []int32{0, int32(7 + k)})
		want := fmt.Sprintf("behavior_test.go:%d: Take: index %d at indices[1] is out of range", lines[k]+1, 7+k)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("batch %d: error %v, want one containing %q", k, err, want)
		}
		if !errors.Is(err, gojit.ErrIndexOutOfRange) {
			t.Errorf("batch %d: error %v does not wrap ErrIndexOutOfRange", k, err)
		}
	}
}
