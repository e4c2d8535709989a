//go:build !linux

package objload

// Image is an object linked into the process's memory; on this system
// none can be (the loader maps memory with Linux's mmap semantics).
type Image struct{}

// Load reports ErrUnsupported on this system after validating obj, so
// callers fall back to another linker.
func Load(obj []byte, resolve func(name string) uintptr) (*Image, error) {
	if _, err := parse(obj); err != nil {
		return nil, err
	}
	return nil, unsupported("loading objects needs Linux")
}

// Symbol reports false: no image exists on this system.
func (im *Image) Symbol(name string) (uintptr, bool) { return 0, false }

// Size is 0: no image exists on this system.
func (im *Image) Size() int { return 0 }

// Free does nothing: no image exists on this system.
func (im *Image) Free() error { return nil }
