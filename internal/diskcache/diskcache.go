// Package diskcache stores compiled objects on disk so that a new process
// can load a kernel instead of compiling it.
//
// Each entry is one file, named by the hex of its 32-byte key, holding:
//
//	magic      8 bytes  "GOJITOBJ"
//	format     uint32   FormatVersion (little-endian, like every integer)
//	metaLen    uint32   length of the metadata (JSON)
//	key        32 bytes the entry's key; must match the file name
//	meta       metaLen bytes: Meta's six strings (Version, Name, Symbol,
//	           ModuleHash, Generator, Layout), each a uvarint length and
//	           its bytes, then Created as int64 Unix nanoseconds
//	           (format 2 stored the first four strings only, format 1
//	           JSON; Get still reads both)
//	objLen     uint64   length of the object
//	object     objLen bytes
//	checksum   32 bytes SHA-256 of everything above
//
// Files are written to a temporary name in the same directory and renamed
// into place, so a reader sees a whole entry or none. A file that is
// truncated, has a bad checksum, an unknown format or a foreign key is
// reported as corrupt and never returned.
//
// An entry is code the process will execute, so the store refuses a
// directory, and skips an entry, that another user owns or that group or
// others may write (see CheckSecure). The directory is created with mode
// 0700 and entries with 0600.
package diskcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// FormatVersion is the on-disk layout version that Put writes. Get also
// reads formats 1 (JSON metadata) and 2 (no Generator or Layout);
// entries with another version are treated as corrupt and replaced.
// Format 2 replaced the JSON because decoding it was about 0.1 ms of a
// fresh process's first cached kernel (the json package's first use of
// the type), a tenth of the whole. Format 3 added Generator and Layout.
const FormatVersion = 3

const (
	magic      = "GOJITOBJ"
	headerSize = 8 + 4 + 4 + 32
	suffix     = ".gjo"
	tmpPrefix  = ".tmp-"
	// maxMeta and maxObject bound what Get reads, so a hostile length
	// field cannot make it allocate without limit.
	maxMeta   = 1 << 20
	maxObject = 1 << 30
)

var (
	// ErrNotFound reports that the store holds no entry for a key.
	ErrNotFound = errors.New("diskcache: no entry")
	// ErrCorrupt is wrapped by errors about entries that fail validation.
	ErrCorrupt = errors.New("corrupt entry")
	// ErrInsecure is wrapped by errors about a directory or entry that
	// another user could have written.
	ErrInsecure = errors.New("insecure permissions")
)

// Meta describes an entry. It is stored with the object and checked when
// the entry is read.
type Meta struct {
	// Version is the code generator's version that produced the object.
	Version string `json:"version"`
	// Name is a human-readable label, such as the traced function.
	Name string `json:"name,omitempty"`
	// Symbol is the object's entry symbol.
	Symbol string `json:"symbol"`
	// ModuleHash is the SHA-256 of the LLVM IR the object was compiled
	// from, so a reader can check that it would generate the same module.
	ModuleHash string `json:"module_hash"`
	// Generator identifies the exact build of the code generator that
	// produced the object (for example a module version and its go.sum
	// hash), or is empty when the build cannot be identified. A reader
	// built from the same code may trust ModuleHash without generating
	// the module again.
	Generator string `json:"generator,omitempty"`
	// Layout is what a reader needs besides the object to run it (the
	// module's slots and loop nests), in the writer's own encoding; it
	// lets a reader with the same Generator skip code generation.
	Layout []byte `json:"layout,omitempty"`
	// Created is when the entry was written.
	Created time.Time `json:"created"`
}

// Entry is one cached object.
type Entry struct {
	Key    [32]byte
	Meta   Meta
	Object []byte
}

// Info describes an entry on disk without its object.
type Info struct {
	Key      [32]byte
	Meta     Meta
	Size     int64     // file size in bytes
	LastUsed time.Time // last write or successful read
	Err      error     // non-nil if the entry failed validation
}

// Store is a directory of entries. Its methods are safe for concurrent use,
// also by several processes sharing the directory.
type Store struct {
	dir      string
	maxBytes int64
	mu       sync.Mutex // serializes this process's evictions

	// Put keeps an estimate of the directory's size instead of reading
	// the whole directory each time (an lstat per entry: 2-3 ms of a
	// compile's wall time with 1,300 entries). usage is the total the
	// last scan found plus what this process wrote since, overcounting
	// overwritten entries; other processes' writes are seen at the next
	// scan, which Put starts when the estimate is unknown, exceeds the
	// limit, or is older than rescanAfter puts or rescanEvery.
	est struct {
		sync.Mutex
		known    bool
		usage    int64
		puts     int
		at       time.Time
		scanning bool
	}
	scans sync.WaitGroup // background scans, for tests
}

// When Put rereads the directory although its estimate is within the
// limit: after this many of its own writes or this much time, so that
// several processes writing one directory exceed the limit by little.
const (
	rescanAfter = 64
	rescanEvery = time.Minute
)

// Open opens (creating if needed, with mode 0700) the store in dir. Once
// the entries exceed maxBytes in total, Put removes the least recently used
// ones; maxBytes <= 0 means no limit. Open fails with an error wrapping
// ErrInsecure if dir is owned by another user or writable by group or
// others.
func Open(dir string, maxBytes int64) (*Store, error) {
	if dir == "" {
		return nil, errors.New("diskcache: empty directory name")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("diskcache: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil { // usually absent: create it (MkdirAll would stat it first)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("diskcache: %w", err)
		}
		if fi, err = os.Stat(dir); err != nil {
			return nil, fmt.Errorf("diskcache: %w", err)
		}
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("diskcache: %s is not a directory", dir)
	}
	if err := CheckSecure(fi); err != nil {
		return nil, fmt.Errorf("diskcache: directory %s: %w", dir, err)
	}
	return &Store{dir: dir, maxBytes: maxBytes}, nil
}

// Dir returns the store's absolute directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(key [32]byte) string {
	return filepath.Join(s.dir, hex.EncodeToString(key[:])+suffix)
}

// Get reads and validates the entry for key. It returns an error wrapping
// ErrNotFound, ErrCorrupt or ErrInsecure when there is no usable entry.
func (s *Store) Get(key [32]byte) (*Entry, error) {
	p := s.path(key)
	f, err := openEntry(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("diskcache: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("diskcache: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("diskcache: %s: %w: not a regular file", p, ErrInsecure)
	}
	if err := CheckSecure(fi); err != nil {
		return nil, fmt.Errorf("diskcache: %s: %w", p, err)
	}
	if fi.Size() > maxObject+maxMeta+headerSize+8+sha256.Size {
		return nil, fmt.Errorf("diskcache: %s: %w: %d bytes is too large", p, ErrCorrupt, fi.Size())
	}
	data := make([]byte, fi.Size())
	if _, err := readFull(f, data); err != nil {
		return nil, fmt.Errorf("diskcache: %s: %w", p, err)
	}
	e, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("diskcache: %s: %w", p, err)
	}
	if e.Key != key {
		return nil, fmt.Errorf("diskcache: %s: %w: holds key %x", p, ErrCorrupt, e.Key[:8])
	}
	// Best effort: recency for eviction. An entry used in the last
	// minute is recent enough, which spares a fresh process the syscall.
	if now := time.Now(); now.Sub(fi.ModTime()) > time.Minute {
		_ = os.Chtimes(p, now, now)
	}
	return e, nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, fmt.Errorf("%w: read %d of %d bytes: %v", ErrCorrupt, n, len(b), err)
		}
	}
	return n, nil
}

// Put writes e atomically, replacing any entry with the same key, then
// evicts least recently used entries while the store exceeds its limit.
func (s *Store) Put(e *Entry) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("diskcache: %w", err)
	}
	// CreateTemp makes the file 0600, which is what entries need. There
	// is no fsync: after a crash a torn entry fails its checksum and is
	// recompiled, which is cheaper than syncing every write.
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), s.path(e.Key))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("diskcache: writing entry: %w", werr)
	}
	if s.maxBytes > 0 {
		return s.account(int64(len(data)))
	}
	return nil
}

// account adds n written bytes to the size estimate and evicts when the
// estimate exceeds the limit. The entry is on disk before Put returns;
// only rereading the directory to refresh an unknown or old estimate runs
// in the background, off the compile's path, since a process that exits
// before it finishes leaves the directory over its limit only until
// another Put scans it.
func (s *Store) account(n int64) error {
	e := &s.est
	e.Lock()
	e.usage += n
	e.puts++
	over := e.known && e.usage > s.maxBytes
	stale := !e.known || e.puts >= rescanAfter || time.Since(e.at) >= rescanEvery
	background := !over && stale && !e.scanning
	if background {
		e.scanning = true
		s.scans.Add(1)
	}
	e.Unlock()
	switch {
	case over:
		_, err := s.evict(s.maxBytes)
		return err
	case background:
		go func() {
			defer s.scans.Done()
			s.evict(s.maxBytes)
			e.Lock()
			e.scanning = false
			e.Unlock()
		}()
	}
	return nil
}

// Remove deletes the entry for key, if any.
func (s *Store) Remove(key [32]byte) error {
	err := os.Remove(s.path(key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("diskcache: %w", err)
	}
	return nil
}

type file struct {
	name string
	size int64
	mod  time.Time
}

func (s *Store) files() ([]file, error) {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("diskcache: %w", err)
	}
	var fs []file
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() {
			continue
		}
		isEntry := strings.HasSuffix(name, suffix)
		isTmp := strings.HasPrefix(name, tmpPrefix)
		if !isEntry && !isTmp {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		// A temporary file an hour old belongs to a writer that died.
		if isTmp {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(s.dir, name))
			}
			continue
		}
		fs = append(fs, file{name, fi.Size(), fi.ModTime()})
	}
	return fs, nil
}

// evict removes least recently used entries until the total is at most
// limit. It returns how many it removed.
func (s *Store) evict(limit int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs, err := s.files()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, f := range fs {
		total += f.size
	}
	defer func() {
		// What the directory holds now, as far as this scan knows.
		e := &s.est
		e.Lock()
		e.known, e.usage, e.puts, e.at = true, total, 0, time.Now()
		e.Unlock()
	}()
	if total <= limit {
		return 0, nil
	}
	slices.SortFunc(fs, func(a, b file) int { return a.mod.Compare(b.mod) })
	n := 0
	for _, f := range fs {
		if total <= limit {
			break
		}
		if err := os.Remove(filepath.Join(s.dir, f.name)); err == nil || errors.Is(err, os.ErrNotExist) {
			total -= f.size
			n++
		}
	}
	return n, nil
}

// Usage returns the number of entries and their total size in bytes.
func (s *Store) Usage() (entries int, bytes int64, err error) {
	fs, err := s.files()
	for _, f := range fs {
		bytes += f.size
	}
	return len(fs), bytes, err
}

// List describes every entry, most recently used first. Entries that fail
// validation are listed with Err set.
func (s *Store) List() ([]Info, error) {
	fs, err := s.files()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(fs, func(a, b file) int { return b.mod.Compare(a.mod) })
	infos := make([]Info, 0, len(fs))
	for _, f := range fs {
		info := Info{Size: f.size, LastUsed: f.mod}
		raw, err := hex.DecodeString(strings.TrimSuffix(f.name, suffix))
		if err != nil || len(raw) != 32 {
			info.Err = fmt.Errorf("%w: file name %q is not a key", ErrCorrupt, f.name)
			infos = append(infos, info)
			continue
		}
		copy(info.Key[:], raw)
		// Get would refresh the entry's recency; read it directly.
		if e, err := s.peek(info.Key); err != nil {
			info.Err = err
		} else {
			info.Meta = e.Meta
		}
		infos = append(infos, info)
	}
	return infos, nil
}

func (s *Store) peek(key [32]byte) (*Entry, error) {
	p := s.path(key)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if err := CheckSecure(fi); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	e, err := decode(data)
	if err == nil && e.Key != key {
		err = fmt.Errorf("%w: holds key %x", ErrCorrupt, e.Key[:8])
	}
	return e, err
}

// Clear removes every entry and returns how many it removed.
func (s *Store) Clear() (int, error) { return s.evict(0) }

func encode(e *Entry) ([]byte, error) {
	meta := encodeMeta(&e.Meta)
	if len(meta) > maxMeta || len(e.Object) > maxObject {
		return nil, fmt.Errorf("diskcache: entry too large (%d bytes of metadata, %d of object)", len(meta), len(e.Object))
	}
	var b bytes.Buffer
	b.Grow(headerSize + len(meta) + 8 + len(e.Object) + sha256.Size)
	b.WriteString(magic)
	b.Write(binary.LittleEndian.AppendUint32(nil, FormatVersion))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))
	b.Write(e.Key[:])
	b.Write(meta)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(e.Object))))
	b.Write(e.Object)
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), nil
}

func decode(data []byte) (*Entry, error) {
	if len(data) < headerSize+8+sha256.Size {
		return nil, fmt.Errorf("%w: %d bytes is shorter than a header", ErrCorrupt, len(data))
	}
	if string(data[:8]) != magic {
		return nil, fmt.Errorf("%w: bad magic %q", ErrCorrupt, data[:8])
	}
	version := binary.LittleEndian.Uint32(data[8:])
	if version < 1 || version > FormatVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", ErrCorrupt, version, FormatVersion)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	metaLen := int(binary.LittleEndian.Uint32(data[12:]))
	e := &Entry{}
	copy(e.Key[:], data[16:48])
	rest := body[headerSize:]
	if metaLen > maxMeta || metaLen+8 > len(rest) {
		return nil, fmt.Errorf("%w: metadata length %d out of range", ErrCorrupt, metaLen)
	}
	if version == 1 {
		if err := json.Unmarshal(rest[:metaLen], &e.Meta); err != nil {
			return nil, fmt.Errorf("%w: metadata: %v", ErrCorrupt, err)
		}
	} else if err := decodeMeta(rest[:metaLen], &e.Meta, version); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrCorrupt, err)
	}
	rest = rest[metaLen:]
	objLen := binary.LittleEndian.Uint64(rest)
	rest = rest[8:]
	if objLen != uint64(len(rest)) {
		return nil, fmt.Errorf("%w: object length %d, file holds %d", ErrCorrupt, objLen, len(rest))
	}
	e.Object = rest
	return e, nil
}

// encodeMeta is the metadata as format 3 stores it.
func encodeMeta(m *Meta) []byte {
	var b []byte
	for _, s := range []string{m.Version, m.Name, m.Symbol, m.ModuleHash, m.Generator, string(m.Layout)} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	var created int64
	if !m.Created.IsZero() {
		created = m.Created.UnixNano()
	}
	return binary.LittleEndian.AppendUint64(b, uint64(created))
}

// decodeMeta reads what encodeMeta wrote (or, for format 2, its first
// four strings and Created), which must fill b exactly.
func decodeMeta(b []byte, m *Meta, format uint32) error {
	var layout string
	fields := []*string{&m.Version, &m.Name, &m.Symbol, &m.ModuleHash, &m.Generator, &layout}
	if format == 2 {
		fields = fields[:4]
	}
	for _, s := range fields {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return errors.New("bad string length")
		}
		*s = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	if layout != "" {
		m.Layout = []byte(layout)
	}
	if len(b) != 8 {
		return fmt.Errorf("%d bytes after the strings, want 8", len(b))
	}
	if ns := int64(binary.LittleEndian.Uint64(b)); ns != 0 {
		m.Created = time.Unix(0, ns).UTC()
	}
	return nil
}
