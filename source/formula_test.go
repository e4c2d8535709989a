package source

import (
	"bytes"
	"errors"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gojit/gojit"
)

var fShopSchema = map[string]gojit.DType{
	"price": gojit.Float64, "qty": gojit.Float64, "discount": gojit.Float64,
	"tax": gojit.Float64, "fee": gojit.Float64, "n": gojit.Int64,
}

const fShopFormula = "price*qty*(1-discount) + tax*price - fee"

func fShopRow(price, qty, discount, tax, fee float64) float64 {
	return price*qty*(1-discount) + tax*price - fee
}

// shopColumns returns n rows of the shop columns and the formula's value
// for each, computed by a plain Go loop.
func fShopColumns(n int) (map[string]*gojit.Array, []float64) {
	cols := map[string][]float64{}
	for _, name := range []string{"price", "qty", "discount", "tax", "fee"} {
		cols[name] = make([]float64, n)
	}
	want := make([]float64, n)
	for i := range n {
		p, q, d, t, f := float64(i%97)+0.25, float64(i%7+1), float64(i%5)/10, 0.07, float64(i%3)
		cols["price"][i], cols["qty"][i], cols["discount"][i], cols["tax"][i], cols["fee"][i] = p, q, d, t, f
		want[i] = fShopRow(p, q, d, t, f)
	}
	arrays := map[string]*gojit.Array{"n": gojit.FromInt64(make([]int64, n))}
	for name, c := range cols {
		arrays[name] = gojit.FromFloat64(c)
	}
	return arrays, want
}

func fMust(t testing.TB, src string, schema map[string]gojit.DType, opts ...Option) *Formula {
	t.Helper()
	f, err := CompileFormula(src, schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func fCheckFloat64s(t *testing.T, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestFormulaColumnsDType(t *testing.T) {
	f := fMust(t, "fee + price*qty > tax && n != 0", fShopSchema)
	if got := strings.Join(f.Columns(), ","); got != "fee,price,qty,tax,n" {
		t.Errorf("Columns = %s, want fee,price,qty,tax,n (order of first use)", got)
	}
	if f.DType() != gojit.Bool {
		t.Errorf("DType = %s, want bool", f.DType())
	}
	if f.String() != "fee + price*qty > tax && n != 0" {
		t.Errorf("String = %q", f.String())
	}
	f.Columns()[0] = "changed"
	if f.Columns()[0] != "fee" {
		t.Error("Columns returned the formula's own slice")
	}
}

func TestFormulaEval(t *testing.T) {
	f := fMust(t, fShopFormula, fShopSchema)
	for _, n := range []int{1, 100, 70_001} {
		cols, want := fShopColumns(n)
		out, err := f.Eval(cols)
		if err != nil {
			t.Fatal(err)
		}
		fCheckFloat64s(t, out.Float64(), want)
		dst := gojit.New(gojit.Float64, n)
		if err := f.EvalInto(dst, cols); err != nil {
			t.Fatal(err)
		}
		fCheckFloat64s(t, dst.Float64(), want)
	}
}

// TestFormulaInPlace writes the result over one of its own columns.
func TestFormulaInPlace(t *testing.T) {
	f := fMust(t, "price*2 + qty", fShopSchema)
	cols, _ := fShopColumns(1000)
	price := append([]float64(nil), cols["price"].Float64()...)
	qty := cols["qty"].Float64()
	if err := f.EvalInto(cols["price"], cols); err != nil {
		t.Fatal(err)
	}
	for i, p := range cols["price"].Float64() {
		if want := price[i]*2 + qty[i]; p != want {
			t.Fatalf("row %d = %v, want %v", i, p, want)
		}
	}
}

func TestFormulaEvalErrors(t *testing.T) {
	f := fMust(t, "price * qty", fShopSchema)
	good := func() map[string]*gojit.Array {
		return map[string]*gojit.Array{"price": gojit.FromFloat64([]float64{1, 2, 3}), "qty": gojit.FromFloat64([]float64{4, 5, 6})}
	}
	cases := []struct {
		name string
		edit func(m map[string]*gojit.Array)
		want string
	}{
		{"missing", func(m map[string]*gojit.Array) { delete(m, "qty") }, "column qty is missing"},
		{"nil", func(m map[string]*gojit.Array) { m["price"] = nil }, "column price is a nil array"},
		{"dtype", func(m map[string]*gojit.Array) { m["qty"] = gojit.FromInt64([]int64{1, 2, 3}) }, "column qty has dtype i64, want f64"},
		{"length", func(m map[string]*gojit.Array) { m["qty"] = gojit.FromFloat64([]float64{1, 2}) }, "column qty has 2 rows, column price has 3"},
		{"rank", func(m map[string]*gojit.Array) { m["qty"] = gojit.FromFloat64([]float64{1, 2, 3}, 3, 1) }, "column qty has shape [3 1], want one dimension"},
		{"malformed", func(m map[string]*gojit.Array) { m["qty"] = gojit.FromFloat64([]float64{1, 2, 3}, 4) }, "column qty: "},
	}
	for _, c := range cases {
		cols := good()
		c.edit(cols)
		_, err := f.Eval(cols)
		if err == nil || !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Eval error %v, want ErrColumns naming %q", c.name, err, c.want)
		}
		err = f.EvalInto(gojit.New(gojit.Float64, 3), cols)
		if err == nil || !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: EvalInto error %v, want ErrColumns naming %q", c.name, err, c.want)
		}
	}
	// Extra columns are ignored.
	cols := good()
	cols["unused"] = gojit.FromBool([]bool{true})
	out, err := f.Eval(cols)
	if err != nil {
		t.Fatalf("extra column: %v", err)
	}
	fCheckFloat64s(t, out.Float64(), []float64{4, 10, 18})
	// The result array must fit.
	for _, dst := range []*gojit.Array{nil, gojit.New(gojit.Float32, 3), gojit.New(gojit.Float64, 4), gojit.New(gojit.Float64, 3, 1)} {
		if err := f.EvalInto(dst, good()); err == nil || !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), "result array") {
			t.Errorf("EvalInto(%v): error %v, want one about the result array", dst, err)
		}
	}
}

// TestFormulaEvalIntoAllocs checks the steady state allocates nothing.
func TestFormulaEvalIntoAllocs(t *testing.T) {
	f := fMust(t, fShopFormula, fShopSchema)
	for _, n := range []int{1000, 100_000} {
		cols, want := fShopColumns(n)
		dst := gojit.New(gojit.Float64, n)
		if err := f.EvalInto(dst, cols); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if err := f.EvalInto(dst, cols); err != nil {
				t.Fatal(err)
			}
		})
		switch {
		case gojit.LLVMVersion() == "":
			// The interpreter (builds without LLVM) allocates every
			// intermediate array; only compiled kernels promise none.
			t.Logf("interpreted: %v allocations per call", allocs)
		case fRace:
			t.Logf("-race (sync.Pool drops items on purpose): %v allocations per call", allocs)
		case allocs != 0:
			t.Errorf("EvalInto on %d rows: %v allocations per call, want 0", n, allocs)
		}
		fCheckFloat64s(t, dst.Float64(), want)
	}
}

// TestFormulaConcurrent evaluates one Formula from several goroutines.
func TestFormulaConcurrent(t *testing.T) {
	f := fMust(t, fShopFormula, fShopSchema)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cols, want := fShopColumns(1000 + 37*g)
			for range 20 {
				out, err := f.Eval(cols)
				if err != nil {
					t.Error(err)
					return
				}
				for i, v := range out.Float64() {
					if v != want[i] {
						t.Errorf("goroutine %d row %d = %v, want %v", g, i, v, want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestFormulaCache compiles the same formula twice: the second is served
// by gojit's memory cache, with no new compile.
func TestFormulaCache(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: formulas run in the interpreter and nothing is compiled or cached")
	}
	src := "math.Sqrt(price*price + qty*qty) / (1 + fee)"
	fMust(t, src, fShopSchema)
	s1 := gojit.CacheStats()
	f := fMust(t, src, fShopSchema)
	s2 := gojit.CacheStats()
	if s2.Compiles != s1.Compiles || s2.DiskHits != s1.DiskHits {
		t.Errorf("second CompileFormula compiled (%d -> %d) or read the disk (%d -> %d)", s1.Compiles, s2.Compiles, s1.DiskHits, s2.DiskHits)
	}
	if s2.Hits <= s1.Hits {
		t.Errorf("second CompileFormula did not hit the memory cache (hits %d -> %d)", s1.Hits, s2.Hits)
	}
	// Another schema is another kernel.
	other := map[string]gojit.DType{"price": gojit.Float32, "qty": gojit.Float32, "fee": gojit.Float32}
	g := fMust(t, src, other)
	if f.DType() != gojit.Float64 || g.DType() != gojit.Float32 {
		t.Errorf("dtypes %s and %s, want f64 and f32", f.DType(), g.DType())
	}
}

func TestFormulaCode(t *testing.T) {
	f := fMust(t, "math.Max(price*qty, fee)", fShopSchema)
	if s, err := f.Code(StageSource); err != nil || s != "math.Max(price*qty, fee)" {
		t.Errorf("StageSource = %q, %v", s, err)
	}
	if _, err := f.Code(StageSSA); err == nil {
		t.Error("StageSSA: no error")
	}
	if _, err := f.Code(Stage(99)); err == nil {
		t.Error("Stage(99): no error")
	}
	ir, err := f.Code(StageIR)
	if err != nil || !strings.Contains(ir, "mul") || !strings.Contains(ir, "max") {
		t.Errorf("StageIR = %q, %v; want the traced graph with mul and max", ir, err)
	}
	if gojit.LLVMVersion() == "" {
		if _, err := f.Code(StageLLVM); err == nil || !strings.Contains(err.Error(), "interpreter") {
			t.Errorf("StageLLVM without LLVM: %v, want an error naming the interpreter", err)
		}
		return
	}
	for s, want := range map[Stage]string{StageLLVM: "define", StageLLVMOpt: "define", StageAsm: "ret"} {
		text, err := f.Code(s)
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("%s: %v; text without %q:\n%.300s", s, err, want, text)
		}
	}
}

// TestFormulaFused checks a formula becomes one loop (one fusion group)
// and, on amd64, that the loop is vectorized (packed multiplies).
func TestFormulaFused(t *testing.T) {
	for _, src := range []string{fShopFormula, "where(price > fee, math.Sqrt(price*qty), -fee) * (1 + tax)"} {
		f := fMust(t, src, fShopSchema)
		ir, err := f.Code(StageIR)
		if err != nil {
			t.Fatal(err)
		}
		if groups := strings.Count(ir, "\ngroup "); groups != 1 {
			t.Errorf("%s: %d fusion groups, want 1:\n%s", src, groups, ir)
		}
		if gojit.LLVMVersion() == "" || runtime.GOARCH != "amd64" {
			continue
		}
		asm, err := f.Code(StageAsm)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(asm, "mulpd") {
			t.Errorf("%s: no packed double multiply (mulpd) in the assembly: not vectorized", src)
		}
	}
}

// TestFormulaLog checks GOJIT_LOG=source logs every stage of a new formula.
func TestFormulaLog(t *testing.T) {
	t.Setenv(gojit.EnvLog, "cache,source")
	var buf bytes.Buffer
	fMust(t, "price - fee", fShopSchema, WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	out := buf.String()
	for _, s := range []string{"stage=source", "stage=ir", "stage=llvm", "stage=llvm-opt", "stage=asm"} {
		if !strings.Contains(out, s) {
			t.Errorf("log lacks %s:\n%.2000s", s, out)
		}
	}
}

// TestFormulaDisableJIT runs a formula in the interpreter.
func TestFormulaDisableJIT(t *testing.T) {
	t.Setenv(gojit.EnvDisableJIT, "1")
	f := fMust(t, "where(price > 50, price*qty, -fee) + math.Abs(discount)", fShopSchema)
	if _, err := f.Code(StageLLVM); err == nil || !strings.Contains(err.Error(), "interpreter") {
		t.Errorf("StageLLVM under GOJIT_DISABLE_JIT: %v, want an error naming the interpreter", err)
	}
	cols, _ := fShopColumns(500)
	out, err := f.Eval(cols)
	if err != nil {
		t.Fatal(err)
	}
	p, q, d, fee := cols["price"].Float64(), cols["qty"].Float64(), cols["discount"].Float64(), cols["fee"].Float64()
	for i, v := range out.Float64() {
		w := -fee[i]
		if p[i] > 50 {
			w = p[i] * q[i]
		}
		if w += math.Abs(d[i]); v != w {
			t.Fatalf("row %d = %v, want %v", i, v, w)
		}
	}
}
