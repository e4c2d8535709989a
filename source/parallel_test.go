package source

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// The parallel kernels are in a package of their own that imports this
// one for Range. They are type-checked here against a stand-in for this
// package holding only Range (the stub loader would type-check all of
// this package and golang.org/x/tools from source, which takes seconds).
const parSrc = `package par

import (
	"math"

	"github.com/gojit/gojit/source"
)

func Scale(x, y []float32, a float32) {
	for i := range source.Range(len(x)) {
		y[i] = a * x[i]
	}
}

func Sum(x []float64, a float64) (float64, float64) {
	s := a
	m := math.Inf(-1)
	for i := range source.Range(len(x)) {
		s += x[i] * 2
		m = max(m, x[i])
	}
	return s + 1, m
}

func Count(x []int32, lim int32) (int, int32) {
	n := 0
	p := int32(1)
	before := lim * 2
	for i := range source.Range(len(x)) {
		if x[i] > lim {
			n += 1
		}
		p *= x[i] | 1
		x[i] = x[i] + before
	}
	return n + 1000, p
}

func Newton(x, out []float64) {
	for i := range source.Range(len(x)) {
		v := x[i]
		r := max(v, 1)
		for it := 0; it < 100; it++ {
			nr := 0.5 * (r + v/r)
			if math.Abs(nr-r) <= 1e-12*nr {
				r = nr
				break
			}
			r = nr
		}
		out[i] = r
	}
}

func Bad(x, y []float64, k int) float64 {
	s := 0.0
	last := 0.0
	for i := range source.Range(len(x)) {
		y[i+1] = x[i]
		s = s*2 + x[i]
		last = x[i]
		x[i] = y[k]
	}
	return s + last
}

func Pairwise(x []float32, n, d int, out []float32) {
	for i := range source.Range(n) {
		for j := 0; j < n; j++ {
			var s float32
			for k := 0; k < d; k++ {
				t := x[i*d+k] - x[j*d+k]
				s += t * t
			}
			out[i*n+j] = s
		}
	}
}
`

var parPkg = struct {
	once sync.Once
	fset *token.FileSet
	pkg  *ssa.Package
	info *types.Info
	file *ast.File
	err  error
}{}

func compileParT(t testing.TB, name string, opts ...Option) *Func {
	t.Helper()
	needLLVM(t)
	p := &parPkg
	p.once.Do(func() {
		p.fset = token.NewFileSet()
		p.file, p.err = parser.ParseFile(p.fset, "par.go", parSrc, parser.ParseComments)
		if p.err != nil {
			return
		}
		tc := &types.Config{Importer: rangeImporter{importer.ForCompiler(p.fset, "source", nil)}}
		p.pkg, p.info, p.err = ssautil.BuildPackage(tc, p.fset, types.NewPackage("par", "par"), []*ast.File{p.file}, ssa.SanityCheckFunctions)
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	u := &unit{fset: p.fset, pkg: p.pkg, fn: p.pkg.Func(name), info: p.info, files: []*ast.File{p.file},
		src: map[string][]byte{"par.go": []byte(parSrc)}, key: "par/" + name}
	c := newConfig(append([]Option{WithoutCache()}, opts...))
	nat, err := compileUnit(u, c)
	if err != nil {
		if t, ok := t.(*testing.T); ok && name == "Bad" {
			_ = t
		}
		t.Fatalf("compiling %s: %v", name, err)
	}
	return &Func{name: name, u: u, cfg: c, nat: nat}
}

func TestParallelScale(t *testing.T) {
	f := compileParT(t, "Scale")
	for _, n := range []int{0, 1, 100, 5000, 100003} {
		x, y := randF32(n, 1), make([]float32, n)
		if _, err := f.Call(x, y, float32(1.5)); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if y[i] != 1.5*x[i] {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], 1.5*x[i])
			}
		}
		// A short y fails at the first index out of range, as Go would.
		if n > 0 {
			_, err := f.Call(x, y[:n-1], float32(1))
			if err == nil || !strings.Contains(err.Error(), "par.go:11:") || !strings.Contains(err.Error(), "index out of range ["+itoa(n-1)+"] with length "+itoa(n-1)) {
				t.Fatalf("n=%d short y: %v", n, err)
			}
		}
	}
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

func TestParallelReductions(t *testing.T) {
	sum := compileParT(t, "Sum")
	count := compileParT(t, "Count")
	for _, n := range []int{0, 3, 4096, 100000} {
		x := randF64(n, 5)
		out, err := sum.Call(x, 0.25)
		if err != nil {
			t.Fatal(err)
		}
		s, m := 0.25, math.Inf(-1)
		for _, v := range x {
			s += v * 2
			m = max(m, v)
		}
		if got := out[0].(float64); math.Abs(got-(s+1)) > 1e-9*math.Abs(s+1) || out[1].(float64) != m {
			t.Fatalf("n=%d: Sum = %v, want %v %v (sum to rounding, max exactly)", n, out, s+1, m)
		}
		xi := make([]int32, n)
		for i := range xi {
			xi[i] = int32(i*7919%1000) - 500
		}
		want := append([]int32(nil), xi...)
		wn, wp := 0, int32(1)
		for i := range want {
			if want[i] > 100 {
				wn++
			}
			wp *= want[i] | 1
			want[i] += 200
		}
		out, err = count.Call(xi, int32(100))
		if err != nil {
			t.Fatal(err)
		}
		if out[0].(int) != wn+1000 || out[1].(int32) != wp {
			t.Fatalf("n=%d: Count = %v, want %d %d", n, out, wn+1000, wp)
		}
		for i := range xi {
			if xi[i] != want[i] {
				t.Fatalf("n=%d: x[%d] = %d, want %d", n, i, xi[i], want[i])
			}
		}
	}
}

func TestParallelNewton(t *testing.T) {
	f := compileParT(t, "Newton")
	x := randF64(50000, 6)
	out, want := make([]float64, len(x)), make([]float64, len(x))
	if _, err := f.Call(x, out); err != nil {
		t.Fatal(err)
	}
	newton(x, want)
	for i := range x {
		if out[i] != want[i] {
			t.Fatalf("out[%d] = %v, want %v", i, out[i], want[i])
		}
	}
}

func TestParallelRejected(t *testing.T) {
	needLLVM(t)
	defer func() {
		if r := recover(); r != nil {
			t.Fatal(r)
		}
	}()
	ft := &fakeTB{TB: t}
	func() {
		defer func() { recover() }()
		compileParT(ft, "Bad")
	}()
	msg := ft.msg
	for _, want := range []string{
		"par.go:59:4: parallel loop writes y at an index other than the loop's own",
		"par.go:56:2: variable s is carried from one iteration",
		"par.go:61:11: variable last is assigned in the parallel loop and used after it",
		"par.go:62:11: parallel loop reads y, which it writes, at an index other than the loop's own",
		"\t\t\ty[i+1] = x[i]\n\t\t\t ^",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in\n%s", want, msg)
		}
	}
}

// fakeTB captures a Fatalf.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = sprintf(format, args...)
	panic("fatal")
}

func (f *fakeTB) Helper() {}

// rangeImporter imports this package as one declaring only Range.
type rangeImporter struct{ types.Importer }

func (r rangeImporter) Import(path string) (*types.Package, error) {
	if path != rangePkgPath {
		return r.Importer.Import(path)
	}
	pkg := types.NewPackage(path, "source")
	n := types.NewVar(token.NoPos, pkg, "n", types.Typ[types.Int])
	res := types.NewVar(token.NoPos, pkg, "", types.Typ[types.Int])
	sig := types.NewSignatureType(nil, nil, nil, types.NewTuple(n), types.NewTuple(res), false)
	pkg.Scope().Insert(types.NewFunc(token.NoPos, pkg, "Range", sig))
	pkg.MarkComplete()
	return pkg, nil
}

// TestParallelPairwise: a parallel loop writing row i of a matrix
// (out[i*n+j], j counting to n) in an inner loop.
func TestParallelPairwise(t *testing.T) {
	f := compileParT(t, "Pairwise")
	for _, n := range []int{0, 1, 7, 300} {
		const d = 5
		x := randF32(n*d, 9)
		out, want := make([]float32, n*n), make([]float32, n*n)
		if _, err := f.Call(x, n, d, out); err != nil {
			t.Fatal(err)
		}
		pairwise(x, n, d, want)
		for i := range want {
			if out[i] != want[i] {
				t.Fatalf("n=%d: out[%d] = %v, want %v", n, i, out[i], want[i])
			}
		}
	}
}

// TestConcurrentCalls calls compiled functions, parallel or not, from
// several goroutines at once.
func TestConcurrentCalls(t *testing.T) {
	sum := compileParT(t, "Sum")
	dot := compileT(t, Dot)
	x := randF64(50000, 11)
	wantSum, _ := sum.Call(x, 0.0)
	wantDot := Dot(x, x)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if g%2 == 0 {
					out, err := sum.Call(x, 0.0)
					if err != nil || out[0] != wantSum[0] || out[1] != wantSum[1] {
						errs <- fmt.Errorf("Sum = %v, %v; want %v", out, err, wantSum)
						return
					}
					continue
				}
				out, err := dot.Call(x, x)
				if err != nil || out[0].(float64) != wantDot {
					errs <- fmt.Errorf("Dot = %v, %v; want %v", out, err, wantDot)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
