package passes

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

// cseKeyFmt is cseKey as it was written with fmt, the reference the
// appended form must equal.
func cseKeyFmt(n *ir.Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d %v", n.Op, n.DType, n.Shape)
	args := n.Args
	if commutes(n.Op) {
		args = slices.Clone(args)
		slices.Sort(args)
	}
	fmt.Fprintf(&b, " a%v x%v s%v t%v i%d", args, n.Axes, n.Starts, n.Steps, n.Index)
	if n.Op == ir.OpConst {
		fmt.Fprintf(&b, " c%x", constBits(n.DType, n.Const))
	}
	return b.String()
}

// TestCSEKeyMatchesFmt checks cseKey against its fmt form on nodes with
// every field set and unset, commutative and not, and constants of every
// kind of value.
func TestCSEKeyMatchesFmt(t *testing.T) {
	nodes := []ir.Node{
		{Op: ir.OpParam, DType: ir.Float32, Shape: ir.Shape{4, 5}, Index: 3},
		{Op: ir.OpAdd, DType: ir.Float32, Shape: ir.Shape{7}, Args: []ir.Value{9, 2}},
		{Op: ir.OpSub, DType: ir.Float64, Shape: ir.Shape{}, Args: []ir.Value{9, 2}},
		{Op: ir.OpConst, DType: ir.Float32, Shape: ir.Shape{}, Const: ir.Const{F: 0.1}},
		{Op: ir.OpConst, DType: ir.Float64, Shape: ir.Shape{2}, Const: ir.Const{F: math.NaN()}},
		{Op: ir.OpConst, DType: ir.Float64, Const: ir.Const{F: math.Copysign(0, -1)}},
		{Op: ir.OpConst, DType: ir.Int64, Const: ir.Const{I: -5}},
		{Op: ir.OpConst, DType: ir.Int32, Const: ir.Const{I: 1 << 40}},
		{Op: ir.OpTranspose, DType: ir.Uint8, Shape: ir.Shape{3, 1, 2}, Args: []ir.Value{0}, Axes: []int{2, 0, 1}},
		{Op: ir.OpSlice, DType: ir.Float32, Shape: ir.Shape{10, 20}, Args: []ir.Value{1},
			Starts: []int{0, -3}, Steps: []int{1, -2}},
	}
	for _, n := range nodes {
		if got, want := cseKey(&n), cseKeyFmt(&n); got != want {
			t.Errorf("cseKey(%v) = %q, want %q", n.Op, got, want)
		}
	}
}
