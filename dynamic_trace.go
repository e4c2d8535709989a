package gojit

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// dynamicTraceError is the error for a failed trace of e, which for a
// signature with a dynamic dimension ran at a placeholder batch size: the
// error of tracing at the call's own sizes, so that it shows the shapes the
// user passed, not the placeholder. If the function traces at its own
// sizes, it depends on the batch size in a way the placeholder exposed
// (Reshape(32, -1) where 32 is the batch size, say): that error is shown
// with the placeholder written as B.
func (f *Func) dynamicTraceError(e *entry, args []any, err error) error {
	if !e.dynamic() {
		return err
	}
	if _, real := f.trace(args); real != nil {
		return real
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // the list of problems, without "gojit: tracing f:"
	}
	return fmt.Errorf("gojit: %s: the function traces at this batch size but not at every batch size, as WithDynamicDim needs (does it use the batch size, as Reshape(32, -1) would for a batch of 32?):\n%s",
		f.name, placeholderSizes(err.Error()))
}

var (
	shapeList = regexp.MustCompile(`\[[0-9, ]*\]|\([0-9]+ elements\)`)
	number    = regexp.MustCompile(`[0-9]+`)
)

// placeholderSizes writes the trace's placeholder batch sizes as B in the
// shapes ("[61,4]" becomes "[B,4]") and element counts ("(244 elements)"
// becomes "(4B elements)") of text.
func placeholderSizes(text string) string {
	return shapeList.ReplaceAllStringFunc(text, func(sizes string) string {
		return number.ReplaceAllStringFunc(sizes, func(d string) string {
			n, _ := strconv.Atoi(d)
			for _, b := range []int{dynamicTrace1, dynamicTrace2} {
				switch {
				case n == b:
					return "B"
				case n > 0 && n%b == 0 && sizes[0] == '(':
					return strconv.Itoa(n/b) + "B"
				}
			}
			return d
		})
	})
}
