/* gpuvec's op table: every op, named once, with every fact about it.
 *
 * Each row is one op. The C enums (gpuvec.h), the C++ dispatch to each op's
 * functor or policy (csrc/kit/dispatch.hpp), the boundary's checks, the table
 * Python reads at import (gpuvec_elementwise_ops, gpuvec_reduce_ops, seen
 * from Python as gpuvec/_table.py), and through it the public Python
 * functions, their docstrings, NumPy's protocols, fusion and the
 * parametrised tests with their accuracy budgets are all made from these
 * rows. Adding an elementwise op is one row here plus its functor in ops.hpp;
 * adding a reduction one row here plus its policy in reduce_ops.hpp
 * (docs/design.md, "Adding an op / a reduction").
 *
 * Op codes are the rows' first column, written out: a row may go anywhere,
 * and a code is never given to another op, so the codes stay what compiled
 * callers were built with. Codes are positive and below
 * GPUVEC_OP_CODE_LIMIT; op_table.cpp checks that no two rows share one.
 *
 * Elementwise rows:
 *   X(code, NAME, name, numpy, arity, params, result, kinds, Functor,
 *     rounding, host_ulps, cuda_ulps, summary)
 *   code      the op code, GPUVEC_<NAME> = code
 *   NAME      the enum GPUVEC_<NAME>
 *   name      the Python name
 *   numpy     NumPy's name of the same function (its ufunc, where it has one),
 *             "" where NumPy has none
 *   arity     the number of array inputs (1 to 3)
 *   params    the number of double parameters (alpha, beta) the functor takes
 *   result    SAME: the result has the compute dtype; UINT8: a count of
 *             bits (bitwise_count); BOOL: it is a truth
 *             value (comparisons, tests), one byte; TRUTH: a truth value
 *             of the inputs' truth values (the logical ops), each input
 *             read as true or false in its own dtype, so the op computes
 *             in bool (logical_and(x32, 1e-300) is x32 != 0)
 *   kinds     the dtypes the row computes in, one letter each: f float32 and
 *             float64; i each integer dtype, signed and unsigned, in its
 *             own type; u each integer dtype through the unsigned type of
 *             its width (the row's bits are the same for both signednesses
 *             in two's complement: +, -, *, <<, &, ==, so one kernel serves
 *             int32 and uint32); b bool; c complex64 and complex128 (each in
 *             its own type: + - * / as NumPy's loops, gpuvec/portable.hpp;
 *             sqrt, exp and log within docs/dtypes.rst's budget, not the
 *             row's, which is the real dtypes'). The caller picks the compute dtype
 *             as NumPy's ufunc resolves its loop; a dtype of no listed kind
 *             has no kernel (float16 computes in float32)
 *   Functor   the functor in gpuvec::ops (ops.hpp)
 *   rounding  EXACT: correctly rounded (or exact), so NumPy's bits on both
 *             backends; NEAR: within the ulp budgets that follow
 *   host_ulps, cuda_ulps
 *             how many units in the last place the result may be off NumPy's
 *             float64 result rounded to the compute dtype, on the host
 *             backend (the C math library) and the CUDA one (CUDA's); 0 for
 *             EXACT rows. The tests hold each backend to its budget
 *   summary   one line for the docstring
 *
 * Reduction rows:
 *   X(code, NAME, name, numpy, ufunc, inputs, result, Policy, traits,
 *     warning, summary)
 *   code, NAME, name, summary   as above; the enum is GPUVEC_REDUCE_<NAME>
 *   numpy     NumPy's function of the same meaning, "" where it has none
 *   ufunc     the NumPy ufunc whose reduce method computes it (as NumPy
 *             does: its name is in NumPy's error for no elements), or ""
 *   inputs    1, or 2 for dot
 *   result    the result's dtype: SAME, the compute dtype; INT64, a position
 *             (argmin, argmax) or a count; BOOL, a truth value (any, all).
 *             gpuvec.h's GPUVEC_RESULT_<result> is its gpuvec_dtype (-1 for SAME)
 *   Policy    the policy in gpuvec::ops::reduce (reduce_ops.hpp)
 *   traits    words, each a fact the boundary or Python acts on:
 *               no_empty   a row of no elements has no value: an error
 *               position   the result is a position along one axis (a row is
 *                          read in order; axis= is one axis)
 *               ddof       it takes the delta degrees of freedom
 *               skips_nan  NaN elements are left out
 *               whole      dtype= may be an integer dtype: whole numbers
 *               integers   integer x is reduced in an integer dtype, exactly
 *                          (its policy's Whole<I>): sum and prod in int64 or
 *                          uint64 as NumPy accumulates, the extremes in x's
 *                          own; the other rows read integers as float64
 *               own_dtype  x is read in its own dtype (float or bool): it
 *                          asks only whether each element is nonzero
 *               axis0      it takes axis 0 or -1 of a 0-d x (NumPy's ufunc
 *                          reductions do; mean, var and std refuse it)
 *               paired     two results per row (out[0], out[1])
 *   warning   NumPy's RuntimeWarning for a slice of at most ddof elements
 *             (0 without ddof; NaN not counted for skips_nan), "" for none
 */
#ifndef GPUVEC_OP_TABLE_H
#define GPUVEC_OP_TABLE_H

/* Op codes are below this (bindings size their per-op arrays by it). */
#define GPUVEC_OP_CODE_LIMIT 128

/* clang-format off */
#define GPUVEC_ELEMENTWISE_OPS(X)                                                                    \
  /* binary: out = a (op) b */                                                                       \
  X(1, ADD, add, "add", 2, 0, SAME, "fubc", Add, EXACT, 0, 0,                                        \
    "Add the inputs elementwise")                                                                    \
  X(2, SUBTRACT, subtract, "subtract", 2, 0, SAME, "fubc", Subtract, EXACT, 0, 0,                    \
    "Subtract the second input from the first")                                                      \
  X(3, MULTIPLY, multiply, "multiply", 2, 0, SAME, "fubc", Multiply, EXACT, 0, 0,                    \
    "Multiply the inputs elementwise")                                                               \
  X(4, DIVIDE, divide, "divide", 2, 0, SAME, "fc", Divide, EXACT, 0, 0,                              \
    "Divide the first input by the second (true division)")                                          \
  X(5, POWER, power, "power", 2, 0, SAME, "fi", Power, NEAR, 5, 5,                                   \
    "Raise the first input to the power of the second")                                              \
  X(6, MAXIMUM, maximum, "maximum", 2, 0, SAME, "fib", Maximum, EXACT, 0, 0,                         \
    "The larger element, NaN where either is NaN")                                                   \
  X(7, MINIMUM, minimum, "minimum", 2, 0, SAME, "fib", Minimum, EXACT, 0, 0,                         \
    "The smaller element, NaN where either is NaN")                                                  \
  X(8, HYPOT, hypot, "hypot", 2, 0, SAME, "f", Hypot, NEAR, 3, 3,                                    \
    "The hypotenuse sqrt(a**2 + b**2), without overflow")                                            \
  X(9, ARCTAN2, arctan2, "arctan2", 2, 0, SAME, "f", Atan2, NEAR, 3, 3,                              \
    "The angle of the point (b, a) in radians, in [-pi, pi]")                                        \
  /* logaddexp: exp and log1p compound, and a result near zero cancels: 5 ulp in float32 */          \
  X(51, LOGADDEXP, logaddexp, "logaddexp", 2, 0, SAME, "f", LogAddExp, NEAR, 6, 6,                   \
    "log(exp(a) + exp(b)), without overflow")                                                        \
  /* integer division: NumPy's floor semantics, for floats too */                                    \
  X(52, FLOOR_DIVIDE, floor_divide, "floor_divide", 2, 0, SAME, "fi", FloorDivide, EXACT, 0, 0,      \
    "The quotient rounded toward minus infinity (a // b)")                                           \
  X(53, REMAINDER, remainder, "remainder", 2, 0, SAME, "fi", Remainder, EXACT, 0, 0,                 \
    "The remainder of floor division, with the sign of b (a % b)")                                   \
  /* bits: integers (and bools, for the logical bit ops) only */                                     \
  X(54, LEFT_SHIFT, left_shift, "left_shift", 2, 0, SAME, "u", LeftShift, EXACT, 0, 0,               \
    "The bits of a shifted left by b places (a << b)")                                               \
  X(55, RIGHT_SHIFT, right_shift, "right_shift", 2, 0, SAME, "i", RightShift, EXACT, 0, 0,           \
    "The bits of a shifted right by b places, the sign kept (a >> b)")                               \
  X(56, BITWISE_AND, bitwise_and, "bitwise_and", 2, 0, SAME, "ub", BitwiseAnd, EXACT, 0, 0,          \
    "The bits set in both a and b (a & b)")                                                          \
  X(57, BITWISE_OR, bitwise_or, "bitwise_or", 2, 0, SAME, "ub", BitwiseOr, EXACT, 0, 0,              \
    "The bits set in a or in b (a | b)")                                                             \
  X(58, BITWISE_XOR, bitwise_xor, "bitwise_xor", 2, 0, SAME, "ub", BitwiseXor, EXACT, 0, 0,          \
    "The bits set in just one of a and b (a ^ b)")                                                   \
  X(59, GCD, gcd, "gcd", 2, 0, SAME, "i", Gcd, EXACT, 0, 0,                                          \
    "The greatest common divisor of abs(a) and abs(b)")                                              \
  X(60, LCM, lcm, "lcm", 2, 0, SAME, "i", Lcm, EXACT, 0, 0,                                          \
    "The least common multiple of abs(a) and abs(b)")                                                \
  /* unary: out = f(x) */                                                                            \
  X(10, NEGATIVE, negative, "negative", 1, 0, SAME, "fuc", Negative, EXACT, 0, 0,                    \
    "The negated input, -x")                                                                         \
  X(11, ABSOLUTE, absolute, "absolute", 1, 0, SAME, "fib", Abs, EXACT, 0, 0,                         \
    "The absolute value of each element")                                                            \
  X(12, SQRT, sqrt, "sqrt", 1, 0, SAME, "fc", Sqrt, EXACT, 0, 0,                                     \
    "The non-negative square root (NaN below 0)")                                                    \
  X(13, EXP, exp, "exp", 1, 0, SAME, "fc", Exp, NEAR, 3, 3,                                          \
    "The exponential e**x")                                                                          \
  X(14, LOG, log, "log", 1, 0, SAME, "fc", Log, NEAR, 2, 2,                                          \
    "The natural logarithm (NaN below 0, -inf at 0)")                                                \
  X(15, LOG1P, log1p, "log1p", 1, 0, SAME, "f", Log1p, NEAR, 2, 2,                                   \
    "log(1 + x), accurate for small x")                                                              \
  X(16, EXPM1, expm1, "expm1", 1, 0, SAME, "f", Expm1, NEAR, 2, 2,                                   \
    "exp(x) - 1, accurate for small x")                                                              \
  X(17, SIN, sin, "sin", 1, 0, SAME, "f", Sin, NEAR, 3, 3,                                           \
    "The sine of an angle in radians")                                                               \
  X(18, COS, cos, "cos", 1, 0, SAME, "f", Cos, NEAR, 3, 3,                                           \
    "The cosine of an angle in radians")                                                             \
  X(19, TAN, tan, "tan", 1, 0, SAME, "f", Tan, NEAR, 4, 4,                                           \
    "The tangent of an angle in radians")                                                            \
  X(20, ARCSIN, arcsin, "arcsin", 1, 0, SAME, "f", Arcsin, NEAR, 3, 3,                               \
    "The inverse sine, in [-pi/2, pi/2] (NaN outside [-1, 1])")                                      \
  X(21, ARCCOS, arccos, "arccos", 1, 0, SAME, "f", Arccos, NEAR, 3, 3,                               \
    "The inverse cosine, in [0, pi] (NaN outside [-1, 1])")                                          \
  X(22, ARCTAN, arctan, "arctan", 1, 0, SAME, "f", Arctan, NEAR, 3, 3,                               \
    "The inverse tangent, in [-pi/2, pi/2]")                                                         \
  X(23, TANH, tanh, "tanh", 1, 0, SAME, "f", Tanh, NEAR, 3, 3,                                       \
    "The hyperbolic tangent")                                                                        \
  X(24, SIGMOID, sigmoid, "", 1, 0, SAME, "f", Sigmoid, NEAR, 4, 4,                                  \
    "The logistic function 1 / (1 + exp(-x))")                                                       \
  X(25, FLOOR, floor, "floor", 1, 0, SAME, "fib", Floor, EXACT, 0, 0,                                \
    "The largest integer not greater than x")                                                        \
  X(26, CEIL, ceil, "ceil", 1, 0, SAME, "fib", Ceil, EXACT, 0, 0,                                    \
    "The smallest integer not less than x")                                                          \
  X(27, ROUND, round, "rint", 1, 0, SAME, "f", Rint, EXACT, 0, 0,                                    \
    "The nearest integer, halves to even (numpy.round)")                                             \
  X(28, SIGN, sign, "sign", 1, 0, SAME, "fi", Sign, EXACT, 0, 0,                                     \
    "-1, 0 or 1 by the sign of x (NaN stays NaN)")                                                   \
  X(29, TRUNC, trunc, "trunc", 1, 0, SAME, "fib", Trunc, EXACT, 0, 0,                                \
    "x rounded toward zero: its fractional part dropped")                                            \
  /* cbrt: the host compiler may call glibc's vectorised cbrt (libmvec, within 4 ulp), */            \
  /* and CUDA's float64 cbrt was seen 3 ulp from NumPy's on an H100 */                               \
  X(50, CBRT, cbrt, "cbrt", 1, 0, SAME, "f", Cbrt, NEAR, 4, 4,                                       \
    "The cube root, negative for negative x")                                                        \
  X(61, INVERT, invert, "invert", 1, 0, SAME, "ub", Invert, EXACT, 0, 0,                             \
    "The bits of x flipped (~x); for a bool, not x")                                                 \
  X(62, BITWISE_COUNT, bitwise_count, "bitwise_count", 1, 0, UINT8, "i", BitwiseCount, EXACT, 0, 0,  \
    "The number of 1 bits in abs(x)")                                                                \
  /* truth values: a bool result; the inputs compare in the compute dtype */                         \
  X(30, EQUAL, equal, "equal", 2, 0, BOOL, "fubc", Equal, EXACT, 0, 0,                               \
    "True where a == b")                                                                             \
  X(31, NOT_EQUAL, not_equal, "not_equal", 2, 0, BOOL, "fubc", NotEqual, EXACT, 0, 0,                \
    "True where a != b (and where either is NaN)")                                                   \
  X(32, LESS, less, "less", 2, 0, BOOL, "fib", Less, EXACT, 0, 0,                                    \
    "True where a < b")                                                                              \
  X(33, LESS_EQUAL, less_equal, "less_equal", 2, 0, BOOL, "fib", LessEqual, EXACT, 0, 0,             \
    "True where a <= b")                                                                             \
  X(34, GREATER, greater, "greater", 2, 0, BOOL, "fib", Greater, EXACT, 0, 0,                        \
    "True where a > b")                                                                              \
  X(35, GREATER_EQUAL, greater_equal, "greater_equal", 2, 0, BOOL, "fib", GreaterEqual, EXACT, 0, 0, \
    "True where a >= b")                                                                             \
  X(36, LOGICAL_AND, logical_and, "logical_and", 2, 0, TRUTH, "fb", LogicalAnd, EXACT, 0, 0,         \
    "True where a and b are both nonzero")                                                           \
  X(37, LOGICAL_OR, logical_or, "logical_or", 2, 0, TRUTH, "fb", LogicalOr, EXACT, 0, 0,             \
    "True where a or b is nonzero")                                                                  \
  X(38, LOGICAL_XOR, logical_xor, "logical_xor", 2, 0, TRUTH, "fb", LogicalXor, EXACT, 0, 0,         \
    "True where just one of a and b is nonzero")                                                     \
  X(39, LOGICAL_NOT, logical_not, "logical_not", 1, 0, TRUTH, "fb", LogicalNot, EXACT, 0, 0,         \
    "True where x is zero")                                                                          \
  X(40, ISNAN, isnan, "isnan", 1, 0, BOOL, "fibc", IsNan, EXACT, 0, 0,                               \
    "True where x is NaN")                                                                           \
  X(41, ISINF, isinf, "isinf", 1, 0, BOOL, "fibc", IsInf, EXACT, 0, 0,                               \
    "True where x is +inf or -inf")                                                                  \
  X(42, ISFINITE, isfinite, "isfinite", 1, 0, BOOL, "fibc", IsFinite, EXACT, 0, 0,                   \
    "True where x is neither NaN nor infinite")                                                      \
  /* with parameters, and the three-input ops */                                                     \
  X(43, SCALE, scale, "", 1, 1, SAME, "f", Scale, EXACT, 0, 0,                                       \
    "alpha * x")                                                                                     \
  X(44, AXPY, axpy, "", 2, 1, SAME, "f", Axpy, EXACT, 0, 0,                                          \
    "alpha * x + y")                                                                                 \
  X(45, AXPBY, axpby, "", 2, 2, SAME, "f", Axpby, EXACT, 0, 0,                                       \
    "alpha * x + beta * y")                                                                          \
  X(46, CLIP, clip, "clip", 3, 0, SAME, "fib", Clip, EXACT, 0, 0,                                    \
    "x limited to [lo, hi]")                                                                         \
  X(47, WHERE, where, "where", 3, 0, SAME, "fib", Where, EXACT, 0, 0,                                \
    "a where cond is true, else b (cond is a bool array)")

#define GPUVEC_REDUCE_OPS(X)                                                                          \
  X(1, SUM, sum, "sum", "add", 1, SAME, Sum, "whole integers axis0",                                  \
    "", "The sum of the elements")                                                                    \
  X(2, MEAN, mean, "mean", "", 1, SAME, Mean, "",                                                     \
    "Mean of empty slice", "The arithmetic mean")                                                     \
  X(3, MIN, min, "min", "minimum", 1, SAME, Min, "no_empty integers axis0",                           \
    "", "The smallest element (NaN if any is NaN)")                                                   \
  X(4, MAX, max, "max", "maximum", 1, SAME, Max, "no_empty integers axis0",                           \
    "", "The largest element (NaN if any is NaN)")                                                    \
  X(5, ARGMIN, argmin, "argmin", "", 1, INT64, ArgMin, "no_empty position integers axis0",            \
    "", "The index of the smallest element (of the first NaN)")                                       \
  X(6, ARGMAX, argmax, "argmax", "", 1, INT64, ArgMax, "no_empty position integers axis0",            \
    "", "The index of the largest element (of the first NaN)")                                        \
  X(7, PROD, prod, "prod", "multiply", 1, SAME, Prod, "whole integers axis0",                         \
    "", "The product of the elements")                                                                \
  X(8, VAR, var, "var", "", 1, SAME, Var, "ddof",                                                     \
    "Degrees of freedom <= 0 for slice", "The variance")                                              \
  X(9, STD, std, "std", "", 1, SAME, Std, "ddof",                                                     \
    "Degrees of freedom <= 0 for slice", "The standard deviation")                                    \
  /* two results per row: out[0] the means, out[1] the variances or deviations */                     \
  X(10, MEAN_VAR, mean_var, "", "", 1, SAME, MeanVar, "ddof paired",                                  \
    "Degrees of freedom <= 0 for slice", "The mean and the variance, in one pass")                    \
  X(11, MEAN_STD, mean_std, "", "", 1, SAME, MeanStd, "ddof paired",                                  \
    "Degrees of freedom <= 0 for slice", "The mean and the standard deviation, in one pass")          \
  /* NaN left out: the warning is for a slice of NaN alone */                                         \
  X(12, NANSUM, nansum, "nansum", "", 1, SAME, NanSum, "skips_nan whole integers axis0",              \
    "", "The sum, counting NaN as 0")                                                                 \
  X(13, NANMEAN, nanmean, "nanmean", "", 1, SAME, NanMean, "skips_nan axis0",                         \
    "Mean of empty slice", "The mean of the elements that are not NaN")                               \
  X(20, NANMAX, nanmax, "nanmax", "fmax", 1, SAME, NanMax, "no_empty skips_nan integers axis0",       \
    "All-NaN slice encountered", "The largest element that is not NaN")                               \
  X(21, NANMIN, nanmin, "nanmin", "fmin", 1, SAME, NanMin, "no_empty skips_nan integers axis0",       \
    "All-NaN slice encountered", "The smallest element that is not NaN")                              \
  /* BLAS */                                                                                          \
  X(14, ASUM, asum, "", "", 1, SAME, AbsSum, "",                                                      \
    "", "The sum of absolute values (BLAS asum)")                                                     \
  X(15, NRM2, norm, "linalg.norm", "", 1, SAME, Nrm2, "",                                             \
    "", "The Euclidean norm, without overflow (BLAS nrm2)")                                           \
  X(16, DOT, dot, "vdot", "", 2, SAME, Dot, "",                                                       \
    "", "The dot product: the sum of x * y")                                                          \
  /* truth values, of float or bool x: an element is true when x != 0 (NaN is) */                     \
  X(17, ANY, any, "any", "logical_or", 1, BOOL, Any, "own_dtype axis0",                               \
    "", "Whether any element is nonzero")                                                             \
  X(18, ALL, all, "all", "logical_and", 1, BOOL, All, "own_dtype axis0",                              \
    "", "Whether every element is nonzero")                                                           \
  X(19, COUNT_NONZERO, count_nonzero, "count_nonzero", "", 1, INT64, CountNonzero, "own_dtype axis0", \
    "", "The number of nonzero elements")
/* clang-format on */

#endif /* GPUVEC_OP_TABLE_H */
