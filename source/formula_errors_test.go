package source

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// -update-formula rewrites testdata/formula_errors.golden (a name of its
// own, so that it cannot clash with the golden flags of the package's
// other tests).
var updateFormula = flag.Bool("update-formula", false, "rewrite testdata/formula_errors.golden")

var fErrorSchema = map[string]gojit.DType{
	"price": gojit.Float64, "qty": gojit.Int64, "discount": gojit.Float64,
	"flag": gojit.Bool, "count": gojit.Int32, "half": gojit.Float16, "ratio": gojit.Float32,
}

// errorFormulas are formulas CompileFormula must reject; the golden file
// holds each one's complete error text.
var fErrorFormulas = []string{
	"price * qty",
	"pricee + 1",
	"zzz + price",
	"foo(price)",
	"math.Sqrt(price, discount)",
	"math.Max(price)",
	"price[0]",
	"strings.ToUpper(price)",
	"price = 2",
	"price := 2",
	`price + "x"`,
	"price + 'x'",
	"qty % 2.5",
	"price % 2",
	"!price",
	"-flag",
	"price > 1 && qty",
	"where(price, 1, 2)",
	"where(flag, price, qty)",
	"where(flag, 1, 2, 3)",
	"float32(price) + price",
	"ratio * price",
	"math.Sqrt(qty)",
	"qty / 0",
	"int32(3000000000) + count",
	"qty + 1e300",
	"qty + 9007199254740993",
	"count + 1e99999999",
	"price +",
	"(price",
	"price & 1",
	"price << 2",
	"func() float64 { return price }()",
	"math.Pi",
	"1 + 2",
	"pkg.price",
	"half * 2",
	"math.IsInf(price, qty)",
	"min()",
	"min(flag, flag)",
	"bool(price)",
	"price == true",
	"math.Sqr(price)",
	"math.Sqrt",
	"where",
	"float64",
	"price(1)",
	"price...",
	"priec + qyt * foo(discount) - math.Lg(price)",
}

func fErrorText(src string) string {
	_, err := CompileFormula(src, fErrorSchema)
	if err == nil {
		return "(no error)"
	}
	var e *Error
	if !errors.As(err, &e) {
		return "(not a *source.Error) " + err.Error()
	}
	return err.Error()
}

func TestFormulaErrorsGolden(t *testing.T) {
	var b strings.Builder
	for _, src := range fErrorFormulas {
		text := fErrorText(src)
		// Verified before it can reach the golden file: every formula
		// is rejected, with an *Error whose diagnostics all have a
		// caret line.
		if strings.HasPrefix(text, "(") {
			t.Errorf("%s: %s", src, text)
		}
		carets := 0
		for _, line := range strings.Split(text, "\n") {
			if strings.TrimSpace(line) == "^" {
				carets++
			}
		}
		if carets == 0 || carets != strings.Count(text, "formula:1:") {
			t.Errorf("%s: %d carets for %d diagnostics:\n%s", src, carets, strings.Count(text, "formula:1:"), text)
		}
		b.WriteString("== " + src + "\n" + text + "\n\n")
	}
	got := b.String()
	path := filepath.Join("testdata", "formula_errors.golden")
	if *updateFormula {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run FormulaErrorsGolden -update-formula to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\ngot:  %q\nwant: %q\n(run with -update-formula if the change is intended)", path, i+1, g, w)
			}
		}
	}
}

// TestFormulaErrorsExact pins a few messages independently of the golden
// file, including the caret column.
func TestFormulaErrorsExact(t *testing.T) {
	cases := []struct{ src, want string }{
		{"price * qty", "formula:1:7: price * qty: mismatched types float64 and int64\n\tprice * qty\n\t      ^"},
		{"pricee + 1", "formula:1:1: unknown column pricee (did you mean price?)\n\tpricee + 1\n\t^"},
		{"math.Max(price)", "formula:1:15: not enough arguments in call to math.Max: have 1, want 2 arguments\n\tmath.Max(price)\n\t              ^"},
	}
	for _, c := range cases {
		if got := fErrorText(c.src); got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.src, got, c.want)
		}
	}
	// Every problem is reported, in order.
	_, err := CompileFormula("priec + qyt * foo(discount)", fErrorSchema)
	var e *Error
	if !errors.As(err, &e) || len(e.Diags) != 3 {
		t.Fatalf("want 3 diagnostics, got %v", err)
	}
	for i, col := range []int{1, 9, 15} {
		if d := e.Diags[i]; d.Pos.Filename != "formula" || d.Pos.Line != 1 || d.Pos.Column != col {
			t.Errorf("diagnostic %d at %v, want formula:1:%d", i, d.Pos, col)
		}
	}
}
