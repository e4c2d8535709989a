package kernels

type point struct{ x, y float64 }

type shape interface{ area() float64 }

func F(s string, p point, q *float64, grid [][]float64, any interface{}, w [3]float64) int {
	n := 0
	for i := range s {
		n += int(s[i])
	}
	if f, ok := any.(float64); ok {
		n += int(f)
	}
	switch v := any.(type) {
	case int:
		n += v
	}
	n += int(p.x) + int(*q)
	var arr [4]string
	n += len(arr)
	var c complex128
	_ = c
	var sh shape
	_ = sh
	return n
}
