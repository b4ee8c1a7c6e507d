// <cuComplex.h> in a kernel compiled for the host emulation: CUDA's complex
// numbers, float2 and double2 with functions of their own.
//
// The toolkit's header cannot be used as it is: it includes the toolkit's
// vector_types.h, whose float2 the emulation header defines already. The
// functions compute as the toolkit's do, step for step (division scaled by
// |re| + |im|, the modulus as v * sqrt(1 + (w/v)^2)), and gpuvec compiles
// both backends without contracting a*b + c into an FMA, so a kernel gets
// the same bits on the host as on a GPU.
#pragma once
#include <gpuvec/cuda_emulation.h>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

namespace gpuvec_emu {

// One body for float and double: C is float2 or double2, R its component.
template <class C, class R>
inline C complex_divide(C x, C y) {
  R s = fabs(y.x) + fabs(y.y);
  R oos = R(1) / s;
  const R ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
  s = (brs * brs) + (bis * bis);
  oos = R(1) / s;
  return C{((ars * brs) + (ais * bis)) * oos, ((ais * brs) - (ars * bis)) * oos};
}

// |x| without overflow or underflow in the squares; `largest` is R's
// largest finite value (an infinite part gives v + w, infinity).
template <class C, class R>
inline R complex_modulus(C x, R largest) {
  const R a = fabs(x.x), b = fabs(x.y);
  const R v = a > b ? a : b, w = a > b ? b : a;
  R t = w / v;
  t = R(1) + t * t;
  t = v * sqrt(t);
  if (v == R(0) || v > largest || w > largest) t = v + w;
  return t;
}

template <class C, class R>
inline C complex_fma(C x, C y, C d) {
  R re = (x.x * y.x) + d.x;
  R im = (x.x * y.y) + d.y;
  re = -(x.y * y.y) + re;
  im = (x.y * y.x) + im;
  return C{re, im};
}

}  // namespace gpuvec_emu

inline float cuCrealf(cuFloatComplex x) { return x.x; }
inline float cuCimagf(cuFloatComplex x) { return x.y; }
inline cuFloatComplex make_cuFloatComplex(float r, float i) { return cuFloatComplex{r, i}; }
inline cuFloatComplex make_cuComplex(float r, float i) { return cuFloatComplex{r, i}; }
inline cuFloatComplex cuConjf(cuFloatComplex x) { return {x.x, -x.y}; }
inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) {
  return {x.x + y.x, x.y + y.y};
}
inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) {
  return {x.x - y.x, x.y - y.y};
}
inline cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
  return {(x.x * y.x) - (x.y * y.y), (x.x * y.y) + (x.y * y.x)};
}
inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
  return gpuvec_emu::complex_divide<cuFloatComplex, float>(x, y);
}
inline float cuCabsf(cuFloatComplex x) {
  return gpuvec_emu::complex_modulus<cuFloatComplex, float>(x, 3.402823466e38f);
}
inline cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
  return gpuvec_emu::complex_fma<cuFloatComplex, float>(x, y, d);
}

inline double cuCreal(cuDoubleComplex x) { return x.x; }
inline double cuCimag(cuDoubleComplex x) { return x.y; }
inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return cuDoubleComplex{r, i}; }
inline cuDoubleComplex cuConj(cuDoubleComplex x) { return {x.x, -x.y}; }
inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) {
  return {x.x + y.x, x.y + y.y};
}
inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) {
  return {x.x - y.x, x.y - y.y};
}
inline cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
  return {(x.x * y.x) - (x.y * y.y), (x.x * y.y) + (x.y * y.x)};
}
inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
  return gpuvec_emu::complex_divide<cuDoubleComplex, double>(x, y);
}
inline double cuCabs(cuDoubleComplex x) {
  return gpuvec_emu::complex_modulus<cuDoubleComplex, double>(x, 1.79769313486231570e+308);
}
inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
  return gpuvec_emu::complex_fma<cuDoubleComplex, double>(x, y, d);
}

inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) {
  return {static_cast<double>(c.x), static_cast<double>(c.y)};
}
inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) {
  return {static_cast<float>(c.x), static_cast<float>(c.y)};
}
