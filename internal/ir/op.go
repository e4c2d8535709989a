package ir

// Op is an operation code. The metadata of each op lives in one table,
// opTable, indexed by Op.
type Op uint8

// The operations. Each comment shows the op's printed form.
const (
	OpInvalid Op = iota

	// %v = param 0 : f32[4,5]        the 0th traced input
	OpParam
	// %v = const 1.5 : f32[4,5]      a scalar value broadcast to the shape
	OpConst
	// %v = iota axes=[1] : i32[3,4]  each element is its index along the axis
	OpIota

	// Unary elementwise: %v = exp %a : f32[8]
	OpNeg
	OpAbs
	OpExp
	OpLog
	OpSqrt
	OpRsqrt
	OpSin
	OpCos
	OpTanh
	OpSigmoid
	OpFloor
	OpCeil
	OpRound
	// %v = cast %a : i32[8]          converts to the result dtype (float to int saturates, NaN becomes 0)
	OpCast

	// Binary elementwise over operands of equal dtype and shape: %v = add %a, %b : f32[8]
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpPow
	OpMax
	OpMin

	// Comparisons: %v = lt %a, %b : bool[8]
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe

	// %v = where %cond, %a, %b : f32[8]
	OpWhere

	// Reductions over sorted axes, which are removed: %v = reduce_sum %a axes=[1] : f32[4]
	OpReduceSum
	OpReduceProd
	OpReduceMax
	OpReduceMin
	// %v = argmax %a axes=[1] : i64[4]   the first index of the maximum along one axis
	OpArgMax
	OpArgMin

	// %v = reshape %a : f32[2,10]
	OpReshape
	// %v = transpose %a axes=[1,0] : f32[5,4]   result dim i is operand dim axes[i]
	OpTranspose
	// %v = broadcast %a : f32[3,4,5]            NumPy rules: dims aligned on the right, 1 stretches
	OpBroadcast
	// %v = slice %a starts=[0,1] steps=[1,2] : f32[4,2]   result dim i holds start+j*step
	OpSlice
	// %v = concat %a, %b axes=[0] : f32[8,5]
	OpConcat
	// %v = matmul %a, %b : f32[2,4,6]   [...,M,K] x [...,K,N] with equal batch dims
	OpMatMul

	// Control flow (control.go): ops that own regions, sub-graphs run
	// zero or more times. Their results are read with get.
	//   %v = cond %p, %a... : (f32[4]) { then } { else }
	//   %v = while %a... : (f32[4], i32[]) { cond } { body }
	//   %w = get %v 1 : i32[]
	OpCond
	OpWhile
	OpGet
	// Ops added for issue 10 (ops.md lists every op). Unary elementwise,
	// float only: %v = log1p %a : f32[8]
	OpLog1p
	OpExpm1
	OpErf
	// %v = mod %a, %b : i32[8]   remainder with the divisor's sign (Python, NumPy); x mod 0 is 0 for integers, NaN for floats
	OpMod
	// Inclusive scans along one axis: %v = cumsum %a axes=[1] : f32[4,5]
	// (element i is the sum, in index order, of elements 0..i).
	OpCumSum
	OpCumProd
	// Sorts along one axis, ascending in IEEE totalOrder with every NaN
	// last: %v = sort %a axes=[1] : f32[4,5]; argsort gives the i64
	// positions of that order, ties in index order (a stable sort).
	OpSort
	OpArgSort
	// Indexing and randomness (indexing.go; docs/indexing.md, docs/random.md).

	// %v = take %x, %idx axes=[1] : f32[4,6,5]   x[..., idx[j...], ...]: x.shape[:a] + idx.shape + x.shape[a+1:]
	OpTake
	// %v = take_along_axis %x, %idx axes=[1] : f32[4,3]   shapes equal off the axis; the result has idx's shape
	OpTakeAlongAxis
	// %v = scatter_add %x, %idx, %upd axes=[0] : f32[10,4]   x with upd added at idx (updates shaped as take's result)
	OpScatterAdd
	// %v = dynamic_slice %x, %s0, %s1 : f32[2,3]   one 0-D integer start per axis, clamped to [0, dim-size]
	OpDynamicSlice
	// %v = random_uniform %key : f32[8]           key is i32[2]; values in [0, 1)
	OpRandomUniform
	// %v = random_normal %key : f32[8]            standard normal (Box-Muller)
	OpRandomNormal
	// %v = split_key %key : i32[4,2]              4 new keys derived from key
	OpSplitKey

	numOps
)

// Kind groups ops that are lowered the same way.
type Kind uint8

// The op kinds.
const (
	KindInvalid   Kind = iota
	KindSource         // param, const, iota: no operands
	KindUnary          // elementwise, one operand
	KindCast           // elementwise conversion
	KindBinary         // elementwise arithmetic, two operands
	KindCompare        // elementwise comparison producing bool
	KindSelect         // where
	KindReduce         // sum, prod, max, min over axes
	KindArgReduce      // argmax, argmin over one axis
	KindLayout         // reshape, transpose, broadcast, slice, concat: move data, compute nothing
	KindMatMul         // matrix product
	KindControl        // cond, while: own regions, have a tuple of results
	KindGet            // get: one result of a control-flow op
	KindScan           // cumsum, cumprod along one axis (issue 10)
	KindSort           // sort, argsort along one axis (issue 10)

	KindGather       // take, take_along_axis: read at data-dependent positions, bounds-checked
	KindScatter      // scatter_add: accumulate at data-dependent positions, bounds-checked
	KindDynamicSlice // dynamic_slice: a window at run-time offsets, clamped
	KindRandom       // random_uniform, random_normal, split_key: pure functions of (key, position)
)

// OpInfo is the metadata of one op.
type OpInfo struct {
	Name      string // printed name
	Kind      Kind
	FloatOnly bool // operands must be Float32 or Float64
	NoBool    bool // operands must not be Bool
}

var opTable = [numOps]OpInfo{
	OpInvalid: {Name: "invalid"},
	OpParam:   {Name: "param", Kind: KindSource},
	OpConst:   {Name: "const", Kind: KindSource},
	OpIota:    {Name: "iota", Kind: KindSource, NoBool: true},

	OpNeg:     {Name: "neg", Kind: KindUnary, NoBool: true},
	OpAbs:     {Name: "abs", Kind: KindUnary, NoBool: true},
	OpExp:     {Name: "exp", Kind: KindUnary, FloatOnly: true},
	OpLog:     {Name: "log", Kind: KindUnary, FloatOnly: true},
	OpSqrt:    {Name: "sqrt", Kind: KindUnary, FloatOnly: true},
	OpRsqrt:   {Name: "rsqrt", Kind: KindUnary, FloatOnly: true},
	OpSin:     {Name: "sin", Kind: KindUnary, FloatOnly: true},
	OpCos:     {Name: "cos", Kind: KindUnary, FloatOnly: true},
	OpTanh:    {Name: "tanh", Kind: KindUnary, FloatOnly: true},
	OpSigmoid: {Name: "sigmoid", Kind: KindUnary, FloatOnly: true},
	OpFloor:   {Name: "floor", Kind: KindUnary, NoBool: true},
	OpCeil:    {Name: "ceil", Kind: KindUnary, NoBool: true},
	OpRound:   {Name: "round", Kind: KindUnary, NoBool: true},
	OpCast:    {Name: "cast", Kind: KindCast},

	OpAdd: {Name: "add", Kind: KindBinary, NoBool: true},
	OpSub: {Name: "sub", Kind: KindBinary, NoBool: true},
	OpMul: {Name: "mul", Kind: KindBinary, NoBool: true},
	OpDiv: {Name: "div", Kind: KindBinary, NoBool: true},
	OpPow: {Name: "pow", Kind: KindBinary, FloatOnly: true},
	OpMax: {Name: "max", Kind: KindBinary, NoBool: true},
	OpMin: {Name: "min", Kind: KindBinary, NoBool: true},

	OpEq: {Name: "eq", Kind: KindCompare},
	OpNe: {Name: "ne", Kind: KindCompare},
	OpLt: {Name: "lt", Kind: KindCompare},
	OpLe: {Name: "le", Kind: KindCompare},
	OpGt: {Name: "gt", Kind: KindCompare},
	OpGe: {Name: "ge", Kind: KindCompare},

	OpWhere: {Name: "where", Kind: KindSelect},

	OpReduceSum:  {Name: "reduce_sum", Kind: KindReduce, NoBool: true},
	OpReduceProd: {Name: "reduce_prod", Kind: KindReduce, NoBool: true},
	OpReduceMax:  {Name: "reduce_max", Kind: KindReduce, NoBool: true},
	OpReduceMin:  {Name: "reduce_min", Kind: KindReduce, NoBool: true},
	OpArgMax:     {Name: "argmax", Kind: KindArgReduce, NoBool: true},
	OpArgMin:     {Name: "argmin", Kind: KindArgReduce, NoBool: true},

	OpReshape:   {Name: "reshape", Kind: KindLayout},
	OpTranspose: {Name: "transpose", Kind: KindLayout},
	OpBroadcast: {Name: "broadcast", Kind: KindLayout},
	OpSlice:     {Name: "slice", Kind: KindLayout},
	OpConcat:    {Name: "concat", Kind: KindLayout},
	OpMatMul:    {Name: "matmul", Kind: KindMatMul, NoBool: true},

	OpCond:  {Name: "cond", Kind: KindControl},
	OpWhile: {Name: "while", Kind: KindControl},
	OpGet:   {Name: "get", Kind: KindGet},
	// Issue 10 ops.
	OpLog1p: {Name: "log1p", Kind: KindUnary, FloatOnly: true},
	OpExpm1: {Name: "expm1", Kind: KindUnary, FloatOnly: true},
	OpErf:   {Name: "erf", Kind: KindUnary, FloatOnly: true},
	OpMod:   {Name: "mod", Kind: KindBinary, NoBool: true},

	OpCumSum:        {Name: "cumsum", Kind: KindScan, NoBool: true},
	OpCumProd:       {Name: "cumprod", Kind: KindScan, NoBool: true},
	OpSort:          {Name: "sort", Kind: KindSort, NoBool: true},
	OpArgSort:       {Name: "argsort", Kind: KindSort, NoBool: true},
	OpTake:          {Name: "take", Kind: KindGather},
	OpTakeAlongAxis: {Name: "take_along_axis", Kind: KindGather},
	OpScatterAdd:    {Name: "scatter_add", Kind: KindScatter, NoBool: true},
	OpDynamicSlice:  {Name: "dynamic_slice", Kind: KindDynamicSlice},
	OpRandomUniform: {Name: "random_uniform", Kind: KindRandom},
	OpRandomNormal:  {Name: "random_normal", Kind: KindRandom},
	OpSplitKey:      {Name: "split_key", Kind: KindRandom},
}

// Info returns the op's metadata.
func (o Op) Info() OpInfo {
	if o < numOps {
		return opTable[o]
	}
	return opTable[OpInvalid]
}

// String returns the printed name of the op.
func (o Op) String() string { return o.Info().Name }

// Kind returns the op's kind.
func (o Op) Kind() Kind { return o.Info().Kind }

// IsElementwise reports whether the op computes each output element from
// the operand elements at the same index.
func (o Op) IsElementwise() bool {
	switch o.Kind() {
	case KindUnary, KindCast, KindBinary, KindCompare, KindSelect:
		return true
	}
	return false
}

// Ops returns every valid op, in enum order.
func Ops() []Op {
	ops := make([]Op, 0, numOps-1)
	for o := OpInvalid + 1; o < numOps; o++ {
		ops = append(ops, o)
	}
	return ops
}

// LookupOp finds an op by its printed name.
func LookupOp(name string) (Op, bool) {
	for o := OpInvalid + 1; o < numOps; o++ {
		if opTable[o].Name == name {
			return o, true
		}
	}
	return OpInvalid, false
}
