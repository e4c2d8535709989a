package pipeline

import "github.com/gojit/gojit"

// Batch is one batch of an epoch. It lives in one of the Loader's slots
// and is valid until the loop asks for the next batch.
type Batch struct {
	l    *Loader
	slot *slot

	epoch, number, n int
	first            int // position of the first sample in the padded global order
	padFrom          int // samples at or after this position are padding
	indices          []int
}

// Epoch returns the batch's epoch; Number its position in the epoch (from
// 0); Len its number of samples.
func (b *Batch) Epoch() int { return b.epoch }

// Number returns the batch's position in the epoch, from 0.
func (b *Batch) Number() int { return b.number }

// Len returns the number of samples in the batch.
func (b *Batch) Len() int { return b.n }

// Indices returns the batch's samples' indices in the file. The slice is
// the batch's own: do not keep it past the batch.
func (b *Batch) Indices() []int { return b.indices[:b.n] }

// Padding reports whether sample j of the batch is padding: a repeat of a
// sample another entry of the epoch (on some rank) already holds, added so
// every rank gets the same number of samples. Padding comes only at the
// end of the epoch's global order, so in the last ranks' last batches.
func (b *Batch) Padding(j int) bool { return j >= b.padFrom }

// Field returns a loaded field's values as one array: [Len, shape...],
// where shape is the memory shape of the field's final value (its maximum
// for a variable-size field). Sample j's elements come first in its row,
// packed in row-major order of its own shape (see Shapes), and the rest of
// the row is zero. It returns nil for a field the loader does not load or
// whose value is a Go value (see Values).
func (b *Batch) Field(name string) *gojit.Array {
	i, ok := b.l.byName[name]
	if !ok {
		return nil
	}
	v, _ := b.slot.arr(b.l.plans[i].final().buf, b.n)
	return v
}

// Shapes returns each sample's own shape of a loaded array field as an
// Int32 array [Len, rank], or nil as Field does.
func (b *Batch) Shapes(name string) *gojit.Array {
	i, ok := b.l.byName[name]
	if !ok {
		return nil
	}
	_, sh := b.slot.arr(b.l.plans[i].final().buf, b.n)
	return sh
}

// Sample returns sample j's value of a loaded field, trimmed to its own
// shape (or its Go value), and false for an unknown field or j out of
// range. The value shares the batch's memory.
func (b *Batch) Sample(name string, j int) (Value, bool) {
	i, ok := b.l.byName[name]
	if !ok || j < 0 || j >= b.n {
		return Value{}, false
	}
	return b.l.value(b.slot, b.l.plans[i].final().buf, j, true), true
}

// Values returns a Go-valued field's values (decoded JSON), one per
// sample, or nil for another field.
func (b *Batch) Values(name string) []any {
	i, ok := b.l.byName[name]
	if !ok {
		return nil
	}
	st := b.l.plans[i].final()
	if !st.out.GoValue {
		return nil
	}
	return b.slot.gov[st.buf][:b.n]
}
