package pipeline

import (
	"fmt"
	"math/bits"

	"github.com/gojit/gojit/internal/philox"
)

// Order is the order in which an epoch visits the samples.
type Order int

const (
	// Sequential visits the samples in index order (or in the order of
	// Config.Indices). It is the same every epoch.
	Sequential Order = iota
	// Random visits a uniformly random permutation of the samples, a new
	// one every epoch, drawn from (Seed, epoch).
	Random
	// QuasiRandom is a page-aware shuffle: the data pages are put in a
	// random order, and the samples are shuffled only within windows of
	// Config.OpenPages consecutive pages of that order, so reading stays
	// within a bounded number of pages at a time.
	QuasiRandom
)

// String returns the order's Go name.
func (o Order) String() string {
	switch o {
	case Sequential:
		return "Sequential"
	case Random:
		return "Random"
	case QuasiRandom:
		return "QuasiRandom"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Purposes of the shuffle's counters: the fourth counter word, so the
// permutation draws never meet each other or the per-op keys (whose
// derivation uses 0xFFFFFFFF there).
const (
	purposePerm   = 1 // Random: the permutation of the samples
	purposePages  = 2 // QuasiRandom: the permutation of the page groups
	purposeWindow = 3 // QuasiRandom: the shuffles inside windows
)

// drawer yields the 64-bit draws of one counter stream of Philox-4x32:
// block b has counter (b low, b high, epoch, purpose).
type drawer struct {
	key     philox.Key
	epoch   uint32
	purpose uint32
	block   uint64
	buf     [4]uint32
	used    int
}

func newDrawer(seed int64, epoch int, purpose uint32, start uint64) drawer {
	return drawer{key: philox.KeyOf(seed), epoch: uint32(epoch), purpose: purpose, block: start, used: 4}
}

func (d *drawer) uint64() uint64 {
	if d.used == 4 {
		d.buf = philox.Block(philox.Counter{uint32(d.block), uint32(d.block >> 32), d.epoch, d.purpose}, d.key)
		d.block++
		d.used = 0
	}
	v := uint64(d.buf[d.used])<<32 | uint64(d.buf[d.used+1])
	d.used += 2
	return v
}

// below returns a draw in [0, n): the high word of a 64x64-bit product,
// whose bias is at most n/2^64.
func (d *drawer) below(n int) int {
	hi, _ := bits.Mul64(d.uint64(), uint64(n))
	return int(hi)
}

// shuffle permutes s in place by Fisher-Yates with the drawer's draws.
func shuffle[T any](s []T, d *drawer) {
	for i := len(s) - 1; i > 0; i-- {
		j := d.below(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}

// shard is the index math of one rank's epoch: which samples, in which
// order, and which of them are padding. It owns its buffers and reuses
// them from epoch to epoch.
type shard struct {
	order     Order
	seed      int64
	rank      int
	world     int
	openPages int
	pageOf    func(int) int

	base []int // the samples (Config.Indices or 0..Len-1), in the order given
	// QuasiRandom: the samples grouped by their first data page, groups in
	// page order and samples in each group as in base.
	groupStart []int // group g is grouped[groupStart[g]:groupStart[g+1]]
	grouped    []int
	groupPerm  []int // reused

	all []int // the epoch's global order, padded: len = per*world
}

// newShard prepares the index math. pageOf gives a sample's group (its
// first data page), used only by QuasiRandom; it must be non-decreasing in
// the sample index.
func newShard(order Order, seed int64, rank, world, openPages int, base []int, pageOf func(int) int) *shard {
	s := &shard{order: order, seed: seed, rank: rank, world: world, openPages: openPages, pageOf: pageOf, base: base}
	n := len(base)
	per := (n + world - 1) / world
	s.all = make([]int, per*world)
	if order == QuasiRandom {
		// Counting sort of base by group, stable.
		keys := make([]int, n)
		maxKey := -1
		for i, x := range base {
			keys[i] = pageOf(x)
			maxKey = max(maxKey, keys[i])
		}
		count := make([]int, maxKey+2)
		for _, k := range keys {
			count[k+1]++
		}
		for k := 1; k < len(count); k++ {
			count[k] += count[k-1]
		}
		s.grouped = make([]int, n)
		next := append([]int(nil), count...)
		for i, x := range base {
			s.grouped[next[keys[i]]] = x
			next[keys[i]]++
		}
		for k := 0; k+1 < len(count); k++ {
			if count[k+1] > count[k] {
				s.groupStart = append(s.groupStart, count[k])
			}
		}
		s.groupStart = append(s.groupStart, n)
		s.groupPerm = make([]int, len(s.groupStart)-1)
	}
	return s
}

// perRank is the number of samples every rank gets each epoch:
// ceil(n / world).
func (s *shard) perRank() int { return len(s.all) / s.world }

// padding is how many entries of the padded global order repeat a sample.
func (s *shard) padding() int { return len(s.all) - len(s.base) }

// epoch computes this rank's samples for an epoch and returns them with
// the position of the first one in the padded global order (positions at
// or past len(base) are padding).
func (s *shard) epoch(epoch int) (mine []int, offset int) {
	n := len(s.base)
	all := s.all[:n]
	switch s.order {
	case Sequential:
		copy(all, s.base)
	case Random:
		copy(all, s.base)
		d := newDrawer(s.seed, epoch, purposePerm, 0)
		shuffle(all, &d)
	case QuasiRandom:
		for g := range s.groupPerm {
			s.groupPerm[g] = g
		}
		d := newDrawer(s.seed, epoch, purposePages, 0)
		shuffle(s.groupPerm, &d)
		k := 0
		for _, g := range s.groupPerm {
			k += copy(all[k:], s.grouped[s.groupStart[g]:s.groupStart[g+1]])
		}
		s.windows(epoch, all)
	}
	// Padding: the first entries of the epoch's order again, so every rank
	// gets the same number of samples.
	copy(s.all[n:], all)
	per := s.perRank()
	offset = s.rank * per
	return s.all[offset : offset+per], offset
}

// windows shuffles all, the page-shuffled order, within windows of
// openPages consecutive groups. A window's draws start at the counter
// block numbered by its first position; a window of w samples uses fewer
// than w blocks, so windows never share a block.
func (s *shard) windows(epoch int, all []int) {
	start, groups, last := 0, 0, -1
	flush := func(end int) {
		d := newDrawer(s.seed, epoch, purposeWindow, uint64(start))
		shuffle(all[start:end], &d)
		start, groups = end, 0
	}
	for i, x := range all {
		if g := s.pageOf(x); g != last {
			if groups == s.openPages {
				flush(i)
			}
			groups++
			last = g
		}
	}
	flush(len(all))
}
