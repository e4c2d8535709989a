package gojit

import "unsafe"

// callerFP returns the frame pointer of its caller (callers_fp_amd64.s).
func callerFP() unsafe.Pointer

// callers captures the return addresses of the frames above its caller
// (the op's public method, then the user's code) by following the frame
// pointer chain, as the runtime's execution tracer does: a few loads
// instead of runtime.Callers' unwinder, which costs more than the rest of
// recording an op. Resolving them to a file:line (userSite) is deferred to
// when a position is printed; runtime.CallersFrames expands inlined
// frames from these physical return addresses as it does from
// runtime.Callers'.
//
//go:noinline
func callers() callStack {
	var pcs callStack
	fp := callerFP() // callers' own frame
	for i := range pcs {
		if fp == nil || uintptr(fp)&(unsafe.Sizeof(fp)-1) != 0 {
			break
		}
		pcs[i] = *(*uintptr)(unsafe.Add(fp, unsafe.Sizeof(fp)))
		next := *(*unsafe.Pointer)(fp)
		if uintptr(next) <= uintptr(fp) { // callers' frames are above (stacks grow down)
			break
		}
		fp = next
	}
	return pcs
}
