package runtime

import (
	"errors"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
)

// Errors from kernels. Generated code cannot return a Go error, so a
// kernel that checks indices (take, take_along_axis, scatter_add) takes
// one more pointer after its buffers, Module.ErrorSlot: four words of the
// call's frame that the runtime zeroes before the call. A kernel that meets
// an out-of-range index records (node+1, position, value) there under a
// spin lock, keeping the smallest (node, position) any thread met, and
// finishes the call with the index clamped, so no access leaves a buffer
// (internal/codegen/indexing.go). After the call the runtime turns a
// recorded index into the *ir.IndexError the interpreter reports for the
// same inputs, with the node's op, source position and the index's
// coordinates. The slot lives in the frame, so concurrent calls never
// share one, and every chunk of one call on every thread shares it.

const errWords = 4 // lock, node+1, position, value

// errSlot returns the frame's error slot, allocating it on first use.
func (fr *frame) errSlot() unsafe.Pointer {
	if fr.errs == nil {
		fr.errs = make([]uint64, errWords)
	}
	return unsafe.Pointer(&fr.errs[0])
}

// clearErrs zeroes the error slot before a call.
func (fr *frame) clearErrs() { clear(fr.errs) }

// indexError returns the error a call recorded in fr's slot, or nil.
func (e *Executable) indexError(fr *frame) error {
	if len(fr.errs) < errWords || fr.errs[1] == 0 {
		return nil
	}
	node := ir.Value(fr.errs[1] - 1)
	if int(node) >= len(e.Graph.Nodes) || e.Graph.Node(node).Op.Kind() != ir.KindGather && e.Graph.Node(node).Op.Kind() != ir.KindScatter {
		panic("runtime: kernel reported an index error for a node that reads no index") // broken invariant
	}
	return ir.NewIndexError(e.Graph, node, int(fr.errs[2]), int64(fr.errs[3]))
}

// OwnIndexError returns the index error the interpreter reports for g on
// ins, or kerr if it reports none. Kernels are shared by signature, which
// leaves source positions out, so a kernel built for another graph with
// the same signature reports that graph's file:line; a caller whose run
// failed with kerr, an *ir.IndexError, asks for the error at its own
// positions. Index errors are rare and end the run, so the cost of
// interpreting g once more is paid only then.
func OwnIndexError(g *ir.Graph, ins []unsafe.Pointer, kerr error) error {
	exe, err := Build(g, Options{Interpret: true})
	if err != nil {
		return kerr
	}
	outs := make([]unsafe.Pointer, len(g.Outputs))
	for j, v := range g.Outputs {
		n := g.Node(v)
		buf := make([]uint64, (n.Shape.Size()*n.DType.Size()+7)/8+1)
		outs[j] = unsafe.Pointer(&buf[0])
	}
	if err := exe.Run(ins, outs); err != nil {
		if _, ok := errors.AsType[*ir.IndexError](err); ok {
			return err
		}
	}
	return kerr
}
