package dataset

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Writer writes a dataset file. Create it with Create, add samples with
// Write (once or several times), and finish with Close, which renames the
// complete file to its final name. Until then the data lives under a
// temporary name in the same directory, removed on any error, so an
// interrupted or failed write never leaves a file under the final name.
//
// A Writer is not safe for concurrent use; Write itself runs its workers
// in parallel.
type Writer struct {
	path, tmp string
	f         *os.File
	cfg       writeConfig
	enc       encoder
	dataOff   int64
	ps        int

	rows   []byte      // the metadata table so far
	allocs []byte      // the allocation table so far
	pages  []*pageInfo // one per page started
	n      int         // samples placed

	cur     []byte // the page being filled, or nil
	curInfo *pageInfo
	used    int // bytes used in cur

	free  chan []byte // page buffers ready for reuse
	nbufs int         // page buffers allocated
	bufs  chan []byte // sample data buffers ready for reuse

	cancel context.CancelCauseFunc // stops the current Write

	bar    *progressbar.ProgressBar
	err    error // sticky: the first failure
	closed bool
}

// pageInfo is what the page table says about one page; a worker fills in
// crc when it has written the page.
type pageInfo struct {
	used uint32
	crc  uint32
}

// Create starts a dataset file at path with the given schema. Nothing
// appears under path until Close succeeds.
func Create(path string, schema Schema, opts ...WriteOption) (*Writer, error) {
	cfg := defaultWriteConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := schema.Validate(); err != nil {
		return nil, fileErr(path, fmt.Errorf("schema: %w", err))
	}
	if cfg.workers < 1 {
		return nil, fileErr(path, fmt.Errorf("WithWorkers(%d): need at least 1", cfg.workers))
	}
	if cfg.pageSize < MinPageSize || cfg.pageSize > MaxPageSize || !isPow2(uint64(cfg.pageSize)) {
		return nil, fileErr(path, fmt.Errorf("WithPageSize(%d): want a power of two from %d to %d", cfg.pageSize, MinPageSize, MaxPageSize))
	}
	schema = cloneSchema(schema)
	offsets, rowSize := layout(schema)
	ft := encodeFields(schema, offsets)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fileErr(path, err)
	}
	w := &Writer{
		path: path, tmp: f.Name(), f: f, cfg: cfg,
		enc:     encoder{schema: schema, offsets: offsets, rowSize: rowSize},
		dataOff: int64(align(headerSize+len(ft), cfg.pageSize)),
		ps:      cfg.pageSize,
		free:    make(chan []byte, cfg.workers+2),
		bufs:    make(chan []byte, chunkSize*(3*cfg.workers+4)),
	}
	if cfg.progress >= 0 && term.IsTerminal(int(os.Stderr.Fd())) {
		w.bar = progressbar.NewOptions(max(cfg.total, -1),
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("writing "+filepath.Base(path)),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("samples"),
			progressbar.OptionThrottle(100_000_000),
			progressbar.OptionClearOnFinish())
		if cfg.total <= 0 {
			w.bar.ChangeMax(-1)
		}
	}
	return w, nil
}

func cloneSchema(s Schema) Schema {
	out := Schema{Fields: make([]Field, len(s.Fields))}
	for i, f := range s.Fields {
		f.Shape = append([]int(nil), f.Shape...)
		if f.Kind == KindImage {
			f = Image(f.Name, f.Image)
		}
		out.Fields[i] = f
	}
	return out
}

// Schema returns the schema the file is written with (Image options with
// their defaults filled in).
func (w *Writer) Schema() Schema { return cloneSchema(w.enc.schema) }

// Len is the number of samples written so far.
func (w *Writer) Len() int { return w.n }

// chunkSize is the number of consecutive samples a worker encodes in one
// task: handing samples over one by one would wake a parked worker per
// sample, which costs more than encoding a small one.
const chunkSize = 8

// chunk is a run of consecutive samples on its way from the iterator
// through a worker to the allocator.
type chunk struct {
	first   int // index of samples[0] in the file
	samples []Sample
	keys    []int
	enc     []encoded
	bad     int // index in samples of the first that failed, or -1
	field   string
	err     error
	done    chan struct{}
}

// encode runs in a worker.
func (c *chunk) encode(w *Writer) {
	c.enc = make([]encoded, len(c.samples))
	c.bad = -1
	for j, s := range c.samples {
		var err error
		c.enc[j], c.field, err = w.enc.encode(s, w.getBuf())
		if err != nil {
			c.bad, c.err = j, err
			break
		}
	}
	c.samples = nil
	close(c.done)
}

// Write encodes and writes every sample of samples, in order, after those
// of earlier calls. The int of each pair is the caller's key for the
// sample, used only in error messages; samples are numbered in the file
// by their position. On error or when ctx is cancelled Write stops,
// removes the temporary file and returns the error (naming the sample and
// field); the Writer is then unusable and Close returns the same error.
func (w *Writer) Write(ctx context.Context, samples iter.Seq2[int, Sample]) error {
	if w.closed {
		return fileErr(w.path, ErrClosed)
	}
	if w.err != nil {
		return w.err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w.cancel = cancel
	workers := w.cfg.workers
	tasks := make(chan func(), 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for t := range tasks {
				t()
			}
		})
	}
	order := make(chan *chunk, 2*workers+2)
	allocDone := make(chan struct{})
	go func() {
		defer close(allocDone)
		w.allocate(ctx, cancel, order, tasks)
	}()

	send := func(c *chunk) bool {
		select {
		case tasks <- func() { c.encode(w) }:
		case <-ctx.Done():
			return false
		}
		select {
		case order <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	pos := w.n
	c := &chunk{first: pos, done: make(chan struct{})}
	for key, s := range samples {
		if ctx.Err() != nil {
			break
		}
		c.samples = append(c.samples, s)
		c.keys = append(c.keys, key)
		pos++
		if len(c.samples) == chunkSize {
			if !send(c) {
				break
			}
			c = &chunk{first: pos, done: make(chan struct{})}
		}
	}
	if len(c.samples) > 0 && ctx.Err() == nil {
		send(c)
	}
	close(order)
	<-allocDone
	close(tasks)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		var de *Error
		if !errors.As(err, &de) {
			err = fileErr(w.path, fmt.Errorf("write interrupted: %w", err))
		}
		w.fail(err)
		return err
	}
	return nil
}

// allocate places samples in pages in order, copying their data into
// page buffers and handing full pages to the workers.
func (w *Writer) allocate(ctx context.Context, cancel context.CancelCauseFunc, order <-chan *chunk, tasks chan<- func()) {
	for c := range order {
		select {
		case <-c.done:
		case <-ctx.Done():
			return
		}
		for j, e := range c.enc {
			if j == c.bad {
				err := c.err
				if k := c.first + j; c.keys[j] != k {
					err = fmt.Errorf("(iterator key %d) %w", c.keys[j], err)
				}
				cancel(sampleErr(w.path, c.first+j, c.field, err))
				return
			}
			base, err := w.place(ctx, e.data, tasks)
			if err != nil {
				cancel(err)
				return
			}
			for i, f := range w.enc.schema.Fields {
				if f.Kind != KindInt && f.Kind != KindFloat {
					o := w.enc.offsets[i]
					le.PutUint64(e.row[o:], uint64(base)+le.Uint64(e.row[o:]))
				}
			}
			w.rows = append(w.rows, e.row...)
			w.allocs = le.AppendUint64(w.allocs, uint64(base))
			w.allocs = le.AppendUint64(w.allocs, uint64(len(e.data)))
			w.n++
			w.putBuf(e.data)
		}
		if w.bar != nil {
			w.bar.Add(len(c.enc))
		}
	}
}

// place copies a sample's data into pages and returns its file offset (0
// for no data). A sample that fits in a page goes into the current page
// if it fits there (at a multiple of 8), else into a new one; a larger
// sample gets a run of new pages of its own.
func (w *Writer) place(ctx context.Context, data []byte, tasks chan<- func()) (int64, error) {
	s := len(data)
	if s == 0 {
		return 0, nil
	}
	if s <= w.ps {
		start := align(w.used, 8)
		if w.cur == nil || start+s > w.ps {
			if err := w.ship(ctx, tasks); err != nil {
				return 0, err
			}
			if err := w.newPage(ctx); err != nil {
				return 0, err
			}
			start = 0
		}
		copy(w.cur[start:], data)
		w.used = start + s
		return w.dataOff + int64(len(w.pages)-1)*int64(w.ps) + int64(start), nil
	}
	if err := w.ship(ctx, tasks); err != nil {
		return 0, err
	}
	first := len(w.pages)
	for off := 0; off < s; off += w.ps {
		if err := w.newPage(ctx); err != nil {
			return 0, err
		}
		w.used = copy(w.cur, data[off:])
		if err := w.ship(ctx, tasks); err != nil {
			return 0, err
		}
	}
	return w.dataOff + int64(first)*int64(w.ps), nil
}

// newPage starts a page with a zeroed buffer, waiting for one if as many
// as the pool allows are in flight.
func (w *Writer) newPage(ctx context.Context) error {
	var buf []byte
	select {
	case buf = <-w.free:
	default:
		if w.nbufs < cap(w.free) {
			w.nbufs++
			buf = make([]byte, w.ps)
		} else {
			select {
			case buf = <-w.free:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
	}
	w.cur, w.used = buf, 0
	w.curInfo = &pageInfo{}
	w.pages = append(w.pages, w.curInfo)
	return nil
}

// ship hands the current page, if any, to a worker, which checksums and
// writes it, then zeroes the buffer and returns it to the pool. With a
// nil tasks, ship does that itself.
func (w *Writer) ship(ctx context.Context, tasks chan<- func()) error {
	if w.cur == nil {
		return nil
	}
	buf, info, p := w.cur, w.curInfo, len(w.pages)-1
	info.used = uint32(w.used)
	w.cur, w.curInfo, w.used = nil, nil, 0
	off := w.dataOff + int64(p)*int64(w.ps)
	job := func() error {
		info.crc = crc(buf)
		_, err := w.f.WriteAt(buf, off)
		clear(buf)
		w.free <- buf
		if err != nil {
			return fileErr(w.path, fmt.Errorf("writing page %d: %w", p, err))
		}
		return nil
	}
	if tasks == nil {
		return job()
	}
	cancel := w.cancel
	select {
	case tasks <- func() {
		if err := job(); err != nil {
			cancel(err)
		}
	}:
		return nil
	case <-ctx.Done():
		// The page is abandoned with the write; give the buffer back.
		clear(buf)
		w.free <- buf
		return context.Cause(ctx)
	}
}

func (w *Writer) getBuf() []byte {
	select {
	case b := <-w.bufs:
		return b[:0]
	default:
		return nil
	}
}

func (w *Writer) putBuf(b []byte) {
	select {
	case w.bufs <- b[:0]:
	default:
	}
}

// fail records err, closes and removes the temporary file.
func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
	if w.f != nil {
		w.f.Close()
		os.Remove(w.tmp)
		w.f = nil
	}
	if w.bar != nil {
		w.bar.Exit()
	}
}

// Close finishes the file: it writes the last page, the tables and the
// header, syncs the file to disk and renames it to its final name. After
// a failed Write, Close returns that failure and no file exists under the
// final name.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if err := w.finish(); err != nil {
		w.fail(err)
		return w.err
	}
	return nil
}

func (w *Writer) finish() error {
	if err := w.ship(context.Background(), nil); err != nil {
		return err
	}
	schema := w.enc.schema
	ft := encodeFields(schema, w.enc.offsets)
	pt := make([]byte, 0, pageEntry*len(w.pages))
	for _, p := range w.pages {
		pt = le.AppendUint32(pt, p.used)
		pt = le.AppendUint32(pt, p.crc)
	}
	metaOff := uint64(w.dataOff) + uint64(len(w.pages))*uint64(w.ps)
	h := header{
		version:     Version,
		fieldCount:  uint32(len(schema.Fields)),
		pageSize:    uint32(w.ps),
		sampleCount: uint64(w.n),
		rowSize:     uint32(w.enc.rowSize),
		headerSize:  headerSize,
		fields:      table{headerSize, uint64(len(ft)), crc(ft)},
		meta:        table{metaOff, uint64(len(w.rows)), crc(w.rows)},
		dataOff:     uint64(w.dataOff),
		pageCount:   uint64(len(w.pages)),
	}
	h.alloc = table{h.meta.off + h.meta.len, uint64(len(w.allocs)), crc(w.allocs)}
	h.pages = table{h.alloc.off + h.alloc.len, uint64(len(pt)), crc(pt)}
	h.fileSize = h.pages.off + h.pages.len
	for _, part := range []struct {
		b   []byte
		off uint64
	}{{h.encode(), 0}, {ft, headerSize}, {w.rows, h.meta.off}, {w.allocs, h.alloc.off}, {pt, h.pages.off}} {
		if _, err := w.f.WriteAt(part.b, int64(part.off)); err != nil {
			return fileErr(w.path, err)
		}
	}
	// The gap between the field table and the first page is zero: the
	// file is created empty and WriteAt leaves holes as zeros.
	if err := w.f.Truncate(int64(h.fileSize)); err != nil {
		return fileErr(w.path, err)
	}
	if err := w.f.Chmod(0o644); err != nil {
		return fileErr(w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fileErr(w.path, err)
	}
	if err := w.f.Close(); err != nil {
		w.f = nil
		os.Remove(w.tmp)
		return fileErr(w.path, err)
	}
	w.f = nil
	if err := os.Rename(w.tmp, w.path); err != nil {
		os.Remove(w.tmp)
		return fileErr(w.path, err)
	}
	if w.bar != nil {
		w.bar.Finish()
	}
	return nil
}
