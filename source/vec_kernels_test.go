package source

// Kernels for the tests of outer-loop vectorization (vec_test.go): each
// has an outer loop over independent iterations holding inner loops. This
// file imports nothing, so the loader can type-check it alone.

// vecGather sums d consecutive elements of x from a per-row offset
// (a gather per step; offsets out of range fail as in Go).
func vecGather(x []float64, idx []int, out []float64, d int) {
	for i := range out {
		s := 0.0
		for k := 0; k < d; k++ {
			s += x[idx[i]+k]
		}
		out[i] = s
	}
}

// vecSteps has a data-dependent inner loop with break, continue and an
// if/else chain, then a uniform loop using its result.
func vecSteps(x []float64, out []float64, lim int) {
	for i := range out {
		v := x[i]
		n := 0.0
		for it := 0; it < lim; it++ {
			if v > 1 {
				v = v * 0.5
			} else if v < -1 {
				v = -v * 0.75
				continue
			} else {
				break
			}
			n += v
		}
		for k := 0; k < 3; k++ {
			n = n*1.5 + float64(k)
		}
		out[i] = n + v
	}
}

// vecNested leaves two loops at once with a labeled break.
func vecNested(x []float32, out []float32, m int) {
	for i := 0; i < len(x); i++ {
		s := x[i]
		c := float32(0)
	outer:
		for a := 0; a < m; a++ {
			t := s + float32(a)
			for b := 0; b < 20; b++ {
				if t < 0 {
					break outer
				}
				if t < 1 {
					break
				}
				t = t * 0.5
				c += t
			}
			s = s*0.9 - 0.5
		}
		out[i] = c + s
	}
}

// vecInPlace reads and writes the same slice at the same index.
func vecInPlace(y []float64, d int) {
	for i := range y {
		s := y[i]
		for k := 0; k < d; k++ {
			s = s*0.5 + float64(k)
		}
		y[i] = s
	}
}

// vecInts mixes integer widths, wrapping arithmetic and conversions.
func vecInts(x []int32, out []float64, d int) {
	for i := range x {
		v := int64(x[i])
		acc := 0.0
		for k := 0; k < d; k++ {
			v = v*3 + int64(k)
			acc += float64(v & 1023)
			acc = max(acc, float64(int8(v)))
		}
		out[i] = acc
	}
}

// vecRows sums each row of x into out (out may alias x in a test).
func vecRows(x []float32, out []float32, n, d int) {
	for i := 0; i < n; i++ {
		var s float32
		for k := 0; k < d; k++ {
			s += x[i*d+k]
		}
		out[i] = s
	}
}

// vecSearch finds, per row, the first k with x[i*d+k] above lim (a bool
// and an int leaving a loop at different iterations per lane).
func vecSearch(x []float32, lim float32, d int, pos []int32, hit []float32) {
	for i := range pos {
		found := false
		at := int32(-1)
		for k := 0; k < d; k++ {
			if x[i*d+k] > lim {
				found = true
				at = int32(k)
				break
			}
		}
		if found {
			pos[i] = at * 2
		} else {
			pos[i] = at
		}
		hit[i] = float32(at) + 0.5
	}
}

// vecStoreFirst stores before a check that may fail: it must not be
// vectorized (a failing group would be stored twice).
func vecStoreFirst(x []float64, idx []int, out []float64) {
	for i := range out {
		out[i] = 1
		s := 0.0
		for k := 0; k < 2; k++ {
			s += x[idx[i]+k]
		}
		out[i] += s
	}
}

// vecRowsInt sums rows of integers: an exact reduction LLVM vectorizes
// along the row itself, so the outer loop is left alone.
func vecRowsInt(x []int64, out []int64, n, d int) {
	for i := 0; i < n; i++ {
		var s int64
		for k := 0; k < d; k++ {
			s += x[i*d+k]
		}
		out[i] = s
	}
}
