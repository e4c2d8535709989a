// Package objload links the ELF relocatable objects gojit's kernels
// compile to into the running process without LLVM: it maps their
// sections, applies their relocations, resolves their few external
// symbols (libm, memset, memcpy) through a caller's resolver, and hands
// out the addresses of their global symbols.
//
// It exists so that a program whose kernels all come from the disk cache
// needs neither libLLVM (20 ms of dynamic linking at start) nor an ORC
// JIT (about 1 ms to create); internal/llvm uses it by default and hands
// ORC the objects it reports as unsupported (a malformed object is an
// error either way). It handles exactly what LLVM's
// x86-64 backend emits for kernels (position-independent code, small code
// model, no thread-local storage, no constructors) and rejects everything
// else with ErrUnsupported, leaving ORC to handle or refuse it.
//
// # Safety
//
// An object is code the process will run, so the loader cannot make a
// malicious object safe; what it guarantees is that a malformed or
// unexpected one is refused with an error instead of corrupting memory:
//
//   - every offset, size, alignment and index read from the file is checked
//     against the file's length, the section it refers to, or the table it
//     indexes before it is used, and sizes are summed with overflow checks
//     and a total limit (MaxImage);
//   - a relocation is applied only if its type is one of the few the
//     backend emits, its whole field lies inside its section, and the
//     value fits the field (a 32-bit displacement that does not fit is an
//     error, never truncated);
//   - external symbols resolve only through the caller's resolver, and a
//     call through a 32-bit displacement goes to a stub inside the image,
//     since libraries may lie more than 2 GiB away;
//   - memory is mapped read-write, filled and relocated, and only then made
//     read-execute (code and stubs) or read-only (constants and the GOT),
//     so no page is ever writable and executable at once (W^X);
//   - Free unmaps the image; using an address from it afterwards is the
//     caller's error, as with any freed code.
//
// The loader is pure Go and the package's fuzz test feeds it corrupted
// objects: it may reject them but must not crash.
package objload
