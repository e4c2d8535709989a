package interp

import (
	"fmt"

	"github.com/gojit/gojit/internal/ir"
)

// runControl runs a cond or while node on its operands' values and
// returns its results, fresh slices that alias no operand. Regions run
// through run, on graphs the verifier already checked with the node.
func runControl(n *ir.Node, args []any) ([]any, error) {
	switch n.Op {
	case ir.OpCond:
		r := n.Regions[1]
		if args[0].([]bool)[0] {
			r = n.Regions[0]
		}
		return run(r, args[1:])
	case ir.OpWhile:
		k := ir.Carried(n)
		state := append([]any(nil), args...)
		for {
			c, err := run(n.Regions[0], state)
			if err != nil {
				return nil, err
			}
			if !c[0].([]bool)[0] {
				break
			}
			next, err := run(n.Regions[1], state)
			if err != nil {
				return nil, err
			}
			copy(state, next[:k])
		}
		out := make([]any, k)
		for i := range out {
			out[i] = cloneSlice(state[i])
		}
		return out, nil
	}
	return nil, fmt.Errorf("interp: %s is not a control-flow op", n.Op)
}
