package source_test

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/gojit/gojit/source"
)

// buckets counts the distinct buckets of width w among xs. It uses a map,
// which compiled functions cannot, so CompileFunc alone would fail.
func buckets(xs []float64, w float64) int {
	seen := map[int]bool{}
	for _, x := range xs {
		seen[int(x/w)] = true
	}
	return len(seen)
}

func ExampleWithFallback() {
	// A logger that prints the warning without the time and the error's
	// file paths, so the output is the same on every machine.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "err" {
				return slog.Attr{}
			}
			return a
		},
	}))
	f, err := source.CompileFunc(buckets, source.WithFallback(), source.WithLogger(logger))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := f.Call([]float64{0.5, 1.5, 1.7, 9}, 1.0)
	fmt.Println(res, err)
	// Output:
	// level=WARN msg="source: running the Go function instead of compiled code" func=buckets
	// [3] <nil>
}

func ExampleError() {
	src := `package kernels

func Count(xs []float64) int {
	seen := map[float64]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}
`
	_, err := source.Compile(src, "Count", source.WithFilename("count.go"))
	fmt.Println(err)
	// Output:
	// count.go:4:2: map variable seen (map[float64]bool): not supported in compiled functions
	// 		seen := map[float64]bool{}
	// 		^
	// count.go:4:10: composite literal of type map[float64]bool: not supported in compiled functions; allocation inside compiled functions is not supported; pass preallocated slices
	// 		seen := map[float64]bool{}
	// 		        ^
	// count.go:6:7: map index: not supported in compiled functions
	// 			seen[x] = true
	// 			    ^
}
