//go:build linux

package objload

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"unsafe"
)

// Real kernels contain only PC32 and PLT32 relocations (TestLoadTestdata);
// the other types the loader applies are checked here by rewriting the
// type of rodata.o's first relocation (a PLT32 call to memcpy at .text+0xd8,
// addend -4) and reading back the field it patches.
func TestRelocationKinds(t *testing.T) {
	obj := readObj(t, "rodata.o")
	rela := relaEntry(t, obj)
	if off := binary.LittleEndian.Uint64(obj[rela:]); off != 0xd8 {
		t.Fatalf("first relocation at %#x; the test expects the memcpy call at 0xd8", off)
	}
	const addend = -4
	const small = 0x1000 // an address that fits 32 bits
	load := func(t *testing.T, typ uint32, addr uintptr) (*Image, uintptr, error) {
		b := bytes.Clone(obj)
		binary.LittleEndian.PutUint32(b[rela+8:], typ)
		im, err := Load(b, func(string) uintptr { return addr })
		if err != nil {
			return nil, 0, err
		}
		t.Cleanup(func() { im.Free() })
		entry, ok := im.Symbol("gojit_e6b00478c4ad0c34")
		if !ok {
			t.Fatal("entry symbol missing")
		}
		return im, entry - 0x350 + 0xd8, nil // .text base + offset
	}
	t.Run("GOTPCREL", func(t *testing.T) {
		for _, typ := range []uint32{rGOTPCREL, rGOTPCRELX, rREX_GOTPCRELX} {
			im, P, err := load(t, typ, fakeAddr)
			if err != nil {
				t.Fatal(err)
			}
			field := int32(binary.LittleEndian.Uint32(view(t, im, P, 4)))
			G := uintptr(int64(P) + int64(field) - addend)
			if got := binary.LittleEndian.Uint64(view(t, im, G, 8)); got != fakeAddr {
				t.Fatalf("type %d: GOT entry holds %#x", typ, got)
			}
			if p := mapping(t, G); p != "r--p" {
				t.Errorf("GOT mapped %q", p)
			}
		}
	})
	t.Run("64", func(t *testing.T) {
		im, P, err := load(t, r64, fakeAddr)
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint64(view(t, im, P, 8)); got != uint64(fakeAddr+addend) {
			t.Fatalf("field %#x, want %#x", got, uint64(fakeAddr+addend))
		}
	})
	t.Run("PC64", func(t *testing.T) {
		im, P, err := load(t, rPC64, fakeAddr)
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(binary.LittleEndian.Uint64(view(t, im, P, 8))); got != int64(fakeAddr)+addend-int64(P) {
			t.Fatalf("field %#x", got)
		}
	})
	t.Run("32", func(t *testing.T) {
		for _, typ := range []uint32{r32, r32S} {
			im, P, err := load(t, typ, small)
			if err != nil {
				t.Fatal(err)
			}
			if got := binary.LittleEndian.Uint32(view(t, im, P, 4)); got != small+addend {
				t.Fatalf("type %d: field %#x", typ, got)
			}
			// An address beyond 32 bits cannot be encoded.
			if _, _, err := load(t, typ, fakeAddr); !errors.Is(err, ErrUnsupported) {
				t.Errorf("type %d to %#x: %v", typ, fakeAddr, err)
			}
		}
	})
	t.Run("PC32 to a distant external", func(t *testing.T) {
		// Without a stub, a library 2 GiB away cannot be reached.
		far := uintptr(unsafe.Pointer(&obj[0])) ^ 1<<45
		if _, _, err := load(t, rPC32, far); !errors.Is(err, ErrUnsupported) {
			t.Errorf("PC32 to %#x: %v", far, err)
		}
	})
}
