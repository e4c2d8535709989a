package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gojit/gojit"
)

// npyArray is an array read from a NumPy .npy file: little-endian, C
// order.
type npyArray struct {
	dtype gojit.DType
	shape []int
	data  []byte
	size  int // bytes per sample (one index of the first axis)
}

// npyDTypes maps the .npy descr strings gojit reads to dtypes.
var npyDTypes = map[string]gojit.DType{
	"|b1": gojit.Bool, "|u1": gojit.Uint8, "<u1": gojit.Uint8,
	"<i4": gojit.Int32, "<i8": gojit.Int64, "<f4": gojit.Float32, "<f8": gojit.Float64,
}

// readNPY reads a .npy file (format versions 1.0, 2.0 and 3.0): it checks
// the magic, the header's descr, fortran_order and shape, and that the
// data has exactly the size they imply.
func readNPY(path string) (*npyArray, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: not a valid .npy file: %s", path, fmt.Sprintf(format, a...))
	}
	if len(b) < 10 || !bytes.Equal(b[:6], []byte("\x93NUMPY")) {
		return nil, bad("missing the \\x93NUMPY magic")
	}
	major := b[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, bad("truncated header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(b[8:])), 12
	default:
		return nil, bad("format version %d.%d", major, b[7])
	}
	if hlen > len(b)-start {
		return nil, bad("header of %d bytes, the file has %d", hlen, len(b)-start)
	}
	hdr := strings.TrimSpace(string(b[start : start+hlen]))
	keys, err := parsePyDict(hdr)
	if err != nil {
		return nil, bad("header %q: %v", hdr, err)
	}
	descr, ok := keys["descr"]
	if !ok {
		return nil, bad("header %q has no descr", hdr)
	}
	descr = strings.Trim(descr, "'\"")
	dt, ok := npyDTypes[descr]
	if !ok {
		if strings.HasPrefix(descr, ">") {
			return nil, fmt.Errorf("%s: big-endian dtype %s: convert with arr.astype(arr.dtype.newbyteorder('<'))", path, descr)
		}
		return nil, fmt.Errorf("%s: dtype %s not supported (want bool, uint8, int32, int64, float32 or float64)", path, descr)
	}
	if fo := keys["fortran_order"]; fo != "False" {
		return nil, fmt.Errorf("%s: fortran_order is %s: only C order is supported (save np.ascontiguousarray(arr))", path, fo)
	}
	shapeText, ok := keys["shape"]
	if !ok || !strings.HasPrefix(shapeText, "(") || !strings.HasSuffix(shapeText, ")") {
		return nil, bad("header %q has no shape tuple", hdr)
	}
	var shape []int
	n := int64(1)
	for _, s := range strings.Split(strings.Trim(shapeText, "()"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		d, err := strconv.Atoi(strings.TrimSuffix(s, "L"))
		if err != nil || d < 0 {
			return nil, bad("shape %s", shapeText)
		}
		if d > 0 && n > math.MaxInt64/int64(d)/8 {
			return nil, bad("shape %s is too large", shapeText)
		}
		n *= int64(d)
		shape = append(shape, d)
	}
	data := b[start+hlen:]
	if want := n * int64(dt.Size()); int64(len(data)) != want {
		return nil, fmt.Errorf("%s: %d data bytes, shape %v of %s needs %d", path, len(data), shape, dt, want)
	}
	a := &npyArray{dtype: dt, shape: shape, data: data}
	if len(shape) > 0 && shape[0] > 0 {
		a.size = len(data) / shape[0]
	}
	return a, nil
}

// parsePyDict parses the Python dict literal of a .npy header into
// key -> value text.
func parsePyDict(s string) (map[string]string, error) {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("not a dict")
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	out := map[string]string{}
	for s != "" {
		if s[0] != '\'' && s[0] != '"' {
			return nil, fmt.Errorf("key not quoted at %q", s)
		}
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, fmt.Errorf("unterminated key")
		}
		key := s[1 : 1+end]
		s = strings.TrimSpace(s[2+end:])
		if !strings.HasPrefix(s, ":") {
			return nil, fmt.Errorf("missing ':' after %q", key)
		}
		s = strings.TrimSpace(s[1:])
		// A value is a quoted string, a tuple or a bare word.
		var val string
		switch {
		case s == "":
			return nil, fmt.Errorf("missing value for %q", key)
		case s[0] == '(':
			i := strings.IndexByte(s, ')')
			if i < 0 {
				return nil, fmt.Errorf("unterminated tuple for %q", key)
			}
			val, s = s[:i+1], s[i+1:]
		case s[0] == '\'' || s[0] == '"':
			i := strings.IndexByte(s[1:], s[0])
			if i < 0 {
				return nil, fmt.Errorf("unterminated string for %q", key)
			}
			val, s = s[:i+2], s[i+2:]
		default:
			i := strings.IndexAny(s, ",}")
			if i < 0 {
				i = len(s)
			}
			val, s = strings.TrimSpace(s[:i]), s[i:]
		}
		out[key] = val
		s = strings.TrimSpace(s)
		s = strings.TrimSpace(strings.TrimPrefix(s, ","))
	}
	return out, nil
}

// at returns sample i (index i of the first axis) as an array.
func (a *npyArray) at(i int) *gojit.Array {
	raw := a.data[i*a.size : (i+1)*a.size]
	shape := append([]int{}, a.shape[1:]...)
	n := a.size / a.dtype.Size()
	switch a.dtype {
	case gojit.Bool:
		d := make([]bool, n)
		for j, x := range raw {
			d[j] = x != 0
		}
		return gojit.FromBool(d, shape...)
	case gojit.Uint8:
		return gojit.FromUint8(append([]byte{}, raw...), shape...)
	case gojit.Int32:
		d := make([]int32, n)
		binary.Decode(raw, binary.LittleEndian, d)
		return gojit.FromInt32(d, shape...)
	case gojit.Int64:
		d := make([]int64, n)
		binary.Decode(raw, binary.LittleEndian, d)
		return gojit.FromInt64(d, shape...)
	case gojit.Float32:
		d := make([]float32, n)
		binary.Decode(raw, binary.LittleEndian, d)
		return gojit.FromFloat32(d, shape...)
	default:
		d := make([]float64, n)
		binary.Decode(raw, binary.LittleEndian, d)
		return gojit.FromFloat64(d, shape...)
	}
}

// intAt returns element i of a 1-D integer array.
func (a *npyArray) intAt(i int) int64 {
	switch a.dtype {
	case gojit.Uint8:
		return int64(a.data[i])
	case gojit.Int32:
		return int64(int32(binary.LittleEndian.Uint32(a.data[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(a.data[8*i:]))
}

// floatAt returns element i of a 1-D float array.
func (a *npyArray) floatAt(i int) float64 {
	if a.dtype == gojit.Float32 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(a.data[4*i:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(a.data[8*i:]))
}
