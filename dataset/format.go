package dataset

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"unicode/utf8"

	"github.com/gojit/gojit"
)

// The on-disk layout; docs/dataset-format.md describes it byte by byte.

// magic opens every dataset file.
var magic = [8]byte{'G', 'O', 'J', 'I', 'T', 'D', 'S', 0}

const (
	// Version is the format version this package writes and reads.
	// Version 2 added each field's maxima to its descriptor (see
	// Reader.Maxima); files of version 1 are refused with an error saying
	// to write them again.
	Version = 2

	headerSize = 160
	descSize   = 64 // fixed part of a field descriptor, before the name
	allocSize  = 16 // allocation table entry: offset u64, size u64
	pageEntry  = 8  // page table entry: used u32, crc32c u32

	// MinPageSize and MaxPageSize bound the page size, a power of two.
	MinPageSize = 4 << 10
	MaxPageSize = 1 << 30
	// DefaultPageSize is the page size Create uses unless WithPageSize
	// says otherwise.
	DefaultPageSize = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

var le = binary.LittleEndian

// header is the file's first 160 bytes.
type header struct {
	version     uint32
	flags       uint32
	fieldCount  uint32
	pageSize    uint32
	sampleCount uint64
	rowSize     uint32
	headerSize  uint32
	fields      table
	meta        table
	alloc       table
	pages       table
	dataOff     uint64
	pageCount   uint64
	fileSize    uint64
}

// table is where one table lies and its CRC32C.
type table struct {
	off, len uint64
	crc      uint32
}

func (h *header) encode() []byte {
	b := make([]byte, headerSize)
	copy(b, magic[:])
	le.PutUint32(b[8:], h.version)
	le.PutUint32(b[12:], h.flags)
	le.PutUint32(b[16:], h.fieldCount)
	le.PutUint32(b[20:], h.pageSize)
	le.PutUint64(b[24:], h.sampleCount)
	le.PutUint32(b[32:], h.rowSize)
	le.PutUint32(b[36:], h.headerSize)
	for i, t := range []table{h.fields, h.meta, h.alloc, h.pages} {
		le.PutUint64(b[40+16*i:], t.off)
		le.PutUint64(b[48+16*i:], t.len)
		le.PutUint32(b[120+4*i:], t.crc)
	}
	le.PutUint64(b[104:], h.dataOff)
	le.PutUint64(b[112:], h.pageCount)
	le.PutUint64(b[136:], h.fileSize)
	le.PutUint32(b[156:], crc(b[:156]))
	return b
}

// decodeHeader checks the magic, version and checksum of b (at least
// headerSize bytes) and decodes it; the tables are checked by Open.
func decodeHeader(b []byte) (header, error) {
	var h header
	if [8]byte(b[:8]) != magic {
		return h, fmt.Errorf("%w: starts with %q, want %q", ErrNotDataset, b[:8], magic[:])
	}
	h.version = le.Uint32(b[8:])
	if h.version == 1 {
		return h, fmt.Errorf("%w: format version 1, written before version 2 stored each field's maxima; write the file again with this version of gojit", ErrVersion)
	}
	if h.version != Version {
		return h, fmt.Errorf("%w: format version %d, this reader knows version %d", ErrVersion, h.version, Version)
	}
	if got, want := crc(b[:156]), le.Uint32(b[156:]); got != want {
		return h, fmt.Errorf("%w: header checksum %08x, stored %08x", ErrChecksum, got, want)
	}
	h.flags = le.Uint32(b[12:])
	h.fieldCount = le.Uint32(b[16:])
	h.pageSize = le.Uint32(b[20:])
	h.sampleCount = le.Uint64(b[24:])
	h.rowSize = le.Uint32(b[32:])
	h.headerSize = le.Uint32(b[36:])
	for i, t := range []*table{&h.fields, &h.meta, &h.alloc, &h.pages} {
		t.off = le.Uint64(b[40+16*i:])
		t.len = le.Uint64(b[48+16*i:])
		t.crc = le.Uint32(b[120+4*i:])
	}
	h.dataOff = le.Uint64(b[104:])
	h.pageCount = le.Uint64(b[112:])
	h.fileSize = le.Uint64(b[136:])
	for _, z := range b[144:156] {
		if z != 0 {
			return h, fmt.Errorf("%w: reserved header bytes 144..155 are not zero", ErrCorrupt)
		}
	}
	return h, nil
}

// File codes of the NDArray dtypes.
var dtypeCodes = []struct {
	code uint8
	dt   gojit.DType
}{{1, gojit.Bool}, {2, gojit.Uint8}, {3, gojit.Int32}, {4, gojit.Int64}, {5, gojit.Float32}, {6, gojit.Float64}}

func dtypeCode(dt gojit.DType) uint8 {
	for _, c := range dtypeCodes {
		if c.dt == dt {
			return c.code
		}
	}
	return 0
}

func dtypeOf(code uint8) (gojit.DType, bool) {
	for _, c := range dtypeCodes {
		if c.code == code {
			return c.dt, true
		}
	}
	return 0, false
}

// layout is a schema's metadata row: each field's offset in it, and the
// row's size.
func layout(s Schema) (offsets []int, rowSize int) {
	offsets = make([]int, len(s.Fields))
	for i, f := range s.Fields {
		offsets[i] = rowSize
		rowSize += f.rowSize()
	}
	return offsets, rowSize
}

// maxima is what a field descriptor records about the largest value of
// a Bytes, JSON or Image field over every sample (all zero without
// samples): the largest stored size and, for an Image, the largest
// height, width and channel count, each taken separately.
type maxima struct {
	size    uint64
	h, w, c uint32
}

// add widens m to cover one sample's metadata row entry r of field f.
func (m *maxima) add(f *Field, r []byte) {
	switch f.Kind {
	case KindBytes, KindJSON, KindImage:
		m.size = max(m.size, le.Uint64(r[8:]))
	}
	if f.Kind == KindImage {
		m.h = max(m.h, le.Uint32(r[16:]))
		m.w = max(m.w, le.Uint32(r[20:]))
		m.c = max(m.c, uint32(r[24]))
	}
}

// encodeFields returns the field descriptor table; maxes is nil (all
// zero) or holds each field's maxima.
func encodeFields(s Schema, offsets []int, maxes []maxima) []byte {
	var b []byte
	for i, f := range s.Fields {
		var m maxima
		if maxes != nil {
			m = maxes[i]
		}
		d := make([]byte, descSize+align(len(f.Name), 8))
		d[0] = uint8(f.Kind)
		if f.Kind == KindNDArray {
			d[1] = dtypeCode(f.DType)
			d[2] = uint8(len(f.Shape))
			if f.Variable {
				d[3] = 1
			}
			for j, n := range f.Shape {
				le.PutUint32(d[32+4*j:], uint32(n))
			}
		}
		le.PutUint16(d[4:], uint16(len(f.Name)))
		le.PutUint32(d[8:], uint32(offsets[i]))
		le.PutUint32(d[12:], uint32(f.rowSize()))
		if f.Kind == KindImage {
			d[16] = uint8(f.Image.Encoding)
			d[17] = uint8(f.Image.Channels)
			le.PutUint32(d[20:], uint32(f.Image.MaxRes))
			le.PutUint32(d[24:], uint32(f.Image.Quality))
			le.PutUint32(d[32:], m.h)
			le.PutUint32(d[36:], m.w)
			le.PutUint32(d[40:], m.c)
			le.PutUint64(d[48:], m.size)
		}
		if f.Kind == KindBytes || f.Kind == KindJSON {
			le.PutUint64(d[32:], m.size)
		}
		copy(d[descSize:], f.Name)
		b = append(b, d...)
	}
	return b
}

// decodeFields parses n field descriptors from b, which must be used up
// exactly, and checks them as Schema.Validate does; it returns each
// field's maxima too (checked against the rows by Open).
func decodeFields(b []byte, n int) (Schema, []maxima, error) {
	var s Schema
	maxes := make([]maxima, 0, n)
	for i := range n {
		if len(b) < descSize {
			return s, nil, fmt.Errorf("%w: field table ends inside descriptor %d", ErrCorrupt, i)
		}
		d := b[:descSize]
		nameLen := int(le.Uint16(d[4:]))
		full := descSize + align(nameLen, 8)
		if len(b) < full {
			return s, nil, fmt.Errorf("%w: field table ends inside the name of field %d", ErrCorrupt, i)
		}
		name := string(b[descSize : descSize+nameLen])
		f := Field{Name: name, Kind: Kind(d[0])}
		if !utf8.ValidString(name) {
			return s, nil, fmt.Errorf("%w: field %d: name is not UTF-8", ErrCorrupt, i)
		}
		switch f.Kind {
		case KindNDArray:
			dt, ok := dtypeOf(d[1])
			if !ok {
				return s, nil, fmt.Errorf("%w: field %d (%q): unknown dtype code %d", ErrCorrupt, i, name, d[1])
			}
			f.DType = dt
			nd := int(d[2])
			if nd > MaxDims {
				return s, nil, fmt.Errorf("%w: field %d (%q): %d dimensions, at most %d", ErrCorrupt, i, name, nd, MaxDims)
			}
			f.Shape = make([]int, nd)
			for j := range f.Shape {
				f.Shape[j] = int(le.Uint32(d[32+4*j:]))
			}
			if d[3] > 1 {
				return s, nil, fmt.Errorf("%w: field %d (%q): unknown flags %#x", ErrCorrupt, i, name, d[3])
			}
			f.Variable = d[3] == 1
		case KindImage:
			f.Image = ImageOptions{
				Encoding: ImageEncoding(d[16]),
				Channels: int(d[17]),
				MaxRes:   int(le.Uint32(d[20:])),
				Quality:  int(le.Uint32(d[24:])),
			}
		}
		var m maxima
		switch f.Kind {
		case KindBytes, KindJSON:
			m.size = le.Uint64(d[32:])
		case KindImage:
			m = maxima{h: le.Uint32(d[32:]), w: le.Uint32(d[36:]), c: le.Uint32(d[40:]), size: le.Uint64(d[48:])}
		}
		maxes = append(maxes, m)
		if err := checkDescriptorZeros(b[:full], f, nameLen); err != nil {
			return s, nil, fmt.Errorf("%w: field %d (%q): %v", ErrCorrupt, i, name, err)
		}
		s.Fields = append(s.Fields, f)
		b = b[full:]
	}
	if len(b) != 0 {
		return s, nil, fmt.Errorf("%w: %d bytes after the last field descriptor", ErrCorrupt, len(b))
	}
	if err := s.Validate(); err != nil {
		return s, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return s, maxes, nil
}

// checkRowLayout compares the row offsets and sizes stored in the field
// table fb with the ones the schema implies.
func checkRowLayout(fb []byte, s Schema) ([]int, int, error) {
	offsets, rowSize := layout(s)
	for i, f := range s.Fields {
		if o, n := int(le.Uint32(fb[8:])), int(le.Uint32(fb[12:])); o != offsets[i] || n != f.rowSize() {
			return nil, 0, fmt.Errorf("%w: field %d (%q): row offset %d size %d, want %d and %d", ErrCorrupt, i, f.Name, o, n, offsets[i], f.rowSize())
		}
		fb = fb[descSize+align(len(f.Name), 8):]
	}
	return offsets, rowSize, nil
}

func isPow2(n uint64) bool { return n != 0 && bits.OnesCount64(n) == 1 }

// checkDescriptorZeros checks that the bytes of a descriptor that its
// kind does not use, the reserved bytes and the name's padding are zero.
func checkDescriptorZeros(d []byte, f Field, nameLen int) error {
	unused := [][2]int{{6, 8}, {18, 20}, {28, 32}, {descSize + nameLen, len(d)}}
	switch f.Kind {
	case KindNDArray:
		unused = append(unused, [2]int{16, 28}, [2]int{32 + 4*len(f.Shape), 64})
	case KindImage:
		unused = append(unused, [2]int{1, 4}, [2]int{44, 48}, [2]int{56, 64})
	case KindBytes, KindJSON:
		unused = append(unused, [2]int{1, 4}, [2]int{16, 28}, [2]int{40, 64})
	default:
		unused = append(unused, [2]int{1, 4}, [2]int{16, 28}, [2]int{32, 64})
	}
	for _, r := range unused {
		for j := r[0]; j < r[1]; j++ {
			if d[j] != 0 {
				return fmt.Errorf("descriptor byte %d is %d, want 0 (unused or reserved)", j, d[j])
			}
		}
	}
	return nil
}
