package gojit

// A size's pooled buffers are a heap ordered by stamp, the warmest at
// index 0: the finalizers give them back in no particular order, up to a
// thousand slabs of a size per collection, and keeping the list sorted
// would move half of it each time.

// pushPooled adds b to the heap list.
func pushPooled(list []pooled, b pooled) []pooled {
	list = append(list, b)
	warmUp(list, len(list)-1)
	return list
}

// warmUp moves list[i] up the heap while it is warmer than its parent.
func warmUp(list []pooled, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if list[parent].stamp >= list[i].stamp {
			return
		}
		list[parent], list[i] = list[i], list[parent]
		i = parent
	}
}

// popWarmest removes list[0], the warmest, from the heap list.
func popWarmest(list []pooled) []pooled {
	n := len(list) - 1
	list[0] = list[n]
	list[n] = pooled{}
	list = list[:n]
	for i := 0; ; {
		w, l := i, 2*i+1
		if l < n && list[l].stamp > list[w].stamp {
			w = l
		}
		if r := l + 1; r < n && list[r].stamp > list[w].stamp {
			w = r
		}
		if w == i {
			return list
		}
		list[i], list[w] = list[w], list[i]
		i = w
	}
}

// coldest returns the index of the coldest buffer in the heap list, one
// of its leaves.
func coldest(list []pooled) int {
	c := len(list) / 2
	for i := c + 1; i < len(list); i++ {
		if list[i].stamp < list[c].stamp {
			c = i
		}
	}
	return c
}
