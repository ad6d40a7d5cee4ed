// e^x and GELU on a whole vector for the AVX2 and AVX-512 variants (the DEFAULT variant's are in
// sse2_math.h; elsewhere ATen's exp_u20 and erf).
//
// Included by kernels_impl.h inside the variant's namespace, after common_isa.h (Vec).  The method:
//  1. x = n ln2 + r with n = round(x / ln2), |r| <= ln2/2, ln2 in two parts (Cody-Waite) so that
//     n * ln2_hi is exact, both steps FMAs;
//  2. e^r by a degree-6 polynomial in Horner form, one FMA per degree, 1 + r (1 + r (c2 + ...)) with
//     c2..c6 fitted for relative error (benchmarks/exp_poly_fit.py; Cephes' expf form, 1 + r + r^2 P(r)
//     with P of degree 5, took two instructions more and was less accurate);
//  3. e^x = e^r 2^n, by vscalefps on AVX-512 (one rounding, correct into the subnormals and to +inf),
//     and on AVX2 by two exact power-of-two factors 2^(n/2) 2^(n - n/2), so that a subnormal result is
//     rounded once, not flushed to 0.
// Accuracy against float64 (tests/integration/ext/test_vec_math.py; docs/kernels.md has the figures):
// within 0.91 ulp of the correctly rounded result (0.909 over all 2^32 floats, AVX-512), subnormal results
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

// e^r for the reduced argument r = xc - n ln2 (|r| <= ln2 / 2): the reduction (ln2 in two parts) and the
// polynomial that exp_vf and exp_nonpos_vf share; the caller scales the result by 2^n.
inline VecF exp_reduced_vf(VecF xc, VecF n) {
  VecF r = vf_fma(n, vf_set(-0.693359375f), xc);  // ln2_hi has 11 significant bits: n * ln2_hi exact
  r = vf_fma(n, vf_set(2.12194440e-4f), r);       // -ln2_lo
  // degree 6 in Horner form, c0 = c1 = 1 exact (benchmarks/exp_poly_fit.py fits c2..c6 for relative
  // error: 3.1e-9 in float64, 0.72 ulp with these float coefficients and one rounding per FMA)
  VecF p = vf_set(1.3814464910e-3f);
  p = vf_fma(p, r, vf_set(8.3687808365e-3f));
  p = vf_fma(p, r, vf_set(4.1668392718e-2f));
  p = vf_fma(p, r, vf_set(1.6666519642e-1f));
  p = vf_fma(p, r, vf_set(4.9999994040e-1f));
  p = vf_fma(p, r, vf_set(1.0f));
  p = vf_fma(p, r, vf_set(1.0f));
  return p;
}

inline VecF exp_vf(VecF x) {
  // Past these the result is 0 or +inf anyway; the clamp keeps n in [-150, 128].  min/max return their
  // second operand, x, for a nan lane: the nan runs through every step (AVX2: p is nan, whatever the
  // conversion of n made of it) and comes out quiet.
  const VecF xc = vf_min(vf_set(89.0f), vf_max(vf_set(-104.0f), x));
  const VecF n = vf_round(vf_mul(xc, vf_set(1.44269504088896341f)));
  const VecF p = exp_reduced_vf(xc, n);
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

// e^x for x <= 0 (or -inf, or nan), results below 2^-126 flushed to +0: softmax's exp(x - max), whose
// subnormal results are below any tolerance of a probability (torch's own softmax flushes them too: Sleef's
// exp_u20).  The same reduction and polynomial as exp_vf, so normal results are the same; without the upper
// clamp and the two-factor scaling: n = round(x / ln2) as the low bits of x log2e + 1.5 2^23 + 127 (one FMA),
// whose shift by 23 is 2^n (n = -127, from x = -88 down, gives the exponent field 0: +0).  x is raised to
// at least -88 (exp(-inf) = +0); max returns its second operand, x, for a nan lane, and the nan runs through.
// AVX2: 15 instructions per vector against exp_vf's 22.
inline VecF exp_nonpos_vf(VecF x) {
#if defined(CPU_CAPABILITY_AVX512)
  return exp_vf(x);  // vscalefps already scales in one instruction
#else
  const VecF xc = vf_max(vf_set(-88.0f), x);
  const VecF magic = vf_set(12582912.0f + 127.0f);
  const VecF m = vf_fma(xc, vf_set(1.44269504088896341f), magic);
  const VecF n = _mm256_sub_ps(m, magic);
  return vf_mul(exp_reduced_vf(xc, n), _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(m), 23)));
#endif
}

#if defined(CPU_CAPABILITY_AVX512)
// GELU (exact form) as GELU(z) = z Phi(z), Phi the normal distribution function, with no cancellation on
// either side and no divide:
//   q = Phi(-|z|) = exp(-z^2 / 2) R(|z|),  R(a) = Phi(-a) exp(a^2 / 2) (a smooth function, 0.5 at 0,
//   about 1 / (a sqrt(2 pi)) for large a);  GELU(z) = z q for z <= 0 and z - z q for z > 0.
// * exp(-z^2 / 2) without the rounding of z^2: -z^2 / 2 = s + s_lo exactly (s = (-z / 2) z rounded, s_lo
//   by an FMA; halving is exact), n = round(s / ln2), r = s - n ln2 (Cody-Waite, ln2 in two parts) + s_lo,
//   e^r by a degree-6 polynomial (a least-squares fit for relative error on |r| <= 0.35, 2.1e-9), and the
//   2^n last, by vscalefps on the whole product z e^r R: one rounding into the subnormals.  Without s_lo
//   the rounding of z^2 alone costs up to 2^-24 z^2 / 2 relative: about 100 ulp at z = -14.
// * R from a table: 32 pieces of width 1/2 centred at a = i / 2 (i = round(2a), the index read from the
//   low mantissa bits of 2a + 1.5 * 2^23, one FMA), each a degree-5 polynomial in u = 2a - i in [-1/2, 1/2],
//   the coefficients picked per lane by vpermt2ps from two registers (kGeluR[k]: benchmarks/gelu_tables.py
//   fits and prints them; relative error 1.4e-7 with float coefficients and Horner's rounding).
// z is held in [-15.25, 15.25] for q (a = 15.25 is piece 30.5 -> 30 or 31, both in the table; there z q
// is far below the least subnormal and rounds to -0 or 0), z itself is kept for z - z q: GELU(+inf) = +inf,
// GELU(-inf) = -0 (-15.25 * 0), and for z > 15.25 the result is z.  max / min return their second operand,
// z, for a nan lane: a nan runs through (the compare is false) and comes out nan.
// Accuracy (tests/integration/ext/test_vec_math.py, docs/kernels.md): within 3.7 ulp where the result is
// normal, over every float and densely over [-16, 16].
alignas(64) constexpr float kGeluR[6][32] = {
    {5.000000000e-01f, 3.496188521e-01f, 2.615782917e-01f, 2.057806700e-01f, 1.681019962e-01f, 1.413313299e-01f, 1.215139478e-01f, 1.063451543e-01f, 9.441064298e-02f, 8.480339497e-02f, 7.691930234e-02f, 7.034269720e-02f, 6.477931142e-02f, 6.001567468e-02f, 5.589348078e-02f, 5.229309574e-02f, 4.912254587e-02f, 4.631004483e-02f, 4.379878938e-02f, 4.154329002e-02f, 3.950669244e-02f, 3.765885904e-02f, 3.597488999e-02f, 3.443405777e-02f, 3.301897272e-02f, 3.171492741e-02f, 3.050941415e-02f, 2.939173207e-02f, 2.835266106e-02f, 2.738422528e-02f, 2.647948824e-02f, 2.563239075e-02f},
    {-1.994709969e-01f, -1.120664179e-01f, -6.868199259e-02f, -4.513563961e-02f, -3.136913851e-02f, -2.280697599e-02f, -1.720021851e-02f, -1.336712111e-02f, -1.064985804e-02f, -8.663508110e-03f, -7.172877900e-03f, -6.028731819e-03f, -5.133197177e-03f, -4.420195241e-03f, -3.843951738e-03f, -3.372025909e-03f, -2.980955411e-03f, -2.653456992e-03f, -2.376590390e-03f, -2.140519908e-03f, -1.937669702e-03f, -1.762131928e-03f, -1.609247294e-03f, -1.475303317e-03f, -1.357313711e-03f, -1.252855407e-03f, -1.159945969e-03f, -1.076951739e-03f, -1.002516481e-03f, -9.355075890e-04f, -8.749727276e-04f, -8.201070596e-04f},
    {6.249668449e-02f, 2.969233505e-02f, 1.552622207e-02f, 8.796513081e-03f, 5.328099243e-03f, 3.412021790e-03f, 2.289064461e-03f, 1.596905291e-03f, 1.151468605e-03f, 8.539754199e-04f, 6.488147192e-04f, 5.033300840e-04f, 3.976180451e-04f, 3.191417491e-04f, 2.597697312e-04f, 2.140882716e-04f, 1.784074993e-04f, 1.501589868e-04f, 1.275204413e-04f, 1.091764716e-04f, 9.416251123e-05f, 8.176101983e-05f, 7.143116090e-05f, 6.276031490e-05f, 5.543016596e-05f, 4.919260027e-05f, 4.385236753e-05f, 3.925446072e-05f, 3.527478111e-05f, 3.181323336e-05f, 2.878847408e-05f, 2.613397191e-05f},
    {-1.659418084e-02f, -6.864376366e-03f, -3.135686275e-03f, -1.562113874e-03f, -8.380298386e-04f, -4.788888618e-04f, -2.888102317e-04f, -1.823936473e-04f, -1.198394821e-04f, -8.147568587e-05f, -5.705980584e-05f, -4.100773003e-05f, -3.014796130e-05f, -2.261243208e-05f, -1.726441042e-05f, -1.339169194e-05f, -1.053617598e-05f, -8.396126759e-06f, -6.768476396e-06f, -5.513864835e-06f, -4.534926575e-06f, -3.762518190e-06f, -3.146794370e-06f, -2.651322802e-06f, -2.249133104e-06f, -1.920023124e-06f, -1.648692546e-06f, -1.423436629e-06f, -1.235214654e-06f, -1.076981903e-06f, -9.432033039e-07f, -8.294957752e-07f},
    {3.794641932e-03f, 1.445089001e-03f, 5.844659754e-04f, 2.590753429e-04f, 1.243644947e-04f, 6.396820390e-05f, 3.493160330e-05f, 2.009135824e-05f, 1.208903268e-05f, 7.565936812e-06f, 4.901168722e-06f, 3.272657978e-06f, 2.244572443e-06f, 1.576495151e-06f, 1.130993496e-06f, 8.269437330e-07f, 6.150523291e-07f, 4.645695810e-07f, 3.558505171e-07f, 2.760683628e-07f, 2.166799788e-07f, 1.718904059e-07f, 1.377023864e-07f, 1.113156287e-07f, 9.074023666e-08f, 7.454309525e-08f, 6.167955036e-08f, 5.137915693e-08f, 4.306762946e-08f, 3.631267020e-08f, 3.078568511e-08f, 2.623482409e-08f},
    {-6.227680133e-04f, -2.739571210e-04f, -9.962374315e-05f, -3.981373084e-05f, -1.729305768e-05f, -8.081830856e-06f, -4.027700015e-06f, -2.123722879e-06f, -1.176684464e-06f, -6.810418540e-07f, -4.096609416e-07f, -2.549800797e-07f, -1.635981590e-07f, -1.078515695e-07f, -7.284978665e-08f, -5.029505346e-08f, -3.541575921e-08f, -2.538862098e-08f, -1.849903697e-08f, -1.368074010e-08f, -1.025601293e-08f, -7.785190270e-09f, -5.977942141e-09f, -4.639316931e-09f, -3.636018153e-09f, -2.875704119e-09f, -2.293938817e-09f, -1.844366659e-09f, -1.493865587e-09f, -1.218501189e-09f, -1.000245220e-09f, -8.262378004e-10f},
};
inline VecF gelu_vf(VecF z) {
  const VecF zc = vf_min(vf_set(15.25f), vf_max(vf_set(-15.25f), z));
  // -zc^2 / 2 = s + s_lo exactly
  const VecF hz = vf_mul(zc, vf_set(-0.5f));
  const VecF s = vf_mul(hz, zc);
  const VecF s_lo = _mm512_fmsub_ps(hz, zc, s);
  const VecF n = vf_round(vf_mul(s, vf_set(1.44269504088896341f)));
  VecF r = vf_fma(n, vf_set(-0.693359375f), s);  // ln2_hi has 11 significant bits: n * ln2_hi exact
  r = vf_fma(n, vf_set(2.12194440e-4f), r);       // -ln2_lo
  r = vf_add(r, s_lo);
  VecF e = vf_set(1.384270843e-03f);
  e = vf_fma(e, r, vf_set(8.374962956e-03f));
  e = vf_fma(e, r, vf_set(4.166805744e-02f));
  e = vf_fma(e, r, vf_set(1.666642129e-01f));
  e = vf_fma(e, r, vf_set(4.999999404e-01f));
  e = vf_fma(e, r, vf_set(1.0f));
  e = vf_fma(e, r, vf_set(1.0f));
  // R(a): piece i = round(2a) (its bits are the low bits of m), u = 2a - i
  const VecF a = _mm512_abs_ps(zc);
  const VecF magic = vf_set(12582912.0f);
  const VecF m = vf_fma(a, vf_set(2.0f), magic);
  const __m512i i = _mm512_castps_si512(m);
  const VecF u = _mm512_fmsub_ps(a, vf_set(2.0f), _mm512_sub_ps(m, magic));
  const auto coef = [&](int k) { return _mm512_permutex2var_ps(_mm512_load_ps(kGeluR[k]), i, _mm512_load_ps(kGeluR[k] + 16)); };
  VecF q = coef(5);
  q = vf_fma(q, u, coef(4));
  q = vf_fma(q, u, coef(3));
  q = vf_fma(q, u, coef(2));
  q = vf_fma(q, u, coef(1));
  q = vf_fma(q, u, coef(0));
  const VecF g = _mm512_scalef_ps(vf_mul(vf_mul(e, q), zc), n);  // z Phi(-|z|)
  return _mm512_mask_sub_ps(g, _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_GT_OQ), z, g);
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
