package dataset

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Reader reads a dataset file. Open validates the header and every table
// before returning; every offset and length read from the file afterwards
// is checked against the file's size and the sample's allocation, so a
// damaged file gives errors, never a crash or a read outside the file.
// A Reader is safe for concurrent use.
//
// The file must not be changed while it is open. A memory-mapped file
// that another process truncates would make later reads fault (SIGBUS);
// the Reader catches that fault on the reading goroutine
// (runtime/debug.SetPanicOnFault) and returns an ErrTruncated error
// naming the file and sample instead. With WithPread a truncated file
// gives I/O or checksum errors.
// Datasets are written under a temporary name and renamed, so writing a
// new version of a file never changes one that is open.
type Reader struct {
	path   string
	f      *os.File
	size   int64
	h      header
	schema Schema
	rowOff []int
	maxes  []maxima // each field's, as stored and checked against the rows

	mapped []byte // the whole file, when memory-mapped
	cache  *pageCache

	meta   []byte // the metadata table
	alloc  []byte // the allocation table
	ptab   []byte // the page table
	verify bool
	ok     []atomic.Uint64 // bit p: page p's checksum has been verified

	closeOnce sync.Once
	closed    atomic.Bool
}

// Open opens and validates the dataset file at path. By default the file
// is memory-mapped and page checksums are verified on the first read of
// each page; see WithPread and WithVerify.
func Open(path string, opts ...OpenOption) (*Reader, error) {
	cfg := openConfig{verify: true}
	for _, o := range opts {
		o(&cfg)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	r, err := open(path, f, cfg)
	if err != nil {
		f.Close()
		return nil, fileErr(path, err)
	}
	return r, nil
}

func open(path string, f *os.File, cfg openConfig) (*Reader, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	r := &Reader{path: path, f: f, size: st.Size(), verify: cfg.verify}
	if r.size < headerSize {
		if r.size >= 8 {
			var m [8]byte
			if _, err := f.ReadAt(m[:], 0); err == nil && m != magic {
				return nil, fmt.Errorf("%w: starts with %q, want %q", ErrNotDataset, m[:], magic[:])
			}
		}
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrTruncated, r.size, headerSize)
	}
	hb := make([]byte, headerSize)
	if _, err := f.ReadAt(hb, 0); err != nil {
		return nil, err
	}
	if r.h, err = decodeHeader(hb); err != nil {
		return nil, err
	}
	h := &r.h
	if h.fileSize != uint64(r.size) {
		if h.fileSize > uint64(r.size) {
			return nil, fmt.Errorf("%w: %d bytes, the header says %d", ErrTruncated, r.size, h.fileSize)
		}
		return nil, fmt.Errorf("%w: %d bytes, the header says %d", ErrCorrupt, r.size, h.fileSize)
	}
	if err := r.checkHeader(); err != nil {
		return nil, err
	}
	readTable := func(t table, what string) ([]byte, error) {
		b := make([]byte, t.len)
		if _, err := f.ReadAt(b, int64(t.off)); err != nil {
			return nil, fmt.Errorf("reading the %s: %w", what, err)
		}
		if got := crc(b); got != t.crc {
			return nil, fmt.Errorf("%w: %s checksum %08x, stored %08x", ErrChecksum, what, got, t.crc)
		}
		return b, nil
	}
	ft, err := readTable(h.fields, "field table")
	if err != nil {
		return nil, err
	}
	if r.schema, r.maxes, err = decodeFields(ft, int(h.fieldCount)); err != nil {
		return nil, err
	}
	offsets, rowSize, err := checkRowLayout(ft, r.schema)
	if err != nil {
		return nil, err
	}
	if uint32(rowSize) != h.rowSize {
		return nil, fmt.Errorf("%w: row size %d, the fields need %d", ErrCorrupt, h.rowSize, rowSize)
	}
	r.rowOff = offsets
	if r.meta, err = readTable(h.meta, "metadata table"); err != nil {
		return nil, err
	}
	if r.alloc, err = readTable(h.alloc, "allocation table"); err != nil {
		return nil, err
	}
	if r.ptab, err = readTable(h.pages, "page table"); err != nil {
		return nil, err
	}
	if err := r.checkTables(); err != nil {
		return nil, err
	}
	if err := r.checkMaxima(); err != nil {
		return nil, err
	}
	r.ok = make([]atomic.Uint64, (h.pageCount+63)/64)
	if cfg.pread {
		r.cache = newPageCache(cfg.cacheBytes, int(h.pageSize))
	} else if r.mapped, err = mmapFile(f, r.size); err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	return r, nil
}

// checkHeader checks that the header's numbers are in range and that the
// regions it describes lie in order inside the file without overlapping.
func (r *Reader) checkHeader() error {
	h := &r.h
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: header: %s", ErrCorrupt, fmt.Sprintf(format, a...))
	}
	switch {
	case h.flags != 0:
		return bad("unknown flags %#x", h.flags)
	case h.headerSize != headerSize:
		return bad("header size %d, want %d", h.headerSize, headerSize)
	case h.pageSize < MinPageSize || h.pageSize > MaxPageSize || !isPow2(uint64(h.pageSize)):
		return bad("page size %d is not a power of two from %d to %d", h.pageSize, MinPageSize, MaxPageSize)
	case h.fieldCount == 0 || h.fieldCount > 65535:
		return bad("field count %d", h.fieldCount)
	case h.rowSize == 0 || h.rowSize%8 != 0:
		return bad("row size %d is not a positive multiple of 8", h.rowSize)
	case h.fields.off != headerSize:
		return bad("field table at %d, want %d", h.fields.off, headerSize)
	case h.fields.len > uint64(h.fieldCount)*(descSize+maxNameLen+8):
		return bad("field table of %d bytes for %d fields", h.fields.len, h.fieldCount)
	case h.rowSize > h.fieldCount*48:
		return bad("row size %d is larger than %d fields can need", h.rowSize, h.fieldCount)
	case h.dataOff != uint64(align(headerSize+int(h.fields.len), int(h.pageSize))):
		return bad("data offset %d is not the first page boundary after the field table", h.dataOff)
	case h.dataOff > h.fileSize:
		return bad("data offset %d is past the end of the file", h.dataOff)
	case h.pageCount > (h.fileSize-h.dataOff)/uint64(h.pageSize):
		return bad("%d pages of %d bytes do not fit in the file", h.pageCount, h.pageSize)
	case h.sampleCount > h.fileSize/allocSize:
		return bad("%d samples cannot fit in a file of %d bytes", h.sampleCount, h.fileSize)
	}
	if hi, _ := bits.Mul64(h.sampleCount, uint64(h.rowSize)); hi != 0 || h.sampleCount*uint64(h.rowSize) > h.fileSize {
		return bad("%d rows of %d bytes cannot fit in a file of %d bytes", h.sampleCount, h.rowSize, h.fileSize)
	}
	// No sum or product below overflows: each is at most the file size.
	end := h.dataOff + h.pageCount*uint64(h.pageSize)
	for _, t := range []struct {
		t    table
		n    uint64
		what string
	}{{h.meta, h.sampleCount * uint64(h.rowSize), "metadata table"}, {h.alloc, h.sampleCount * allocSize, "allocation table"}, {h.pages, h.pageCount * pageEntry, "page table"}} {
		if t.t.off != end || t.t.len != t.n || t.n > h.fileSize-end {
			return bad("%s at %d (%d bytes), want %d (%d bytes)", t.what, t.t.off, t.t.len, end, t.n)
		}
		end += t.n
	}
	if end != h.fileSize {
		return bad("tables end at %d, the file at %d", end, h.fileSize)
	}
	return nil
}

// checkTables checks every page table entry and every allocation: an
// allocation lies in one page, or, when larger than a page, fills a run of
// pages from the start of the first.
func (r *Reader) checkTables() error {
	h := &r.h
	ps := uint64(h.pageSize)
	for p := range h.pageCount {
		if used := uint64(le.Uint32(r.ptab[p*pageEntry:])); used > ps {
			return fmt.Errorf("%w: page %d: %d bytes used, the page size is %d", ErrCorrupt, p, used, ps)
		}
	}
	dataEnd := h.dataOff + h.pageCount*ps
	for i := range h.sampleCount {
		off, size := le.Uint64(r.alloc[i*allocSize:]), le.Uint64(r.alloc[i*allocSize+8:])
		if size == 0 {
			continue
		}
		if off < h.dataOff || off%8 != 0 || size > dataEnd-h.dataOff || off > dataEnd-size {
			return fmt.Errorf("%w: sample %d: allocation at %d (%d bytes) is outside the data pages", ErrCorrupt, i, off, size)
		}
		rel := off - h.dataOff
		first, last := rel/ps, (rel+size-1)/ps
		if first != last && rel%ps != 0 {
			return fmt.Errorf("%w: sample %d: allocation at %d (%d bytes) crosses a page boundary", ErrCorrupt, i, off, size)
		}
		if used := uint64(le.Uint32(r.ptab[last*pageEntry:])); (rel+size-1)%ps >= used {
			return fmt.Errorf("%w: sample %d: allocation ends past the %d used bytes of page %d", ErrCorrupt, i, used, last)
		}
	}
	return nil
}

// checkMaxima checks each field's stored maxima against the field's
// declaration and against every metadata row: a stored maximum must be
// exactly the largest value the rows hold, so that a loader may size its
// buffers by it without reading the samples.
func (r *Reader) checkMaxima() error {
	fields := r.schema.Fields
	real := make([]maxima, len(fields))
	for i := range int(r.h.sampleCount) {
		row := r.meta[i*int(r.h.rowSize):]
		for f := range fields {
			if k := fields[f].Kind; k == KindBytes || k == KindJSON || k == KindImage {
				real[f].add(&fields[f], row[r.rowOff[f]:])
			}
		}
	}
	for f := range fields {
		fd := &fields[f]
		if m, got := r.maxes[f], real[f]; m != got {
			what := fmt.Sprintf("largest size %d", m.size)
			if fd.Kind == KindImage {
				what += fmt.Sprintf(", height %d, width %d, channels %d", m.h, m.w, m.c)
			}
			real := fmt.Sprintf("%d, %d, %d, %d", got.size, got.h, got.w, got.c)
			return fmt.Errorf("%w: field %d (%q): descriptor states %s; the samples have (size, height, width, channels) %s", ErrCorrupt, f, fd.Name, what, real)
		}
	}
	return nil
}

// Maxima is the largest value of a field over every sample of a file,
// as its field descriptor records it (Open checks it against every
// sample's metadata), so that a loader can size buffers without reading
// the samples.
type Maxima struct {
	// Shape is the largest shape: an Image's [height, width, channels]
	// (each the largest separately), a Bytes or JSON field's [size], an
	// NDArray's declared shape or maximum shape; nil for Int and Float.
	// All zero in a file without samples.
	Shape []int
	// Size is the largest number of bytes stored for one sample (the
	// encoded size for a JPEG image); 0 for Int and Float.
	Size int
}

// Maxima returns field f's maxima; it panics if f is out of range.
func (r *Reader) Maxima(f int) Maxima {
	fd := &r.schema.Fields[f]
	m := r.maxes[f]
	switch fd.Kind {
	case KindBytes, KindJSON:
		return Maxima{Shape: []int{int(m.size)}, Size: int(m.size)}
	case KindImage:
		return Maxima{Shape: []int{int(m.h), int(m.w), int(m.c)}, Size: int(m.size)}
	case KindNDArray:
		return Maxima{Shape: slices.Clone(fd.Shape), Size: fd.fixedBytes()}
	}
	return Maxima{}
}

// Len returns the number of samples.
func (r *Reader) Len() int { return int(r.h.sampleCount) }

// Schema returns the file's schema.
func (r *Reader) Schema() Schema { return cloneSchema(r.schema) }

// Path returns the file's path as given to Open.
func (r *Reader) Path() string { return r.path }

// PageSize returns the page size in bytes.
func (r *Reader) PageSize() int { return int(r.h.pageSize) }

// NumPages returns the number of data pages.
func (r *Reader) NumPages() int { return int(r.h.pageCount) }

// SamplePages returns the pages holding sample i's data: n pages from
// first. A sample whose fields all live in the metadata row (or are
// empty) has n = 0; an index out of range gives (0, 0).
func (r *Reader) SamplePages(i int) (first, n int) {
	if i < 0 || i >= r.Len() {
		return 0, 0
	}
	off, size := le.Uint64(r.alloc[i*allocSize:]), le.Uint64(r.alloc[i*allocSize+8:])
	if size == 0 {
		return 0, 0
	}
	ps := uint64(r.h.pageSize)
	rel := off - r.h.dataOff
	return int(rel / ps), int((rel+size-1)/ps - rel/ps + 1)
}

// FieldMeta is what the metadata row says about one field of one sample.
type FieldMeta struct {
	Int   int64   // an Int field's value
	Float float64 // a Float field's value
	// Shape is an NDArray's shape, or an Image's [height, width, channels]
	// (nil for the other kinds).
	Shape    []int
	Encoding ImageEncoding // an Image's encoding
	Size     int           // bytes stored in the data pages (0 for Int and Float)
}

// AppendRaw appends the stored bytes of field f of sample i to dst,
// without decoding (an Image's raw pixels or JPEG, an NDArray's
// little-endian elements, JSON text, bytes), and returns them with the
// field's metadata. With a dst of enough capacity nothing is allocated
// except FieldMeta.Shape for arrays and images; AppendRawInto avoids that
// too.
//
// The pages the bytes come from are checksummed on their first read
// (unless WithVerify(false)); every offset and size in the metadata row is
// checked against the sample's allocation, the field's declared shape or
// maximum, and the image's size.
func (r *Reader) AppendRaw(dst []byte, i, f int) ([]byte, FieldMeta, error) {
	var m FieldMeta
	dst, err := r.AppendRawInto(dst, i, f, &m)
	return dst, m, err
}

// AppendRawInto is AppendRaw writing the metadata into *m and the shape
// into m.Shape's storage: a caller that reuses one FieldMeta whose Shape
// has capacity MaxDims allocates nothing.
func (r *Reader) AppendRawInto(dst []byte, i, f int, m *FieldMeta) ([]byte, error) {
	if r.closed.Load() {
		return dst, fileErr(r.path, ErrClosed)
	}
	if i < 0 || i >= r.Len() {
		return dst, fileErr(r.path, fmt.Errorf("sample index %d out of range [0, %d)", i, r.Len()))
	}
	if f < 0 || f >= len(r.schema.Fields) {
		return dst, fileErr(r.path, fmt.Errorf("field index %d out of range [0, %d)", f, len(r.schema.Fields)))
	}
	fd := &r.schema.Fields[f]
	row := r.meta[i*int(r.h.rowSize)+r.rowOff[f]:]
	*m = FieldMeta{Shape: m.Shape[:0]}
	switch fd.Kind {
	case KindInt:
		m.Int = int64(le.Uint64(row))
		return dst, nil
	case KindFloat:
		m.Float = math.Float64frombits(le.Uint64(row))
		return dst, nil
	}
	off, size := le.Uint64(row), le.Uint64(row[8:])
	bad := func(format string, a ...any) error {
		return sampleErr(r.path, i, fd.Name, fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...)))
	}
	aoff, asize := le.Uint64(r.alloc[i*allocSize:]), le.Uint64(r.alloc[i*allocSize+8:])
	if size > 0 && (off < aoff || size > asize || off-aoff > asize-size) {
		return dst, bad("data at %d (%d bytes) is outside the sample's allocation at %d (%d bytes)", off, size, aoff, asize)
	}
	m.Size = int(size)
	switch fd.Kind {
	case KindNDArray:
		n := uint64(fd.DType.Size())
		if fd.Variable {
			for j, max := range fd.Shape {
				d := le.Uint32(row[16+4*j:])
				if int64(d) > int64(max) {
					return dst, bad("shape dimension %d is %d, larger than the declared maximum %v", j, d, fd.Shape)
				}
				m.Shape = append(m.Shape, int(d))
				n *= uint64(d)
			}
		} else {
			m.Shape = append(m.Shape, fd.Shape...)
			n = uint64(fd.fixedBytes())
		}
		if n != size {
			return dst, bad("%d bytes stored, shape %v of %s needs %d", size, m.Shape, fd.DType, n)
		}
	case KindImage:
		hh, ww, c, enc := le.Uint32(row[16:]), le.Uint32(row[20:]), int(row[24]), ImageEncoding(row[25])
		m.Shape = append(m.Shape, int(hh), int(ww), c)
		m.Encoding = enc
		if enc != fd.Image.Encoding {
			return dst, bad("encoding %s, the field stores %s", enc, fd.Image.Encoding)
		}
		if c != 1 && c != 3 && c != 4 || (fd.Image.Channels != 0 && c != fd.Image.Channels) || (enc == JPEG && c == 4) {
			return dst, bad("%d channels for a field of %s", c, fd)
		}
		if hh == 0 || ww == 0 || hh > 1<<16 || ww > 1<<16 {
			return dst, bad("image size %dx%d", hh, ww)
		}
		if fd.Image.MaxRes > 0 && (int(hh) > fd.Image.MaxRes || int(ww) > fd.Image.MaxRes) {
			return dst, bad("image size %dx%d exceeds the field's maximum %d", hh, ww, fd.Image.MaxRes)
		}
		if enc == Raw && uint64(hh)*uint64(ww)*uint64(c) != size {
			return dst, bad("%d bytes stored for %dx%dx%d raw pixels", size, hh, ww, c)
		}
	}
	if size == 0 {
		return dst, nil
	}
	return r.appendData(dst, i, fd.Name, int64(off), int(size))
}

// appendData appends file bytes [off, off+size), which lie inside sample
// i's validated allocation, verifying the pages they are on.
func (r *Reader) appendData(dst []byte, i int, field string, off int64, size int) (_ []byte, err error) {
	if r.mapped != nil {
		// A mapped file truncated (or shrunk) after Open makes the read
		// fault (SIGBUS): let the fault panic on this goroutine and turn
		// it into an error here, instead of crashing the program.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if v := recover(); v != nil {
				f, ok := v.(interface{ Addr() uintptr })
				if !ok {
					panic(v)
				}
				at := int64(-1)
				if base := uintptr(unsafe.Pointer(unsafe.SliceData(r.mapped))); f.Addr() >= base {
					at = int64(f.Addr() - base)
				}
				err = sampleErr(r.path, i, field, fmt.Errorf("%w: reading the memory-mapped file faulted at file offset %d: the file was truncated or changed after Open", ErrTruncated, at))
			}
		}()
	}
	ps := int64(r.h.pageSize)
	dataOff := int64(r.h.dataOff)
	for size > 0 {
		p := (off - dataOff) / ps
		in := (off - dataOff) % ps
		n := min(int64(size), ps-in)
		if r.mapped != nil {
			if r.verify && !r.verified(int(p)) {
				pg := r.mapped[dataOff+p*ps : dataOff+(p+1)*ps]
				if err := r.checkPage(int(p), pg); err != nil {
					return dst, sampleErr(r.path, i, field, err)
				}
			}
			dst = append(dst, r.mapped[off:off+n]...)
		} else {
			var err error
			dst, err = r.cache.appendFrom(r, dst, int(p), int(in), int(n))
			if err != nil {
				return dst, sampleErr(r.path, i, field, err)
			}
		}
		off += n
		size -= int(n)
	}
	return dst, nil
}

func (r *Reader) verified(p int) bool { return r.ok[p/64].Load()&(1<<(p%64)) != 0 }

// checkPage compares page p's checksum with the page table and marks it
// verified.
func (r *Reader) checkPage(p int, pg []byte) error {
	want := le.Uint32(r.ptab[p*pageEntry+4:])
	if got := crc(pg); got != want {
		return fmt.Errorf("%w: page %d (file offset %d): checksum %08x, stored %08x", ErrChecksum, p, int64(r.h.dataOff)+int64(p)*int64(r.h.pageSize), got, want)
	}
	r.ok[p/64].Or(1 << (p % 64))
	return nil
}

// Close releases the mapping or cache and closes the file. It must not
// be called while other calls on the Reader are in progress; calls after
// it return ErrClosed.
func (r *Reader) Close() error {
	var err error
	r.closeOnce.Do(func() {
		r.closed.Store(true)
		if r.mapped != nil {
			err = munmapFile(r.mapped)
			r.mapped = nil
		}
		if e := r.f.Close(); err == nil {
			err = e
		}
	})
	return err
}

// pageCache is a bounded LRU cache of verified pages read with pread.
type pageCache struct {
	mu    sync.Mutex
	limit int
	ps    int
	pages map[int]*cachedPage
	clock uint64
}

type cachedPage struct {
	buf  []byte
	used uint64
}

func newPageCache(bytes int64, ps int) *pageCache {
	return &pageCache{limit: int(max(1, bytes/int64(ps))), ps: ps, pages: map[int]*cachedPage{}}
}

// appendFrom appends n bytes from offset in of page p.
func (c *pageCache) appendFrom(r *Reader, dst []byte, p, in, n int) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	cp, ok := c.pages[p]
	if !ok {
		var buf []byte
		if len(c.pages) >= c.limit {
			var victim int
			oldest := uint64(math.MaxUint64)
			for q, e := range c.pages {
				if e.used < oldest {
					victim, oldest = q, e.used
				}
			}
			buf = c.pages[victim].buf
			delete(c.pages, victim)
		} else {
			buf = make([]byte, c.ps)
		}
		off := int64(r.h.dataOff) + int64(p)*int64(c.ps)
		if _, err := r.f.ReadAt(buf, off); err != nil && err != io.EOF {
			return dst, fmt.Errorf("reading page %d: %w", p, err)
		}
		if r.verify {
			if err := r.checkPage(p, buf); err != nil {
				return dst, err
			}
		}
		cp = &cachedPage{buf: buf}
		c.pages[p] = cp
	}
	cp.used = c.clock
	return append(dst, cp.buf[in:in+n]...), nil
}
