package gojit

import (
	"fmt"
	"slices"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/runtime"
)

// WithDynamicDim marks axis of the Func's tensor parameter arg (counting
// every parameter, static ones included) as dynamic: one compiled kernel
// then serves every size along it, so changing the batch size does not
// recompile. The option may be given for several parameters; all dynamic
// axes share one size (the batch size), and Call fails if they differ.
//
// The function is traced with the dynamic axes at two placeholder sizes
// (61 and 67, which Tensor.Shape reports while tracing), and the kernel
// reads every loop bound and stride that follows the batch size from it
// at run time. Elementwise ops and broadcasting, reductions along any
// axis (the batch axis included), softmax and normalizations, transposes,
// flattening, concatenations, argmax, slices of the other axes, and
// matmuls whose rows, columns, sum or batch dimensions follow the batch
// (x·w for a batch x, a multilayer perceptron, w·xᵀ, xᵀ·y) all qualify,
// with the static kernel's results (a float sum along the batch axis may
// round differently, within the tolerance of float sums). The batch size
// may also be used as a value when the value is a multiple of it, as a
// mean's divisor is. A function that depends on the size in another way
// (it slices the batch axis, has it twice in one result, or uses 1/B)
// makes Call fail, naming the line and the call responsible and why. A
// function must also not branch on the batch size while tracing: both
// traces would take the branch the placeholders take, whatever the real
// size.
//
// The trade-off: static shapes (the default) let LLVM specialize each loop
// to its exact trip count, which matters most for small arrays; a dynamic
// kernel compiles once for all sizes, in about the time of one static
// kernel, and runs each loop nest through its range entry point with the
// batch size. In interpreted mode (WithInterpreter,
// GOJIT_DISABLE_JIT, builds without LLVM) nothing is compiled, and each
// size is traced separately.
//
// arg must name a *Tensor parameter and axis must not be negative (an axis
// beyond the argument's rank is reported by Call, which sees the shape);
// Compile fails otherwise.
func WithDynamicDim(arg, axis int) Option {
	return func(c *config) {
		switch {
		case arg < 0:
			c.fail("WithDynamicDim(%d, %d): negative parameter index", arg, axis)
		case axis < 0:
			c.fail("WithDynamicDim(%d, %d): negative axis (count axes from 0)", arg, axis)
		default:
			c.dynamic = append(c.dynamic, dynDim{arg, axis})
		}
	}
}

// checkDynamic validates the WithDynamicDim options against fn's
// parameters, which the options themselves cannot see.
func (f *Func) checkDynamic() error {
	for _, d := range f.cfg.dynamic {
		switch {
		case d.arg >= len(f.params):
			return fmt.Errorf("gojit: WithDynamicDim(%d, %d): %s has %d parameters", d.arg, d.axis, f.name, len(f.params))
		case !f.params[d.arg].tensor:
			return fmt.Errorf("gojit: WithDynamicDim(%d, %d): parameter %d of %s is a static %s, not a *gojit.Tensor", d.arg, d.axis, d.arg, f.name, f.params[d.arg].typ)
		}
	}
	return nil
}

type dynDim struct{ arg, axis int }

// The sizes at which a Func with a dynamic dimension is traced: distinct,
// larger than 1 (size 1 broadcasts), and primes unlikely to equal a static
// dimension.
const (
	dynamicTrace1 = 61
	dynamicTrace2 = 67
)

// dynamicDim marks a dynamic axis in an argSpec's shape.
const dynamicDim = -1

// dynamicSet collects the size of the dynamic dimension across arguments.
type dynamicSet struct {
	dims  []dynDim
	size  int
	first dynDim
	seen  bool
}

// dynamicSizes returns the dynamic axes that apply to this Func's calls:
// none when it is interpreted.
func (f *Func) dynamicSizes() *dynamicSet {
	if len(f.cfg.dynamic) == 0 || f.cfg.interpret || LLVMVersion() == "" {
		return &dynamicSet{}
	}
	return &dynamicSet{dims: f.cfg.dynamic}
}

// mark replaces the dynamic axes of argument arg's shape by dynamicDim,
// checking that they exist and agree with the others.
func (d *dynamicSet) mark(arg int, shape []int) error {
	for _, dd := range d.dims {
		if dd.arg != arg {
			continue
		}
		if dd.axis < 0 || dd.axis >= len(shape) {
			return fmt.Errorf("argument %d has shape %v: no axis %d to make dynamic", arg, ir.Shape(shape), dd.axis)
		}
		n := shape[dd.axis]
		if n == dynamicDim {
			continue // the option was given twice
		}
		if !d.seen {
			d.size, d.first, d.seen = n, dd, true
		} else if n != d.size {
			return fmt.Errorf("dynamic axes differ: argument %d axis %d is %d, argument %d axis %d is %d",
				d.first.arg, d.first.axis, d.size, arg, dd.axis, n)
		}
		shape[dd.axis] = dynamicDim
	}
	return nil
}

// dynamic reports whether e's signature has a dynamic dimension.
func (e *entry) dynamic() bool {
	for _, s := range e.specs {
		if slices.Contains(s.shape, dynamicDim) {
			return true
		}
	}
	return false
}

// dynamicArgs returns args with every tensor replaced by a shape-only
// array whose dynamic axes have size n: tracing reads only dtypes and
// shapes.
func dynamicArgs(args []any, specs []argSpec, n int) []any {
	out := slices.Clone(args)
	for i, s := range specs {
		if s.shape == nil || !slices.Contains(s.shape, dynamicDim) {
			continue
		}
		shape := slices.Clone(s.shape)
		for k, d := range shape {
			if d == dynamicDim {
				shape[k] = n
			}
		}
		out[i] = &Array{dtype: s.dtype, shape: shape}
	}
	return out
}

// buildKernel builds e's executable from its traces, one trace for a
// static signature and two for a dynamic one. With acquired, the
// executable comes held for the caller (see runtime.BuildAcquired).
func (f *Func) buildKernel(e *entry, acquired bool) (*runtime.Executable, error) {
	if e.traced2 == nil {
		build := runtime.Build
		if acquired {
			build = runtime.BuildAcquired
		}
		exe, err := build(e.traced, f.runtimeOptions())
		if err != nil {
			return nil, fmt.Errorf("gojit: %s: compile: %w", f.name, err)
		}
		return exe, nil
	}
	build := runtime.BuildDynamic
	if acquired {
		build = runtime.BuildDynamicAcquired
	}
	exe, err := build(e.traced, e.traced2, dynamicTrace1, dynamicTrace2, f.runtimeOptions())
	if err != nil {
		return nil, fmt.Errorf("gojit: %s: dynamic dimension: %w", f.name, err)
	}
	return exe, nil
}

// at returns the output's shape when the dynamic dimension is b.
func (o *outSpec) at(b int) []int {
	if o.dyn == nil {
		return o.shape
	}
	shape := make([]int, len(o.dyn))
	for k, s := range o.dyn {
		shape[k] = s.At(b)
	}
	return shape
}

// fits reports whether shape is the output's shape when the dynamic
// dimension is b, without allocating.
func (o *outSpec) fits(shape []int, b int) bool {
	if o.dyn == nil {
		return ir.Shape(shape).Equal(o.shape)
	}
	if len(shape) != len(o.dyn) {
		return false
	}
	for k, s := range o.dyn {
		if shape[k] != s.At(b) {
			return false
		}
	}
	return true
}

// emptyCheck is a reduction without an identity (Max, Min, ArgMax,
// ArgMin) over an axis whose size follows the dynamic one: a call at a size
// that empties the axis is an error, as tracing at that size would be,
// instead of a kernel returning -Inf or 0.
type emptyCheck struct {
	node *ir.Node // the reduction, in the first trace
	name string   // "max"
	axis int
	in   []runtime.Scaled // its operand's shape
}

var noIdentity = map[ir.Op]string{ir.OpReduceMax: "max", ir.OpReduceMin: "min", ir.OpArgMax: "argmax", ir.OpArgMin: "argmin"}

// emptyChecks finds the reductions of g1 (traced at size dynamicTrace1)
// without an identity whose reduced axes follow the dynamic size, by
// comparing them with g2 (traced at dynamicTrace2).
func emptyChecks(g1, g2 *ir.Graph) []emptyCheck {
	if len(g1.Nodes) != len(g2.Nodes) {
		return nil // BuildDynamic reports the difference
	}
	var out []emptyCheck
	for i := range g1.Nodes {
		n1, n2 := &g1.Nodes[i], &g2.Nodes[i]
		name, ok := noIdentity[n1.Op]
		if !ok || n2.Op != n1.Op || len(n1.Args) != 1 {
			continue
		}
		in1, in2 := g1.Nodes[n1.Args[0]].Shape, g2.Nodes[n2.Args[0]].Shape
		if len(in1) != len(in2) {
			continue
		}
		in := make([]runtime.Scaled, len(in1))
		for k := range in1 {
			if in[k], ok = runtime.ScaledOf(in1[k], in2[k], dynamicTrace1, dynamicTrace2); !ok {
				break // BuildDynamic reports it
			}
		}
		for _, a := range n1.Axes {
			if ok && in[a].PerB != 0 {
				out = append(out, emptyCheck{node: n1, name: name, axis: a, in: in})
			}
		}
	}
	return out
}

// checkSize fails a call of e at dynamic size b that could not run: its
// buffers would not fit in memory (checked once per new largest size), or
// a reduction without an identity would have nothing to reduce.
func (e *entry) checkSize(b int) error {
	if int64(b) >= e.checked.Load() {
		if err := checkMemory(e.exe.Load(), e.outs, b); err != nil {
			return err
		}
		e.checked.Store(int64(b) + 1)
	}
	for _, c := range e.empty {
		if c.in[c.axis].At(b) != 0 {
			continue
		}
		shape := make(ir.Shape, len(c.in))
		for k, s := range c.in {
			shape[k] = s.At(b)
		}
		call := c.node.Call
		if call == "" {
			call = c.name
		}
		return fmt.Errorf("%s: %s: %s", c.node.Pos, call, emptyAxis(c.axis, shape, c.name))
	}
	return nil
}
