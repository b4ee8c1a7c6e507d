/* gpuvec's op table: every op, named once.
 *
 * Each row is one op. The C enums (gpuvec.h), the C++ dispatch to each op's
 * functor (csrc/kit/dispatch.hpp), the table Python reads at import
 * (gpuvec_elementwise_ops, gpuvec_reduce_ops), and through it the public
 * Python functions and the parametrised tests are all made from these rows.
 * Adding an elementwise op is one row here plus its functor in ops.hpp.
 *
 * Elementwise rows: X(NAME, name, arity, params, result, Functor, summary)
 *   NAME      the enum GPUVEC_<NAME>
 *   name      the Python name (NumPy's, where NumPy has the function)
 *   arity     the number of array inputs (1 to 3)
 *   params    the number of double parameters (alpha, beta) the functor takes
 *   result    SAME: the result has the compute dtype; BOOL: it is a truth
 *             value (comparisons, tests), one byte; TRUTH: a truth value
 *             of the inputs' truth values (the logical ops), each input
 *             read as true or false in its own dtype, so the op computes
 *             in bool (logical_and(x32, 1e-300) is x32 != 0)
 *   Functor   the functor in gpuvec::ops (ops.hpp)
 *   summary   one line for the docstring
 *
 * Reduction rows: X(NAME, name, inputs, result, Policy, summary)
 *   inputs    1, or 2 for dot
 *   result    the result's dtype: SAME, the compute dtype; INT64, a position
 *             (argmin, argmax) or a count; BOOL, a truth value (any, all).
 *             gpuvec.h's GPUVEC_RESULT_<result> is its gpuvec_dtype (-1 for SAME)
 *   Policy    the policy in gpuvec::ops::reduce (reduce_ops.hpp)
 */
#ifndef GPUVEC_OP_TABLE_H
#define GPUVEC_OP_TABLE_H

/* clang-format off */
#define GPUVEC_ELEMENTWISE_OPS(X)                                                                     \
  /* binary: out = a (op) b */                                                                        \
  X(ADD, add, 2, 0, SAME, Add, "Add the inputs elementwise")                                          \
  X(SUBTRACT, subtract, 2, 0, SAME, Subtract, "Subtract the second input from the first")             \
  X(MULTIPLY, multiply, 2, 0, SAME, Multiply, "Multiply the inputs elementwise")                      \
  X(DIVIDE, divide, 2, 0, SAME, Divide, "Divide the first input by the second (true division)")       \
  X(POWER, power, 2, 0, SAME, Power, "Raise the first input to the power of the second")              \
  X(MAXIMUM, maximum, 2, 0, SAME, Maximum, "The larger element, NaN where either is NaN")             \
  X(MINIMUM, minimum, 2, 0, SAME, Minimum, "The smaller element, NaN where either is NaN")            \
  X(HYPOT, hypot, 2, 0, SAME, Hypot, "The hypotenuse sqrt(a**2 + b**2), without overflow")            \
  X(ARCTAN2, arctan2, 2, 0, SAME, Atan2, "The angle of the point (b, a) in radians, in [-pi, pi]")    \
  /* unary: out = f(x) */                                                                             \
  X(NEGATIVE, negative, 1, 0, SAME, Negative, "The negated input, -x")                                \
  X(ABSOLUTE, absolute, 1, 0, SAME, Abs, "The absolute value of each element")                        \
  X(SQRT, sqrt, 1, 0, SAME, Sqrt, "The non-negative square root (NaN below 0)")                       \
  X(EXP, exp, 1, 0, SAME, Exp, "The exponential e**x")                                                \
  X(LOG, log, 1, 0, SAME, Log, "The natural logarithm (NaN below 0, -inf at 0)")                      \
  X(LOG1P, log1p, 1, 0, SAME, Log1p, "log(1 + x), accurate for small x")                              \
  X(EXPM1, expm1, 1, 0, SAME, Expm1, "exp(x) - 1, accurate for small x")                              \
  X(SIN, sin, 1, 0, SAME, Sin, "The sine of an angle in radians")                                     \
  X(COS, cos, 1, 0, SAME, Cos, "The cosine of an angle in radians")                                   \
  X(TAN, tan, 1, 0, SAME, Tan, "The tangent of an angle in radians")                                  \
  X(ARCSIN, arcsin, 1, 0, SAME, Arcsin, "The inverse sine, in [-pi/2, pi/2] (NaN outside [-1, 1])")   \
  X(ARCCOS, arccos, 1, 0, SAME, Arccos, "The inverse cosine, in [0, pi] (NaN outside [-1, 1])")       \
  X(ARCTAN, arctan, 1, 0, SAME, Arctan, "The inverse tangent, in [-pi/2, pi/2]")                      \
  X(TANH, tanh, 1, 0, SAME, Tanh, "The hyperbolic tangent")                                           \
  X(SIGMOID, sigmoid, 1, 0, SAME, Sigmoid, "The logistic function 1 / (1 + exp(-x))")                 \
  X(FLOOR, floor, 1, 0, SAME, Floor, "The largest integer not greater than x")                        \
  X(CEIL, ceil, 1, 0, SAME, Ceil, "The smallest integer not less than x")                             \
  X(ROUND, round, 1, 0, SAME, Rint, "The nearest integer, halves to even (numpy.round)")              \
  X(SIGN, sign, 1, 0, SAME, Sign, "-1, 0 or 1 by the sign of x (NaN stays NaN)")                      \
  X(TRUNC, trunc, 1, 0, SAME, Trunc, "x rounded toward zero: its fractional part dropped")            \
  /* truth values: a bool result; the inputs compare in the compute dtype */                          \
  X(EQUAL, equal, 2, 0, BOOL, Equal, "True where a == b")                                             \
  X(NOT_EQUAL, not_equal, 2, 0, BOOL, NotEqual, "True where a != b (and where either is NaN)")        \
  X(LESS, less, 2, 0, BOOL, Less, "True where a < b")                                                 \
  X(LESS_EQUAL, less_equal, 2, 0, BOOL, LessEqual, "True where a <= b")                               \
  X(GREATER, greater, 2, 0, BOOL, Greater, "True where a > b")                                        \
  X(GREATER_EQUAL, greater_equal, 2, 0, BOOL, GreaterEqual, "True where a >= b")                      \
  X(LOGICAL_AND, logical_and, 2, 0, TRUTH, LogicalAnd, "True where a and b are both nonzero")         \
  X(LOGICAL_OR, logical_or, 2, 0, TRUTH, LogicalOr, "True where a or b is nonzero")                   \
  X(LOGICAL_XOR, logical_xor, 2, 0, TRUTH, LogicalXor, "True where just one of a and b is nonzero")   \
  X(LOGICAL_NOT, logical_not, 1, 0, TRUTH, LogicalNot, "True where x is zero")                        \
  X(ISNAN, isnan, 1, 0, BOOL, IsNan, "True where x is NaN")                                           \
  X(ISINF, isinf, 1, 0, BOOL, IsInf, "True where x is +inf or -inf")                                  \
  X(ISFINITE, isfinite, 1, 0, BOOL, IsFinite, "True where x is neither NaN nor infinite")             \
  /* with parameters, and the three-input ops */                                                      \
  X(SCALE, scale, 1, 1, SAME, Scale, "alpha * x")                                                     \
  X(AXPY, axpy, 2, 1, SAME, Axpy, "alpha * x + y")                                                    \
  X(AXPBY, axpby, 2, 2, SAME, Axpby, "alpha * x + beta * y")                                          \
  X(CLIP, clip, 3, 0, SAME, Clip, "x limited to [lo, hi]")                                            \
  X(WHERE, where, 3, 0, SAME, Where, "a where cond is true, else b (cond is a bool array)")

#define GPUVEC_REDUCE_OPS(X)                                                                   \
  X(SUM, sum, 1, SAME, Sum, "The sum of the elements")                                         \
  X(MEAN, mean, 1, SAME, Mean, "The arithmetic mean")                                          \
  X(MIN, min, 1, SAME, Min, "The smallest element (NaN if any is NaN)")                        \
  X(MAX, max, 1, SAME, Max, "The largest element (NaN if any is NaN)")                         \
  X(ARGMIN, argmin, 1, INT64, ArgMin, "The index of the smallest element (of the first NaN)")  \
  X(ARGMAX, argmax, 1, INT64, ArgMax, "The index of the largest element (of the first NaN)")   \
  X(PROD, prod, 1, SAME, Prod, "The product of the elements")                                  \
  X(VAR, var, 1, SAME, Var, "The variance")                                                    \
  X(STD, std, 1, SAME, Std, "The standard deviation")                                          \
  /* two results per row: out[0] the means, out[1] the variances or deviations */              \
  X(MEAN_VAR, mean_var, 1, SAME, MeanVar, "The mean and the variance, in one pass")            \
  X(MEAN_STD, mean_std, 1, SAME, MeanStd, "The mean and the standard deviation, in one pass")  \
  X(NANSUM, nansum, 1, SAME, NanSum, "The sum, counting NaN as 0")                             \
  X(NANMEAN, nanmean, 1, SAME, NanMean, "The mean of the elements that are not NaN")           \
  X(ASUM, asum, 1, SAME, AbsSum, "The sum of absolute values (BLAS asum)")                     \
  X(NRM2, norm, 1, SAME, Nrm2, "The Euclidean norm, without overflow (BLAS nrm2)")             \
  X(DOT, dot, 2, SAME, Dot, "The dot product: the sum of x * y")                               \
  /* truth values, of float or bool x: an element is true when x != 0 (NaN is) */              \
  X(ANY, any, 1, BOOL, Any, "Whether any element is nonzero")                                  \
  X(ALL, all, 1, BOOL, All, "Whether every element is nonzero")                                \
  X(COUNT_NONZERO, count_nonzero, 1, INT64, CountNonzero, "The number of nonzero elements")
/* clang-format on */

#endif /* GPUVEC_OP_TABLE_H */
