package dataset

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/jpeg"
)

// Sample reads and decodes sample i: see Sample (the type) for the Go
// type of each field's value.
func (r *Reader) Sample(i int) (Sample, error) {
	s := make(Sample, len(r.schema.Fields))
	var buf []byte
	for f, fd := range r.schema.Fields {
		var m FieldMeta
		var err error
		buf, err = r.AppendRawInto(buf[:0], i, f, &m)
		if err != nil {
			return nil, err
		}
		v, err := decodeValue(fd, buf, m)
		if err != nil {
			return nil, sampleErr(r.path, i, fd.Name, err)
		}
		s[fd.Name] = v
	}
	return s, nil
}

// decodeValue turns a field's stored bytes into its Go value.
func decodeValue(fd Field, raw []byte, m FieldMeta) (any, error) {
	switch fd.Kind {
	case KindInt:
		return m.Int, nil
	case KindFloat:
		return m.Float, nil
	case KindBytes:
		return append([]byte{}, raw...), nil
	case KindJSON:
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("%w: JSON: %v", ErrCorrupt, err)
		}
		return v, nil
	case KindNDArray:
		return decodeArray(fd.DType, raw, m.Shape)
	case KindImage:
		h, w, c := m.Shape[0], m.Shape[1], m.Shape[2]
		pix := make([]byte, h*w*c)
		if err := DecodeImageInto(pix, raw, m); err != nil {
			return nil, err
		}
		return pixelsImage(pix, w, h, c), nil
	}
	return nil, fmt.Errorf("unknown kind %d", fd.Kind)
}

// DecodeImageInto decodes an image field's stored bytes (from AppendRaw)
// into dst, which must hold exactly height*width*channels bytes of
// m.Shape: interleaved 8-bit pixels, rows top to bottom. Raw pixels are
// copied; JPEG is decoded with libjpeg-turbo (image/jpeg without cgo).
func DecodeImageInto(dst, raw []byte, m FieldMeta) error {
	if len(m.Shape) != 3 {
		return fmt.Errorf("image metadata has shape %v, want [height width channels]", m.Shape)
	}
	h, w, c := m.Shape[0], m.Shape[1], m.Shape[2]
	if len(dst) != h*w*c {
		return fmt.Errorf("destination of %d bytes for a %dx%dx%d image", len(dst), h, w, c)
	}
	switch m.Encoding {
	case Raw:
		if len(raw) != len(dst) {
			return fmt.Errorf("%w: %d raw bytes for a %dx%dx%d image", ErrCorrupt, len(raw), h, w, c)
		}
		copy(dst, raw)
		return nil
	case JPEG:
		if err := jpeg.Decode(dst, raw, w, h, c); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown image encoding %d", ErrCorrupt, m.Encoding)
}

// decodeArray builds an array of dt and shape from little-endian bytes.
func decodeArray(dt gojit.DType, raw []byte, shape []int) (*gojit.Array, error) {
	shape = append([]int{}, shape...)
	n := len(raw) / max(1, dt.Size())
	var err error
	var a *gojit.Array
	switch dt {
	case gojit.Bool:
		d := make([]bool, n)
		for i, b := range raw {
			if b > 1 {
				return nil, fmt.Errorf("%w: bool element %d is %d", ErrCorrupt, i, b)
			}
			d[i] = b == 1
		}
		a = gojit.FromBool(d, shape...)
	case gojit.Uint8:
		a = gojit.FromUint8(append([]byte{}, raw...), shape...)
	case gojit.Int32:
		d := make([]int32, n)
		_, err = binary.Decode(raw, le, d)
		a = gojit.FromInt32(d, shape...)
	case gojit.Int64:
		d := make([]int64, n)
		_, err = binary.Decode(raw, le, d)
		a = gojit.FromInt64(d, shape...)
	case gojit.Float32:
		d := make([]float32, n)
		_, err = binary.Decode(raw, le, d)
		a = gojit.FromFloat32(d, shape...)
	case gojit.Float64:
		d := make([]float64, n)
		_, err = binary.Decode(raw, le, d)
		a = gojit.FromFloat64(d, shape...)
	default:
		return nil, fmt.Errorf("%w: dtype %s", ErrCorrupt, dt)
	}
	if err == nil {
		err = a.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return a, nil
}

// Verify reads every page and checks its checksum, then reads every field
// of every sample and decodes it (JPEG included), so that a file that
// passes can be read in full. It returns nil or the problems found (at
// most maxProblems of them, joined), each naming the page or the sample
// and field. ctx stops it early.
func (r *Reader) Verify(ctx context.Context, maxProblems int) error {
	var errs []error
	add := func(err error) bool {
		errs = append(errs, err)
		return len(errs) < max(1, maxProblems)
	}
	ps := int64(r.h.pageSize)
	pg := make([]byte, ps)
	damaged := map[int]bool{}
	for p := range r.NumPages() {
		if err := ctx.Err(); err != nil {
			return err
		}
		off := int64(r.h.dataOff) + int64(p)*ps
		if _, err := r.f.ReadAt(pg, off); err != nil {
			if !add(fileErr(r.path, fmt.Errorf("reading page %d: %w", p, err))) {
				return errors.Join(errs...)
			}
			continue
		}
		want := le.Uint32(r.ptab[p*pageEntry+4:])
		if got := crc(pg); got != want {
			damaged[p] = true
			if !add(fileErr(r.path, fmt.Errorf("%w: page %d (file offset %d): checksum %08x, stored %08x", ErrChecksum, p, off, got, want))) {
				return errors.Join(errs...)
			}
		}
	}
	for i := range r.Len() {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if first, n := r.SamplePages(i); n > 0 && damaged[first] {
			continue // reported with its page
		}
		if _, err := r.Sample(i); err != nil {
			if !add(err) {
				break
			}
		}
	}
	return errors.Join(errs...)
}
