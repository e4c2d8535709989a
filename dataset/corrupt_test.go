package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smallFile writes a small dataset of every kind and returns its bytes.
func smallFile(t testing.TB) []byte {
	path := filepath.Join(t.TempDir(), "s.ds")
	writeFile(t, path, testSchema(), 30, testSample, WithWorkers(1), WithPageSize(MinPageSize))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll opens path and reads every sample, returning the first error.
func readAll(path string, opts ...OpenOption) error {
	r, err := Open(path, opts...)
	if err != nil {
		return err
	}
	defer r.Close()
	for i := range r.Len() {
		if _, err := r.Sample(i); err != nil {
			return err
		}
		for f := range r.schema.Fields {
			if _, _, err := r.AppendRaw(nil, i, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestCorruptFiles(t *testing.T) {
	orig := smallFile(t)
	h, err := decodeHeader(orig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		name   string
		edit   func([]byte) []byte
		sentry error
		want   string
	}{
		{"empty", func([]byte) []byte { return nil }, ErrTruncated, "shorter than the 160-byte header"},
		{"foreign", func([]byte) []byte { return []byte("PK\x03\x04 this is a zip file, not a dataset at all......") }, ErrNotDataset, "bad magic"},
		{"foreign long", func(b []byte) []byte { c := append([]byte{}, b...); copy(c, "\x89PNG\r\n\x1a\n"); return c }, ErrNotDataset, "PNG"},
		{"version", func(b []byte) []byte { b[8] = 9; return b }, ErrVersion, "format version 9"},
		{"version 1", func(b []byte) []byte { b[8] = 1; return b }, ErrVersion, "format version 1, written before version 2 stored each field's maxima; write the file again"},
		{"header crc", func(b []byte) []byte { b[24]++; return b }, ErrChecksum, "header checksum"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-5] }, ErrTruncated, "the header says"},
		{"truncated to header", func(b []byte) []byte { return b[:300] }, ErrTruncated, "the header says"},
		{"appended", func(b []byte) []byte { return append(b, 0) }, ErrCorrupt, "the header says"},
		{"field table", func(b []byte) []byte { b[headerSize+64]++; return b }, ErrChecksum, "field table checksum"},
		{"metadata", func(b []byte) []byte { b[h.meta.off+3]++; return b }, ErrChecksum, "metadata table checksum"},
		{"alloc", func(b []byte) []byte { b[h.alloc.off+1]++; return b }, ErrChecksum, "allocation table checksum"},
		{"page table", func(b []byte) []byte { b[h.pages.off]++; return b }, ErrChecksum, "page table checksum"},
		{"page", func(b []byte) []byte { b[h.dataOff+20]++; return b }, ErrChecksum, "page 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".ds")
			if err := os.WriteFile(path, c.edit(append([]byte{}, orig...)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]OpenOption{nil, {WithPread(1 << 20)}} {
				err := readAll(path, opts...)
				if err == nil || !errors.Is(err, c.sentry) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
					t.Errorf("%v, want %v naming %s and %q", err, c.sentry, path, c.want)
				}
			}
		})
	}
	// A damaged page is an error naming the sample, unless verification
	// is off; Verify reports it too.
	b := append([]byte{}, orig...)
	b[h.dataOff+20]++
	path := filepath.Join(dir, "page.ds")
	os.WriteFile(path, b, 0o644)
	if err := readAll(path, WithVerify(false)); err != nil {
		t.Errorf("with verification off: %v", err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sample(0); err == nil || !strings.Contains(err.Error(), "sample 0: field") {
		t.Errorf("Sample(0) on a damaged page: %v", err)
	}
	if err := r.Verify(context.Background(), 5); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "page 0") {
		t.Errorf("Verify: %v", err)
	}
}

// TestForgedTables rewrites table entries with valid checksums, as a
// malicious or buggy writer could: the reader must still refuse them.
func TestForgedTables(t *testing.T) {
	orig := smallFile(t)
	h, _ := decodeHeader(orig)
	dir := t.TempDir()
	// reseal recomputes the checksums and, unless keepMaxima, the
	// maxima in the field descriptors from the (edited) rows, so that
	// the checks behind them are reached.
	keepMaxima := false
	reseal := func(b []byte) []byte {
		hh, _ := decodeHeader(b)
		ft := b[hh.fields.off : hh.fields.off+hh.fields.len]
		if !keepMaxima {
			schema, _, err := decodeFields(ft, int(hh.fieldCount))
			if err != nil {
				t.Fatal(err)
			}
			offsets, rs := layout(schema)
			real := make([]maxima, len(schema.Fields))
			for i := range int(hh.sampleCount) {
				for f := range schema.Fields {
					if k := schema.Fields[f].Kind; k == KindBytes || k == KindJSON || k == KindImage {
						real[f].add(&schema.Fields[f], b[int(hh.meta.off)+i*rs+offsets[f]:])
					}
				}
			}
			copy(ft, encodeFields(schema, offsets, real))
		}
		hh.fields.crc = crc(ft)
		hh.meta.crc = crc(b[hh.meta.off : hh.meta.off+hh.meta.len])
		hh.alloc.crc = crc(b[hh.alloc.off : hh.alloc.off+hh.alloc.len])
		hh.pages.crc = crc(b[hh.pages.off : hh.pages.off+hh.pages.len])
		copy(b, hh.encode())
		return b
	}
	row := func(i, f int) uint64 {
		_, rs := layout(testSchema())
		off, _ := layout(testSchema())
		return h.meta.off + uint64(i*rs+off[f])
	}
	// desc is the offset of field f's descriptor.
	desc := func(f int) uint64 {
		off := h.fields.off
		for _, fd := range testSchema().Fields[:f] {
			off += uint64(descSize + align(len(fd.Name), 8))
		}
		return off
	}
	cases := []struct {
		name       string
		edit       func([]byte)
		want       string
		keepMaxima bool
	}{
		// Stated maxima smaller than a sample's real size (a loader
		// sizing buffers by them would overflow) or larger than any.
		{"max height", func(b []byte) { le.PutUint32(b[desc(10)+32:], 3) }, `field 10 ("rgb"): descriptor states largest size 84, height 3`, true},
		{"max size", func(b []byte) { le.PutUint64(b[desc(10)+48:], 83) }, "descriptor states largest size 83", true},
		{"max bytes", func(b []byte) { le.PutUint64(b[desc(2)+32:], 1) }, "descriptor states largest size 1;", true},
		{"max larger", func(b []byte) { le.PutUint32(b[desc(10)+36:], 70) }, "width 70", true},
		{"row above max", func(b []byte) { le.PutUint32(b[row(2, 10)+16:], 5) }, "the samples have (size, height, width, channels) 84, 5, 7, 3", true},
		{"alloc outside", func(b []byte) { le.PutUint64(b[h.alloc.off+16:], 1<<40) }, "outside the data pages", false},
		{"alloc crosses", func(b []byte) { le.PutUint64(b[h.alloc.off+24:], 3900) }, "crosses a page boundary", false},
		{"field outside", func(b []byte) { le.PutUint64(b[row(3, 2):], 8) }, "outside the sample's allocation", false},
		{"field size", func(b []byte) { le.PutUint64(b[row(3, 2)+8:], 1<<62) }, "outside the sample's allocation", false},
		{"var shape", func(b []byte) { le.PutUint32(b[row(2, 5)+16:], 6) }, "larger than the declared maximum", false},
		{"image size", func(b []byte) { le.PutUint32(b[row(2, 10)+16:], 1000) }, "raw pixels", false},
		{"channels", func(b []byte) { b[row(2, 10)+24] = 2 }, "2 channels", false},
		{"page used", func(b []byte) { le.PutUint32(b[h.pages.off:], MinPageSize+1) }, "bytes used", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte{}, orig...)
			c.edit(b)
			keepMaxima = c.keepMaxima
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".ds")
			os.WriteFile(path, reseal(b), 0o644)
			err := readAll(path)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want ErrCorrupt and %q", err, c.want)
			}
		})
	}
}

// FuzzOpen opens corrupted variants of a valid file and reads every
// sample: errors are fine, crashes and reads outside the file are not.
// Each input is applied to the file as (offset, byte) edits, so the
// fuzzer explores damage to a valid file rather than random bytes that
// fail the magic check. The header checksum is resealed when the last
// byte of the input is odd, so damage gets past the header.
func FuzzOpen(f *testing.F) {
	orig := smallFile(f)
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0x30, 0x01, 0xff, 0x01})
	f.Add([]byte{0x18, 0x00, 0x05, 0x01})
	f.Add([]byte{0x68, 0x00, 0x01, 0x01})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, edits []byte) {
		b := append([]byte{}, orig...)
		for i := 0; i+3 <= len(edits); i += 3 {
			off := int(edits[i])<<8 | int(edits[i+1])
			// Spread offsets over the header, the field table and the
			// tables at the end.
			if off >= 0x8000 {
				off = len(b) - 1 - (off - 0x8000)
			}
			if off >= 0 && off < len(b) {
				b[off] ^= edits[i+2]
			}
		}
		if len(edits) > 0 && edits[len(edits)-1]%2 == 1 {
			copy(b[156:], le.AppendUint32(nil, crc(b[:156])))
			if hh, err := decodeHeader(b); err == nil {
				for _, tb := range []*table{&hh.fields, &hh.meta, &hh.alloc, &hh.pages} {
					if tb.off <= uint64(len(b)) && tb.len <= uint64(len(b))-tb.off {
						tb.crc = crc(b[tb.off : tb.off+tb.len])
					}
				}
				copy(b, hh.encode())
			}
		}
		path := filepath.Join(dir, "f.ds")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, opts := range [][]OpenOption{nil, {WithPread(MinPageSize)}} {
			if err := readAll(path, opts...); err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
		}
	})
}

// TestForgedHeader rewrites header numbers with a valid header checksum:
// counts and sizes whose products overflow or exceed the file must be
// refused, not trusted.
func TestForgedHeader(t *testing.T) {
	orig := smallFile(t)
	dir := t.TempDir()
	cases := []struct {
		name string
		edit func(*header)
		want string
	}{
		{"samples", func(h *header) { h.sampleCount = 1 << 62 }, "samples cannot fit"},
		{"rows overflow", func(h *header) { h.sampleCount, h.rowSize = 1<<40, 1<<24 }, "row size"},
		{"rows", func(h *header) { h.sampleCount = h.fileSize / 17 }, "rows of"},
		{"pages", func(h *header) { h.pageCount = 1 << 50 }, "do not fit"},
		{"data offset", func(h *header) { h.dataOff = 1 << 62 }, "data offset"},
		{"page size", func(h *header) { h.pageSize = 3 << 12 }, "power of two"},
		{"flags", func(h *header) { h.flags = 1 }, "unknown flags"},
		{"fields", func(h *header) { h.fieldCount = 0 }, "field count 0"},
		{"table order", func(h *header) { h.alloc.off, h.pages.off = h.pages.off, h.alloc.off }, "allocation table at"},
	}
	for _, c := range cases {
		h, err := decodeHeader(orig)
		if err != nil {
			t.Fatal(err)
		}
		c.edit(&h)
		b := append([]byte{}, orig...)
		copy(b, h.encode())
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".ds")
		os.WriteFile(path, b, 0o644)
		if err := readAll(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrCorrupt and %q", c.name, err, c.want)
		}
	}
}
