package gojit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// explainMiss says why specs, a signature not in f's cache, needs a trace:
// what differs from the closest cached signature. f.mu is held.
func (f *Func) explainMiss(specs []argSpec) string {
	if f.traces.Load() == 0 && len(f.entries) == 0 {
		return "first call"
	}
	// The closest entry differs in the fewest dtypes, shapes and values;
	// among equals, the most recent wins.
	var best []string
	bestScore := -1
	for _, k := range slices.Backward(f.order) {
		e := f.entries[k]
		d, score := diffSpecs(e.specs, specs)
		if bestScore < 0 || score < bestScore {
			best, bestScore = d, score
		}
	}
	if best == nil {
		return fmt.Sprintf("signature not among the %d most recent (older ones are forgotten)", maxFuncEntries)
	}
	return strings.Join(best, "; ")
}

// diffSpecs lists how signature b differs from a, one phrase per argument,
// and scores the difference: one point per differing dtype, shape or value.
func diffSpecs(a, b []argSpec) (d []string, score int) {
	for i := range a {
		x, y := a[i], b[i]
		if x.shape != nil && x.dtype != y.dtype {
			score++
		}
		if x.shape != nil && !slices.Equal(x.shape, y.shape) {
			score++
		}
		if x.shape == nil && x.text != y.text {
			score++
		}
		switch {
		case x.shape != nil && x.dtype != y.dtype && !slices.Equal(x.shape, y.shape):
			d = append(d, fmt.Sprintf("arg %d %s%s → %s%s", i, x.dtype, specShape(x.shape), y.dtype, specShape(y.shape)))
		case x.shape != nil && x.dtype != y.dtype:
			d = append(d, fmt.Sprintf("arg %d dtype %s → %s", i, x.dtype, y.dtype))
		case x.shape != nil && !slices.Equal(x.shape, y.shape):
			d = append(d, fmt.Sprintf("arg %d shape %s → %s", i, specShape(x.shape), specShape(y.shape)))
		case x.shape == nil && x.text != y.text:
			d = append(d, fmt.Sprintf("arg %d static value %s → %s", i, staticText(x.text), staticText(y.text)))
		}
	}
	return d, score
}

// specShape formats a signature's shape, with ? for a dynamic dimension.
func specShape(shape []int) string {
	return strings.ReplaceAll(ir.Shape(shape).String(), strconv.Itoa(dynamicDim), "?")
}

// staticText shortens a static argument's "%T=%#v" key for messages.
func staticText(s string) string {
	if _, v, ok := strings.Cut(s, "="); ok {
		s = v
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// checkRecompiles warns, once per Func, when it has traced more signatures
// than its recompile limit, naming what varies between them.
func (f *Func) checkRecompiles() {
	limit := f.cfg.recompileLimit
	if limit <= 0 || f.traces.Load() <= int64(limit) {
		return
	}
	f.mu.Lock()
	if f.warned {
		f.mu.Unlock()
		return
	}
	f.warned = true
	varying, hint := f.varyingLocked()
	f.mu.Unlock()
	warnLogger(&f.cfg).Warn("gojit: function keeps recompiling", "func", f.name,
		"traces", f.traces.Load(), "limit", limit, "varying", varying, "hint", hint)
}

// varyingLocked names the parts of the signature that differ among the
// cached entries, such as "arg 0 axis 0 (32, 64, 96)", and suggests a cure.
// f.mu is held.
func (f *Func) varyingLocked() (varying, hint string) {
	var specs [][]argSpec
	for _, k := range f.order {
		specs = append(specs, f.entries[k].specs)
	}
	if len(specs) == 0 {
		return "", ""
	}
	var parts, hints []string
	for i := range specs[0] {
		seen := map[string]bool{}
		var vals []string
		add := func(v string) {
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		what := fmt.Sprintf("arg %d", i)
		if specs[0][i].shape == nil {
			what += " value"
			for _, s := range specs {
				add(staticText(s[i].text))
			}
		} else if axis := varyingAxis(specs, i); axis >= 0 {
			what += fmt.Sprintf(" axis %d", axis)
			for _, s := range specs {
				add(fmt.Sprint(s[i].shape[axis]))
			}
			if len(vals) > 1 {
				hints = append(hints, fmt.Sprintf("WithDynamicDim(%d, %d)", i, axis))
			}
		} else {
			for _, s := range specs {
				add(fmt.Sprintf("%s%s", s[i].dtype, specShape(s[i].shape)))
			}
		}
		if len(vals) > 1 {
			if len(vals) > 6 {
				vals = append(vals[:6], "...")
			}
			parts = append(parts, what+" ("+strings.Join(vals, ", ")+")")
		}
	}
	hint = "pass varying values as tensors instead of static arguments, or pad shapes to a few sizes"
	if len(hints) > 0 {
		hint = "compile with " + strings.Join(hints, ", ") + " so one kernel serves every size, or pad shapes to a few sizes"
	}
	return strings.Join(parts, "; "), hint
}

// varyingAxis returns the one axis along which argument i's shapes differ
// (same dtype and rank everywhere), or -1.
func varyingAxis(specs [][]argSpec, i int) int {
	axis := -1
	first := specs[0][i]
	for _, s := range specs[1:] {
		x := s[i]
		if x.dtype != first.dtype || len(x.shape) != len(first.shape) {
			return -1
		}
		for k := range x.shape {
			if x.shape[k] != first.shape[k] {
				if axis >= 0 && axis != k {
					return -1
				}
				axis = k
			}
		}
	}
	return axis
}
