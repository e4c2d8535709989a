//go:build linux

package objload

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// The test objects are kernels gojit compiled (LLVM 19, x86-64): memset.o
// calls memset through PLT32; rodata.o calls memcpy and has PC32
// relocations into .rodata, .rodata.cst32 and, from a jump table in
// .rodata, back into .text.
func readObj(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeAddr stands for every external symbol: the tests never run the
// code, they check where it points.
const fakeAddr = 0x7f00_1234_5678

func fake(string) uintptr { return fakeAddr }

// view returns the n bytes of im at addr, failing the test when they are
// not all inside the image.
func view(t *testing.T, im *Image, addr uintptr, n int) []byte {
	t.Helper()
	base := uintptr(unsafe.Pointer(&im.mem[0]))
	if addr < base || addr+uintptr(n) > base+uintptr(len(im.mem)) {
		t.Fatalf("[%#x, +%d) outside the image [%#x, +%d)", addr, n, base, len(im.mem))
	}
	return im.mem[addr-base : addr-base+uintptr(n)]
}

// mapping returns the permissions of the mapping that holds addr in
// /proc/self/maps ("r-xp"), or "" when none does.
func mapping(t *testing.T, addr uintptr) string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var lo, hi uintptr
		var perm string
		if _, err := fmt.Sscanf(line, "%x-%x %s", &lo, &hi, &perm); err == nil && lo <= addr && addr < hi {
			return perm
		}
	}
	return ""
}

// Every relocation is checked from the outside: the patched field must
// encode a target that is the same for every relocation against the same
// symbol, lies where that symbol must be (the code's own base, a
// read-only constant page, a stub that jumps to the resolver's address),
// and every byte the relocations do not touch equals the file's.
func TestLoadTestdata(t *testing.T) {
	for _, name := range []string{"memset.o", "rodata.o"} {
		t.Run(name, func(t *testing.T) {
			obj := readObj(t, name)
			f, err := elf.NewFile(bytes.NewReader(obj))
			if err != nil {
				t.Fatal(err)
			}
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			im, err := Load(obj, fake)
			if err != nil {
				t.Fatal(err)
			}
			// Section bases from the exported (global) symbols.
			base := map[int]uintptr{}
			nGlobal := 0
			for _, s := range syms {
				if elf.ST_BIND(s.Info) != elf.STB_GLOBAL || s.Section == elf.SHN_UNDEF {
					continue
				}
				nGlobal++
				a, ok := im.Symbol(s.Name)
				if !ok {
					t.Fatalf("global %s not exported", s.Name)
				}
				b := a - uintptr(s.Value)
				if prev, ok := base[int(s.Section)]; ok && prev != b {
					t.Fatalf("%s: section base %#x, another symbol says %#x", s.Name, b, prev)
				}
				base[int(s.Section)] = b
			}
			if nGlobal == 0 {
				t.Fatal("no global symbols")
			}
			touched := map[int]map[uint64]bool{}
			targets := map[string]uintptr{}
			for _, rs := range f.Sections {
				if rs.Type != elf.SHT_RELA {
					continue
				}
				sec := int(rs.Info)
				if touched[sec] == nil {
					touched[sec] = map[uint64]bool{}
				}
				data, _ := rs.Data()
				for ; len(data) >= 24; data = data[24:] {
					off := binary.LittleEndian.Uint64(data)
					info := binary.LittleEndian.Uint64(data[8:])
					addend := int64(binary.LittleEndian.Uint64(data[16:]))
					typ := elf.R_X86_64(uint32(info))
					sym := syms[info>>32-1]
					if typ != elf.R_X86_64_PC32 && typ != elf.R_X86_64_PLT32 {
						t.Fatalf("test object has %v; extend the test", typ)
					}
					secBase, ok := base[sec]
					if !ok {
						// A section without globals (.rodata): its
						// base is learned from the first relocation
						// against its section symbol below.
						t.Logf("relocation in section %d before its base is known", sec)
						continue
					}
					P := secBase + uintptr(off)
					for i := range 4 {
						touched[sec][off+uint64(i)] = true
					}
					field := int32(binary.LittleEndian.Uint32(view(t, im, P, 4)))
					S := uintptr(int64(P) + int64(field) - addend)
					key := sym.Name
					if elf.ST_TYPE(sym.Info) == elf.STT_SECTION {
						key = f.Sections[sym.Section].Name
					}
					if sym.Section != elf.SHN_UNDEF && elf.ST_TYPE(sym.Info) != elf.STT_SECTION {
						// A named local symbol: S is its section's
						// base plus its value.
						key = f.Sections[sym.Section].Name
						S -= uintptr(sym.Value)
					}
					if prev, ok := targets[key]; ok && prev != S {
						t.Fatalf("%v at %s+%#x: target %s at %#x, earlier %#x", typ, f.Sections[sec].Name, off, key, S, prev)
					}
					targets[key] = S
					switch {
					case sym.Section == elf.SHN_UNDEF:
						stub := view(t, im, S, 16)
						if !bytes.Equal(stub[:6], []byte{0xff, 0x25, 0, 0, 0, 0}) || binary.LittleEndian.Uint64(stub[6:]) != fakeAddr {
							t.Fatalf("%s: stub % x", sym.Name, stub[:14])
						}
						if p := mapping(t, S); p != "r-xp" {
							t.Errorf("stub mapped %q", p)
						}
					case f.Sections[sym.Section].Flags&elf.SHF_EXECINSTR != 0:
						if b, ok := base[int(sym.Section)]; !ok || b != S {
							t.Fatalf("%v to %s: %#x, code is at %#x", typ, key, S, b)
						}
					default:
						if p := mapping(t, S); p != "r--p" {
							t.Errorf("%s at %#x mapped %q, want read-only", key, S, p)
						}
						if _, ok := base[int(sym.Section)]; !ok {
							base[int(sym.Section)] = S
						}
					}
				}
			}
			if len(targets) == 0 {
				t.Fatal("no relocations checked")
			}
			// Untouched bytes are the file's.
			for sec, b := range base {
				s := f.Sections[sec]
				data, _ := s.Data()
				got := view(t, im, b, len(data))
				for i := range data {
					if !touched[sec][uint64(i)] && got[i] != data[i] {
						t.Fatalf("%s+%#x = %#x, file has %#x", s.Name, i, got[i], data[i])
					}
				}
				if s.Flags&elf.SHF_EXECINSTR != 0 {
					if p := mapping(t, b); p != "r-xp" {
						t.Errorf("%s mapped %q, want r-xp", s.Name, p)
					}
				}
			}
			t.Logf("%d bytes mapped; targets %v", im.Size(), len(targets))
			var anyAddr uintptr
			for _, b := range base {
				anyAddr = b
			}
			if err := im.Free(); err != nil {
				t.Fatal(err)
			}
			if p := mapping(t, anyAddr); p != "" {
				t.Errorf("still mapped %q after Free", p)
			}
			if _, ok := im.Symbol(syms[len(syms)-1].Name); ok {
				t.Error("Symbol after Free")
			}
			if err := im.Free(); err != nil {
				t.Errorf("second Free: %v", err)
			}
		})
	}
}

// relaEntry returns the file offset of the first entry of the first RELA
// section of obj.
func relaEntry(t *testing.T, obj []byte) int {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Sections {
		if s.Type == elf.SHT_RELA && s.Size >= 24 {
			return int(s.Offset)
		}
	}
	t.Fatal("no relocations")
	return 0
}

// sectionHeader returns the file offset of the header of the first
// section named name.
func sectionHeader(t *testing.T, obj []byte, name string) int {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	shoff := int(binary.LittleEndian.Uint64(obj[0x28:]))
	for i, s := range f.Sections {
		if s.Name == name {
			return shoff + 64*i
		}
	}
	t.Fatalf("no section %s", name)
	return 0
}

func TestRejects(t *testing.T) {
	obj := readObj(t, "rodata.o")
	rela := relaEntry(t, obj)
	text := sectionHeader(t, obj, ".text")
	for _, c := range []struct {
		name        string
		mutate      func(b []byte) []byte
		unsupported bool
		want        string
	}{
		{"empty", func(b []byte) []byte { return nil }, false, "malformed"},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, false, "malformed"},
		{"aarch64", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[18:], uint16(elf.EM_AARCH64)); return b }, true, "EM_AARCH64"},
		{"executable", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[16:], uint16(elf.ET_EXEC)); return b }, true, "ET_EXEC"},
		{"relocation type", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[rela+8:], 37); return b }, true, "R_X86_64_IRELATIVE"},
		{"relocation offset", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[rela:], 1<<40); return b }, false, "outside"},
		{"relocation at the end", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[rela:], 0x424-3); return b }, false, "outside"},
		{"symbol index", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[rela+12:], 999); return b }, false, "symbol 999"},
		{"section offset", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[text+24:], 1<<30); return b }, false, "outside the file"},
		{"alignment", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[text+48:], 3); return b }, false, "alignment"},
		{"huge section", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[text+4:], uint32(elf.SHT_NOBITS))
			binary.LittleEndian.PutUint64(b[text+32:], 1<<40)
			return b
		}, false, "bytes"},
		{"writable code", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[text+8:], uint64(elf.SHF_ALLOC|elf.SHF_EXECINSTR|elf.SHF_WRITE))
			return b
		}, true, "writable and executable"},
		{"tls", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[text+8:], uint64(elf.SHF_ALLOC|elf.SHF_TLS))
			return b
		}, true, "thread-local"},
	} {
		t.Run(c.name, func(t *testing.T) {
			im, err := Load(c.mutate(bytes.Clone(obj)), fake)
			if err == nil {
				im.Free()
				t.Fatal("loaded")
			}
			if errors.Is(err, ErrUnsupported) != c.unsupported || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v; want unsupported=%t and %q", err, c.unsupported, c.want)
			}
		})
	}
	// An external the resolver does not know.
	_, err := Load(obj, func(string) uintptr { return 0 })
	if err == nil || !strings.Contains(err.Error(), `undefined symbol "memcpy"`) {
		t.Errorf("unresolved external: %v", err)
	}
}

// FuzzLoad feeds the loader corrupted objects: it may reject them but
// must never crash, and what it accepts it must be able to free.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"memset.o", "rodata.o"} {
		f.Add(readObj(f, name))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		im, err := Load(obj, fake)
		if err != nil {
			return
		}
		if err := im.Free(); err != nil {
			t.Fatal(err)
		}
	})
}
