package dataset

import (
	"fmt"
	"unicode/utf8"

	"github.com/gojit/gojit"
)

// Kind is the type of a field.
type Kind uint8

// The field kinds. The numbers are the ones stored in the file.
const (
	KindInt     Kind = 1 // int64 value in the metadata row
	KindFloat   Kind = 2 // float64 value in the metadata row
	KindBytes   Kind = 3 // opaque bytes in the data pages
	KindJSON    Kind = 4 // JSON text in the data pages
	KindNDArray Kind = 5 // n-dimensional array, fixed or variable shape
	KindImage   Kind = 6 // raw pixels or JPEG
)

// String returns the kind's lower-case name: int, float, bytes, json,
// ndarray or image.
func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindBytes:
		return "bytes"
	case KindJSON:
		return "json"
	case KindNDArray:
		return "ndarray"
	case KindImage:
		return "image"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ImageEncoding is how an image field stores its pixels.
type ImageEncoding uint8

// The image encodings. The numbers are the ones stored in the file.
const (
	Raw  ImageEncoding = 1 // interleaved 8-bit pixels, h*w*c bytes, rows top to bottom
	JPEG ImageEncoding = 2 // a baseline JPEG (libjpeg-turbo, or image/jpeg without cgo)
)

// String returns "raw" or "jpeg".
func (e ImageEncoding) String() string {
	switch e {
	case Raw:
		return "raw"
	case JPEG:
		return "jpeg"
	}
	return fmt.Sprintf("encoding(%d)", uint8(e))
}

// ImageOptions are the arguments of an Image field.
type ImageOptions struct {
	// Encoding is Raw or JPEG; the zero value means Raw.
	Encoding ImageEncoding
	// Channels is 1 (grayscale), 3 (RGB) or 4 (RGBA, Raw only), the number
	// of channels every sample is converted to; 0 keeps each source image's
	// own: 1 for *image.Gray and *image.Gray16, 4 for an image whose
	// Opaque method reports false (3 with JPEG, which has no alpha: colours
	// are then composited over black), 3 otherwise.
	Channels int
	// MaxRes, if positive, bounds the longer side: a larger image is
	// downscaled (bilinear) so that its longer side is MaxRes, keeping the
	// aspect ratio (the shorter side rounded, at least 1).
	MaxRes int
	// Quality is the JPEG quality, 1 to 100; 0 means 90. Raw ignores it.
	Quality int
}

// MaxDims is the largest number of dimensions an NDArray field may have.
const MaxDims = 8

// maxNameLen bounds a field name, in bytes.
const maxNameLen = 1024

// Field describes one field of a Schema. Build it with Int, Float, Bytes,
// JSON, NDArray, NDArrayVar or Image.
type Field struct {
	// Name identifies the field in a Sample; names are unique in a schema.
	Name string
	// Kind is the field's type.
	Kind Kind
	// DType is the element type of an NDArray field.
	DType gojit.DType
	// Shape is an NDArray field's shape, or with Variable its maximum
	// along each dimension.
	Shape []int
	// Variable marks an NDArray field whose samples may have any shape of
	// len(Shape) dimensions no larger than Shape along each.
	Variable bool
	// Image holds an Image field's arguments.
	Image ImageOptions
}

// Int is a field holding one int64 per sample, stored in the metadata row.
func Int(name string) Field { return Field{Name: name, Kind: KindInt} }

// Float is a field holding one float64 per sample, stored in the metadata
// row.
func Float(name string) Field { return Field{Name: name, Kind: KindFloat} }

// Bytes is a field holding a byte string of any length per sample.
func Bytes(name string) Field { return Field{Name: name, Kind: KindBytes} }

// JSON is a field holding a JSON document per sample: on writing, a value
// that encoding/json marshals (or a json.RawMessage, stored as is once
// validated); on reading, the document decoded into an any.
func JSON(name string) Field { return Field{Name: name, Kind: KindJSON} }

// NDArray is a field holding an array of dtype dt and exactly the given
// shape per sample.
func NDArray(name string, dt gojit.DType, shape ...int) Field {
	return Field{Name: name, Kind: KindNDArray, DType: dt, Shape: append([]int{}, shape...)}
}

// NDArrayVar is a field holding an array of dtype dt whose shape varies
// from sample to sample: len(maxShape) dimensions, each at most the
// corresponding maxShape entry (bounding boxes: NDArrayVar("boxes",
// gojit.Float32, 100, 4); audio: NDArrayVar("wave", gojit.Float32, 480000)).
func NDArrayVar(name string, dt gojit.DType, maxShape ...int) Field {
	return Field{Name: name, Kind: KindNDArray, DType: dt, Shape: append([]int{}, maxShape...), Variable: true}
}

// Image is a field holding one image per sample, stored as raw pixels or
// JPEG (see ImageOptions).
func Image(name string, opt ImageOptions) Field {
	if opt.Encoding == 0 {
		opt.Encoding = Raw
	}
	if opt.Encoding == JPEG && opt.Quality == 0 {
		opt.Quality = 90
	}
	return Field{Name: name, Kind: KindImage, Image: opt}
}

// Schema is the ordered list of a dataset's fields.
type Schema struct{ Fields []Field }

// Index returns the position of the field called name.
func (s Schema) Index(name string) (int, bool) {
	for i, f := range s.Fields {
		if f.Name == name {
			return i, true
		}
	}
	return -1, false
}

// Field returns the field called name.
func (s Schema) Field(name string) (Field, bool) {
	if i, ok := s.Index(name); ok {
		return s.Fields[i], true
	}
	return Field{}, false
}

// Validate reports the first problem with the schema: no fields, a name
// empty, repeated or not UTF-8, an unknown kind, a bad dtype or shape, or
// bad image options.
func (s Schema) Validate() error {
	if len(s.Fields) == 0 {
		return fmt.Errorf("schema has no fields")
	}
	if len(s.Fields) > 65535 {
		return fmt.Errorf("schema has %d fields, at most 65535 allowed", len(s.Fields))
	}
	seen := make(map[string]bool, len(s.Fields))
	for i, f := range s.Fields {
		if err := f.validate(); err != nil {
			return fmt.Errorf("field %d (%q): %w", i, f.Name, err)
		}
		if seen[f.Name] {
			return fmt.Errorf("field %d: name %q used twice", i, f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}

func (f Field) validate() error {
	switch {
	case f.Name == "":
		return fmt.Errorf("empty name")
	case len(f.Name) > maxNameLen:
		return fmt.Errorf("name longer than %d bytes", maxNameLen)
	case !utf8.ValidString(f.Name):
		return fmt.Errorf("name is not UTF-8")
	}
	switch f.Kind {
	case KindInt, KindFloat, KindBytes, KindJSON:
		return nil
	case KindNDArray:
		if !validDType(f.DType) {
			return fmt.Errorf("invalid dtype %d", uint8(f.DType))
		}
		if len(f.Shape) > MaxDims {
			return fmt.Errorf("%d dimensions, at most %d allowed", len(f.Shape), MaxDims)
		}
		if f.Variable && len(f.Shape) == 0 {
			return fmt.Errorf("a variable-shape array needs at least one dimension")
		}
		n := int64(f.DType.Size())
		for _, d := range f.Shape {
			if d < 0 || d > 1<<31-1 {
				return fmt.Errorf("dimension %d out of range in shape %v", d, f.Shape)
			}
			n *= int64(d)
			if n > 1<<40 {
				return fmt.Errorf("shape %v is larger than 1 TiB", f.Shape)
			}
		}
		return nil
	case KindImage:
		o := f.Image
		switch {
		case o.Encoding != Raw && o.Encoding != JPEG:
			return fmt.Errorf("unknown image encoding %d", uint8(o.Encoding))
		case o.Channels != 0 && o.Channels != 1 && o.Channels != 3 && o.Channels != 4:
			return fmt.Errorf("image channels %d: want 0 (keep the source's), 1, 3 or 4", o.Channels)
		case o.Encoding == JPEG && o.Channels == 4:
			return fmt.Errorf("JPEG cannot store 4 channels (no alpha): use Raw or 3 channels")
		case o.MaxRes < 0 || o.MaxRes > 1<<16:
			return fmt.Errorf("max resolution %d out of range 0..65536", o.MaxRes)
		case o.Encoding == JPEG && (o.Quality < 1 || o.Quality > 100):
			return fmt.Errorf("JPEG quality %d out of range 1..100", o.Quality)
		}
		return nil
	}
	return fmt.Errorf("unknown kind %d", uint8(f.Kind))
}

func validDType(dt gojit.DType) bool {
	switch dt {
	case gojit.Bool, gojit.Uint8, gojit.Int32, gojit.Int64, gojit.Float32, gojit.Float64:
		return true
	}
	return false
}

// rowSize is the number of bytes the field takes in a metadata row (see
// docs/dataset-format.md).
func (f Field) rowSize() int {
	switch f.Kind {
	case KindInt, KindFloat:
		return 8
	case KindBytes, KindJSON:
		return 16
	case KindNDArray:
		if f.Variable {
			return 16 + align(4*len(f.Shape), 8)
		}
		return 16
	case KindImage:
		return 32
	}
	return 0
}

// fixedBytes is the data size of a fixed-shape array.
func (f Field) fixedBytes() int {
	n := f.DType.Size()
	for _, d := range f.Shape {
		n *= d
	}
	return n
}

// String describes the field: `image "img" (jpeg, 3 channels, max 256,
// quality 90)`.
func (f Field) String() string {
	switch f.Kind {
	case KindNDArray:
		v := ""
		if f.Variable {
			v = " max"
		}
		return fmt.Sprintf("ndarray %q (%s%s %v)", f.Name, f.DType, v, f.Shape)
	case KindImage:
		o := f.Image
		ch := "source channels"
		if o.Channels > 0 {
			ch = fmt.Sprintf("%d channels", o.Channels)
		}
		s := fmt.Sprintf("image %q (%s, %s", f.Name, o.Encoding, ch)
		if o.MaxRes > 0 {
			s += fmt.Sprintf(", max %d", o.MaxRes)
		}
		if o.Encoding == JPEG {
			s += fmt.Sprintf(", quality %d", o.Quality)
		}
		return s + ")"
	}
	return fmt.Sprintf("%s %q", f.Kind, f.Name)
}

func align(n, a int) int { return (n + a - 1) / a * a }
