package objload

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// Image is an object linked into the process's memory.
type Image struct {
	mu      sync.Mutex
	mem     []byte
	symbols map[string]uintptr
}

// Load validates obj, maps it, resolves its external symbols with resolve
// (which returns 0 for a name it does not know) and applies its
// relocations. On any error nothing stays mapped. Objects that are valid
// but outside what the loader implements yield an error matching
// ErrUnsupported.
func Load(obj []byte, resolve func(name string) uintptr) (*Image, error) {
	p, err := parse(obj)
	if err != nil {
		return nil, err
	}
	for i := range p.externals {
		e := &p.externals[i]
		if e.addr = resolve(e.name); e.addr == 0 {
			return nil, fmt.Errorf("objload: undefined symbol %q", e.name)
		}
	}
	mem, err := syscall.Mmap(-1, 0, int(p.size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("objload: map %d bytes: %w", p.size, err)
	}
	base := uint64(uintptr(unsafe.Pointer(&mem[0])))
	syms, err := p.exports(base)
	if err == nil {
		err = p.fill(obj, mem, base)
	}
	if err == nil && p.textEnd > 0 {
		if err = syscall.Mprotect(mem[:p.textEnd], syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
			err = fmt.Errorf("objload: protect code: %w", err)
		}
	}
	if err == nil && p.roEnd > p.textEnd {
		if err = syscall.Mprotect(mem[p.textEnd:p.roEnd], syscall.PROT_READ); err != nil {
			err = fmt.Errorf("objload: protect constants: %w", err)
		}
	}
	if err != nil {
		syscall.Munmap(mem)
		return nil, err
	}
	return &Image{mem: mem, symbols: syms}, nil
}

// Symbol returns the address of the global symbol name, or false if the
// object defines none (or the image was freed).
func (im *Image) Symbol(name string) (uintptr, bool) {
	im.mu.Lock()
	defer im.mu.Unlock()
	a, ok := im.symbols[name]
	return a, ok && im.mem != nil
}

// Size is the number of bytes mapped for the image.
func (im *Image) Size() int { return len(im.mem) }

// Free unmaps the image. Freeing a freed image does nothing.
func (im *Image) Free() error {
	im.mu.Lock()
	mem := im.mem
	im.mem = nil
	im.mu.Unlock()
	if mem == nil {
		return nil
	}
	if err := syscall.Munmap(mem); err != nil {
		return fmt.Errorf("objload: unmap: %w", err)
	}
	return nil
}
