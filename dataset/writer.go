package dataset

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"iter"
	"os"
	"path/filepath"
	"sync"
	"time"

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
	maxes  []maxima    // each field's maxima so far
	allocs []byte      // the allocation table so far
	pages  []*pageInfo // one per page started
	n      int         // samples placed

	cur     []part    // the data placed in the page being filled
	curInfo *pageInfo // that page's entry, or nil if no page is open
	used    int       // bytes used in that page

	free chan []byte // page buffers ready for reuse (len: how far they may be dirty)
	bufs chan []byte // sample data buffers ready for reuse

	// sink writes the assembled, checksummed pages to the file, one
	// write at a time, from whichever worker hands it a page.
	sink pageSink

	cancel context.CancelCauseFunc // stops the current Write

	placedBytes int64 // encoded bytes of the samples placed, for sizing chunks

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
	schema = cloneSchema(schema) // with the Image defaults filled in
	if err := schema.Validate(); err != nil {
		return nil, fileErr(path, fmt.Errorf("schema: %w", err))
	}
	if cfg.workers < 1 {
		return nil, fileErr(path, fmt.Errorf("WithWorkers(%d): need at least 1", cfg.workers))
	}
	if cfg.pageSize < MinPageSize || cfg.pageSize > MaxPageSize || !isPow2(uint64(cfg.pageSize)) {
		return nil, fileErr(path, fmt.Errorf("WithPageSize(%d): want a power of two from %d to %d", cfg.pageSize, MinPageSize, MaxPageSize))
	}
	offsets, rowSize := layout(schema)
	ft := encodeFields(schema, offsets, nil)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fileErr(path, err)
	}
	w := &Writer{
		path: path, tmp: f.Name(), f: f, cfg: cfg,
		enc:     encoder{schema: schema, offsets: offsets, rowSize: rowSize},
		dataOff: int64(align(headerSize+len(ft), cfg.pageSize)),
		ps:      cfg.pageSize,
		maxes:   make([]maxima, len(schema.Fields)),
		free:    make(chan []byte, cfg.workers+maxQueued+2),
		// Enough sample buffers for every sample in flight (the chunks
		// being encoded and placed): a freshly allocated one is zeroed
		// by the allocator, which cost a sixth of a raw write.
		bufs: make(chan []byte, (2*cfg.workers+2)*maxChunk+64),
	}
	if cfg.progress >= 0 && term.IsTerminal(int(os.Stderr.Fd())) {
		w.bar = progressbar.NewOptions(max(cfg.total, -1),
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("writing "+filepath.Base(path)),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("samples"),
			progressbar.OptionThrottle(100*time.Millisecond),
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

// Workers encode runs of consecutive samples (chunks), not single ones:
// handing samples over one by one would wake a parked goroutine per
// sample, which costs more than encoding a small one. A chunk holds about
// chunkBytes of encoded data (judged from the samples placed so far),
// from 1 to maxChunk samples; the first ones hold firstChunk.
const (
	chunkBytes = 1 << 20
	maxChunk   = 256
	firstChunk = 8
)

// chunkLen is the number of samples to put in the next chunk.
func (w *Writer) chunkLen() int {
	n, bytes := int64(w.n), w.placedBytes
	if n == 0 {
		return firstChunk
	}
	return int(min(maxChunk, max(1, chunkBytes*n/max(bytes, 1))))
}

// chunk is a run of consecutive samples on their way from the iterator
// through a worker to their place in the pages.
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
//
// The calling goroutine ranges over samples, hands chunks of them to the
// workers and places the encoded chunks in pages in order; the workers
// encode chunks and assemble, checksum and write pages.
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
	// The calling goroutine is one of the workers: it runs a task itself
	// whenever the others have a full queue, so that with one worker
	// everything runs on it and with n the work spreads over n goroutines
	// (on a machine with n cores, a coordinating goroutine beside n
	// workers would wait for a core at every hand-over).
	workers := w.cfg.workers
	var tasks chan func()
	var wg sync.WaitGroup
	if workers > 1 {
		tasks = make(chan func(), 2*(workers-1))
		for range workers - 1 {
			wg.Go(func() {
				for t := range tasks {
					t()
				}
			})
		}
	}

	// inflight holds the chunks being encoded and not yet placed, oldest
	// first; at most window of them.
	window := 2*workers + 2
	var inflight []*chunk
	// placeOldest places the oldest chunk, waiting for it if block.
	placeOldest := func(block bool) bool {
		c := inflight[0]
		if block {
			// Waiting for the oldest chunk, the caller runs queued
			// tasks meanwhile rather than leave its core idle.
		wait:
			for {
				select {
				case <-c.done:
					break wait
				case <-ctx.Done():
					return false
				case t := <-tasks:
					t()
				}
			}
		} else {
			select {
			case <-c.done:
			default:
				return false
			}
		}
		inflight = inflight[1:]
		if err := w.placeChunk(c, tasks); err != nil {
			cancel(err)
			return false
		}
		return true
	}
	send := func(c *chunk) bool {
		inflight = append(inflight, c)
		run(tasks, func() { c.encode(w) })
		for len(inflight) > 0 && placeOldest(false) {
		}
		for len(inflight) >= window {
			if !placeOldest(true) {
				return false
			}
		}
		return ctx.Err() == nil
	}
	pos := w.n
	c := &chunk{first: pos, done: make(chan struct{})}
	limit := w.chunkLen()
	for key, s := range samples {
		if ctx.Err() != nil {
			break
		}
		c.samples = append(c.samples, s)
		c.keys = append(c.keys, key)
		pos++
		if len(c.samples) >= limit {
			if !send(c) {
				c = nil // a worker owns it now
				break
			}
			c = &chunk{first: pos, done: make(chan struct{})}
			limit = w.chunkLen()
		}
	}
	if c != nil && len(c.samples) > 0 && ctx.Err() == nil {
		send(c)
	}
	for len(inflight) > 0 && ctx.Err() == nil {
		placeOldest(true)
	}
	if tasks != nil {
		close(tasks)
	}
	wg.Wait()
	if err := w.sink.err; err != nil {
		cancel(err)
	}
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

// placeChunk places an encoded chunk's samples in pages, in order,
// handing full pages to the workers.
func (w *Writer) placeChunk(c *chunk, tasks chan<- func()) error {
	for j, e := range c.enc {
		if j == c.bad {
			err := c.err
			if k := c.first + j; c.keys[j] != k {
				err = fmt.Errorf("(iterator key %d) %w", c.keys[j], err)
			}
			return sampleErr(w.path, c.first+j, c.field, err)
		}
		base, err := w.place(e.data, tasks)
		if err != nil {
			return err
		}
		for i := range w.enc.schema.Fields {
			f := &w.enc.schema.Fields[i]
			if f.Kind != KindInt && f.Kind != KindFloat {
				o := w.enc.offsets[i]
				le.PutUint64(e.row[o:], uint64(base)+le.Uint64(e.row[o:]))
				w.maxes[i].add(f, e.row[o:])
			}
		}
		w.rows = append(w.rows, e.row...)
		w.allocs = le.AppendUint64(w.allocs, uint64(base))
		w.allocs = le.AppendUint64(w.allocs, uint64(len(e.data)))
		w.n++
		w.placedBytes += int64(len(e.data) + len(e.row))
	}
	if w.bar != nil {
		w.bar.Add(len(c.enc))
	}
	return nil
}

// place assigns a sample's data its place in the pages and returns its
// file offset (0 for no data). A sample that fits in a page goes into the
// current page if it fits there (at a multiple of 8), else into a new one;
// a larger sample gets a run of new pages of its own. The bytes are copied
// into the page by the worker that writes it.
func (w *Writer) place(data []byte, tasks chan<- func()) (int64, error) {
	s := len(data)
	if s == 0 {
		return 0, nil
	}
	if s <= w.ps {
		start := align(w.used, 8)
		if w.curInfo == nil || start+s > w.ps {
			if err := w.ship(tasks); err != nil {
				return 0, err
			}
			w.newPage()
			start = 0
		}
		w.cur = append(w.cur, part{data: data, at: start, release: true})
		w.used = start + s
		return w.dataOff + int64(len(w.pages)-1)*int64(w.ps) + int64(start), nil
	}
	if err := w.ship(tasks); err != nil {
		return 0, err
	}
	first := len(w.pages)
	for off := 0; off < s; off += w.ps {
		w.newPage()
		n := min(w.ps, s-off)
		w.cur = append(w.cur, part{data: data[off : off+n]})
		w.used = n
		if err := w.ship(tasks); err != nil {
			return 0, err
		}
	}
	return w.dataOff + int64(first)*int64(w.ps), nil
}

// part is a piece of sample data and where it goes in its page.
type part struct {
	data    []byte
	at      int
	release bool // data is a whole sample's buffer, reusable once copied
}

// newPage starts a page.
func (w *Writer) newPage() {
	w.cur, w.used = nil, 0
	w.curInfo = &pageInfo{}
	w.pages = append(w.pages, w.curInfo)
}

// ship has the current page, if any, assembled in a page buffer,
// checksummed and written: by a worker, or by the caller if the workers'
// queue is full or tasks is nil. An error from a worker cancels the Write.
func (w *Writer) ship(tasks chan<- func()) error {
	if w.curInfo == nil {
		return nil
	}
	parts, info, p, used := w.cur, w.curInfo, len(w.pages)-1, w.used
	info.used = uint32(used)
	w.cur, w.curInfo, w.used = nil, nil, 0
	off := w.dataOff + int64(p)*int64(w.ps)
	job := func() error {
		if gather(parts, used) {
			info.crc = pageCRC(parts, w.ps)
			return w.sink.write(w, pageOut{parts: parts, used: used, off: off, page: p})
		}
		var buf []byte
		select {
		case buf = <-w.free:
		default:
			buf = make([]byte, 0, w.ps)
		}
		// buf may hold old data up to len(buf): zero only the bytes the
		// parts do not cover (alignment gaps and the tail), not the page.
		dirty := len(buf)
		buf = buf[:w.ps]
		end := 0
		for _, pt := range parts {
			clear(buf[end:pt.at])
			copy(buf[pt.at:], pt.data)
			end = pt.at + len(pt.data)
			if pt.release {
				w.putBuf(pt.data)
			}
		}
		clear(buf[end:max(end, dirty)])
		info.crc = crc(buf)
		return w.sink.write(w, pageOut{buf: buf, used: used, off: off, page: p})
	}
	if tasks != nil {
		cancel := w.cancel
		select {
		case tasks <- func() {
			if err := job(); err != nil {
				cancel(err)
			}
		}:
			return nil
		default:
		}
	}
	return job()
}

// pageOut is a checksummed page on its way to the file: either the
// samples' buffers and where they go in the page (parts), or the page
// assembled in a page buffer (buf).
type pageOut struct {
	parts []part
	buf   []byte
	used  int // bytes of the page up to the end of its data (the rest is zero)
	off   int64
	page  int
}

// Gathered writes: a page holding a few large samples (raw images, JPEGs)
// is written with one pwritev from the samples' own buffers, with zeros
// from a shared buffer for the alignment gaps between them, instead of
// being copied into a page buffer first, and zeros after the last. That saves a copy of every byte (12-15 ms of the
// 90 ms of CPU a 120 MB file of 64x64 images took on one worker) and, with
// several workers, the transfer of the page between the cores that
// assemble and write it. Pages of many small samples are assembled, as a
// long list of small pieces costs the kernel more than one copy.
const (
	maxGatherParts = 256  // at most 2*256+16 pieces per pwritev (IOV_MAX is 1024)
	minGatherPart  = 2048 // the mean sample size below which a page is assembled
)

// gather reports whether the page made of parts, with used bytes up to
// the end of its last part, is written from the parts' buffers directly.
func gather(parts []part, used int) bool {
	return canGather && !noGather && len(parts) > 0 && len(parts) <= maxGatherParts && used >= minGatherPart*len(parts)
}

// noGather, set by tests, assembles every page.
var noGather bool

// zeros is read-only: the gaps between the parts of a gathered page, and
// the tail of its checksum.
var zeros [64 << 10]byte

// pageCRC is the checksum of a whole page of size ps holding parts, with
// zeros between them and after the last.
func pageCRC(parts []part, ps int) uint32 {
	var c uint32
	end := 0
	for _, pt := range parts {
		c = crc32.Update(c, castagnoli, zeros[:pt.at-end])
		c = crc32.Update(c, castagnoli, pt.data)
		end = pt.at + len(pt.data)
	}
	for rem := ps - end; rem > 0; {
		n := min(rem, len(zeros))
		c = crc32.Update(c, castagnoli, zeros[:n])
		rem -= n
	}
	return c
}

// failPage, set by tests, makes the write of that page fail.
var failPage = -1

// writeOut writes one page at its offset and releases its buffers.
func (w *Writer) writeOut(po pageOut) error {
	if po.page == failPage {
		w.recycle(po)
		return errors.New("injected write failure")
	}
	if po.parts == nil {
		_, err := w.f.WriteAt(po.buf, po.off)
		w.recycle(po)
		return err
	}
	iovs := make([][]byte, 0, 2*len(po.parts)+w.ps/len(zeros)+1)
	end := 0
	for _, pt := range po.parts {
		if pt.at > end {
			iovs = append(iovs, zeros[:pt.at-end])
		}
		iovs = append(iovs, pt.data)
		end = pt.at + len(pt.data)
	}
	// The tail is written too: left as a hole, it would make the file
	// one extent per page (which took 2-7x longer to delete).
	for ; end < w.ps; end += len(zeros) {
		iovs = append(iovs, zeros[:min(len(zeros), w.ps-end)])
	}
	err := pwritevAll(w.f, iovs, po.off)
	w.recycle(po)
	return err
}

// pageSink writes pages to the file one write at a time, without a
// goroutine of its own: the worker that hands it a page while no write is
// under way writes that page and then every page the other workers handed
// in meanwhile (they queue theirs and go back to assembling); a worker
// finding maxQueued pages queued waits for the writer.
//
// Writes to one file from several threads serialize on the file's lock in
// the kernel and cost more in total than the same writes made in sequence
// (120 MB: 38-40 ms from one thread, 49-50 ms from two), so they are kept
// in sequence; but a goroutine dedicated to writing would, on a machine
// with as many cores as workers, take a core from the workers at every
// hand-over (with 2 workers and a writer goroutine on 2 cores, a write of
// 120 MB cost 160 ms of CPU against 120 ms for 1 worker, and the ratio of
// their times was 1.1-1.2). Here the writing moves to whichever worker is
// free, and an uncontended page costs one mutex round trip.
type pageSink struct {
	mu      sync.Mutex
	cond    sync.Cond // signalled when a write ends
	queued  []pageOut
	writing bool  // a worker is writing pages
	err     error // the first write error; later pages are dropped

	// Writeback: every writebackEvery bytes written, the kernel is asked
	// to start writing the file to disk (see startWriteback), by the
	// worker that crossed the mark, outside the serial section.
	written, started int64
}

const (
	maxQueued       = 8
	writebackEvery  = 2 << 20
	writebackMargin = 16 << 20 // more than the pages in flight (workers + maxQueued)
)

// write writes po (now, or after the pages queued before it) and returns
// its buffer to w's free list. It returns the first write error, if any.
func (s *pageSink) write(w *Writer, po pageOut) error {
	s.mu.Lock()
	if s.cond.L == nil {
		s.cond.L = &s.mu
	}
	for s.writing && len(s.queued) >= maxQueued && s.err == nil {
		s.cond.Wait()
	}
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		w.recycle(po)
		return err
	}
	if s.writing {
		s.queued = append(s.queued, po)
		s.mu.Unlock()
		return nil
	}
	s.writing = true
	s.mu.Unlock()
	for {
		err := w.writeOut(po)
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.err = fileErr(w.path, fmt.Errorf("writing page %d: %w", po.page, err))
		}
		s.written += int64(w.ps)
		var from, to int64 = -1, 0 // a range whose writeback to start
		if s.written-s.started >= writebackEvery {
			from, to = s.started, s.written
			s.started = s.written
		}
		s.cond.Broadcast()
		done := len(s.queued) == 0 || s.err != nil
		if done {
			for _, q := range s.queued {
				w.recycle(q)
			}
			s.queued = s.queued[:0]
			s.writing = false
		} else {
			po = s.queued[0]
			s.queued = append(s.queued[:0], s.queued[1:]...)
		}
		err = s.err
		s.mu.Unlock()
		if from >= 0 && err == nil {
			// At once, even in the middle of a run of pages: on a
			// disk, the device is what 2 workers wait for at the end.
			// Pages are written in about the order they were placed,
			// so the bytes written so far lie near the start of the
			// data; the range is widened by a margin for those still on
			// their way.
			lo := max(0, from-writebackMargin)
			startWriteback(w.f, w.dataOff+lo, to-lo)
		}
		if done {
			return err
		}
	}
}

// recycle returns a written page's buffers to the free lists.
func (w *Writer) recycle(po pageOut) {
	for _, pt := range po.parts {
		if pt.release {
			w.putBuf(pt.data)
		}
	}
	if po.buf != nil {
		select {
		case w.free <- po.buf[:po.used]:
		default:
		}
	}
}

// run hands task to a worker, or runs it if tasks is nil or full.
func run(tasks chan<- func(), task func()) {
	if tasks != nil {
		select {
		case tasks <- task:
			return
		default:
		}
	}
	task()
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
	if err := w.ship(nil); err != nil {
		return err
	}
	schema := w.enc.schema
	ft := encodeFields(schema, w.enc.offsets, w.maxes)
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
