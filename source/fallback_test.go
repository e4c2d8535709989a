package source

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// recordHandler keeps the records logged through it.
type recordHandler struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r)
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

func (h *recordHandler) warnings() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []slog.Record
	for _, r := range h.recs {
		if r.Level == slog.LevelWarn {
			out = append(out, r)
		}
	}
	return out
}

// histogramGo is the reference for histogramK.
func histogramGo(xs []float64, width float64) int {
	seen := map[int]bool{}
	for _, x := range xs {
		seen[int(x/width)] = true
	}
	return len(seen)
}

func TestFallbackRunsGoAndWarnsOnce(t *testing.T) {
	h := &recordHandler{}
	logger := slog.New(h)
	xs := []float64{0.5, 1.5, 1.7, 9, 9.1, -3}
	for i := 0; i < 3; i++ {
		f, err := CompileFunc(histogramK, WithFallback(), WithLogger(logger))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Call(xs, 1.0)
		if err != nil {
			t.Fatal(err)
		}
		if want := histogramGo(xs, 1.0); len(res) != 1 || res[0] != want {
			t.Fatalf("Call = %v, want [%d]", res, want)
		}
	}
	ws := h.warnings()
	if len(ws) != 1 {
		t.Fatalf("%d warnings, want exactly 1", len(ws))
	}
	var errText string
	ws[0].Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			errText = a.Value.String()
		}
		return true
	})
	if !strings.Contains(errText, "map variable buckets") || !strings.Contains(errText, "map index") {
		t.Errorf("warning does not carry the diagnostics: %q", errText)
	}
}

func TestNoFallbackListsEveryConstruct(t *testing.T) {
	_, err := CompileFunc(histogramK)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("CompileFunc(histogramK) = %v, want *Error", err)
	}
	want := []string{
		"map variable buckets (map[int]int): not supported in compiled functions",
		"composite literal of type map[int]int: not supported in compiled functions",
		"map index: not supported in compiled functions",
	}
	if len(e.Diags) != len(want) {
		t.Fatalf("%d diagnostics, want %d:\n%v", len(e.Diags), len(want), err)
	}
	for i, d := range e.Diags {
		if !strings.HasPrefix(d.Msg, want[i]) || !strings.HasSuffix(d.Pos.Filename, "load_kernels_test.go") {
			t.Errorf("diagnostic %d = %s, want %q in load_kernels_test.go", i, d, want[i])
		}
	}
}

func TestDisableJIT(t *testing.T) {
	for _, v := range []string{"1", "true", "TRUE"} {
		t.Setenv("GOJIT_DISABLE_JIT", v)
		if !jitDisabled() {
			t.Errorf("GOJIT_DISABLE_JIT=%s: not disabled", v)
		}
		// saxpyK is supported; with the JIT disabled it runs as Go anyway.
		f, err := CompileFunc(saxpyK)
		if err != nil {
			t.Fatal(err)
		}
		x, y := []float64{1, 2, 3}, []float64{10, 20, 30}
		out := make([]float64, 3)
		if _, err := f.Call(2.0, x, y, out); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if want := 2*x[i] + y[i]; out[i] != want {
				t.Fatalf("out[%d] = %v, want %v", i, out[i], want)
			}
		}
	}
	for _, v := range []string{"", "0", "false", "yes"} {
		t.Setenv("GOJIT_DISABLE_JIT", v)
		if jitDisabled() {
			t.Errorf("GOJIT_DISABLE_JIT=%q: disabled", v)
		}
	}
}

func TestGoFuncCall(t *testing.T) {
	g := newGoFunc(saxpyK)
	x, y, out := []float64{1, 2}, []float64{3, 4}, make([]float64, 2)
	tests := []struct {
		args []any
		want string // error substring; "" for success
	}{
		{[]any{2.0, x, y, out}, ""},
		{[]any{2, x, y, out}, ""}, // int 2 converts exactly to float64
		{[]any{2.0, x, y}, "takes 4 arguments, got 3"},
		{[]any{2.0, x, "y", out}, "argument 3 (parameter type []float64): got string"},
		{[]any{2.0, []float32{1}, y, out}, "argument 2 (parameter type []float64): got []float32"},
		{[]any{nil, x, y, out}, "argument 1 (parameter type float64): got nil"},
		{[]any{2.0, nil, nil, nil}, ""}, // nil slices: a loop over nothing
	}
	for _, tt := range tests {
		_, err := g.call(tt.args)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("call(%v) = %v, want %q", tt.args, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "saxpyK") {
			t.Errorf("error does not name the function: %v", err)
		}
	}
	if out[0] != 2*1+3 || out[1] != 2*2+4 {
		t.Errorf("out = %v", out)
	}

	c := newGoFunc(clampK)
	if _, err := c.call([]any{[]float32{1}, 300, float32(2)}); err != nil {
		t.Errorf("float32 from int 300: %v", err)
	}
	if _, err := c.call([]any{[]float32{1}, 0.1, float32(2)}); err == nil || !strings.Contains(err.Error(), "does not convert exactly") {
		t.Errorf("float32 from float64 0.1: %v, want a lossy-conversion error", err)
	}
	if _, err := newGoFunc(sumVariadicK).call([]any{1, 2, 3}); err != nil {
		t.Errorf("variadic: %v", err)
	}
	res, err := newGoFunc(sumVariadicK).call([]any{1, 2, 3})
	if err != nil || res[0] != 6 {
		t.Errorf("variadic = %v, %v, want 6", res, err)
	}
	if _, err := c.call([]any{[]float32{1}, int64(1<<30 + 1), float32(2)}); err == nil || !strings.Contains(err.Error(), "does not convert exactly") {
		t.Errorf("float32 from int64 2^30+1: %v, want a lossy-conversion error", err)
	}
	for _, tt := range []struct {
		g    *goFunc
		arg  any
		want any // result, or nil for an error
	}{
		{newGoFunc(u8K), 254, uint8(255)},
		{newGoFunc(u8K), 300, nil},
		{newGoFunc(u8K), -1, nil},
		{newGoFunc(u64K), -1, nil}, // int -1 -> uint64 -> int round-trips: the sign check refuses it
		{newGoFunc(u64K), 5.0, uint64(6)},
		{newGoFunc(u64K), 5.5, nil},
	} {
		res, err := tt.g.call([]any{tt.arg})
		if tt.want == nil && err == nil || tt.want != nil && (err != nil || res[0] != tt.want) {
			t.Errorf("%s(%v) = %v, %v; want %v", tt.g.name, tt.arg, res, err, tt.want)
		}
	}

	p := newGoFunc(panicK)
	_, err = p.call([]any{[]float64{}})
	if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "panicK: empty input") {
		t.Errorf("panic: %v, want ErrPanic with the message", err)
	}
	res, err = p.call([]any{[]float64{7}})
	if err != nil || res[0] != 7.0 {
		t.Errorf("panicK([7]) = %v, %v", res, err)
	}
	if _, err := newGoFunc(3).call(nil); err == nil {
		t.Error("calling a non-function: no error")
	}
}

func TestWarnFallbackOnce(t *testing.T) {
	var buf bytes.Buffer
	c := newConfig([]Option{WithLogger(slog.New(slog.NewTextHandler(&buf, nil)))})
	e1 := errors.New("e1 for TestWarnFallbackOnce")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			warnFallback(c, "TestWarnFallbackOnce.f", e1)
		}()
	}
	wg.Wait()
	warnFallback(c, "TestWarnFallbackOnce.g", e1)
	if n := strings.Count(buf.String(), "level=WARN"); n != 2 {
		t.Errorf("%d warnings for two functions, want 2:\n%s", n, buf.String())
	}
}
