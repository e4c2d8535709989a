package diskcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"
)

func key(s string) [32]byte { return sha256.Sum256([]byte(s)) }

func entry(s string, size int) *Entry {
	obj := bytes.Repeat([]byte(s), size/len(s)+1)[:size]
	return &Entry{Key: key(s), Meta: Meta{Version: "v1", Name: s, Symbol: "sym_" + s}, Object: obj}
}

func open(t *testing.T, max int64) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "cache"), max)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	s := open(t, 0)
	fi, err := os.Stat(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
	}
	if _, err := s.Get(key("a")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get on empty store: %v, want ErrNotFound", err)
	}
	want := entry("a", 1000)
	want.Meta.Created = time.Unix(1700000000, 0).UTC()
	if err := s.Put(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(want.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got.Key != want.Key || !reflect.DeepEqual(got.Meta, want.Meta) || !bytes.Equal(got.Object, want.Object) {
		t.Errorf("Get = %+v, want %+v", got.Meta, want.Meta)
	}
	fi, err = os.Stat(s.path(want.Key))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("entry mode %v, want 0600", fi.Mode().Perm())
	}
	n, b, err := s.Usage()
	if err != nil || n != 1 || b != fi.Size() {
		t.Errorf("Usage = %d, %d, %v; want 1, %d", n, b, err, fi.Size())
	}
}

// TestCorruptEntries damages a valid file in every way a crash, a full disk
// or another program could, and checks that Get refuses each one.
func TestCorruptEntries(t *testing.T) {
	s := open(t, 0)
	e := entry("x", 300)
	good, err := encode(e)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x40
		return b
	}
	other, _ := encode(entry("y", 300))
	cases := map[string][]byte{
		"empty":              {},
		"header only":        good[:headerSize],
		"truncated":          good[:len(good)-1],
		"truncated object":   good[:len(good)/2],
		"bad magic":          flip(0),
		"future format":      flip(8),
		"flipped key":        flip(20),
		"flipped meta":       flip(headerSize + 2),
		"flipped object":     flip(len(good) - sha256.Size - 5),
		"flipped checksum":   flip(len(good) - 1),
		"appended garbage":   append(bytes.Clone(good), 1, 2, 3),
		"another key's file": other,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(s.path(e.Key), data, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(e.Key)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Get = %v, %v; want an ErrCorrupt error", got, err)
			}
		})
	}
	// A valid rewrite replaces the corrupt entry.
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(e.Key); err != nil {
		t.Fatalf("after rewrite: %v", err)
	}
}

func TestInsecureDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, 0); !errors.Is(err, ErrInsecure) {
		t.Fatalf("Open(world-writable dir) = %v, want ErrInsecure", err)
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, 0); err != nil {
		t.Fatalf("Open(0750 dir) = %v, want success (group may read, not write)", err)
	}
	// Another owner: pretend to be a different user.
	defer func(f func() int) { getuid = f }(getuid)
	me := getuid()
	getuid = func() int { return me + 1 }
	if _, err := Open(dir, 0); !errors.Is(err, ErrInsecure) {
		t.Fatalf("Open(dir of another user) = %v, want ErrInsecure", err)
	}
}

func TestInsecureEntry(t *testing.T) {
	s := open(t, 0)
	e := entry("w", 100)
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.path(e.Key), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(e.Key); !errors.Is(err, ErrInsecure) {
		t.Fatalf("Get(world-writable entry) = %v, want ErrInsecure", err)
	}
	if err := os.Chmod(s.path(e.Key), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func(f func() int) { getuid = f }(getuid)
	me := getuid()
	getuid = func() int { return me + 1 }
	if _, err := s.Get(e.Key); !errors.Is(err, ErrInsecure) {
		t.Fatalf("Get(entry of another user) = %v, want ErrInsecure", err)
	}
}

func TestEvictionKeepsRecentlyUsed(t *testing.T) {
	s := open(t, 0)
	var size int64
	for i := range 5 {
		e := entry(fmt.Sprint("k", i), 1000)
		if err := s.Put(e); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(s.path(e.Key))
		size = fi.Size()
		// Distinct, increasing modification times.
		old := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(s.path(e.Key), old, old)
	}
	// Reading k0 makes it the most recently used.
	if _, err := s.Get(key("k0")); err != nil {
		t.Fatal(err)
	}
	s.maxBytes = 3 * size
	if err := s.Put(entry("k5", 1000)); err != nil {
		t.Fatal(err)
	}
	s.scans.Wait() // the first Put with a limit scans in the background
	for i, want := range []bool{true, false, false, false, true, true} {
		_, err := s.Get(key(fmt.Sprint("k", i)))
		if have := err == nil; have != want {
			t.Errorf("k%d present = %v, want %v (err %v)", i, have, want, err)
		}
	}
	n, b, _ := s.Usage()
	if b > s.maxBytes || n != 3 {
		t.Errorf("after eviction: %d entries, %d bytes; want 3 entries within %d", n, b, s.maxBytes)
	}
}

func TestListAndClear(t *testing.T) {
	s := open(t, 0)
	for _, k := range []string{"a", "b"} {
		if err := s.Put(entry(k, 64)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(s.path(key("bad")), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	infos, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	bad := 0
	for _, in := range infos {
		if in.Err != nil {
			bad++
			continue
		}
		names[in.Meta.Name] = true
	}
	if len(infos) != 3 || bad != 1 || !names["a"] || !names["b"] {
		t.Errorf("List = %+v; want a, b and one corrupt entry", infos)
	}
	n, err := s.Clear()
	if err != nil || n != 3 {
		t.Errorf("Clear = %d, %v; want 3", n, err)
	}
	if n, _, _ := s.Usage(); n != 0 {
		t.Errorf("%d entries after Clear", n)
	}
}

// TestConcurrentWriters has several goroutines write and read the same and
// different keys at once: readers must see a whole entry or none.
func TestConcurrentWriters(t *testing.T) {
	s := open(t, 0)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				e := entry(fmt.Sprint("k", i%5), 2000+w)
				if err := s.Put(e); err != nil {
					t.Error(err)
					return
				}
				got, err := s.Get(e.Key)
				if err != nil {
					t.Error(err)
					return
				}
				if got.Meta.Name != e.Meta.Name {
					t.Errorf("read %q for key %q", got.Meta.Name, e.Meta.Name)
				}
			}
		}()
	}
	wg.Wait()
	if n, _, _ := s.Usage(); n != 5 {
		t.Errorf("%d entries, want 5 (temporary files left behind?)", n)
	}
}

// TestEvictionByEstimate checks that once a scan has measured the
// directory, a Put that takes the estimate over the limit evicts before
// it returns, without waiting for a rescan, and that Put does not reread
// the directory while the estimate is within the limit.
func TestEvictionByEstimate(t *testing.T) {
	s := open(t, 0)
	if err := s.Put(entry("k0", 1000)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.path(key("k0")))
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	s.maxBytes = 3 * size
	if err := s.Put(entry("k1", 1000)); err != nil {
		t.Fatal(err)
	}
	s.scans.Wait()
	if !s.est.known || s.est.usage != 2*size {
		t.Fatalf("estimate after the first scan: known %v, %d bytes; want %d", s.est.known, s.est.usage, 2*size)
	}
	// An entry another process wrote is not seen until the next scan.
	if err := os.WriteFile(s.path(key("other")), make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(entry("k2", 1000)); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := s.Usage(); n != 4 {
		t.Fatalf("%d entries after a Put within the estimate, want 4 (no eviction yet)", n)
	}
	// This one takes the estimate over the limit: Put evicts at once
	// (the others are made older, since mtimes may tie).
	old := time.Now().Add(-time.Hour)
	for _, k := range []string{"k0", "k1", "k2", "other"} {
		os.Chtimes(s.path(key(k)), old, old)
	}
	if err := s.Put(entry("k3", 1000)); err != nil {
		t.Fatal(err)
	}
	if _, b, _ := s.Usage(); b > s.maxBytes {
		t.Errorf("%d bytes after Put went over the estimate, want at most %d", b, s.maxBytes)
	}
	if _, err := s.Get(key("k3")); err != nil {
		t.Errorf("the entry just written was evicted: %v", err)
	}
}

// TestMetaFormats checks that the binary metadata of format 3 keeps every
// field, and that entries written in format 1 (JSON metadata) and format 2
// (no Generator or Layout) still read.
func TestMetaFormats(t *testing.T) {
	s := open(t, 0)
	e := entry("m", 100)
	e.Meta.ModuleHash = "abc123"
	e.Meta.Generator = "module v1.2.3 h1:xyz="
	e.Meta.Layout = []byte{1, 0, 2, 0xff}
	e.Meta.Created = time.Date(2026, 11, 22, 19, 0, 0, 123456789, time.UTC)
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(e.Key)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Meta, e.Meta) {
		t.Errorf("format 3 metadata read back as %+v, want %+v", got.Meta, e.Meta)
	}

	// writeRaw stores an entry in an older format by hand.
	writeRaw := func(old *Entry, format uint32, meta []byte) {
		t.Helper()
		var b []byte
		b = append(b, magic...)
		b = binary.LittleEndian.AppendUint32(b, format)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
		b = append(b, old.Key[:]...)
		b = append(b, meta...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(old.Object)))
		b = append(b, old.Object...)
		sum := sha256.Sum256(b)
		b = append(b, sum[:]...)
		if err := os.WriteFile(s.path(old.Key), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := entry("old", 100)
	old.Meta.Created = e.Meta.Created
	meta, err := json.Marshal(old.Meta)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(old, 1, meta)
	got, err = s.Get(old.Key)
	if err != nil {
		t.Fatalf("format 1 entry: %v", err)
	}
	if !reflect.DeepEqual(got.Meta, old.Meta) || !bytes.Equal(got.Object, old.Object) {
		t.Errorf("format 1 entry read as %+v, want %+v", got.Meta, old.Meta)
	}

	two := entry("two", 100)
	two.Meta.ModuleHash = "def456"
	two.Meta.Created = e.Meta.Created
	var m2 []byte
	for _, f := range []string{two.Meta.Version, two.Meta.Name, two.Meta.Symbol, two.Meta.ModuleHash} {
		m2 = binary.AppendUvarint(m2, uint64(len(f)))
		m2 = append(m2, f...)
	}
	m2 = binary.LittleEndian.AppendUint64(m2, uint64(two.Meta.Created.UnixNano()))
	writeRaw(two, 2, m2)
	got, err = s.Get(two.Key)
	if err != nil {
		t.Fatalf("format 2 entry: %v", err)
	}
	if !reflect.DeepEqual(got.Meta, two.Meta) || !bytes.Equal(got.Object, two.Object) {
		t.Errorf("format 2 entry read as %+v, want %+v", got.Meta, two.Meta)
	}

	// Truncated binary metadata is corrupt, never a panic.
	raw := encodeMeta(&e.Meta)
	for n := range len(raw) {
		var m Meta
		if decodeMeta(raw[:n], &m, FormatVersion) == nil {
			t.Errorf("metadata cut to %d of %d bytes decoded", n, len(raw))
		}
	}
}
