package passes

import (
	"fmt"
	"slices"
	"time"

	"github.com/gojit/gojit/internal/ir"
)

// Pass is one graph-to-graph transformation of the optimization pipeline.
// Run must not modify its input, and its result must keep the input's
// parameters and outputs: their number, order, dtypes and shapes.
type Pass struct {
	Name  string // short name, for dumps (gojit dump -pass NAME)
	About string // what it does, in one line
	Run   func(*ir.Graph) (*ir.Graph, error)
	// After names the passes that must come earlier in the table: this
	// pass relies on their work (checked at start-up by checkTable).
	After []string
}

// table is the pipeline Optimize runs, in order. Fuse is not in it: it
// turns the final graph into a plan, and runtime.Build calls it last.
var table = []Pass{
	{
		Name:  "fold",
		About: "replace values known at compile time by constants",
		Run:   Fold,
	},
	{
		Name:  "simplify",
		About: "rewrite by exact algebraic identities (x*1, -(-x), transpose of transpose, ...)",
		Run:   Simplify,
		// Its rules recognise constants only as const nodes, which fold
		// makes of broadcast and computed constants.
		After: []string{"fold"},
	},
	{
		Name:  "cse",
		About: "merge nodes that compute the same value",
		Run:   CSE,
		// Simplify puts the constant operand of a commutative op second
		// and removes identity ops, exposing more duplicates.
		After: []string{"simplify"},
	},
	{
		Name:  "hoist",
		About: "move loop-invariant work out of while loops (control.go)",
		Run:   Hoist,
		// Regions are optimized first (optimizeRegions), so what it moves
		// is already folded; the copies it leaves in regions are dead.
		After: []string{"cse"},
	},
	{
		Name:  "dce",
		About: "remove nodes no output depends on",
		Run:   DCE,
		// The passes before it leave replaced nodes behind, dead.
		After: []string{"fold", "simplify", "cse", "hoist"},
	},
}

func init() {
	if err := checkTable(table); err != nil {
		panic(err) // a broken table is a bug in this package, found by any test
	}
}

// checkTable verifies that pass names are unique and non-empty and that
// every pass comes after the passes its After field names.
func checkTable(t []Pass) error {
	index := make(map[string]int, len(t))
	for i, p := range t {
		if p.Name == "" || p.Run == nil {
			return fmt.Errorf("passes: pass %d has no name or no Run", i)
		}
		if _, dup := index[p.Name]; dup {
			return fmt.Errorf("passes: pass %q appears twice", p.Name)
		}
		index[p.Name] = i
	}
	for i, p := range t {
		for _, before := range p.After {
			j, ok := index[before]
			switch {
			case !ok:
				return fmt.Errorf("passes: pass %q must come after %q, which is not in the table", p.Name, before)
			case j >= i:
				return fmt.Errorf("passes: pass %q must come after %q, but the table has it at %d and %q at %d", p.Name, before, i, before, j)
			}
		}
	}
	return nil
}

// Passes returns the pipeline Optimize runs, in order.
func Passes() []Pass { return slices.Clone(table) }

// Lookup returns the pass named name.
func Lookup(name string) (Pass, bool) {
	for _, p := range table {
		if p.Name == name {
			return p, true
		}
	}
	return Pass{}, false
}

// Names returns the names of the passes, in pipeline order.
func Names() []string {
	names := make([]string, len(table))
	for i, p := range table {
		names[i] = p.Name
	}
	return names
}

// Options control Optimize.
type Options struct {
	// Verify runs ir.Verify after every pass, so a pass that breaks an
	// invariant is named instead of the failure surfacing later. Tests
	// always set it; it is a debugging aid otherwise.
	Verify bool
	// Observe, when set, is called after every pass with the graph it
	// produced (which it must not modify) and the time the pass took:
	// the hook behind IR dumps.
	Observe func(p Pass, g *ir.Graph, took time.Duration)
}

// Optimize runs every pass of the table on g, in order, and returns the
// final graph, ready for Fuse: compacted, with g's parameters and outputs.
// g is not modified. An error means a pass failed or broke the graph's
// interface, which is a bug in the pass; the error names it.
func Optimize(g *ir.Graph, opt Options) (*ir.Graph, error) {
	return optimize(table, g, opt)
}

func optimize(table []Pass, g *ir.Graph, opt Options) (*ir.Graph, error) {
	g, err := optimizeRegions(table, g, opt)
	if err != nil {
		return nil, err
	}
	for _, p := range table {
		start := time.Now()
		next, err := p.Run(g)
		if err != nil {
			return nil, fmt.Errorf("passes: %s: %w", p.Name, err)
		}
		took := time.Since(start)
		if err := sameInterface(g, next); err != nil {
			return nil, fmt.Errorf("passes: %s: %w", p.Name, err)
		}
		if opt.Verify {
			if err := ir.Verify(next); err != nil {
				return nil, fmt.Errorf("passes: %s produced an invalid graph: %w", p.Name, err)
			}
		}
		if opt.Observe != nil {
			opt.Observe(p, next, took)
		}
		g = next
	}
	return g, nil
}

// sameInterface checks that a pass kept the parameters and outputs of the
// graph: their number, order, dtypes and shapes.
func sameInterface(before, after *ir.Graph) error {
	if len(after.Params) != len(before.Params) || len(after.Outputs) != len(before.Outputs) {
		return fmt.Errorf("changed the graph's interface: %d params and %d outputs became %d and %d",
			len(before.Params), len(before.Outputs), len(after.Params), len(after.Outputs))
	}
	check := func(what string, i int, a, b ir.Value) error {
		if int(b) < 0 || int(b) >= len(after.Nodes) {
			return fmt.Errorf("%s %d is undefined (%%%d)", what, i, b)
		}
		x, y := before.Node(a), after.Node(b)
		if x.DType != y.DType || !x.Shape.Equal(y.Shape) {
			return fmt.Errorf("%s %d changed type from %s%s to %s%s", what, i, x.DType, x.Shape, y.DType, y.Shape)
		}
		return nil
	}
	for i := range before.Params {
		if err := check("param", i, before.Params[i], after.Params[i]); err != nil {
			return err
		}
	}
	for i := range before.Outputs {
		if err := check("output", i, before.Outputs[i], after.Outputs[i]); err != nil {
			return err
		}
	}
	return nil
}
