package vmap

import "github.com/gojit/gojit/internal/ir"

// The keyed values travel from the per-sample draws to the stage as
// float32 values (the pipeline's per-sample inputs), exactly: a value of a
// dtype float32 holds exactly is cast; an integer is cut into 16-bit
// pieces, low first (each in [0, 65536) but the last, which keeps the
// sign), and put back together in the stage. A Float64 has no exact
// float32 form.

const pieceBits = 16

// pieces returns how many float32 values carry one element of dt, or 0.
func pieces(dt ir.DType) int {
	switch dt {
	case ir.Float32, ir.Float16, ir.BFloat16, ir.Bool, ir.Uint8:
		return 1
	case ir.Int32:
		return 2
	case ir.Int64:
		return 4
	}
	return 0
}

// encode adds to k the float32 vectors, each of v's size, that carry v.
func encode(k *ir.Graph, v ir.Value) ([]ir.Value, error) {
	t := k.TypeOf(v)
	size := t.Shape.Size()
	flat, err := k.Add(ir.Node{Op: ir.OpReshape, DType: t.DType, Shape: ir.Shape{size}, Args: []ir.Value{v}})
	if err != nil {
		return nil, err
	}
	np := pieces(t.DType)
	var out []ir.Value
	rest := flat
	for i := range np {
		piece := rest
		if i < np-1 {
			// piece = rest mod 2^16 (not negative), rest = (rest - piece) / 2^16 (exact)
			radix, err := k.Add(ir.Node{Op: ir.OpConst, DType: t.DType, Shape: ir.Shape{size}, Const: ir.Const{I: 1 << pieceBits}})
			if err != nil {
				return nil, err
			}
			if piece, err = k.Add(ir.Node{Op: ir.OpMod, Args: []ir.Value{rest, radix}}); err != nil {
				return nil, err
			}
			d, err := k.Add(ir.Node{Op: ir.OpSub, Args: []ir.Value{rest, piece}})
			if err != nil {
				return nil, err
			}
			if rest, err = k.Add(ir.Node{Op: ir.OpDiv, Args: []ir.Value{d, radix}}); err != nil {
				return nil, err
			}
		}
		if t.DType != ir.Float32 {
			if piece, err = k.Add(ir.Node{Op: ir.OpCast, DType: ir.Float32, Args: []ir.Value{piece}}); err != nil {
				return nil, err
			}
		}
		out = append(out, piece)
	}
	return out, nil
}

// decode adds to b the batch [n, in.Shape...] of one keyed value from the
// draws [n, P] at column off: encode's pieces, put back together.
func decode(b *ir.Graph, draws ir.Value, off, n int, in input) (ir.Value, error) {
	size := in.Shape.Size()
	shape := append(ir.Shape{n}, in.Shape...)
	var sum ir.Value = -1
	for i := range pieces(in.DType) {
		lo := off + i*size
		col, err := b.Add(ir.Node{Op: ir.OpSlice, DType: ir.Float32, Shape: ir.Shape{n, size}, Starts: []int{0, lo}, Steps: []int{1, 1}, Args: []ir.Value{draws}})
		if err != nil {
			return 0, err
		}
		v, err := b.Add(ir.Node{Op: ir.OpReshape, DType: ir.Float32, Shape: shape.Clone(), Args: []ir.Value{col}})
		if err != nil {
			return 0, err
		}
		if in.DType != ir.Float32 {
			if v, err = b.Add(ir.Node{Op: ir.OpCast, DType: in.DType, Args: []ir.Value{v}}); err != nil {
				return 0, err
			}
		}
		if i > 0 {
			scale, err := b.Add(ir.Node{Op: ir.OpConst, DType: in.DType, Shape: shape.Clone(), Const: ir.Const{I: 1 << (pieceBits * i)}})
			if err != nil {
				return 0, err
			}
			if v, err = b.Add(ir.Node{Op: ir.OpMul, Args: []ir.Value{v, scale}}); err != nil {
				return 0, err
			}
			if v, err = b.Add(ir.Node{Op: ir.OpAdd, Args: []ir.Value{sum, v}}); err != nil {
				return 0, err
			}
		}
		sum = v
	}
	return sum, nil
}
