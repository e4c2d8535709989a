// Package interp is the pure-Go reference interpreter of gojit's graph IR.
//
// It has two jobs. It is the oracle: every result the LLVM code generator
// produces is tested against it, so its semantics below are the
// specification of the IR, bit for bit, and the code generator implements
// exactly the same. And it is the executor of builds without cgo, so its
// kernels are plain loops over whole tensors rather than per-element calls.
//
// Run (or RunInto) evaluates the nodes in graph order, keeping one Go slice
// per live value: []bool, []uint8, []int32, []int64, []float32, []float64,
// or for the storage dtypes f16 and bf16 []half.Float16 and
// []half.BFloat16, row-major, with Shape.Size() elements (1 for a 0-d scalar). Every op
// accepts zero-size dimensions and produces empty results for them.
//
// # Semantics, op by op
//
// Notation: T is the operand dtype. NaN payloads and NaN signs are not part
// of the semantics: any NaN stands for any other. "In T" means each arithmetic operation is
// rounded to T (float32 arithmetic for f32); nothing is ever fused into a
// multiply-add and nothing is reassociated (no fast-math), except where
// the tolerances of float sums and matmuls below say so.
//
// param: the caller's input, unchanged.
//
// const: the value broadcast to the shape. Float dtypes use Const.F
// converted to T (float32(F), round to nearest); integer dtypes use Const.I
// converted with wrap-around (int32(I), uint8(I)); bool is I != 0. The
// front ends only make constants whose value their dtype holds: a weak
// scalar (gojit.Scalar) that an integer tensor's dtype cannot hold exactly
// (a fraction, NaN, ±Inf, out of range) is never converted into it. A
// comparison with it is rewritten to its exact answer before the graph is
// built (x_i32 < 2.5 becomes le x, 2; x_u8 > -1 a true constant), and any
// other op with it is traced in f32. So no graph relies on the
// wrap-around of an out-of-range constant.
//
// iota axes=[a]: each element is its index along axis a, converted as an
// i64-to-T cast (so u8 wraps modulo 256).
//
// neg: -x. Integers wrap (neg of MinInt is MinInt, u8 negates mod 256);
// floats flip the sign, so neg(+0) = -0 and NaN stays NaN.
//
// abs: integers: x < 0 ? -x : x, wrapping (abs(MinInt) = MinInt; identity on
// u8). Floats: clear the sign bit (abs(-0) = +0).
//
// exp, log, sqrt, sin, cos, tanh: computed in float64 with Go's package math
// and rounded once to T (for f32: float32(math.Exp(float64(x)))). sqrt is
// correctly rounded in both dtypes; the transcendental functions are only
// as accurate as the library, so comparisons of compiled against
// interpreted results for them need a tolerance of an ulp or so.
//
// rsqrt: 1 / sqrt(x) in T, with sqrt as above: a true division, never a
// hardware reciprocal-square-root estimate.
//
// sigmoid: e = exp(-x) computed as above and rounded to T, then 1/(1+e) in
// T. Large negative x gives e = +Inf and a result of 0.
//
// floor, ceil, round: floats round to an integral value, round being half
// to even (math.RoundToEven: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0).
// On integer dtypes all three are the identity.
//
// cast (to the node's dtype D):
//   - same dtype: a copy.
//   - float to i32/i64: truncate toward zero, saturate to D's range (±Inf
//     and out-of-range values clamp), NaN becomes 0 (LLVM fptosi.sat).
//   - float to u8: truncate, saturate to [0, 255], NaN becomes 0 (fptoui.sat).
//   - anything to bool: x != 0 (NaN -> true, -0 -> false).
//   - bool to anything: false -> 0, true -> 1.
//   - integer to integer: narrowing wraps (i64 -> i32, any -> u8);
//     widening sign-extends from i32/i64 and zero-extends from u8.
//   - integer to float: rounded to nearest, ties to even, in one step
//     (no double rounding through float64 for i64 -> f32).
//   - f64 -> f32 rounds to nearest even; f32 -> f64 is exact.
//
// add, sub, mul: in T; integers wrap.
//
// div: floats: IEEE division in T (x/0 = ±Inf, 0/0 = NaN). Integers:
// truncated toward zero, x/0 = 0 for every integer dtype (never traps),
// MinInt / -1 = MinInt (wraps). u8 division is unsigned.
//
// pow (floats only): math.Pow in float64, rounded once to T.
//
// Accuracy of the transcendental functions: the interpreter uses Go's math
// package, the compiled code the C library (glibc), and the two may
// disagree in the last bits. Known larger gaps, which tests allow for:
// math.Pow loses accuracy as |y*log2(x)| grows, to a few hundred ulps
// (relative error around 1e-13); math.Sin and math.Cos have absolute
// errors up to about 1e-16, which is many ulps where the result is tiny
// (near multiples of pi, and for |x| >= 2^29). math.Log and math.Pow are
// wrong for subnormal float64 inputs on amd64 (golang/go#56600); log and
// pow here correct that by exact scaling (log64, pow64). math.Exp on amd64
// overflows to +Inf from x = 709.437 instead of 709.78; exp (and sigmoid)
// use exp(x-1)*e there (exp64).
//
// max, min: integers: the ordinary maximum/minimum. Floats: NaN if either
// operand is NaN, and -0 < +0 (max(-0, +0) = +0, min(-0, +0) = -0): Go's
// builtin max/min, LLVM's llvm.maximum/llvm.minimum.
//
// eq, ne, lt, le, gt, ge: produce bool. Floats compare as IEEE: with a NaN
// operand every comparison is false except ne, which is true; -0 == +0.
// Bools compare as false < true.
//
// where(c, a, b): c ? a : b, elementwise; a and b may have any dtype,
// including bool.
//
// reduce_sum, reduce_prod, reduce_max, reduce_min axes=[...]: for each
// output element, an accumulator of dtype T starts at 0 (sum), 1 (prod),
// -Inf (max; the dtype's minimum for integers) or +Inf (min; the dtype's
// maximum), and the operand elements are folded in one at a time,
// acc = acc + x (acc * x, max(acc, x), min(acc, x)), in row-major order of
// the reduced indices (the last reduced axis varies fastest), rounding to T
// after every step. So a float32 sum is a sequential float32 sum; 0 + -0 is
// +0, so the sum of only negative zeros is +0; integer sums and products
// wrap; max/min use the max/min of the elementwise ops, so once a NaN is
// seen the result is NaN. Reduced axes of size 0 give the start value. A
// reduction over an empty axes list folds each element once into the
// start value (for reduce_sum that turns -0 into +0).
//
// Tolerance of float sums. The sequential order above is what this
// interpreter computes and what integer reductions, products, max and min
// keep exactly everywhere. A float reduce_sum, however, may be
// reassociated by the compiled code (it keeps several vector partial sums
// and adds them at the end), so its result may differ from the sequential
// one. For a sum of n terms x_i of dtype T the two results r_c and r_i
// obey
//
//	|r_c - r_i| <= n * eps_T * Σ|x_i|    (eps_T = 2**-23 for f32, 2**-52 for f64)
//
// since each is within (n-1)*eps_T/2*Σ|x_i| of the exact sum. If some x_i
// is ±Inf or NaN both results are the same (NaN, or that infinity); if
// Σ|x_i| over the finite terms exceeds the largest finite value of T, a
// partial sum may overflow in one order and not in the other, and nothing
// is promised beyond the dtype. A sum of only negative zeros is +0 in
// every order. Values computed from such a sum (a mean, a softmax
// denominator) inherit the difference. The compiled order is fixed for a
// given kernel and CPU: repeated calls, and calls split across threads
// (which split output elements, never one sum), give identical bits.
//
// Tolerance of float matmuls. A matmul element is a sum of n = K products
// x_k = a[i,k]*b[k,j], and the compiled code computes it with fused
// multiply-adds (acc = fma(a, b, acc): one rounding per step instead of
// two, the product never rounded on its own) and may group the k terms
// differently. The rule of float sums applies to the products, with one
// more term for products below the normal range, whose rounding error is
// absolute rather than relative:
//
//	|r_c - r_i| <= n * eps_T * Σ_k|a[i,k]*b[k,j]| + n * tiny_T
//
// where tiny_T is the smallest subnormal of T (2**-149 for f32, 2**-1074
// for f64). If some factor of a term is ±Inf or NaN both results are the
// same (NaN, or that infinity); if Σ_k|a[i,k]*b[k,j]| over the other terms
// exceeds the largest finite value of T nothing is promised beyond the
// dtype (a product may overflow when rounded alone and not inside an FMA).
// Signs of zero may differ (an FMA of an underflowing negative product
// onto +0 gives -0). Integer matmuls are exact: they wrap the same way in
// any order. Values computed from a matmul (a bias added, a relu) inherit
// the difference, and as for sums the compiled bits are fixed for a given
// kernel and CPU.
//
// argmax, argmin axes=[a]: i64 index of the first maximum (minimum) along a:
// best = x[0], idx = 0; for i = 1, 2, ...: if best is NaN stop; if x[i] >
// best (x[i] < best for argmin) or x[i] is NaN then best, idx = x[i], i.
// So the first NaN wins (NumPy), ties keep the earliest index, and -0 and
// +0 tie. An axis of size 0 gives 0.
//
// reshape: the same row-major data under a new shape.
//
// transpose axes=p: result dimension k is operand dimension p[k]:
// out[i_0..i_r-1] = in[j] with j[p[k]] = i_k.
//
// broadcast: dimensions are aligned on the right; an operand dimension of
// size 1, and every leading result dimension the operand lacks, reads
// index 0.
//
// slice starts=s steps=t: out[i] = in[j] with j[k] = s[k] + i[k]*t[k]. A
// step may be negative (never 0): the slice then walks backwards from s[k].
//
// concat axes=[a]: the operands stacked along a, in operand order.
//
// matmul [...,M,K] x [...,K,N] (equal batch dimensions, row-major batches):
// out[b,i,j] = Σ_k a[b,i,k]*b[b,k,j] with an accumulator of T starting at 0
// and k ascending; for floats each step is acc = acc + round_T(a*b), the
// product rounded to T before the add (never a fused multiply-add), so a
// -0 product onto the initial +0 gives +0 and K = 0 gives 0. Integers wrap.
// Compiled float matmuls agree with this within the tolerance of float
// matmuls above.
//
// cond %p, %a...: runs the then region on the operands after p when p is
// true, else the else region; its results are the region's outputs.
//
// while %a...: the state starts as the first k operands (k = the body's
// outputs; the rest are captures, passed unchanged); while the cond region
// returns true on (state, captures), the state becomes the body region's
// outputs. The results are the final state: the initial one when cond is
// false at once. Regions are run by this interpreter, recursively
// (control.go).
//
// get %c i: result i of control-flow op c (a copy).
// The ops added for issue 10:
//
// log1p, expm1, erf: as exp, with math.Log1p, math.Expm1 and math.Erf,
// rounded once to T.
//
// mod: the remainder with the divisor's sign (Python's %, NumPy's mod).
// Integers: r = x % y (Go's truncated remainder) and r += y when r != 0
// and r and y differ in sign; x mod 0 = 0 and MinInt mod -1 = 0. Floats:
// r = math.Mod(x, y) (exact, C's fmod), then r += y in T when r != 0 and r
// and y differ in sign, and a zero r takes y's sign; so x mod 0, ±Inf mod
// y and NaN operands give NaN, and x mod ±Inf is x or ±Inf.
//
// cumsum, cumprod axes=[a]: element i along a is the sum (product) of
// elements 0..i, folded in index order in T (out[i] = out[i-1] + x[i]);
// integers wrap. The compiled code folds in the same order: bit-exact.
//
// sort axes=[a]: each row along a in ascending order of the key: IEEE
// totalOrder for floats (-Inf < ... < -0 < +0 < ... < +Inf) with every
// NaN after +Inf, the value for integers (u8 unsigned). argsort: the i64
// positions of that order, equal keys in position order (a stable sort), so
// both are fully determined (the compiled heap sort gives the same).
//
// f16 and bf16 (storage dtypes) appear only in params, consts, casts,
// layout ops and where. A const of a half dtype is F rounded to f32 and
// then to the half; a cast to a half converts to f32 (as a cast to f32
// would) and rounds to the half, to nearest even with overflow to ±Inf
// (so an f64 is rounded twice); a cast from a half widens it exactly to
// f32 and continues as a cast from f32. internal/half implements the two
// roundings.
// take axes=[a], take_along_axis axes=[a], scatter_add axes=[a],
// dynamic_slice (indexing.go): an index i along an axis of size d is valid
// for -d <= i < d (negative counts from the end); scatter_add adds the
// updates in their row-major order, each element x + u1 + u2 + ... rounded
// after every add; dynamic_slice clamps each start to [0, d-size].
//
// random_uniform, random_normal, split_key (random.go): pure functions of
// the key and the element's row-major position through Philox-4x32-10
// (internal/philox); random_normal uses Log01 and Cos2Pi, formulas the
// code generator emits operation for operation, so compiled draws are
// equal bit for bit.
//
// # Errors
//
// Run verifies the graph with ir.Verify and validates the inputs (count, Go
// slice type, length) before evaluating anything, naming the offending
// input. It never panics: an unexpected failure inside an op is recovered
// and returned as an error naming the node. An out-of-range index is an
// *ir.IndexError (wrapping ir.ErrIndexOutOfRange) for the first invalid
// index in node order, then row-major order of the index tensor, which is
// the error compiled code reports too.
package interp
