package pipeline

import (
	"github.com/gojit/gojit/dataset"
	"slices"
	"testing"
)

// pagesOf returns a pageOf function for samples packed perPage to a page.
func pagesOf(perPage int) func(int) int { return func(i int) int { return i / perPage } }

// TestShardCoverage checks, for every order, sample count up to 23, world
// size up to 5 and a few epochs, that the ranks' parts have equal size,
// that their non-padding entries are disjoint and together are every
// sample exactly once, and that the padding is exactly per*world-n entries
// repeating the start of the epoch's order.
func TestShardCoverage(t *testing.T) {
	for _, order := range []Order{Sequential, Random, QuasiRandom} {
		for n := 1; n <= 23; n++ {
			base := make([]int, n)
			for i := range base {
				base[i] = 3 * i // a subset: every third sample
			}
			for world := 1; world <= 5; world++ {
				for epoch := range 3 {
					per := (n + world - 1) / world
					seen := map[int]int{}
					var global []int
					for rank := range world {
						s := newShard(order, 7, rank, world, 2, base, pagesOf(4*3))
						if s.perRank() != per || s.padding() != per*world-n {
							t.Fatalf("%v n=%d world=%d: perRank %d padding %d, want %d and %d", order, n, world, s.perRank(), s.padding(), per, per*world-n)
						}
						mine, off := s.epoch(epoch)
						if len(mine) != per || off != rank*per {
							t.Fatalf("%v n=%d world=%d rank=%d: %d samples at %d, want %d at %d", order, n, world, rank, len(mine), off, per, rank*per)
						}
						for j, x := range mine {
							if off+j < n {
								seen[x]++
							}
						}
						global = append(global, mine...)
					}
					if len(seen) != n {
						t.Fatalf("%v n=%d world=%d epoch=%d: %d distinct samples, want %d", order, n, world, epoch, len(seen), n)
					}
					for _, x := range base {
						if seen[x] != 1 {
							t.Fatalf("%v n=%d world=%d epoch=%d: sample %d seen %d times", order, n, world, epoch, x, seen[x])
						}
					}
					if !slices.Equal(global[n:], global[:per*world-n]) {
						t.Fatalf("%v n=%d world=%d: padding %v is not the start of the order %v", order, n, world, global[n:], global)
					}
					if order == Sequential && !slices.Equal(global[:n], base) {
						t.Fatalf("Sequential order %v, want %v", global[:n], base)
					}
				}
			}
		}
	}
}

// TestShuffleDeterminism: the same (seed, epoch) gives the same order on
// every rank; another epoch or seed gives another.
func TestShuffleDeterminism(t *testing.T) {
	base := make([]int, 1000)
	for i := range base {
		base[i] = i
	}
	for _, order := range []Order{Random, QuasiRandom} {
		a, _ := newShard(order, 1, 0, 1, 3, base, pagesOf(10)).epoch(5)
		b, _ := newShard(order, 1, 0, 1, 3, base, pagesOf(10)).epoch(5)
		if !slices.Equal(a, b) {
			t.Fatalf("%v: two shards of the same seed and epoch differ", order)
		}
		s := newShard(order, 1, 0, 1, 3, base, pagesOf(10))
		c, _ := s.epoch(6)
		c = slices.Clone(c)
		d, _ := newShard(order, 2, 0, 1, 3, base, pagesOf(10)).epoch(5)
		if slices.Equal(a, c) || slices.Equal(a, d) {
			t.Fatalf("%v: another epoch or seed gives the same order", order)
		}
		// Reusing a shard for an earlier epoch gives that epoch's order again.
		if e, _ := s.epoch(5); !slices.Equal(a, e) {
			t.Fatalf("%v: epoch 5 after epoch 6 differs from epoch 5 alone", order)
		}
	}
}

// TestRandomUniform: over many epochs, each of the 24 permutations of 4
// samples appears about equally often (chi-square, 23 degrees of freedom).
func TestRandomUniform(t *testing.T) {
	const epochs = 24 * 2000
	s := newShard(Random, 99, 0, 1, 0, []int{0, 1, 2, 3}, nil)
	count := map[[4]int]int{}
	for e := range epochs {
		p, _ := s.epoch(e)
		count[[4]int(p)]++
	}
	if len(count) != 24 {
		t.Fatalf("%d distinct permutations of 4, want 24", len(count))
	}
	var chi2 float64
	want := float64(epochs) / 24
	for _, c := range count {
		chi2 += (float64(c) - want) * (float64(c) - want) / want
	}
	// P(chi2 > 55) with 23 degrees of freedom is about 2e-4.
	if chi2 > 55 {
		t.Fatalf("chi-square %.1f over the 24 permutations", chi2)
	}
}

// TestQuasiRandomWindows: in the global order, the samples come page
// group by page group, windows of openPages groups are shuffled inside,
// and the order is not simply the page order.
func TestQuasiRandomWindows(t *testing.T) {
	const n, perPage, open = 1000, 10, 2
	base := make([]int, n)
	for i := range base {
		base[i] = i
	}
	s := newShard(QuasiRandom, 3, 0, 1, open, base, pagesOf(perPage))
	all, _ := s.epoch(0)
	// Windows of open*perPage consecutive positions hold exactly open
	// whole pages (every page here holds perPage samples).
	for w := 0; w < n; w += open * perPage {
		pages := map[int]int{}
		for _, x := range all[w : w+open*perPage] {
			pages[x/perPage]++
		}
		if len(pages) != open {
			t.Fatalf("window at %d touches %d pages, want %d: %v", w, len(pages), open, pages)
		}
		for p, c := range pages {
			if c != perPage {
				t.Fatalf("window at %d holds %d samples of page %d, want %d", w, c, p, perPage)
			}
		}
	}
	inPageOrder, inIndexOrder := true, 0
	for i := 1; i < n; i++ {
		if all[i]/perPage < all[i-1]/perPage {
			inPageOrder = false
		}
		if all[i] == all[i-1]+1 {
			inIndexOrder++
		}
	}
	if inPageOrder || inIndexOrder > n/4 {
		t.Fatalf("QuasiRandom order looks unshuffled: page order %v, %d ascending neighbours", inPageOrder, inIndexOrder)
	}
}

type streamOp struct {
	Op
	stream string
}

func (s streamOp) RandStream() string { return s.stream }

// TestRandStream: ops sharing a RandStream draw the same numbers for a
// sample whatever their field and position; others draw different ones.
func TestRandStream(t *testing.T) {
	fields := map[string][]Op{
		"a": {ImageDecoder(), streamOp{RandomHorizontalFlip(1), "s"}, streamOp{RandomHorizontalFlip(1), "x"}},
		"b": {ImageDecoder(), RandomHorizontalFlip(1), streamOp{RandomHorizontalFlip(1), "s"}},
	}
	schema := dataset.Schema{Fields: []dataset.Field{{Name: "a", Kind: dataset.KindImage}, {Name: "b", Kind: dataset.KindImage}}}
	plans, _, err := buildPlans("test", schema, fields, 7, false, func(int) ([]int, error) { return []int{4, 4, 3}, nil })
	if err != nil {
		t.Fatal(err)
	}
	a, b := plans[0].steps, plans[1].steps
	if a[1].key != b[2].key {
		t.Errorf("ops sharing stream \"s\" have keys %v and %v", a[1].key, b[2].key)
	}
	if a[2].key == a[1].key || b[1].key == b[2].key || a[2].key == b[1].key {
		t.Errorf("keys not distinct: %v %v %v %v", a[1].key, a[2].key, b[1].key, b[2].key)
	}
}
