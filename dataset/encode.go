package dataset

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"math"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/jpeg"
)

// Sample is one record: field name to value.
//
// Writer input, per field kind:
//   - Int: any Go integer type (int, int64, uint8, ...; a uint64 above
//     math.MaxInt64 is refused), stored as int64.
//   - Float: float64, float32 or any Go integer type, stored as float64.
//   - Bytes: []byte or string.
//   - JSON: a json.RawMessage (checked with json.Valid and stored as is),
//     or any value encoding/json marshals.
//   - NDArray: a *gojit.Array of the field's dtype and shape (for a
//     variable-shape field, the same number of dimensions, each no larger
//     than the declared maximum).
//   - Image: an image.Image, or a func() (image.Image, error) that a
//     worker calls, so that loading and decoding image files runs in
//     parallel (its error becomes the sample's).
//
// Reader.Sample output: int64, float64, []byte, the JSON document decoded
// into an any (numbers as float64), a *gojit.Array, and an image.Image
// (*image.Gray for 1 channel, *image.RGBA for 3, *image.NRGBA for 4).
type Sample map[string]any

// encoded is one sample ready to place: its metadata row, with the data
// offsets of its fields relative to the start of the sample's data, and
// that data (each field's bytes starting at a multiple of 8).
type encoded struct {
	row  []byte
	data []byte
}

// encoder turns samples into rows and data for one schema.
type encoder struct {
	schema  Schema
	offsets []int
	rowSize int
}

// encode converts s; buf is reused for the data.
func (e *encoder) encode(s Sample, buf []byte) (encoded, string, error) {
	if len(s) != len(e.schema.Fields) {
		for k := range s {
			if _, ok := e.schema.Index(k); !ok {
				return encoded{}, k, fmt.Errorf("%w: no such field in the schema", ErrSample)
			}
		}
	}
	row := make([]byte, e.rowSize)
	data := buf[:0]
	for i, f := range e.schema.Fields {
		v, ok := s[f.Name]
		if !ok {
			return encoded{}, f.Name, fmt.Errorf("%w: missing", ErrSample)
		}
		r := row[e.offsets[i]:]
		var err error
		switch f.Kind {
		case KindInt:
			var n int64
			if n, err = toInt(v); err == nil {
				le.PutUint64(r, uint64(n))
			}
		case KindFloat:
			var x float64
			if x, err = toFloat(v); err == nil {
				le.PutUint64(r, math.Float64bits(x))
			}
		default:
			for len(data)%8 != 0 {
				data = append(data, 0)
			}
			start := len(data)
			data, err = appendValue(data, f, v, r)
			if err == nil {
				le.PutUint64(r, uint64(start))
				le.PutUint64(r[8:], uint64(len(data)-start))
			}
		}
		if err != nil {
			return encoded{}, f.Name, err
		}
	}
	return encoded{row: row, data: data}, "", nil
}

// appendValue appends the data of a field stored in pages and fills the
// rest of its row entry r (after the offset and size).
func appendValue(data []byte, f Field, v any, r []byte) ([]byte, error) {
	switch f.Kind {
	case KindBytes:
		switch b := v.(type) {
		case []byte:
			return append(data, b...), nil
		case string:
			return append(data, b...), nil
		}
		return data, fmt.Errorf("%w: want []byte or string, got %T", ErrSample, v)
	case KindJSON:
		if raw, ok := v.(json.RawMessage); ok {
			if !json.Valid(raw) {
				return data, fmt.Errorf("%w: json.RawMessage is not valid JSON", ErrSample)
			}
			return append(data, raw...), nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return data, fmt.Errorf("%w: %v", ErrSample, err)
		}
		return append(data, b...), nil
	case KindNDArray:
		a, ok := v.(*gojit.Array)
		if !ok || a == nil {
			return data, fmt.Errorf("%w: want a *gojit.Array, got %T", ErrSample, v)
		}
		if err := a.Err(); err != nil {
			return data, fmt.Errorf("%w: %v", ErrSample, err)
		}
		if a.DType() != f.DType {
			return data, fmt.Errorf("%w: dtype %s, the field holds %s", ErrSample, a.DType(), f.DType)
		}
		shape := a.Shape()
		if f.Variable {
			if len(shape) != len(f.Shape) {
				return data, fmt.Errorf("%w: shape %v has %d dimensions, the field has %d (maximum %v)", ErrSample, shape, len(shape), len(f.Shape), f.Shape)
			}
			for j, d := range shape {
				if d > f.Shape[j] {
					return data, fmt.Errorf("%w: shape %v is larger than the declared maximum %v along axis %d", ErrSample, shape, f.Shape, j)
				}
				le.PutUint32(r[16+4*j:], uint32(d))
			}
		} else if !equalInts(shape, f.Shape) {
			return data, fmt.Errorf("%w: shape %v, the field's shape is %v", ErrSample, shape, f.Shape)
		}
		return appendArray(data, a), nil
	case KindImage:
		if src, ok := v.(func() (image.Image, error)); ok && src != nil {
			var err error
			if v, err = src(); err != nil {
				return data, fmt.Errorf("%w: %v", ErrSample, err)
			}
		}
		o := f.Image
		if j, ok := v.(JPEGData); ok {
			return appendJPEG(data, r, j, o)
		}
		img, ok := v.(image.Image)
		if !ok || img == nil {
			return data, fmt.Errorf("%w: want an image.Image or JPEGData, got %T", ErrSample, v)
		}
		c := o.Channels
		if c == 0 {
			c = sourceChannels(img)
			if o.Encoding == JPEG && c == 4 {
				c = 3
			}
		}
		start := len(data)
		data, w, h, err := appendPixels(data, img, c, o.MaxRes)
		if err != nil {
			return data, fmt.Errorf("%w: %v", ErrSample, err)
		}
		if o.Encoding == JPEG {
			pix := append([]byte(nil), data[start:]...)
			if data, err = jpeg.Encode(data[:start], pix, w, h, c, o.Quality); err != nil {
				return data, fmt.Errorf("%w: %v", ErrSample, err)
			}
		}
		le.PutUint32(r[16:], uint32(h))
		le.PutUint32(r[20:], uint32(w))
		r[24] = uint8(c)
		r[25] = uint8(o.Encoding)
		return data, nil
	}
	return data, fmt.Errorf("unknown kind %d", f.Kind)
}

// JPEGData is a JPEG file's bytes, the value of a JPEG image field stored
// as it is, without decoding and encoding again (FFCV's "jpg" mode): a
// collection of JPEG files keeps its quality and the writer runs at the
// speed of a copy. The writer checks the header (the image's size, at most
// the field's MaxRes) and records the size; the pixels decode, to the
// field's Channels (1 or 3; 0 means 1 for a grayscale JPEG, 3 otherwise),
// when the sample is read. Grayscale, YCbCr, CMYK and YCCK JPEGs are
// accepted.
type JPEGData []byte

// appendJPEG stores a JPEG as it is.
func appendJPEG(data, r []byte, j JPEGData, o ImageOptions) ([]byte, error) {
	if o.Encoding != JPEG {
		return data, fmt.Errorf("%w: JPEGData for a field of %s images: want an image.Image", ErrSample, o.Encoding)
	}
	w, h, gray, err := jpeg.Header(j)
	if err != nil {
		return data, fmt.Errorf("%w: %v", ErrSample, err)
	}
	if o.MaxRes > 0 && max(w, h) > o.MaxRes {
		return data, fmt.Errorf("%w: JPEG of %dx%d is larger than MaxRes %d (pass an image.Image to have it resized)", ErrSample, w, h, o.MaxRes)
	}
	c := o.Channels
	if c == 0 {
		c = 3
		if gray {
			c = 1
		}
	}
	data = append(data, j...)
	le.PutUint32(r[16:], uint32(h))
	le.PutUint32(r[20:], uint32(w))
	r[24] = uint8(c)
	r[25] = uint8(JPEG)
	return data, nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendArray appends a's elements little-endian (Bool as one byte, 0 or
// 1).
func appendArray(dst []byte, a *gojit.Array) []byte {
	switch d := a.Data().(type) {
	case []bool:
		for _, x := range d {
			b := byte(0)
			if x {
				b = 1
			}
			dst = append(dst, b)
		}
		return dst
	case []uint8:
		return append(dst, d...)
	default:
		out, err := binary.Append(dst, le, d)
		if err != nil { // cannot happen: the dtypes are fixed-size
			panic(err)
		}
		return out
	}
}

func toInt(v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int8:
		return int64(n), nil
	case int16:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case int64:
		return n, nil
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, fmt.Errorf("%w: %d overflows int64", ErrSample, n)
		}
		return int64(n), nil
	case uint8:
		return int64(n), nil
	case uint16:
		return int64(n), nil
	case uint32:
		return int64(n), nil
	case uint64:
		if n > math.MaxInt64 {
			return 0, fmt.Errorf("%w: %d overflows int64", ErrSample, n)
		}
		return int64(n), nil
	}
	return 0, fmt.Errorf("%w: want an integer, got %T", ErrSample, v)
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	}
	n, err := toInt(v)
	if err != nil {
		return 0, fmt.Errorf("%w: want a float or an integer, got %T", ErrSample, v)
	}
	return float64(n), nil
}
