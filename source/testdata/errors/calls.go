package kernels

import (
	"fmt"
	"math"
	"strings"
)

var total float64

const limit = 10

type meters float64

func (m meters) feet() float64 { return float64(m) * 3.28 }

func F(x []float64, m meters) float64 {
	s := math.Sqrt(x[0]) + math.Erf(x[1])
	fmt.Println(s)
	s += float64(len(strings.Repeat("a", limit)))
	s += m.feet()
	f := helper
	s += f(1)
	s += fact(3)
	s += ident[float64](2)
	total += s
	if s > limit {
		panic("too big") // a constant: compiled (Call returns an error)
	}
	if s < 0 {
		panic(s)
	}
	sq := func(v float64) float64 { return v * v }
	s += sq(2)
	goto out
out:
	return s
}

func helper(v float64) float64 { return v + 1 }

func fact(n float64) float64 {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func ident[T any](v T) T { return v }
