// e^x and GELU on a whole vector for the AVX2 and AVX-512 variants (the DEFAULT variant's are in
// sse2_math.h; elsewhere ATen's exp_u20 and erf).
//
// Included by kernels_impl.h inside the variant's namespace, after common_isa.h (Vec).  The method:
//  1. x = n ln2 + r with n = round(x / ln2), |r| <= ln2/2, ln2 in two parts (Cody-Waite) so that
//     n * ln2_hi is exact, both steps FMAs;
//  2. e^r = 1 + r + r^2 P(r), P of degree 5 (the minimax coefficients of Cephes' expf);
//  3. e^x = e^r 2^n, by vscalefps on AVX-512 (one rounding, correct into the subnormals and to +inf),
//     and on AVX2 by two exact power-of-two factors 2^(n/2) 2^(n - n/2), so that a subnormal result is
//     rounded once, not flushed to 0.
// Accuracy against float64 (tests/integration/ext/test_vec_math.py; docs/kernels.md has the figures):
// within 1.27 ulp of the correctly rounded result (1.263 over all 2^32 floats, AVX-512), subnormal results
// included (their ulp is 2^-149).
// Special values: exp(-inf) = +0, exp(+inf) = +inf, exp(nan) = nan, a result past FLT_MAX is +inf.

#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)

#if defined(CPU_CAPABILITY_AVX512)
using VecF = __m512;
inline VecF vf_set(float v) { return _mm512_set1_ps(v); }
inline VecF vf_fma(VecF a, VecF b, VecF c) { return _mm512_fmadd_ps(a, b, c); }
inline VecF vf_mul(VecF a, VecF b) { return _mm512_mul_ps(a, b); }
inline VecF vf_add(VecF a, VecF b) { return _mm512_add_ps(a, b); }
inline VecF vf_min(VecF a, VecF b) { return _mm512_min_ps(a, b); }
inline VecF vf_max(VecF a, VecF b) { return _mm512_max_ps(a, b); }
inline VecF vf_round(VecF a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
#else
using VecF = __m256;
inline VecF vf_set(float v) { return _mm256_set1_ps(v); }
inline VecF vf_fma(VecF a, VecF b, VecF c) { return _mm256_fmadd_ps(a, b, c); }
inline VecF vf_mul(VecF a, VecF b) { return _mm256_mul_ps(a, b); }
inline VecF vf_add(VecF a, VecF b) { return _mm256_add_ps(a, b); }
inline VecF vf_min(VecF a, VecF b) { return _mm256_min_ps(a, b); }
inline VecF vf_max(VecF a, VecF b) { return _mm256_max_ps(a, b); }
inline VecF vf_round(VecF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
#endif

inline VecF exp_vf(VecF x) {
  // Past these the result is 0 or +inf anyway; the clamp keeps n in [-150, 128].  min/max return their
  // second operand, x, for a nan lane: the nan runs through every step (AVX2: p is nan, whatever the
  // conversion of n made of it) and comes out quiet.
  const VecF xc = vf_min(vf_set(89.0f), vf_max(vf_set(-104.0f), x));
  const VecF n = vf_round(vf_mul(xc, vf_set(1.44269504088896341f)));
  VecF r = vf_fma(n, vf_set(-0.693359375f), xc);  // ln2_hi has 11 significant bits: n * ln2_hi exact
  r = vf_fma(n, vf_set(2.12194440e-4f), r);       // -ln2_lo
  VecF p = vf_set(1.9875691500e-4f);
  p = vf_fma(p, r, vf_set(1.3981999507e-3f));
  p = vf_fma(p, r, vf_set(8.3334519073e-3f));
  p = vf_fma(p, r, vf_set(4.1665795894e-2f));
  p = vf_fma(p, r, vf_set(1.6666665459e-1f));
  p = vf_fma(p, r, vf_set(5.0000001201e-1f));
  p = vf_fma(vf_mul(p, r), r, vf_add(r, vf_set(1.0f)));
#if defined(CPU_CAPABILITY_AVX512)
  const VecF y = _mm512_scalef_ps(p, n);
#else
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i n1 = _mm256_srai_epi32(ni, 1);
  const __m256i n2 = _mm256_sub_epi32(ni, n1);
  const __m256i bias = _mm256_set1_epi32(127);
  const VecF s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  const VecF s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
  const VecF y = vf_mul(vf_mul(p, s1), s2);
#endif
  return y;
}

inline Vec exp_vec(const Vec& x) { return Vec(exp_vf(x)); }

#if defined(CPU_CAPABILITY_AVX512)
inline VecF vf_div(VecF a, VecF b) { return _mm512_div_ps(a, b); }

// GELU (exact form) through erfc, with no cancellation on either side:
//   GELU(z) = 0.5 z erfc(-z / sqrt 2) = 0.5 z erfc(a) for z <= 0 and 0.5 z (2 - erfc(a)) for z > 0,
//   a = |z| / sqrt 2,
// where 1 + erf(u) for a negative u (what the erf form computes) loses all but a few bits to cancellation
// below z = -3.  erfc(a) = t exp(-a^2 + P(t)), t = 1 / (1 + a/2), P of degree 9: Numerical Recipes in C,
// 2nd ed. (1992), section 6.2, erfcc (fractional error below 1.2e-7 for every a >= 0).  The exponent is
// kept exact where it matters: a^2 = z^2 / 2 = hi + lo exactly (an FMA gives the low part; halving is
// exact), and -hi + (P - lo) = s + e exactly (TwoSum), then exp(s) (1 + e): a rounded -a^2 + P alone would
// lose up to 2^-24 a^2 of relative accuracy (about 80 ulp at z = -10).  z is raised to at least -20 (GELU
// there rounds to -0; GELU(-inf) is 0, not -inf * 0) and |z| held at most 18 (erfc(18 / sqrt 2) is 0 in
// float; an infinite z would make z^2 - z^2 a nan).  max / min return their second operand, z, for a nan
// lane: a nan stays nan.  GELU(+inf) = +inf.  On AVX2 (16 registers) this form measured about twice the
// time of the one below.
inline VecF gelu_vf(VecF z) {
  z = vf_max(vf_set(-20.0f), z);
  const VecF h = vf_mul(vf_set(0.5f), z);
  const VecF az = vf_min(vf_set(18.0f), _mm512_abs_ps(z));
  const VecF a = vf_mul(az, vf_set(static_cast<float>(M_SQRT1_2)));
  const VecF t = vf_div(vf_set(1.0f), vf_fma(a, vf_set(0.5f), vf_set(1.0f)));
  VecF p = vf_set(0.17087277f);
  p = vf_fma(p, t, vf_set(-0.82215223f));
  p = vf_fma(p, t, vf_set(1.48851587f));
  p = vf_fma(p, t, vf_set(-1.13520398f));
  p = vf_fma(p, t, vf_set(0.27886807f));
  p = vf_fma(p, t, vf_set(-0.18628806f));
  p = vf_fma(p, t, vf_set(0.09678418f));
  p = vf_fma(p, t, vf_set(0.37409196f));
  p = vf_fma(p, t, vf_set(1.00002368f));
  p = vf_fma(p, t, vf_set(-1.26551223f));
  // -a^2 = -(zz + zz_lo) / 2 exactly; nh = -hi, b = P - lo
  const VecF zz = vf_mul(az, az);
  const VecF zz_lo = _mm512_fmsub_ps(az, az, zz);
  const VecF nh = vf_mul(zz, vf_set(-0.5f)), b = _mm512_fmadd_ps(zz_lo, vf_set(-0.5f), p);
  // TwoSum: nh + b = s + e exactly
  const VecF s = vf_add(nh, b), bb = _mm512_sub_ps(s, nh);
  const VecF e = vf_add(_mm512_sub_ps(nh, _mm512_sub_ps(s, bb)), _mm512_sub_ps(b, bb));
  const VecF ex = exp_vf(s);
  const VecF erfc = vf_mul(t, vf_fma(ex, e, ex));
  const VecF r = _mm512_mask_sub_ps(erfc, _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_GT_OQ), vf_set(2.0f), erfc);
  return vf_mul(h, r);
}
#define ENVCHECK_HAVE_GELU_VF 1
#else   // AVX2
// GELU (exact form) for AVX2, all in line: no call and no spill in the kernel's loop (ATen's erf calls
// Sleef_expf8_u10 out of line, and every call saves and reloads the live registers and constants).
//  * |z| >= 0.75: 0.5 z (1 + erf(z / sqrt 2)) with erf by Abramowitz & Stegun 7.1.26 (the form ATen's
//    Vectorized<float>::erf uses; |error| <= 1.5e-7): 1 + erf = 2 - w for z > 0 and w for z < 0,
//    w = t r(t) exp(-z^2 / 2), t = 1 / (1 + p |z| / sqrt 2), r of degree 4.  exp(-u), u = z^2 / 2 in
//    [0, 88]: n = round(-u / ln2) by adding 1.5 * 2^23 + 127 (its low bits are then n + 127, the exponent
//    field of 2^n after a shift), -u - n ln2 with ln2 in one constant (n <= 126: at most 3e-7 of e^-u,
//    which is multiplied by t r <= 1 and lost against 2 or alone within the absolute bound below), and
//    a degree-6 polynomial; 2^n flushes to 0 below 2^-126 (n = -127 gives the exponent field 0), where w
//    is nothing beside 2 and the GELU of z < 0 a subnormal within the absolute bound: GELU(-20) is 0.
//  * |z| < 0.75: 0.5 z + u T(u), T the Taylor series of (Phi(z) - 1/2) / (z u) = sqrt(2/pi) sum (-u)^k /
//    (k! (2k+1)) to k = 5 (the next term is below 4e-9 of the result): no cancellation near 0, where the
//    float A&S erf, whose r(t) sums terms of size 1.4 to about 1, is off by up to 5e-7 (8.5 ulp of GELU).
// Accuracy (tests/integration/ext/test_vec_math.py; docs/kernels.md): 2.4 ulp for z >= 0 sampled (2.95
// over every float in [0.25, 4)), and
// for z < 0 the erf form's absolute bound (2.2e-7; below z = -0.75 the result is small, so that is many
// ulp).  z is raised to at least -20 (GELU(-inf) = 0; below -20 GELU rounds to -0); max returns its
// second operand, z, for a nan lane, and a nan runs through both forms.  GELU(+inf) = +inf (t = 0,
// w = 0).
inline VecF gelu_vf(VecF z) {
  z = vf_max(vf_set(-20.0f), z);
  const VecF h = vf_mul(vf_set(0.5f), z);
  const VecF u = vf_mul(h, z);  // z^2 / 2
  const VecF az = _mm256_and_ps(z, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
  // t = 1 / (1 + p |z| / sqrt 2), p = 0.3275911
  const VecF t = _mm256_div_ps(vf_set(1.0f), vf_fma(az, vf_set(0.231641889f), vf_set(1.0f)));
  VecF r = vf_fma(vf_set(1.061405429f), t, vf_set(-1.453152027f));
  r = vf_fma(r, t, vf_set(1.421413741f));
  r = vf_fma(r, t, vf_set(-0.284496736f));
  r = vf_fma(r, t, vf_set(0.254829592f));
  const VecF tr = vf_mul(t, r);
  // e = exp(-u) = 2^n e^-q, q = u + n ln2
  const VecF uc = vf_min(u, vf_set(88.0f));  // from u = 88 on, n = -127: the exponent field 0, e = +0
  const VecF magic = vf_set(12582912.0f + 127.0f);
  const VecF m = vf_fma(uc, vf_set(-1.44269504088896341f), magic);
  const VecF n = _mm256_sub_ps(m, magic);
  const VecF q = vf_fma(n, vf_set(0.693147181f), uc);
  // e^-q for |q| <= ln2 / 2: a degree-6 polynomial fitted for relative error (1.7e-8 with these float
  // coefficients), one FMA per degree
  VecF p = vf_set(1.38368353e-3f);
  p = vf_fma(p, q, vf_set(-8.37481581e-3f));
  p = vf_fma(p, q, vf_set(4.16682251e-2f));
  p = vf_fma(p, q, vf_set(-1.66664198e-1f));
  p = vf_fma(p, q, vf_set(4.99999911e-1f));
  p = vf_fma(p, q, vf_set(-1.0f));
  p = vf_fma(p, q, vf_set(1.0f));
  const VecF e = vf_mul(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(m), 23)));
  // 1 + erf: w where z < 0 (blendv takes the second operand where z's sign bit is set), else 2 - w
  const VecF w = vf_mul(tr, e);
  const VecF one_plus_erf = _mm256_blendv_ps(_mm256_sub_ps(vf_set(2.0f), w), w, z);
  const VecF big = vf_mul(h, one_plus_erf);
  VecF s = vf_set(-6.04457979e-4f);
  s = vf_fma(s, u, vf_set(3.69391008e-3f));
  s = vf_fma(s, u, vf_set(-1.89972520e-2f));
  s = vf_fma(s, u, vf_set(7.97884539e-2f));
  s = vf_fma(s, u, vf_set(-2.65961528e-1f));
  s = vf_fma(s, u, vf_set(7.97884561e-1f));
  const VecF small = vf_fma(u, s, h);
  return _mm256_blendv_ps(big, small, _mm256_cmp_ps(u, vf_set(0.28125f), _CMP_LT_OQ));  // |z| < 0.75
}
#define ENVCHECK_HAVE_GELU_VF 1
#endif  // CPU_CAPABILITY_AVX512

#define ENVCHECK_HAVE_VEC_MATH 1
#else
inline Vec exp_vec(const Vec& x) { return x.exp_u20(); }
#endif  // CPU_CAPABILITY_AVX512 || CPU_CAPABILITY_AVX2

// Exact GELU: 0.5 * z * (1 + erf(z / sqrt(2))).  z is first raised to at least kGeluFloor: below it the
// true GELU rounds to -0 in float (|GELU(-15)| < 1e-49), and the formula alone would give
// -inf * 0 = nan at z = -inf, where the limit is 0.  maximum() keeps a nan.
constexpr float kGeluFloor = -20.0f;
inline Vec gelu_vec(Vec z) {
#if defined(ENVCHECK_HAVE_GELU_VF)
  return Vec(gelu_vf(z));
#else
  // ATen's erf (the generic code off x86)
  const Vec half(0.5f), one(1.0f), rsqrt2(static_cast<float>(M_SQRT1_2));
  z = at::vec::maximum(z, Vec(kGeluFloor));
  return half * z * (one + (z * rsqrt2).erf());
#endif
}
