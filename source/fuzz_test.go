package source

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

// FuzzCompileVsSSAInterp compiles random small Go functions (fuzz_gen_test.go)
// with Compile and runs them against golang.org/x/tools/go/ssa/interp
// (fuzz_oracle_test.go): the same results, bit for bit for floats (NaN
// payloads aside), the same slice contents after the call, and a panic in
// the interpreter where Call returns a *RuntimeError with the same message
// on the same line. After a panic the slices are not compared: Go stops at
// the failing element, while compiled code may check a loop's bounds once
// before it (hoisting, as docs/source.md says).
func FuzzCompileVsSSAInterp(f *testing.F) {
	if !llvm.Available() {
		f.Skip("needs LLVM (cgo)")
	}
	f.Add([]byte(nil))
	f.Add([]byte("loops over slices with breaks, continues and a call of G; then division by a parameter"))
	// Pseudo-random inputs long enough to reach most constructs: seeds 3
	// and 5 return, 4 indexes at -2, 7 out of range in G, 14 shifts by a
	// negative amount.
	for _, seed := range []byte{3, 4, 5, 7, 14} {
		data := make([]byte, 300)
		rand.NewChaCha8([32]byte{seed}).Read(data)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			data = data[:512]
		}
		checkFuzzProgram(t, genProgram(data))
	})
}

const fuzzHeader = "import \"math\"\n\nconst _ = math.Pi\n\n"

// source returns the program's text for Compile, or with oracle set the
// interpreter's version: line markers in front of statements that may
// panic, a global curLine, and a main that calls F and prints the results.
func (p *fuzzProgram) source(oracle bool) string {
	var b strings.Builder
	if oracle {
		b.WriteString("package main\n\n" + fuzzHeader)
	} else {
		b.WriteString("package p\n\n" + fuzzHeader)
	}
	first := strings.Count(b.String(), "\n") + 1
	for k, l := range p.lines {
		b.WriteString(strings.Repeat("\t", l.indent))
		if oracle && l.mark {
			fmt.Fprintf(&b, "curLine = %d; ", first+k)
		}
		b.WriteString(l.text + "\n")
	}
	if !oracle {
		return b.String()
	}
	b.WriteString("\nvar curLine int\n\nfunc main() {\n")
	b.WriteString("\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tprintln(\"panic\", curLine, r)\n\t\t}\n\t}()\n")
	for k, t := range p.sliceTs {
		var elems []string
		for _, u := range p.slices[k] {
			elems = append(elems, literal(t, u))
		}
		fmt.Fprintf(&b, "\ts%d := []%s{%s}\n", k, t, strings.Join(elems, ", "))
	}
	var args []string
	for k := range p.sliceTs {
		args = append(args, fmt.Sprintf("s%d", k))
	}
	for t := range numTypes {
		args = append(args, literal(t, p.scalars[t]))
	}
	fmt.Fprintf(&b, "\tr0, r1 := F(%s)\n", strings.Join(args, ", "))
	b.WriteString("\tprintln(\"ok\")\n\tprintln(r0)\n\tprintln(math.Float64bits(r1))\n")
	for k, t := range p.sliceTs {
		fmt.Fprintf(&b, "\tfor _, v := range s%d {\n\t\tprintln(%s)\n\t}\n", k, printed(t, "v"))
	}
	b.WriteString("}\n")
	return b.String()
}

// literal is the Go text of value u of type t (bits for floats).
func literal(t ftype, u uint64) string {
	switch t {
	case tF64:
		return fmt.Sprintf("math.Float64frombits(%#x)", u)
	case tF32:
		return fmt.Sprintf("math.Float32frombits(%#x)", u)
	case tU8:
		return fmt.Sprintf("uint8(%d)", uint8(u))
	case tI32:
		return fmt.Sprintf("int32(%d)", int32(u))
	}
	return fmt.Sprintf("int64(%d)", int64(u))
}

// printed is the expression main prints for a value v of type t.
func printed(t ftype, v string) string {
	switch t {
	case tF64:
		return "math.Float64bits(" + v + ")"
	case tF32:
		return "math.Float32bits(" + v + ")"
	}
	return v
}

// goValue returns u as a Go value of type t.
func goValue(t ftype, u uint64) any {
	switch t {
	case tF64:
		return math.Float64frombits(u)
	case tF32:
		return math.Float32frombits(uint32(u))
	case tU8:
		return uint8(u)
	case tI32:
		return int32(u)
	}
	return int64(u)
}

// goSlice returns the slice of type []t holding bits.
func goSlice(t ftype, bits []uint64) any {
	switch t {
	case tF64:
		s := make([]float64, len(bits))
		for i, u := range bits {
			s[i] = math.Float64frombits(u)
		}
		return s
	case tF32:
		s := make([]float32, len(bits))
		for i, u := range bits {
			s[i] = math.Float32frombits(uint32(u))
		}
		return s
	case tU8:
		s := make([]uint8, len(bits))
		for i, u := range bits {
			s[i] = uint8(u)
		}
		return s
	case tI32:
		s := make([]int32, len(bits))
		for i, u := range bits {
			s[i] = int32(u)
		}
		return s
	}
	s := make([]int64, len(bits))
	for i, u := range bits {
		s[i] = int64(u)
	}
	return s
}

// fuzzVal is one printed value and its type, for comparison.
type fuzzVal struct {
	t ftype
	s string
}

// printedValues formats the compiled results and slices as main prints them.
func printedValues(res []any, slices []any, ts []ftype) []fuzzVal {
	vals := []fuzzVal{{tI64, fmt.Sprint(res[0])}, {tF64, fmt.Sprint(math.Float64bits(res[1].(float64)))}}
	for k, s := range slices {
		switch s := s.(type) {
		case []float64:
			for _, v := range s {
				vals = append(vals, fuzzVal{ts[k], fmt.Sprint(math.Float64bits(v))})
			}
		case []float32:
			for _, v := range s {
				vals = append(vals, fuzzVal{ts[k], fmt.Sprint(math.Float32bits(v))})
			}
		case []uint8:
			for _, v := range s {
				vals = append(vals, fuzzVal{ts[k], fmt.Sprint(v)})
			}
		case []int32:
			for _, v := range s {
				vals = append(vals, fuzzVal{ts[k], fmt.Sprint(v)})
			}
		case []int64:
			for _, v := range s {
				vals = append(vals, fuzzVal{ts[k], fmt.Sprint(v)})
			}
		}
	}
	return vals
}

// sameValue compares printed values, NaNs of any payload equal.
func sameValue(v fuzzVal, want string) bool {
	if v.s == want {
		return true
	}
	var a, b uint64
	if _, err := fmt.Sscan(v.s, &a); err != nil {
		return false
	}
	if _, err := fmt.Sscan(want, &b); err != nil {
		return false
	}
	switch v.t {
	case tF64:
		return math.IsNaN(math.Float64frombits(a)) && math.IsNaN(math.Float64frombits(b))
	case tF32:
		return a == uint64(uint32(a)) && b == uint64(uint32(b)) &&
			math.IsNaN(float64(math.Float32frombits(uint32(a)))) && math.IsNaN(float64(math.Float32frombits(uint32(b))))
	}
	return false
}

// checkFuzzProgram runs p compiled and interpreted and compares.
func checkFuzzProgram(t *testing.T, p *fuzzProgram) {
	t.Helper()
	src, osrc := p.source(false), p.source(true)
	out, err := theOracle.run(osrc)
	if err != nil {
		t.Fatalf("reference: %v\nprogram:\n%s", err, osrc)
	}
	fn, err := Compile(src, "F", WithoutCache(), WithFilename("fuzz.go"))
	if err != nil {
		t.Fatalf("Compile: %v\nsource:\n%s", err, numbered(src))
	}
	var args, slices []any
	for k, ts := range p.sliceTs {
		s := goSlice(ts, p.slices[k])
		slices = append(slices, s)
		args = append(args, s)
	}
	for ty := range numTypes {
		args = append(args, goValue(ty, p.scalars[ty]))
	}
	res, cerr := fn.Call(args...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if line, msg, ok := parseOraclePanic(lines[0]); ok {
		var re *RuntimeError
		if !errors.As(cerr, &re) || re.Pos.Line != line || re.Msg != msg {
			t.Fatalf("Go panics at fuzz.go:%d: %s\ncompiled: results %v, error %v\nsource:\n%s", line, msg, res, cerr, numbered(src))
		}
		return
	}
	if lines[0] != "ok" {
		t.Fatalf("reference printed %q\nprogram:\n%s", out, osrc)
	}
	if cerr != nil {
		t.Fatalf("Go returns normally, compiled: %v\nsource:\n%s", cerr, numbered(src))
	}
	got := printedValues(res, slices, p.sliceTs)
	want := lines[1:]
	if len(got) != len(want) {
		t.Fatalf("compiled gives %d values, Go %d\nsource:\n%s", len(got), len(want), numbered(src))
	}
	for i, v := range got {
		if !sameValue(v, want[i]) {
			t.Fatalf("value %d (%s; 0: result int64, 1: result float64 bits, then s0, s1, s2 elements): compiled %s, Go %s\nargs %v\nsource:\n%s",
				i, v.t, v.s, want[i], args, numbered(src))
		}
	}
}

// numbered prefixes src's lines with their numbers.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}
