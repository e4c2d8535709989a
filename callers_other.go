//go:build !amd64

package gojit

import "runtime"

// callers captures the return addresses of the frames above its caller
// (the op's public method, then the user's code); resolving them to a
// file:line (userSite) is deferred to when a position is printed. On
// amd64, callers_fp_amd64.go follows the frame pointers instead, which is
// several times cheaper.
func callers() callStack {
	var pcs callStack
	runtime.Callers(2, pcs[:])
	return pcs
}
