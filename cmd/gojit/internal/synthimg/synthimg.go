// Package synthimg draws synthetic "natural-looking" RGB images for the
// pipeline benchmarks: a smooth two-colour gradient under slow lighting
// waves, a few filled shapes with their own shading and sharp or soft
// edges, and mild Gaussian noise. JPEG codecs spend their time very
// differently on flat images (almost nothing to code) and on pure noise
// (nothing to predict or discard); these sit in between, as photographs
// do, so decode times resemble those of a real data set.
//
// Every image is a function of (seed, index) alone, so a set can be drawn
// in parallel and in any order and comes out the same.
package synthimg

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Options sets the size of the images.
type Options struct {
	// Size is the nominal size: the short side is drawn from
	// [Size*224/256, Size*320/256] and the aspect ratio (long/short) from
	// [1, 4/3], in either orientation. With Exact every image is Size by
	// Size.
	Size  int
	Exact bool
}

// Image is one synthetic image: W*H*3 interleaved RGB bytes, rows top to
// bottom, and its label (see Label).
type Image struct {
	Pix   []byte
	W, H  int
	Label int
}

// Labels is the number of distinct labels.
const Labels = 3

// newRand returns image i's random stream.
func newRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)*0x9E3779B97F4A7C15+0x632BE59BD9B4E019))
}

// Label returns image i's label without drawing it: the kind of its
// first shape, which is drawn larger than the others (0 ellipse, 1
// rectangle, 2 bar).
func Label(seed uint64, i int) int { return newRand(seed, i).IntN(Labels) }

// Draw returns image i of the set keyed by seed.
func Draw(seed uint64, i int, o Options) (*Image, error) {
	if o.Size < 8 || o.Size > 8192 {
		return nil, fmt.Errorf("synthimg: size %d, want 8 to 8192", o.Size)
	}
	rng := newRand(seed, i)
	label := rng.IntN(Labels) // first, as Label draws it
	w, h := o.Size, o.Size
	if !o.Exact {
		short := int(math.Round(float64(o.Size) * (224 + 96*rng.Float64()) / 256))
		ar := math.Exp(math.Log(0.75) + rng.Float64()*2*math.Log(4.0/3))
		if ar >= 1 {
			w, h = int(math.Round(float64(short)*ar)), short
		} else {
			w, h = short, int(math.Round(float64(short)/ar))
		}
	}
	img := &Image{W: w, H: h, Pix: make([]byte, w*h*3), Label: label}
	buf := make([]float32, w*h*3) // colour before noise and quantization
	background(buf, w, h, rng)
	shape(buf, w, h, label, 2, rng)
	for range 2 + rng.IntN(6) {
		shape(buf, w, h, rng.IntN(Labels), 1, rng)
	}
	for k, v := range buf {
		v += float32(rng.NormFloat64() * 3)
		img.Pix[k] = uint8(min(max(v+0.5, 0), 255))
	}
	return img, nil
}

// randColor returns a colour with channels in [lo, hi).
func randColor(rng *rand.Rand, lo, hi float64) [3]float32 {
	var c [3]float32
	for k := range c {
		c[k] = float32(lo + (hi-lo)*rng.Float64())
	}
	return c
}

// background fills buf with a linear gradient between two colours along a
// random direction, modulated by a slow sinusoidal "lighting" wave.
func background(buf []float32, w, h int, rng *rand.Rand) {
	c0, c1 := randColor(rng, 20, 235), randColor(rng, 20, 235)
	th := 2 * math.Pi * rng.Float64()
	dx, dy := math.Cos(th), math.Sin(th)
	span := math.Abs(dx)*float64(w) + math.Abs(dy)*float64(h)
	off := math.Min(0, dx*float64(w)) + math.Min(0, dy*float64(h))
	fx, fy := (0.5+2*rng.Float64())*2*math.Pi/float64(w), (0.5+2*rng.Float64())*2*math.Pi/float64(h)
	ph := 2 * math.Pi * rng.Float64()
	amp := 0.05 + 0.1*rng.Float64()
	for y := range h {
		for x := range w {
			t := float32((dx*float64(x) + dy*float64(y) - off) / span)
			l := float32(1 + amp*math.Sin(fx*float64(x)+fy*float64(y)+ph))
			p := buf[(y*w+x)*3:][:3]
			for k := range 3 {
				p[k] = (c0[k] + t*(c1[k]-c0[k])) * l
			}
		}
	}
}

// shape draws a random filled shape of the given kind over buf, scaled
// by grow, shaded along a random direction, with an edge between sharp
// (half a pixel) and soft (a few pixels).
func shape(buf []float32, w, h, kind int, grow float64, rng *rand.Rand) {
	cx, cy := float64(w)*rng.Float64(), float64(h)*rng.Float64()
	side := float64(min(w, h))
	a := grow * side * (0.05 + 0.2*rng.Float64()) // half extent along the shape's own x
	b := grow * side * (0.05 + 0.2*rng.Float64())
	if kind == 2 { // a bar: long and thin
		a, b = grow*side*(0.2+0.3*rng.Float64()), grow*(1+side*0.02*rng.Float64())
	}
	th := math.Pi * rng.Float64()
	ct, st := math.Cos(th), math.Sin(th)
	col := randColor(rng, 0, 255)
	shade := float32(0.3 + 0.5*rng.Float64()) // brightness change across the shape
	soft := 0.5
	if rng.IntN(3) == 0 {
		soft = 1 + 3*rng.Float64()
	}
	alpha := float32(0.7 + 0.3*rng.Float64())
	r := math.Max(a, b) + soft
	x0, x1 := max(int(cx-r), 0), min(int(cx+r)+1, w)
	y0, y1 := max(int(cy-r), 0), min(int(cy+r)+1, h)
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			px, py := float64(x)+0.5-cx, float64(y)+0.5-cy
			u, v := ct*px+st*py, -st*px+ct*py
			// d is an approximate signed distance to the outline (negative
			// inside), scaled to pixels.
			var d float64
			if kind == 0 {
				d = (math.Hypot(u/a, v/b) - 1) * math.Min(a, b)
			} else {
				d = math.Max(math.Abs(u)-a, math.Abs(v)-b)
			}
			cov := float32(math.Min(math.Max(0.5-d/(2*soft), 0), 1))
			if cov == 0 {
				continue
			}
			g := 1 + shade*float32(u/math.Max(a, 1))/2
			m := cov * alpha
			p := buf[(y*w+x)*3:][:3]
			for k := range 3 {
				p[k] += m * (col[k]*g - p[k])
			}
		}
	}
}
