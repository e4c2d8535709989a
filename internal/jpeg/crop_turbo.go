//go:build cgo && !noturbojpeg

package jpeg

/*
#cgo LDFLAGS: -ljpeg
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

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

	// The stream gojit_restart_select builds, and its interval table:
	// interval j of the JPEG is data[start[j]:end[j]]. Both outlive images
	// (no allocation in the steady state) and stay outside libjpeg's pools.
	JOCTET *buf;
	size_t bufcap, ncap, *start, *end;
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
	free(d->start);
	free(d->buf);
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

// gojit_restart_select makes the decoder read only the restart intervals
// that original pixels [x0, x1) x [y0, y1) need. When the JPEG is
// sequential Huffman in one scan, with restart intervals that divide its
// MCU rows, it builds in one buffer (which keeps libjpeg-turbo's fast
// Huffman decoder in use) a stream of the header, the SOF's size patched,
// and those intervals, restart markers renumbered; reads its header; and
// returns 1 with the new image's origin in *ox, *oy (original pixels).
// Intervals are independent (the DC predictions restart), so the new
// image's pixels equal the original's away from its edges; libjpeg-turbo
// would otherwise Huffman-decode every row above the crop and every column
// of the rows it covers. Otherwise it returns 0 with the header read as
// before.
static int gojit_restart_select(gojit_dec *d, const unsigned char *data, unsigned long size, int x0, int y0, int x1,
                                int y1, int *ox, int *oy) {
	j_decompress_ptr ci = &d->ci;
	int ri = ci->restart_interval, mh = ci->max_h_samp_factor, mv = ci->max_v_samp_factor;
	if (ri == 0 || ci->progressive_mode || ci->arith_code || ci->comps_in_scan != ci->num_components ||
	    (ci->num_components == 1 && (mh != 1 || mv != 1))) {
		return 0;
	}
	int mw = 8 * mh, mht = 8 * mv; // MCU size in pixels
	int mpr = (d->iw + mw - 1) / mw, rows = (d->ih + mht - 1) / mht;
	if (mpr % ri != 0) {
		return 0;
	}
	int ipr = mpr / ri, iwpx = ri * mw;
	int c0 = x0 / iwpx, c1 = (x1 + iwpx - 1) / iwpx;
	int r0 = y0 / mht, r1 = (y1 + mht - 1) / mht;
	c1 = c1 < ipr ? c1 : ipr;
	r1 = r1 < rows ? r1 : rows;
	if (c0 == 0 && c1 == ipr && r0 == 0 && r1 == rows) {
		return 0;
	}
	size_t sos = ci->src->next_input_byte - data;
	jpeg_abort_decompress(ci);
	int n = r1 * ipr; // intervals to find
	// The arrays outlive images (no allocation in the steady state) and
	// stay outside libjpeg's pools.
	if ((size_t)n > d->ncap) {
		size_t *a = realloc(d->start, 2 * n * sizeof(size_t));
		if (a == NULL) {
			ERREXIT(ci, JERR_OUT_OF_MEMORY);
		}
		d->start = a;
		d->ncap = n;
	}
	d->end = d->start + d->ncap;
	size_t p = sos;
	int j = 0;
	d->start[0] = sos;
	while (j < n && p + 1 < size) {
		if (data[p] != 0xFF || data[p + 1] == 0x00) {
			p += data[p] == 0xFF ? 2 : 1;
			continue;
		}
		if (data[p + 1] == 0xFF) { // fill byte
			p++;
			continue;
		}
		d->end[j] = p;
		if (data[p + 1] != JPEG_RST0 + (j & 7) || p == d->start[j]) {
			break; // not the restart marker due (or EOI, or an empty interval): decode as usual
		}
		p += 2;
		if (++j < n) {
			d->start[j] = p;
		}
	}
	if (j == n - 1 && p + 1 < size && data[p] == 0xFF && data[p + 1] == JPEG_EOI && p > d->start[j]) {
		d->end[j++] = p; // the last interval of the image
	}
	// The header: everything before the entropy data, with the SOF's
	// height and width made the new image's.
	int nw = (c1 * iwpx < d->iw ? c1 * iwpx : d->iw) - c0 * iwpx;
	int nh = (r1 * mht < d->ih ? r1 * mht : d->ih) - r0 * mht;
	size_t sof = 0;
	for (size_t q = 2; j == n && q + 4 <= sos;) {
		if (data[q] != 0xFF) {
			break;
		}
		if (data[q + 1] == 0xFF) {
			q++;
			continue;
		}
		int m = data[q + 1];
		if (m == 0xC0 || m == 0xC1) {
			sof = q;
			break;
		}
		q += 2 + (data[q + 2] << 8 | data[q + 3]);
	}
	if (j < n || sof == 0 || sof + 9 > sos) {
		jpeg_mem_src(ci, data, size);
		jpeg_read_header(ci, TRUE);
		return 0;
	}
	int per = c1 - c0;
	size_t total = sos + 2;
	for (int r = r0; r < r1; r++) {
		total += d->end[r * ipr + c1 - 1] - d->start[r * ipr + c0] + 2 * per;
	}
	if (total > d->bufcap) {
		JOCTET *b = realloc(d->buf, total);
		if (b == NULL) {
			ERREXIT(ci, JERR_OUT_OF_MEMORY);
		}
		d->buf = b;
		d->bufcap = total;
	}
	JOCTET *q = d->buf;
	memcpy(q, data, sos);
	q[sof + 5] = nh >> 8;
	q[sof + 6] = nh & 0xFF;
	q[sof + 7] = nw >> 8;
	q[sof + 8] = nw & 0xFF;
	q += sos;
	for (int r = r0, k = 0; r < r1; r++) {
		for (int c = c0; c < c1; c++, k++) {
			int i = r * ipr + c;
			memcpy(q, data + d->start[i], d->end[i] - d->start[i]);
			q += d->end[i] - d->start[i];
			*q++ = 0xFF;
			*q++ = JPEG_RST0 + (k & 7);
		}
	}
	q[-1] = JPEG_EOI; // in place of the last restart marker
	jpeg_mem_src(ci, d->buf, q - d->buf);
	jpeg_read_header(ci, TRUE);
	*ox = c0 * iwpx;
	*oy = r0 * mht;
	return 1;
}

// gojit_dec_crop decodes pixels [x0, x1) x [y0, y1) of the JPEG (in the
// unscaled image), scaled by num/8, as c channels into dst: the rows the
// rectangle touches and the iMCU columns jpeg_crop_scanline widens its
// columns to, packed (d->bw*c bytes a row). It returns 0; -1 with d->msg
// set; -2 when the rectangle is not inside the image (d->iw, d->ih); -3
// when dst is shorter than d->need bytes. With restart set it decodes only
// the restart intervals needed when the JPEG has suitable ones
// (gojit_restart_select).
static int gojit_dec_crop(gojit_dec *d, const unsigned char *data, unsigned long size, unsigned char *dst,
                          size_t dstlen, int c, int num, int x0, int y0, int x1, int y1, int dct, int fancy,
                          int restart) {
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
	int ox = 0, oy = 0; // the decoded image's origin in the JPEG's
	if (restart && ci->restart_interval > 0) {
		// The original pixels the crop below needs, with two scaled
		// pixels of margin on each side, which keep the chroma upsampling
		// at the new image's edges out of the crop.
		int sw = (d->iw * num + 7) / 8, sh = (d->ih * num + 7) / 8;
		int sx0 = (int)((long)x0 * num / 8), sx1 = (int)(((long)x1 * num + 7) / 8);
		int sy0 = (int)((long)y0 * num / 8), sy1 = (int)(((long)y1 * num + 7) / 8);
		sx1 = sx1 < sw ? sx1 : sw;
		sy1 = sy1 < sh ? sy1 : sh;
		int cx0 = sx0 > 2 ? sx0 - 2 : 0, cx1 = sx1 + 2 < sw ? sx1 + 2 : sw;
		int cy0 = sy0 > 2 ? sy0 - 2 : 0, cy1 = sy1 + 2 < sh ? sy1 + 2 : sh;
		int xo1 = (int)(((long)cx1 * 8 + num - 1) / num), yo1 = (int)(((long)cy1 * 8 + num - 1) / num);
		gojit_restart_select(d, data, size, (int)((long)cx0 * 8 / num), (int)((long)cy0 * 8 / num),
		                     xo1 < d->iw ? xo1 : d->iw, yo1 < d->ih ? yo1 : d->ih, &ox, &oy);
		x0 -= ox;
		x1 -= ox;
		y0 -= oy;
		y1 -= oy;
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
	d->bx = xoff + ox * num / 8;
	d->bw = width;
	d->by = sy0 + oy * num / 8;
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

// gojit_enc_err is the error manager of gojit_encode.
typedef struct {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	char *msg;
} gojit_enc_err;

static void gojit_enc_exit(j_common_ptr ci) {
	gojit_enc_err *e = (gojit_enc_err *)ci->err;
	char m[JMSG_LENGTH_MAX];
	(*ci->err->format_message)(ci, m);
	snprintf(e->msg, 256, "%s", m);
	longjmp(e->jb, 1);
}

// gojit_encode compresses w by h pixels of c = 1 or 3 channels as TurboJPEG's
// tjCompress2 does (4:2:0 or gray, libjpeg's quality tables) with a restart
// marker every ri MCUs (none when 0), into a malloc'd *out of *size bytes.
// It returns 0, or -1 with msg set.
static int gojit_encode(const unsigned char *pix, int w, int h, int c, int quality, int ri, unsigned char **out,
                        unsigned long *size, char *msg) {
	struct jpeg_compress_struct ci;
	gojit_enc_err err;
	*out = NULL;
	*size = 0;
	ci.err = jpeg_std_error(&err.pub);
	err.pub.error_exit = gojit_enc_exit;
	err.msg = msg;
	if (setjmp(err.jb)) {
		jpeg_destroy_compress(&ci);
		free(*out);
		*out = NULL;
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, out, size);
	ci.image_width = w;
	ci.image_height = h;
	ci.input_components = c;
	ci.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_set_defaults(&ci); // 4:2:0 for YCbCr
	jpeg_set_quality(&ci, quality, TRUE);
	ci.restart_interval = ri;
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		JSAMPROW row = (JSAMPROW)pix + (size_t)ci.next_scanline * w * c;
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"image"
	"math"
	"runtime"
	"unsafe"
)

// tuning holds the libjpeg decoder settings DecodeCrop uses; benchmarks
// and tests try others.
type tuning struct {
	dct   int  // libjpeg J_DCT_METHOD: 0 JDCT_ISLOW, 1 JDCT_IFAST, 2 JDCT_FLOAT
	fancy bool // do_fancy_upsampling (triangle filter for subsampled chroma)
	// restart decodes only the restart intervals the crop needs, when the
	// JPEG has restart markers dividing its MCU rows (EncodeOptions).
	restart bool
}

// defaultTuning is DecodeCrop's: see the figures in doc.go.
var defaultTuning = tuning{dct: C.JDCT_ISLOW, fancy: true, restart: true}

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
// dst with no Go allocation and a decompressor reused from a pool (libjpeg
// still sets up its own work memory per image). When the JPEG has restart
// markers that divide its MCU rows (EncodeWith), it Huffman-decodes only
// the restart intervals the crop needs, with the same pixels. CMYK and
// YCCK JPEGs are converted to RGB (inverted values when an Adobe marker
// says so, as image/jpeg reads them). A warning from libjpeg (such as a
// truncated stream) is an error; corruption after the last row src
// touches is not seen. dst too small is an error wrapping ErrDstTooSmall;
// MaxCropLen bounds the size needed.
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
	fancy, restart := C.int(0), C.int(0)
	if t.fancy {
		fancy = 1
	}
	if t.restart {
		restart = 1
	}
	r := C.gojit_dec_crop(d, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), dp, C.size_t(len(dst)), C.int(c), C.int(n),
		C.int(src.Min.X), C.int(src.Min.Y), C.int(src.Max.X), C.int(src.Max.Y), C.int(t.dct), fancy, restart)
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
	if C.gojit_dec_crop(d, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), nil, 0, 3, 8, 0, 0, 0, 0, 0, 0, 0) == -1 {
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

// EncodeWith is Encode with options: with o.RestartsPerRow > 0 it writes
// restart markers (libjpeg API; the pixels are those Encode writes), which
// DecodeCrop uses to skip the rows above a crop and the columns beside it
// without Huffman-decoding them.
func EncodeWith(dst, pix []byte, w, h, c int, o EncodeOptions) ([]byte, error) {
	if o.RestartsPerRow <= 0 {
		return Encode(dst, pix, w, h, c, o.Quality)
	}
	if len(pix) != w*h*c || w <= 0 || h <= 0 || (c != 1 && c != 3) {
		return dst, fmt.Errorf("jpeg: %d bytes for %dx%dx%d pixels", len(pix), h, w, c)
	}
	msg := (*C.char)(C.malloc(msgLen))
	defer C.free(unsafe.Pointer(msg))
	var out *C.uchar
	var size C.ulong
	if C.gojit_encode((*C.uchar)(unsafe.Pointer(&pix[0])), C.int(w), C.int(h), C.int(c), C.int(min(max(o.Quality, 1), 100)),
		C.int(restartInterval(w, c, o.RestartsPerRow)), &out, &size, msg) != 0 {
		return dst, fmt.Errorf("jpeg: encoding: %s", C.GoString(msg))
	}
	defer C.free(unsafe.Pointer(out))
	return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size))...), nil
}

// restartInterval returns the restart interval in MCUs that EncodeWith
// writes for a w-pixel-wide image of c channels and perRow intervals a
// row: the divisor of the MCUs in a row nearest to their perRow-th part
// (the larger on a tie).
func restartInterval(w, c, perRow int) int {
	mcu := 16
	if c == 1 {
		mcu = 8
	}
	mpr := (w + mcu - 1) / mcu
	target := float64(mpr) / float64(perRow)
	best := mpr
	for d := mpr; d >= 1; d-- {
		if mpr%d == 0 && math.Abs(float64(d)-target) < math.Abs(float64(best)-target) {
			best = d
		}
	}
	return best
}
