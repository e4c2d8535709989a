// Command plainprog is the baseline of `gojit bench -startup`: a plain Go
// program computing the startup function over startup.N elements. It
// prints the wall-clock time at which main started (Unix nanoseconds) and
// a checksum of its result.
package main

import (
	"fmt"
	"time"

	"github.com/gojit/gojit/cmd/gojit/internal/startup"
)

func main() {
	t0 := time.Now()
	a, b := startup.Inputs()
	out := make([]float32, startup.N)
	startup.Plain(a, b, out)
	var sum float64
	for _, v := range out {
		sum += float64(v)
	}
	fmt.Printf("main %d\nsum %g\n", t0.UnixNano(), sum)
}
