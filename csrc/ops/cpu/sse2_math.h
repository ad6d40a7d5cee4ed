// exp and erf on four floats with SSE2 only: the DEFAULT variant's math on x86-64.
//
// Included by kernels_impl.h inside the variant's namespace when ENVCHECK_SSE2_KERNELS is set (the
// DEFAULT variant on x86-64, whose baseline instruction set is SSE2).  There ATen's generic
// Vectorized<float> maps std::exp / std::erf over its lanes one call at a time, and with some torch
// releases' headers (2.13.0) its arithmetic compiled to scalar code through the stack: the DEFAULT
// bias_gelu ran at 0.49x eager torch.  Here exp is a range reduction and a degree-6 polynomial (the
// form of Cephes expf); erf a rational form that needs no exp (below).  No SSE4.1 (no blendv, no roundps):
// selects are and/andnot/or, rounding is cvtps2dq under the default rounding mode.
// (kernels_impl.h includes <emmintrin.h> before the namespaces open.)

// e^r for the reduced argument r = xc - nf ln2: the reduction (ln2 in two parts, so that nf * ln2_hi is
// exact) and the polynomial that exp_ps and exp_nonpos_ps share; the caller scales the result by 2^n.
inline __m128 exp_reduced_ps(__m128 xc, __m128 nf) {
  __m128 r = _mm_sub_ps(xc, _mm_mul_ps(nf, _mm_set1_ps(0.693359375f)));
  r = _mm_sub_ps(r, _mm_mul_ps(nf, _mm_set1_ps(-2.12194440e-4f)));
  __m128 p = _mm_set1_ps(1.9875691500e-4f);
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.3981999507e-3f));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(8.3334519073e-3f));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(4.1665795894e-2f));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.6666665459e-1f));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(5.0000001201e-1f));
  return _mm_add_ps(_mm_mul_ps(_mm_mul_ps(p, r), r), _mm_add_ps(r, _mm_set1_ps(1.0f)));
}

// e^x (Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, then Cephes' degree-6 polynomial for e^r,
// then scaling by 2^n as two exact power-of-two factors 2^(n/2) 2^(n - n/2), so that a subnormal result
// is rounded once instead of flushed to 0 and 2^128 need not be representable).  Accuracy against
// float64: docs/kernels.md (tests/integration/ext/test_vec_math.py holds it to its bound).  Special
// values: exp(-inf) = +0, exp(+inf) = +inf, exp(nan) = nan; x past the overflow threshold gives +inf.
inline __m128 exp_ps(__m128 x) {
  // Past these the result is 0 or +inf anyway; the clamp keeps n in [-150, 128].  maxps / minps return
  // their second operand when one is nan: x is second, so a nan lane stays nan through the clamp, and
  // from there through p (whatever cvtps2dq made of n: nan times any scale is nan), with no select.
  const __m128 xc = _mm_min_ps(_mm_set1_ps(89.0f), _mm_max_ps(_mm_set1_ps(-104.0f), x));
  const __m128i n = _mm_cvtps_epi32(_mm_mul_ps(xc, _mm_set1_ps(1.44269504088896341f)));
  const __m128 nf = _mm_cvtepi32_ps(n);
  const __m128 p = exp_reduced_ps(xc, nf);
  const __m128i n1 = _mm_srai_epi32(n, 1), n2 = _mm_sub_epi32(n, n1);  // both in [-75, 64]
  const __m128i bias = _mm_set1_epi32(127);
  const __m128 s1 = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(n1, bias), 23));
  const __m128 s2 = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(n2, bias), 23));
  return _mm_mul_ps(_mm_mul_ps(p, s1), s2);
}

// e^x for x <= 0 (or -inf, or nan), results below 2^-126 flushed to +0: softmax's exp(x - max) (see
// exp_nonpos_vf in vec_math.h).  The same reduction and polynomial as exp_ps; n = round(x log2e) as the
// low bits of x log2e + 1.5 2^23 + 127 (the rounding happens in the add), whose shift by 23 is 2^n (n = -127,
// from x = -88 down, gives +0).  No conversions, no upper clamp, one scaling multiply: 24 instructions
// against exp_ps's 31.  maxps returns its second operand, x, for a nan lane: the nan runs through.
inline __m128 exp_nonpos_ps(__m128 x) {
  const __m128 xc = _mm_max_ps(_mm_set1_ps(-88.0f), x);
  const __m128 magic = _mm_set1_ps(12582912.0f + 127.0f);
  const __m128 m = _mm_add_ps(_mm_mul_ps(xc, _mm_set1_ps(1.44269504088896341f)), magic);
  const __m128 nf = _mm_sub_ps(m, magic);
  const __m128 p = exp_reduced_ps(xc, nf);
  return _mm_mul_ps(p, _mm_castsi128_ps(_mm_slli_epi32(_mm_castps_si128(m), 23)));
}

// erf(x) as a rational function: x P(x^2) / Q(x^2) on x clamped to [-4, 4] (beyond it erf is +-1 in
// float).  Coefficients: the float erf of XLA (MaterializeErfApproximationF32 in tensorflow/mlir-hlo,
// from Eigen's generic_fast_erf_float).  Absolute error against math.erf over [-6, 6], evaluated in
// double: 6.5e-8; no exp and one division, about half the work of the A&S 7.1.26 form with exp that
// ATen's wider variants use.  nan stays nan (the clamp keeps it: maxps/minps return their second
// operand when one is nan).
inline __m128 erf_ps(__m128 x) {
  const __m128 xc = _mm_min_ps(_mm_set1_ps(4.0f), _mm_max_ps(_mm_set1_ps(-4.0f), x));
  const __m128 x2 = _mm_mul_ps(xc, xc);
  __m128 p = _mm_set1_ps(-2.72614225801306e-10f);
  p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(2.77068142495902e-08f));
  p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-2.10102402082508e-06f));
  p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-5.69250639462346e-05f));
  p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-7.34990630326855e-04f));
  p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-2.95459980854025e-03f));
  p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-1.60960333262415e-02f));
  __m128 q = _mm_set1_ps(-1.45660718464996e-05f);
  q = _mm_add_ps(_mm_mul_ps(q, x2), _mm_set1_ps(-2.13374055278905e-04f));
  q = _mm_add_ps(_mm_mul_ps(q, x2), _mm_set1_ps(-1.68282697438203e-03f));
  q = _mm_add_ps(_mm_mul_ps(q, x2), _mm_set1_ps(-7.37332916720468e-03f));
  q = _mm_add_ps(_mm_mul_ps(q, x2), _mm_set1_ps(-1.42647390514189e-02f));
  return _mm_div_ps(_mm_mul_ps(xc, p), q);
}

// GELU (exact form): 0.5 z (1 + erf(z / sqrt 2)), z raised to at least -20 first (see gelu_vec in
// bias_gelu_kernel_isa.h: GELU(-inf) is 0, not -inf * 0).  maxps returns its second operand when one is
// nan, so a nan z stays nan.
inline __m128 gelu_ps(__m128 z) {
  z = _mm_max_ps(_mm_set1_ps(-20.0f), z);
  const __m128 w = erf_ps(_mm_mul_ps(z, _mm_set1_ps(static_cast<float>(M_SQRT1_2))));
  return _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), z), _mm_add_ps(_mm_set1_ps(1.0f), w));
}

// The first `cnt` (< 4) floats of p, the other lanes 0; and the store of the first `cnt` lanes.
inline __m128 sse_load_partial(const float* p, int64_t cnt) {
  alignas(16) float tmp[4] = {0.f, 0.f, 0.f, 0.f};
  for (int64_t t = 0; t < cnt; ++t) tmp[t] = p[t];
  return _mm_load_ps(tmp);
}
inline void sse_store_partial(float* p, __m128 v, int64_t cnt) {
  alignas(16) float tmp[4];
  _mm_store_ps(tmp, v);
  for (int64_t t = 0; t < cnt; ++t) p[t] = tmp[t];
}
