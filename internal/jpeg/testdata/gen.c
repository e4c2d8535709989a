// gen.c writes the JPEG test files of package jpeg that Go's image/jpeg
// encoder and TurboJPEG's Encode (4:2:0 RGB and gray only) cannot: 4:4:4
// and 4:2:2 YCbCr, progressive 4:2:0, and four-component CMYK and YCCK
// files marked the way Photoshop writes them (an Adobe APP14 marker and
// inverted values: 255 means no ink). Regenerate with
//
//	gcc -O2 -o /tmp/jpeggen testdata/gen.c -ljpeg && (cd testdata && /tmp/jpeggen)
//
// The pixels are a deterministic mix of gradients, a sine pattern, edges
// and a little noise; tests decode the files and compare decoders, never
// the pixels written here.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

enum { W = 203, H = 157 };

static unsigned rng = 12345;
static int noise(void) {
	rng = rng * 1103515245u + 12345u;
	return (int)((rng >> 16) % 17) - 8;
}

static unsigned char clamp(double v) { return v < 0 ? 0 : v > 255 ? 255 : (unsigned char)(v + 0.5); }

// sample returns channel k (0..3) of pixel (x, y).
static unsigned char sample(int x, int y, int k) {
	double v = 40 + 150.0 * x / W * (k % 2 ? 1 : 0.4) + 60.0 * y / H * (k == 2 ? 1 : 0.3);
	v += 30 * sin(x / 9.0 + k) * cos(y / 13.0);
	if ((x - 120) * (x - 120) + (y - 70) * (y - 70) < 900) { // a disc with a hard edge
		v = 255 - v;
	}
	if (x > 30 && x < 60 && y > 90 && y < 140) {
		v = 20 + 60 * k;
	}
	return clamp(v + noise());
}

// write encodes a W by H image with nc components given as in_cs, stored
// as jpeg_cs with the luma component's sampling factors h by v.
static void write(const char *name, int nc, J_COLOR_SPACE in_cs, J_COLOR_SPACE jpeg_cs, int h, int v, int progressive,
                  int invert) {
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr err;
	ci.err = jpeg_std_error(&err);
	jpeg_create_compress(&ci);
	FILE *f = fopen(name, "wb");
	if (!f) {
		perror(name);
		exit(1);
	}
	jpeg_stdio_dest(&ci, f);
	ci.image_width = W;
	ci.image_height = H;
	ci.input_components = nc;
	ci.in_color_space = in_cs;
	jpeg_set_defaults(&ci);
	jpeg_set_colorspace(&ci, jpeg_cs);
	jpeg_set_quality(&ci, 92, TRUE);
	ci.comp_info[0].h_samp_factor = h;
	ci.comp_info[0].v_samp_factor = v;
	if (jpeg_cs == JCS_YCCK) {
		ci.comp_info[3].h_samp_factor = h;
		ci.comp_info[3].v_samp_factor = v;
	}
	if (progressive) {
		jpeg_simple_progression(&ci);
	}
	jpeg_start_compress(&ci, TRUE);
	unsigned char *row = malloc(W * nc);
	rng = 12345;
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			for (int k = 0; k < nc; k++) {
				unsigned char s = sample(x, y, k);
				if (nc == 4 && k == 3) {
					s = s / 3; // little black ink
				}
				row[x * nc + k] = invert ? 255 - s : s;
			}
		}
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	fclose(f);
	free(row);
}

int main(void) {
	write("rgb444.jpg", 3, JCS_RGB, JCS_YCbCr, 1, 1, 0, 0);
	write("rgb422.jpg", 3, JCS_RGB, JCS_YCbCr, 2, 1, 0, 0);
	write("rgb420p.jpg", 3, JCS_RGB, JCS_YCbCr, 2, 2, 1, 0);
	// libjpeg writes the Adobe marker for CMYK and YCCK; the values are
	// inverted as Photoshop stores them.
	write("cmyk.jpg", 4, JCS_CMYK, JCS_CMYK, 1, 1, 0, 1);
	write("ycck.jpg", 4, JCS_CMYK, JCS_YCCK, 2, 2, 0, 1);
	return 0;
}
