package objload

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrUnsupported marks objects that are well formed but use something
// this loader does not implement (another architecture, a relocation or
// section type LLVM emits only for other code models, thread-local
// storage, constructors). A caller may hand such an object to a general
// linker such as ORC instead.
var ErrUnsupported = errors.New("objload: unsupported object")

// MaxImage is the largest image (all sections, stubs and GOT, page
// aligned) Load maps; a kernel's object is a few kilobytes.
const MaxImage = 64 << 20

const pageSize = 4096

// shtX86_64Unwind is the type of .eh_frame on x86-64 (SHT_X86_64_UNWIND).
// Its contents are loaded as constants; unwinding through kernels is
// never needed (they neither throw nor are interrupted by Go panics).
const shtX86_64Unwind elf.SectionType = 0x70000001

// The x86-64 relocation types the loader applies (System V x86-64 psABI).
const (
	rNone          = 0  // R_X86_64_NONE
	r64            = 1  // S + A
	rPC32          = 2  // S + A - P
	rPLT32         = 4  // L + A - P
	rGOTPCREL      = 9  // G + GOT + A - P
	r32            = 10 // S + A, zero-extended
	r32S           = 11 // S + A, sign-extended
	rPC64          = 24 // S + A - P
	rGOTPCRELX     = 41 // as GOTPCREL (relaxable; not relaxed)
	rREX_GOTPCRELX = 42
)

// stub is an indirect jump through the 8 bytes that follow it: jmp
// *0(%rip); .quad target. A call to an external function goes through
// one, since the function may be more than 2 GiB from the image.
var stub = [16]byte{0xff, 0x25, 0, 0, 0, 0}

const stubTarget = 6 // offset of the target address in a stub

// region says which part of the image a section goes to.
type region int

const (
	regionText region = iota // read-execute
	regionRO                 // read-only
	regionRW                 // read-write
)

// reloc is one validated relocation.
type reloc struct {
	sec    int    // section it patches
	off    uint64 // offset in that section
	typ    uint32
	target target
	addend int64
}

// target is what a relocation's symbol resolves to: an offset in a
// placed section, an absolute value, or an external symbol.
type target struct {
	sec   int // section index, or -1
	value uint64
	ext   int // index into externals, or -1
}

// plan is everything Load decided before mapping memory.
type plan struct {
	sections  []*elf.Section
	offset    []uint64 // image offset of each placed section
	placed    []bool
	relocs    []reloc
	externals []external
	textEnd   uint64 // end of the read-execute part (page aligned)
	roEnd     uint64 // end of the read-only part (page aligned)
	size      uint64
	symbols   []elf.Symbol
}

// external is one undefined symbol the object references.
type external struct {
	name      string
	addr      uintptr
	stub, got int64 // image offsets, or -1 when not needed
	needsStub bool
	needsGOT  bool
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("objload: malformed object: %s", fmt.Sprintf(format, args...))
}

// parse validates obj and plans its image; it touches no memory outside
// obj and the plan.
func parse(obj []byte) (*plan, error) {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, malformed("%v", err)
	}
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB || f.Machine != elf.EM_X86_64 {
		return nil, unsupported("%v %v %v object (want 64-bit little-endian x86-64)", f.Class, f.Data, f.Machine)
	}
	if f.Type != elf.ET_REL {
		return nil, unsupported("ELF type %v (want a relocatable object)", f.Type)
	}
	p := &plan{sections: f.Sections}
	n := len(f.Sections)
	p.offset = make([]uint64, n)
	p.placed = make([]bool, n)
	symtab := -1
	for i, s := range f.Sections {
		if s.Type == elf.SHT_SYMTAB {
			if symtab >= 0 {
				return nil, malformed("two symbol tables")
			}
			symtab = i
		}
	}
	if symtab >= 0 {
		if p.symbols, err = f.Symbols(); err != nil {
			return nil, malformed("symbols: %v", err)
		}
	}
	// Sections: what is allocated, and where it goes.
	kind := make([]region, n)
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		switch s.Type {
		case elf.SHT_PROGBITS, elf.SHT_NOBITS, shtX86_64Unwind:
		default:
			// Constructors (init_array) and the like would need
			// running, which this loader does not do.
			return nil, unsupported("section %q of type %v", s.Name, s.Type)
		}
		if s.Flags&elf.SHF_TLS != 0 {
			return nil, unsupported("thread-local section %q", s.Name)
		}
		switch {
		case s.Flags&elf.SHF_EXECINSTR != 0 && s.Flags&elf.SHF_WRITE != 0:
			return nil, unsupported("section %q is writable and executable", s.Name)
		case s.Flags&elf.SHF_EXECINSTR != 0:
			kind[i] = regionText
		case s.Flags&elf.SHF_WRITE != 0:
			kind[i] = regionRW
		default:
			kind[i] = regionRO
		}
		if s.Size > MaxImage {
			return nil, malformed("section %q of %d bytes", s.Name, s.Size)
		}
		if s.Type != elf.SHT_NOBITS && (s.Offset > uint64(len(obj)) || s.Size > uint64(len(obj))-s.Offset) {
			return nil, malformed("section %q [%d, +%d) outside the file (%d bytes)", s.Name, s.Offset, s.Size, len(obj))
		}
		if a := s.Addralign; a > pageSize || a&(a-1) != 0 {
			return nil, malformed("section %q alignment %d", s.Name, a)
		}
		p.placed[i] = true
	}
	if err := p.readRelocs(obj, symtab); err != nil {
		return nil, err
	}
	return p, p.layout(kind)
}

// readRelocs reads and validates every relocation that patches a placed
// section.
func (p *plan) readRelocs(obj []byte, symtab int) error {
	extIndex := map[string]int{}
	for _, rs := range p.sections {
		switch rs.Type {
		case elf.SHT_REL:
			return unsupported("REL relocations in %q", rs.Name)
		case elf.SHT_RELA:
		default:
			continue
		}
		sec := int(rs.Info)
		if sec <= 0 || sec >= len(p.sections) {
			return malformed("relocation section %q patches section %d of %d", rs.Name, rs.Info, len(p.sections))
		}
		if !p.placed[sec] {
			continue // debug information and the like
		}
		target := p.sections[sec]
		if target.Type == elf.SHT_NOBITS {
			return malformed("relocation section %q patches %q, which has no contents", rs.Name, target.Name)
		}
		if int(rs.Link) != symtab {
			return malformed("relocation section %q uses section %d as its symbol table", rs.Name, rs.Link)
		}
		if rs.Offset > uint64(len(obj)) || rs.Size > uint64(len(obj))-rs.Offset || rs.Size%24 != 0 {
			return malformed("relocation section %q [%d, +%d) in a file of %d bytes", rs.Name, rs.Offset, rs.Size, len(obj))
		}
		data := obj[rs.Offset : rs.Offset+rs.Size]
		for len(data) > 0 {
			off := binary.LittleEndian.Uint64(data)
			info := binary.LittleEndian.Uint64(data[8:])
			r := reloc{sec: sec, off: off, typ: uint32(info), addend: int64(binary.LittleEndian.Uint64(data[16:]))}
			data = data[24:]
			width := uint64(0)
			switch r.typ {
			case rNone:
				continue
			case r64, rPC64:
				width = 8
			case rPC32, rPLT32, rGOTPCREL, rGOTPCRELX, rREX_GOTPCRELX, r32, r32S:
				width = 4
			default:
				return unsupported("relocation type %v in %q", elf.R_X86_64(r.typ), rs.Name)
			}
			if off > target.Size || width > target.Size-off {
				return malformed("relocation at %d+%d outside %q (%d bytes)", off, width, target.Name, target.Size)
			}
			k := info >> 32
			if k == 0 || k > uint64(len(p.symbols)) {
				return malformed("relocation in %q names symbol %d of %d", rs.Name, k, len(p.symbols))
			}
			sym := p.symbols[k-1] // debug/elf drops the null symbol 0
			t, err := p.resolveSymbol(sym, extIndex)
			if err != nil {
				return err
			}
			if t.ext >= 0 {
				e := &p.externals[t.ext]
				switch r.typ {
				case rPLT32:
					e.needsStub = true
				case rGOTPCREL, rGOTPCRELX, rREX_GOTPCRELX:
					e.needsGOT = true
				}
			}
			r.target = t
			p.relocs = append(p.relocs, r)
		}
	}
	return nil
}

// resolveSymbol says where sym lives, registering external symbols.
func (p *plan) resolveSymbol(sym elf.Symbol, extIndex map[string]int) (target, error) {
	switch s := sym.Section; {
	case s == elf.SHN_UNDEF:
		if sym.Name == "" {
			return target{}, malformed("relocation against an undefined symbol without a name")
		}
		i, ok := extIndex[sym.Name]
		if !ok {
			i = len(p.externals)
			extIndex[sym.Name] = i
			p.externals = append(p.externals, external{name: sym.Name, stub: -1, got: -1})
		}
		return target{sec: -1, ext: i}, nil
	case s == elf.SHN_ABS:
		return target{sec: -1, ext: -1, value: sym.Value}, nil
	case s >= elf.SHN_LORESERVE:
		return target{}, unsupported("symbol %q in special section %v", sym.Name, s)
	case int(s) >= len(p.sections) || !p.placed[s]:
		return target{}, malformed("symbol %q in section %d, which is not loaded", sym.Name, s)
	case sym.Value > p.sections[s].Size:
		return target{}, malformed("symbol %q at %d past the end of %q", sym.Name, sym.Value, p.sections[s].Name)
	}
	return target{sec: int(sym.Section), ext: -1, value: sym.Value}, nil
}

// layout places the sections region by region, with the stubs after the
// code and the GOT after the constants.
func (p *plan) layout(kind []region) error {
	var at uint64
	place := func(r region) error {
		for i, s := range p.sections {
			if !p.placed[i] || kind[i] != r {
				continue
			}
			at = alignUp(at, max(s.Addralign, 1))
			p.offset[i] = at
			at += s.Size
			if at > MaxImage {
				return malformed("image larger than %d bytes", MaxImage)
			}
		}
		return nil
	}
	if err := place(regionText); err != nil {
		return err
	}
	at = alignUp(at, 16)
	for i := range p.externals {
		if p.externals[i].needsStub {
			p.externals[i].stub = int64(at)
			at += uint64(len(stub))
		}
	}
	p.textEnd = alignUp(at, pageSize)
	at = p.textEnd
	if err := place(regionRO); err != nil {
		return err
	}
	at = alignUp(at, 8)
	for i := range p.externals {
		if p.externals[i].needsGOT {
			p.externals[i].got = int64(at)
			at += 8
		}
	}
	p.roEnd = alignUp(at, pageSize)
	at = p.roEnd
	if err := place(regionRW); err != nil {
		return err
	}
	p.size = alignUp(at, pageSize)
	if p.size == 0 {
		return malformed("no sections to load")
	}
	if p.size > MaxImage {
		return malformed("image larger than %d bytes", MaxImage)
	}
	return nil
}

func alignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }

// fill copies the sections into mem, whose first byte is at address base,
// writes the stubs and GOT entries and applies the relocations.
func (p *plan) fill(obj, mem []byte, base uint64) error {
	for i, s := range p.sections {
		if p.placed[i] && s.Type != elf.SHT_NOBITS {
			copy(mem[p.offset[i]:], obj[s.Offset:s.Offset+s.Size])
		}
	}
	for _, e := range p.externals {
		if e.stub >= 0 {
			copy(mem[e.stub:], stub[:])
			binary.LittleEndian.PutUint64(mem[e.stub+stubTarget:], uint64(e.addr))
		}
		if e.got >= 0 {
			binary.LittleEndian.PutUint64(mem[e.got:], uint64(e.addr))
		}
	}
	for _, r := range p.relocs {
		pos := p.offset[r.sec] + r.off
		P := base + pos
		var S uint64
		switch t := r.target; {
		case t.ext >= 0 && r.typ == rPLT32:
			S = base + uint64(p.externals[t.ext].stub)
		case t.ext >= 0:
			S = uint64(p.externals[t.ext].addr)
		case t.sec >= 0:
			S = base + p.offset[t.sec] + t.value
		default:
			S = t.value
		}
		A := r.addend
		switch r.typ {
		case r64:
			binary.LittleEndian.PutUint64(mem[pos:], S+uint64(A))
		case rPC64:
			binary.LittleEndian.PutUint64(mem[pos:], S+uint64(A)-P)
		case rPC32, rPLT32:
			v := int64(S) + A - int64(P)
			if v < math.MinInt32 || v > math.MaxInt32 {
				return unsupported("32-bit PC-relative relocation out of range (%#x from %#x)", S, P)
			}
			binary.LittleEndian.PutUint32(mem[pos:], uint32(int32(v)))
		case rGOTPCREL, rGOTPCRELX, rREX_GOTPCRELX:
			var G uint64
			if t := r.target; t.ext >= 0 {
				G = base + uint64(p.externals[t.ext].got)
			} else {
				// A GOT reference to a local symbol: rare, and
				// only worth a GOT entry of its own if seen.
				return unsupported("GOT relocation against a local symbol")
			}
			v := int64(G) + A - int64(P)
			if v < math.MinInt32 || v > math.MaxInt32 {
				return unsupported("GOT-relative relocation out of range")
			}
			binary.LittleEndian.PutUint32(mem[pos:], uint32(int32(v)))
		case r32:
			v := S + uint64(A)
			if v > math.MaxUint32 {
				return unsupported("32-bit absolute relocation to %#x", v)
			}
			binary.LittleEndian.PutUint32(mem[pos:], uint32(v))
		case r32S:
			v := int64(S) + A
			if v < math.MinInt32 || v > math.MaxInt32 {
				return unsupported("32-bit signed absolute relocation to %#x", v)
			}
			binary.LittleEndian.PutUint32(mem[pos:], uint32(int32(v)))
		}
	}
	return nil
}

// exports returns the image's global symbols and their addresses.
func (p *plan) exports(base uint64) (map[string]uintptr, error) {
	syms := map[string]uintptr{}
	for _, s := range p.symbols {
		bind := elf.ST_BIND(s.Info)
		if bind != elf.STB_GLOBAL && bind != elf.STB_WEAK || s.Name == "" || s.Section == elf.SHN_UNDEF {
			continue
		}
		if s.Section >= elf.SHN_LORESERVE {
			return nil, unsupported("global symbol %q in special section %v", s.Name, s.Section)
		}
		if int(s.Section) >= len(p.sections) || !p.placed[s.Section] || s.Value > p.sections[s.Section].Size {
			return nil, malformed("global symbol %q in section %d outside the image", s.Name, s.Section)
		}
		if _, dup := syms[s.Name]; dup {
			return nil, malformed("symbol %q defined twice", s.Name)
		}
		syms[s.Name] = uintptr(base + p.offset[s.Section] + s.Value)
	}
	return syms, nil
}
