//go:build cgo && !noturbojpeg

package jpeg

/*
#cgo LDFLAGS: -lturbojpeg
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

static int gojit_tj_encode(tjhandle t, const unsigned char *pix, int w, int h, int c, int quality,
                           unsigned char **out, unsigned long *size, char *msg, int msglen) {
	int pf = c == 1 ? TJPF_GRAY : TJPF_RGB;
	int ss = c == 1 ? TJSAMP_GRAY : TJSAMP_420;
	*out = NULL;
	*size = 0;
	int r = tjCompress2(t, pix, w, w * c, h, pf, out, size, ss, quality, 0);
	if (r != 0) {
		snprintf(msg, msglen, "%s", tjGetErrorStr2(t));
	}
	return r;
}

static int gojit_tj_header(tjhandle t, const unsigned char *jpeg, unsigned long size, int *w, int *h, int *gray,
                           char *msg, int msglen) {
	int ss = -1, cs = -1;
	*w = 0, *h = 0; // TurboJPEG 2.1 may succeed on a truncated header without setting them
	int r = tjDecompressHeader3(t, jpeg, size, w, h, &ss, &cs);
	if (r != 0) {
		snprintf(msg, msglen, "%s", tjGetErrorStr2(t));
	}
	*gray = cs == TJCS_GRAY;
	return r;
}

// gojit_tj_decode checks that the JPEG is w by h, then decodes it into dst
// as c channels. It returns 0, -1 with msg set, or -2 when the size
// differs (*jw, *jh).
static int gojit_tj_decode(tjhandle t, const unsigned char *jpeg, unsigned long size, unsigned char *dst,
                           int w, int h, int c, int *jw, int *jh, char *msg, int msglen) {
	int gray;
	if (gojit_tj_header(t, jpeg, size, jw, jh, &gray, msg, msglen) != 0) {
		return -1;
	}
	if (*jw != w || *jh != h) {
		return -2;
	}
	int pf = c == 1 ? TJPF_GRAY : TJPF_RGB;
	if (tjDecompress2(t, jpeg, size, dst, w, w * c, h, pf, TJFLAG_STOPONWARNING) != 0) {
		snprintf(msg, msglen, "%s", tjGetErrorStr2(t));
		return -1;
	}
	return 0;
}

// gojit_tj_scaled decodes the whole JPEG scaled by num/8 into dst (at
// least *sw * *sh * c bytes, with *sw and *sh the scaled size, which it
// sets) through TurboJPEG: the reference DecodeCrop's tests compare with.
static int gojit_tj_scaled(tjhandle t, const unsigned char *jpeg, unsigned long size, unsigned char *dst,
                           unsigned long dstlen, int num, int c, int *sw, int *sh, char *msg, int msglen) {
	int w, h, gray;
	if (gojit_tj_header(t, jpeg, size, &w, &h, &gray, msg, msglen) != 0) {
		return -1;
	}
	*sw = (w * num + 7) / 8;
	*sh = (h * num + 7) / 8;
	if ((unsigned long)*sw * *sh * c > dstlen) {
		return -2;
	}
	int pf = c == 1 ? TJPF_GRAY : TJPF_RGB;
	if (tjDecompress2(t, jpeg, size, dst, *sw, *sw * c, *sh, pf, TJFLAG_STOPONWARNING) != 0) {
		snprintf(msg, msglen, "%s", tjGetErrorStr2(t));
		return -1;
	}
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// Backend names the JPEG codec in this build: "libjpeg-turbo" or
// "image/jpeg".
const Backend = "libjpeg-turbo"

// Encode compresses interleaved 8-bit pixels (c = 1 gray or 3 RGB,
// rows top to bottom) at quality 1..100 and appends the JPEG to dst.
// RGB is subsampled 4:2:0, gray is stored as one component.
func Encode(dst, pix []byte, w, h, c, quality int) ([]byte, error) {
	if len(pix) != w*h*c || w <= 0 || h <= 0 {
		return dst, fmt.Errorf("jpeg: %d bytes for %dx%dx%d pixels", len(pix), h, w, c)
	}
	t, err := compressors.get()
	if err != nil {
		return dst, err
	}
	defer compressors.put(t)
	var out *C.uchar
	var size C.ulong
	r := C.gojit_tj_encode(t.h, (*C.uchar)(unsafe.Pointer(&pix[0])), C.int(w), C.int(h), C.int(c), C.int(quality), &out, &size, t.msg, msgLen)
	if out != nil {
		defer C.tjFree(out)
	}
	if r != 0 {
		return dst, fmt.Errorf("jpeg: encoding: %s", C.GoString(t.msg))
	}
	return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size))...), nil
}

// handle is a TurboJPEG compressor or decompressor with a C buffer for
// its error message. Creating one costs about as much as coding a small
// image, so they are kept in bounded pools.
type handle struct {
	h   C.tjhandle
	msg *C.char
	out *[3]C.int // results of C calls, in C memory so no Go variable escapes
}

const msgLen = 256

// handlePool holds idle handles of one kind; one returned beyond its
// capacity is destroyed.
type handlePool struct {
	idle     chan *handle
	compress bool
}

var (
	compressors   = handlePool{idle: make(chan *handle, 2*runtime.GOMAXPROCS(0)), compress: true}
	decompressors = handlePool{idle: make(chan *handle, 4*runtime.GOMAXPROCS(0))}
)

func (p *handlePool) get() (*handle, error) {
	select {
	case t := <-p.idle:
		return t, nil
	default:
	}
	var h C.tjhandle
	if p.compress {
		h = C.tjInitCompress()
	} else {
		h = C.tjInitDecompress()
	}
	if h == nil {
		return nil, fmt.Errorf("jpeg: %s", C.GoString(C.tjGetErrorStr2(nil)))
	}
	return &handle{h: h, msg: (*C.char)(C.malloc(msgLen)), out: (*[3]C.int)(C.calloc(3, C.size_t(unsafe.Sizeof(C.int(0)))))}, nil
}

// release returns a handle to the pool, or destroys it after an error:
// TurboJPEG 2.1 may leave a handle that failed in a state where the next
// header read reports success without a size.
func (p *handlePool) release(t *handle, err error) {
	if err != nil {
		p.destroy(t)
		return
	}
	p.put(t)
}

func (p *handlePool) destroy(t *handle) {
	C.tjDestroy(t.h)
	C.free(unsafe.Pointer(t.msg))
	C.free(unsafe.Pointer(t.out))
}

func (p *handlePool) put(t *handle) {
	select {
	case p.idle <- t:
	default:
		C.tjDestroy(t.h)
		C.free(unsafe.Pointer(t.msg))
		C.free(unsafe.Pointer(t.out))
	}
}

// Header returns a JPEG's width and height and whether it is grayscale.
func Header(data []byte) (w, h int, gray bool, err error) {
	if len(data) == 0 {
		return 0, 0, false, errors.New("jpeg: empty data")
	}
	d, err := decompressors.get()
	if err != nil {
		return 0, 0, false, err
	}
	defer func() { decompressors.release(d, err) }()
	cw, ch, cg := &d.out[0], &d.out[1], &d.out[2]
	if C.gojit_tj_header(d.h, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), cw, ch, cg, d.msg, msgLen) != 0 {
		return 0, 0, false, fmt.Errorf("jpeg: %s", C.GoString(d.msg))
	}
	if *cw <= 0 || *ch <= 0 {
		// TurboJPEG 2.1 reports success on some truncated headers.
		return 0, 0, false, errors.New("jpeg: the header holds no image size (truncated, or not a JPEG)")
	}
	return int(*cw), int(*ch), *cg != 0, nil
}

// Decode decompresses data into dst, which holds exactly w*h*c bytes
// (c = 1 or 3); the JPEG must be w by h. A warning from libjpeg-turbo
// (such as a truncated stream) is an error.
func Decode(dst, data []byte, w, h, c int) (err error) {
	if len(dst) != w*h*c || (c != 1 && c != 3) || w <= 0 || h <= 0 {
		return fmt.Errorf("jpeg: destination of %d bytes for %dx%dx%d pixels", len(dst), h, w, c)
	}
	if len(data) == 0 {
		return errors.New("jpeg: empty data")
	}
	d, err := decompressors.get()
	if err != nil {
		return err
	}
	defer func() { decompressors.release(d, err) }()
	jw, jh := &d.out[0], &d.out[1]
	switch C.gojit_tj_decode(d.h, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), (*C.uchar)(unsafe.Pointer(&dst[0])), C.int(w), C.int(h), C.int(c), jw, jh, d.msg, msgLen) {
	case 0:
		return nil
	case -2:
		return fmt.Errorf("jpeg: image is %dx%d, metadata says %dx%d", int(*jh), int(*jw), h, w)
	}
	return fmt.Errorf("jpeg: decoding: %s", C.GoString(d.msg))
}

// decodeScaled decodes the whole JPEG scaled by n/8 as c channels through
// TurboJPEG (tjDecompress2), returning the pixels and their size: the
// full-image path DecodeCrop's tests compare its crops with.
func decodeScaled(data []byte, n, c int) (_ []byte, _, _ int, err error) {
	iw, ih, _, err := Header(data)
	if err != nil {
		return nil, 0, 0, err
	}
	d, err := decompressors.get()
	if err != nil {
		return nil, 0, 0, err
	}
	defer func() { decompressors.release(d, err) }()
	pix := make([]byte, (iw*n+7)/8*((ih*n+7)/8)*c)
	var sw, sh C.int
	if C.gojit_tj_scaled(d.h, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), (*C.uchar)(unsafe.Pointer(&pix[0])), C.ulong(len(pix)),
		C.int(n), C.int(c), &sw, &sh, d.msg, msgLen) != 0 {
		return nil, 0, 0, fmt.Errorf("jpeg: decoding at %d/8: %s", n, C.GoString(d.msg))
	}
	return pix, int(sw), int(sh), nil
}
