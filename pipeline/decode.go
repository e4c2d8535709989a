package pipeline

import (
	"encoding/json"
	"fmt"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// The decoders turn a field's stored bytes into a value in batch memory.
// Each is a plain Go op; NewLoader puts the field's default decoder
// (DefaultDecoder) first when a field's op list does not start with one.

// DefaultDecoder returns the decoder for a field's kind: IntDecoder,
// FloatDecoder, BytesDecoder, JSONDecoder, NDArrayDecoder or ImageDecoder.
func DefaultDecoder(k dataset.Kind) Op {
	switch k {
	case dataset.KindInt:
		return IntDecoder()
	case dataset.KindFloat:
		return FloatDecoder()
	case dataset.KindBytes:
		return BytesDecoder()
	case dataset.KindJSON:
		return JSONDecoder()
	case dataset.KindNDArray:
		return NDArrayDecoder()
	case dataset.KindImage:
		return ImageDecoder()
	}
	return nil
}

// decoder is the type of the built-in decoders.
type decoder struct {
	name    string
	kinds   []dataset.Kind
	declare func(in State) (Decl, error)
	// max, if not nil, bounds a variable-size field's stored values (Bytes,
	// JSON, Image without MaxRes) instead of the file's recorded maxima.
	max []int
	// direct means the decoded value is the stored bytes: the loader reads
	// them into the decoder's memory, and Run finds Raw already there.
	direct bool
}

func (d decoder) Name() string { return d.name }

func (d decoder) Decoder() {}

func (d decoder) Declare(in State, _ []State) (Decl, error) {
	if in.Stored == nil {
		return Decl{}, fmt.Errorf("is a decoder but its input %s is already decoded", in)
	}
	ok := false
	for _, k := range d.kinds {
		ok = ok || in.Stored.Kind == k
	}
	if !ok {
		return Decl{}, fmt.Errorf("cannot decode a %s field", in.Stored.Kind)
	}
	return d.declare(in)
}

// array declares an array output of the stored state's shape and dtype,
// in its own memory.
func array(in State, run func(s *Sample) error) Decl {
	out := State{DType: in.DType, Shape: in.Shape, Variable: in.Variable, Compilable: true}
	return Decl{Out: out, Memory: &Alloc{DType: in.DType, Shape: in.Shape}, Run: run}
}

// IntDecoder decodes an Int field to an Int64 scalar.
func IntDecoder() Op {
	return decoder{"IntDecoder", []dataset.Kind{dataset.KindInt}, func(in State) (Decl, error) {
		return array(in, func(s *Sample) error {
			s.Out.Int64()[0] = s.Meta.Int
			return nil
		}), nil
	}, nil, false}
}

// FloatDecoder decodes a Float field to a Float64 scalar.
func FloatDecoder() Op {
	return decoder{"FloatDecoder", []dataset.Kind{dataset.KindFloat}, func(in State) (Decl, error) {
		return array(in, func(s *Sample) error {
			s.Out.Float64()[0] = s.Meta.Float
			return nil
		}), nil
	}, nil, false}
}

// BytesDecoder decodes a Bytes (or JSON) field to a variable-size Uint8
// vector of the stored bytes, at most the longest sample's length.
func BytesDecoder() Op {
	return decoder{"BytesDecoder", []dataset.Kind{dataset.KindBytes, dataset.KindJSON}, func(in State) (Decl, error) {
		return array(in, func(s *Sample) error {
			if len(s.Raw) > len(s.Out.Data) {
				return fmt.Errorf("%d bytes stored, more than the maximum of %d", len(s.Raw), len(s.Out.Data))
			}
			copyRaw(s)
			s.Out.Shape[0] = len(s.Raw)
			return nil
		}), nil
	}, nil, true}
}

// BytesDecoderMax is BytesDecoder with a maximum length, used instead of
// the longest value the file records (so that batches from different
// files have one shape); a longer value is an error naming its sample.
func BytesDecoderMax(n int) Op {
	d := BytesDecoder().(decoder)
	d.max = []int{max(n, 0)}
	return d
}

// JSONDecoder decodes a JSON field to a Go value (what encoding/json
// gives for an any); Batch.Values returns it.
func JSONDecoder() Op {
	return decoder{"JSONDecoder", []dataset.Kind{dataset.KindJSON}, func(in State) (Decl, error) {
		return Decl{Out: State{GoValue: true}, Memory: &Alloc{GoValue: true}, Run: func(s *Sample) error {
			var v any
			if err := json.Unmarshal(s.Raw, &v); err != nil {
				return fmt.Errorf("JSON: %v", err)
			}
			s.Out.Go = v
			return nil
		}}, nil
	}, nil, false}
}

// NDArrayDecoder decodes an NDArray field (fixed or variable shape) to an
// array of its dtype.
func NDArrayDecoder() Op {
	return decoder{"NDArrayDecoder", []dataset.Kind{dataset.KindNDArray}, func(in State) (Decl, error) {
		return array(in, func(s *Sample) error {
			return copyShaped(s, in.Shape, s.Meta.Shape, in.DType)
		}), nil
	}, nil, true}
}

// copyShaped copies s.Raw, an array of the given shape, to s.Out.
func copyShaped(s *Sample, max, shape []int, dt gojit.DType) error {
	if len(shape) != len(max) {
		return fmt.Errorf("stored shape %v has %d dimensions, want %d", shape, len(shape), len(max))
	}
	n := dt.Size()
	for j, d := range shape {
		if d < 0 || d > max[j] {
			return fmt.Errorf("stored shape %v exceeds the maximum %v", shape, max)
		}
		n *= d
	}
	if len(s.Raw) != n {
		return fmt.Errorf("%d bytes stored for shape %v of %s (%d bytes)", len(s.Raw), shape, dt, n)
	}
	copyRaw(s)
	copy(s.Out.Shape, shape)
	return nil
}

// copyRaw copies the stored bytes to the output, unless the loader read
// them there already.
func copyRaw(s *Sample) {
	if !aliased(s) {
		copy(s.Out.Data, s.Raw)
	}
}

// aliased reports whether the stored bytes were read into the output.
func aliased(s *Sample) bool {
	return len(s.Raw) > 0 && len(s.Out.Data) > 0 && &s.Raw[0] == &s.Out.Data[0]
}

// rawImage reports whether a field's decoder is ImageDecoder on raw pixels,
// whose stored bytes are the decoded value.
func rawImage(op Op, f *dataset.Field) bool {
	d, ok := op.(decoder)
	return ok && d.name == "ImageDecoder" && f.Kind == dataset.KindImage && f.Image.Encoding == dataset.Raw
}

// ImageDecoderMax is ImageDecoder with a maximum height, width and channel
// count, for a field written without MaxRes, used instead of the largest
// image the file records (so that batches from different files have one
// shape); a larger image is an error naming its sample. A field's MaxRes,
// when set, takes precedence.
func ImageDecoderMax(h, w, c int) Op {
	d := ImageDecoder().(decoder)
	d.max = []int{max(h, 0), max(w, 0), max(c, 0)}
	return d
}

// ImageDecoder decodes an Image field (raw pixels or JPEG) to a
// variable-size Uint8 array [height, width, channels] of interleaved
// pixels. JPEG is decoded by internal/jpeg, through package dataset
// (libjpeg-turbo, or image/jpeg without cgo).
func ImageDecoder() Op {
	return decoder{"ImageDecoder", []dataset.Kind{dataset.KindImage}, func(in State) (Decl, error) {
		return array(in, func(s *Sample) error {
			sh := s.Meta.Shape
			if len(sh) != 3 {
				return fmt.Errorf("image metadata shape %v, want [height width channels]", sh)
			}
			for j, d := range sh {
				if d > in.Shape[j] {
					return fmt.Errorf("image of %dx%dx%d exceeds the maximum %v", sh[0], sh[1], sh[2], in.Shape)
				}
			}
			n := sh[0] * sh[1] * sh[2]
			if s.Meta.Encoding == dataset.Raw && aliased(s) {
				// Raw pixels the loader read into place (see rawImage).
				if len(s.Raw) != n {
					return fmt.Errorf("%d raw bytes for a %dx%dx%d image", len(s.Raw), sh[0], sh[1], sh[2])
				}
			} else if err := dataset.DecodeImageInto(s.Out.Data[:n], s.Raw, s.Meta); err != nil {
				return err
			}
			copy(s.Out.Shape, sh)
			return nil
		}), nil
	}, nil, false}
}
