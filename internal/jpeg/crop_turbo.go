//go:build cgo && !noturbojpeg

package jpeg

/*
#cgo LDFLAGS: -ljpeg
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

// gojit_dec is a libjpeg decompressor kept between images (a pool on the
// Go side holds idle ones), with its error manager and the results of the
// last call. libjpeg reports errors through error_exit, which must not
// return: it longjmps back into gojit_dec_crop with the message. Warnings
// (such as a truncated stream) are errors too.
typedef struct {
	struct jpeg_decompress_struct ci;
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	char msg[256];
	int iw, ih, layout; // the header: size and jpeg_color_space
	int bx, by, bw, bh; // the decoded buffer in the scaled image
	size_t need;        // bytes the buffer needs
} gojit_dec;

static void gojit_dec_exit(j_common_ptr ci) {
	gojit_dec *d = (gojit_dec *)ci->client_data;
	char m[JMSG_LENGTH_MAX];
	(*ci->err->format_message)(ci, m);
	snprintf(d->msg, sizeof d->msg, "%s", m);
	longjmp(d->jb, 1);
}

static void gojit_dec_emit(j_common_ptr ci, int level) {
	if (level < 0) {
		gojit_dec_exit(ci);
	}
}

static gojit_dec *gojit_dec_new(void) {
	gojit_dec *d = calloc(1, sizeof *d);
	if (d == NULL) {
		return NULL;
	}
	d->ci.err = jpeg_std_error(&d->pub);
	d->pub.error_exit = gojit_dec_exit;
	d->pub.emit_message = gojit_dec_emit;
	d->ci.client_data = d; // jpeg_create_decompress keeps it
	if (setjmp(d->jb)) {
		free(d);
		return NULL;
	}
	jpeg_create_decompress(&d->ci);
	return d;
}

static void gojit_dec_free(gojit_dec *d) {
	jpeg_destroy_decompress(&d->ci);
	free(d);
}

// gojit_cmyk_row converts a row of w CMYK pixels as libjpeg returns them
// to c = 1 or 3 channels. With an Adobe marker the values are inverted
// (255 = no ink), as Photoshop writes them; without one they are ink.
static void gojit_cmyk_row(const JSAMPLE *in, unsigned char *out, int w, int c, int inverted) {
	for (int i = 0; i < w; i++, in += 4) {
		int k = inverted ? in[3] : 255 - in[3];
		int r = inverted ? in[0] : 255 - in[0];
		int g = inverted ? in[1] : 255 - in[1];
		int b = inverted ? in[2] : 255 - in[2];
		r = (r * k + 127) / 255;
		g = (g * k + 127) / 255;
		b = (b * k + 127) / 255;
		if (c == 1) {
			*out++ = (unsigned char)((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
		} else {
			*out++ = r;
			*out++ = g;
			*out++ = b;
		}
	}
}

// gojit_dec_crop decodes pixels [x0, x1) x [y0, y1) of the JPEG (in the
// unscaled image), scaled by num/8, as c channels into dst: the rows the
// rectangle touches and the iMCU columns jpeg_crop_scanline widens its
// columns to, packed (d->bw*c bytes a row). It returns 0; -1 with d->msg
// set; -2 when the rectangle is not inside the image (d->iw, d->ih); -3
// when dst is shorter than d->need bytes.
static int gojit_dec_crop(gojit_dec *d, const unsigned char *data, unsigned long size, unsigned char *dst,
                          size_t dstlen, int c, int num, int x0, int y0, int x1, int y1, int dct, int fancy) {
	j_decompress_ptr ci = &d->ci;
	if (setjmp(d->jb)) {
		jpeg_abort_decompress(ci);
		return -1;
	}
	jpeg_mem_src(ci, data, size);
	jpeg_read_header(ci, TRUE);
	d->iw = ci->image_width;
	d->ih = ci->image_height;
	d->layout = ci->jpeg_color_space;
	if (x0 < 0 || y0 < 0 || x1 > d->iw || y1 > d->ih || x0 >= x1 || y0 >= y1) {
		jpeg_abort_decompress(ci);
		return -2;
	}
	int cmyk = ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK;
	ci->out_color_space = cmyk ? JCS_CMYK : c == 1 ? JCS_GRAYSCALE : JCS_RGB;
	ci->scale_num = num;
	ci->scale_denom = 8;
	ci->dct_method = dct;
	ci->do_fancy_upsampling = fancy;
	jpeg_start_decompress(ci);
	int sw = ci->output_width, sh = ci->output_height;
	int sx0 = (int)((long)x0 * num / 8), sx1 = (int)(((long)x1 * num + 7) / 8);
	int sy0 = (int)((long)y0 * num / 8), sy1 = (int)(((long)y1 * num + 7) / 8);
	sx1 = sx1 < sw ? sx1 : sw;
	sy1 = sy1 < sh ? sy1 : sh;
	// Two more columns on each side keep the chroma upsampling at the
	// buffer's edges (which it treats as the image's) out of the crop.
	int cx0 = sx0 > 2 ? sx0 - 2 : 0, cx1 = sx1 + 2 < sw ? sx1 + 2 : sw;
	JDIMENSION xoff = cx0, width = cx1 - cx0;
	if (cx0 > 0 || cx1 < sw) {
		jpeg_crop_scanline(ci, &xoff, &width); // widens to iMCU boundaries
	}
	d->bx = xoff;
	d->bw = width;
	d->by = sy0;
	d->bh = sy1 - sy0;
	d->need = (size_t)width * c * (sy1 - sy0);
	if (d->need > dstlen) {
		jpeg_abort_decompress(ci);
		return -3;
	}
	JSAMPARRAY tmp = NULL;
	if (cmyk) {
		tmp = (*ci->mem->alloc_sarray)((j_common_ptr)ci, JPOOL_IMAGE, width * 4, 1);
	}
	if (sy0 > 0 && jpeg_skip_scanlines(ci, sy0) != (JDIMENSION)sy0) {
		snprintf(d->msg, sizeof d->msg, "could not skip %d rows", sy0);
		jpeg_abort_decompress(ci);
		return -1;
	}
	size_t stride = (size_t)width * c;
	for (int y = sy0; y < sy1;) {
		JSAMPROW rows[16];
		int k = sy1 - y < 16 ? sy1 - y : 16;
		for (int i = 0; i < k; i++) {
			rows[i] = dst + (size_t)(y - sy0 + i) * stride;
		}
		JDIMENSION got = jpeg_read_scanlines(ci, cmyk ? tmp : rows, cmyk ? 1 : k);
		if (got == 0) {
			snprintf(d->msg, sizeof d->msg, "image ends at row %d", y);
			jpeg_abort_decompress(ci);
			return -1;
		}
		if (cmyk) {
			gojit_cmyk_row(tmp[0], rows[0], width, c, ci->saw_Adobe_marker);
		}
		y += got;
	}
	jpeg_abort_decompress(ci);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"image"
	"runtime"
	"unsafe"
)

// tuning holds the libjpeg decoder settings DecodeCrop uses; benchmarks
// and tests try others.
type tuning struct {
	dct   int  // libjpeg J_DCT_METHOD: 0 JDCT_ISLOW, 1 JDCT_IFAST, 2 JDCT_FLOAT
	fancy bool // do_fancy_upsampling (triangle filter for subsampled chroma)
}

// defaultTuning is DecodeCrop's: see the figures in doc.go.
var defaultTuning = tuning{dct: C.JDCT_ISLOW, fancy: true}

// decs holds idle libjpeg decompressors (gojit_dec); one returned beyond
// its capacity is freed.
var decs = make(chan *C.gojit_dec, 4*runtime.GOMAXPROCS(0))

func getDec() (*C.gojit_dec, error) {
	select {
	case d := <-decs:
		return d, nil
	default:
	}
	d := C.gojit_dec_new()
	if d == nil {
		return nil, fmt.Errorf("jpeg: cannot create a libjpeg decompressor")
	}
	return d, nil
}

func putDec(d *C.gojit_dec) {
	select {
	case decs <- d:
	default:
		C.gojit_dec_free(d)
	}
}

// DecodeCrop decodes rectangle src of a JPEG (in the image's pixel
// coordinates) into dst at the largest DCT reduction that keeps it at
// least outW by outH (CropScale; outW or outH <= 0 means full scale), as
// c = 1 (gray or luma) or 3 (RGB) channels, for a resize done afterwards
// by the caller; Crop says where the pixels landed.
//
// This build decodes with the libjpeg API of libjpeg-turbo: it skips the
// rows above src (jpeg_skip_scanlines, which still reads their entropy
// codes), decodes the iMCU columns src touches (jpeg_crop_scanline, so
// Crop.W may exceed the scaled width of src by up to an iMCU on each
// side), stops after the last row src touches, and writes straight into
// dst with no Go allocation and a decompressor reused from a pool. CMYK
// and YCCK JPEGs are converted to RGB (inverted values when an Adobe
// marker says so, as image/jpeg reads them). A warning from libjpeg
// (such as a truncated stream) is an error; corruption after the last
// row src touches is not seen. dst too small is an error wrapping
// ErrDstTooSmall; MaxCropLen bounds the size needed.
func DecodeCrop(dst, data []byte, src image.Rectangle, outW, outH, c int) (Crop, error) {
	return decodeCrop(dst, data, src, CropScale(src, outW, outH), c, defaultTuning)
}

// decodeCrop is DecodeCrop at scale n/8 with decoder settings t.
func decodeCrop(dst, data []byte, src image.Rectangle, n, c int, t tuning) (Crop, error) {
	if err := checkCropArgs(data, c); err != nil {
		return Crop{}, err
	}
	d, err := getDec()
	if err != nil {
		return Crop{}, err
	}
	defer putDec(d)
	var dp *C.uchar
	if len(dst) > 0 {
		dp = (*C.uchar)(unsafe.Pointer(&dst[0]))
	}
	fancy := C.int(0)
	if t.fancy {
		fancy = 1
	}
	r := C.gojit_dec_crop(d, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), dp, C.size_t(len(dst)), C.int(c), C.int(n),
		C.int(src.Min.X), C.int(src.Min.Y), C.int(src.Max.X), C.int(src.Max.Y), C.int(t.dct), fancy)
	cr := cropResult(src, n, int(d.bx), int(d.by), int(d.bw), int(d.bh))
	switch r {
	case 0:
		return cr, nil
	case -2:
		return Crop{}, outsideError(src, int(d.iw), int(d.ih))
	case -3:
		return Crop{}, tooSmallError(len(dst), int(d.need), cr)
	}
	return Crop{}, fmt.Errorf("jpeg: decoding region %v: %s", src, C.GoString(&d.msg[0]))
}

// Inspect reads a JPEG's header: its size and component layout.
func Inspect(data []byte) (Info, error) {
	if len(data) == 0 {
		return Info{}, fmt.Errorf("jpeg: empty data")
	}
	d, err := getDec()
	if err != nil {
		return Info{}, err
	}
	defer putDec(d)
	// A rectangle that is never inside stops gojit_dec_crop after the header.
	if C.gojit_dec_crop(d, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), nil, 0, 3, 8, 0, 0, 0, 0, 0, 0) == -1 {
		return Info{}, fmt.Errorf("jpeg: %s", C.GoString(&d.msg[0]))
	}
	return Info{Width: int(d.iw), Height: int(d.ih), Layout: libjpegLayout(int(d.layout))}, nil
}

// libjpegLayout maps a J_COLOR_SPACE to a Layout.
func libjpegLayout(cs int) Layout {
	switch cs {
	case C.JCS_GRAYSCALE:
		return LayoutGray
	case C.JCS_YCbCr:
		return LayoutYCbCr
	case C.JCS_RGB:
		return LayoutRGB
	case C.JCS_CMYK:
		return LayoutCMYK
	case C.JCS_YCCK:
		return LayoutYCCK
	}
	return LayoutUnknown
}
