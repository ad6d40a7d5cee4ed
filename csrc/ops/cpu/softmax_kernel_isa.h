// Softmax over the last dimension: y = exp(x - max) / sum(exp(x - max)), row by row, parallel over rows.
// exp: exp_vec (vec_math.h, within 1.27 ulp) on AVX2 / AVX-512, exp_ps (sse2_math.h) in the DEFAULT
// variant on x86-64, ATen's exp_u20 elsewhere.
//
// Three sweeps over a row (max; e = exp(x - max) into y with a running sum; y *= 1/sum): a row and its
// output are in L1 or L2 after the first, so memory sees about one read of x and one write of y, and exp
// runs once per element.  (A two-pass online form, maximum and sum in one read, then y = exp(x - max) /
// sum, saves the cached re-reads at the price of a second exp per element: measured on a loaded Zen 5
// it was slower on 2^20-float rows, so it is not used.)
//
// Special values (the rules of tests/_ops_helpers.py, the same in every variant and on CUDA): a masked
// (-inf) entry is exactly 0; a row with a nan is all nan; a row of only -inf is all nan (0/0); a row
// whose maximum is +inf takes the limit where there is one: one +inf -> one-hot at it, two or more
// +inf -> all nan.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/softmax_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

// A row whose maximum is +inf (and that has no nan): rare, so scalar.
inline void softmax_row_posinf(const float* xr, float* yr, int64_t cols) {
  int64_t n_inf = 0;
  for (int64_t j = 0; j < cols; ++j) n_inf += xr[j] == std::numeric_limits<float>::infinity();
  const float hit = n_inf == 1 ? 1.0f : std::numeric_limits<float>::quiet_NaN();
  const float miss = n_inf == 1 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
  for (int64_t j = 0; j < cols; ++j) yr[j] = xr[j] == std::numeric_limits<float>::infinity() ? hit : miss;
}

#if defined(ENVCHECK_SSE2_KERNELS)
// One row with SSE2 (the DEFAULT variant on x86-64): the same three passes, exp_ps for exp.
inline void softmax_row_sse(const float* xr, float* yr, int64_t cols) {
  // pass 1: max.  maxps drops a nan in its first operand, so nan is tracked on the side: a row with a
  // nan is all nan, as in torch.
  __m128 m0 = _mm_set1_ps(-INFINITY), m1 = m0, bad = _mm_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= cols; j += 8) {
    const __m128 a = _mm_loadu_ps(xr + j), b = _mm_loadu_ps(xr + j + 4);
    m0 = _mm_max_ps(m0, a);
    m1 = _mm_max_ps(m1, b);
    bad = _mm_or_ps(bad, _mm_or_ps(_mm_cmpunord_ps(a, a), _mm_cmpunord_ps(b, b)));
  }
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, _mm_max_ps(m0, m1));
  float mx = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
  for (; j < cols; ++j)
    if (xr[j] > mx || std::isnan(xr[j])) mx = xr[j];
  if (_mm_movemask_ps(bad) != 0) mx = std::numeric_limits<float>::quiet_NaN();
  if (mx == std::numeric_limits<float>::infinity()) return softmax_row_posinf(xr, yr, cols);
  // pass 2: e = exp(x - max) into y, running sum
  const __m128 m4 = _mm_set1_ps(mx);
  __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps();
  for (j = 0; j + 8 <= cols; j += 8) {
    const __m128 e0 = exp_ps(_mm_sub_ps(_mm_loadu_ps(xr + j), m4));
    const __m128 e1 = exp_ps(_mm_sub_ps(_mm_loadu_ps(xr + j + 4), m4));
    _mm_storeu_ps(yr + j, e0);
    _mm_storeu_ps(yr + j + 4, e1);
    s0 = _mm_add_ps(s0, e0);
    s1 = _mm_add_ps(s1, e1);
  }
  _mm_store_ps(lanes, _mm_add_ps(s0, s1));
  float s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; j < cols; j += 4) {
    const int64_t cnt = std::min<int64_t>(4, cols - j);
    const __m128 e = exp_ps(_mm_sub_ps(sse_load_partial(xr + j, cnt), m4));
    sse_store_partial(yr + j, e, cnt);
    for (int64_t t = 0; t < cnt; ++t) s += yr[j + t];
  }
  // pass 3: scale
  const __m128 inv = _mm_set1_ps(1.0f / s);
  for (j = 0; j + 4 <= cols; j += 4) _mm_storeu_ps(yr + j, _mm_mul_ps(_mm_loadu_ps(yr + j), inv));
  for (; j < cols; ++j) yr[j] *= 1.0f / s;
}
#endif

void softmax_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
  // Group rows so that each task has at least ~kGrain elements.
  const int64_t grain = std::max<int64_t>(1, kGrain / cols);
  at::parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    constexpr int64_t V = Vec::size();
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      float* yr = y + r * cols;
#if defined(ENVCHECK_SSE2_KERNELS)
      softmax_row_sse(xr, yr, cols);
      (void)V;
#else
      // pass 1: max
      float mx = -std::numeric_limits<float>::infinity();
      int64_t j = 0;
      if (cols >= V) {
        Vec m = Vec::loadu(xr);
        for (j = V; j + V <= cols; j += V) m = at::vec::maximum(m, Vec::loadu(xr + j));
        mx = at::vec::vec_reduce_all<float>([](Vec& a, Vec& b) { return at::vec::maximum(a, b); }, m);
      } else {
        j = 0;
      }
      // A nan in the tail must win too (std::max would drop it): a row with a nan is all nan, as in torch.
      for (; j < cols; ++j)
        if (xr[j] > mx || std::isnan(xr[j])) mx = xr[j];
      // A row of all -inf gives nan from (-inf) - (-inf): that is the rule (0/0, no limit).
      if (mx == std::numeric_limits<float>::infinity()) {
        softmax_row_posinf(xr, yr, cols);
        continue;
      }
      const Vec vmx(mx);
      // pass 2: e = exp(x - max), running sum
      Vec vs(0.f);
      j = 0;
      for (; j + V <= cols; j += V) {
        Vec e = exp_vec(Vec::loadu(xr + j) - vmx);
        e.store(yr + j);
        vs = vs + e;
      }
      float s = at::vec::vec_reduce_all<float>([](Vec& a, Vec& b) { return a + b; }, vs);
      if (j < cols) {
        const int64_t cnt = cols - j;
        Vec e = exp_vec(Vec::loadu(xr + j, cnt) - vmx);
        e.store(yr + j, cnt);
        __at_align__ float tmp[V];
        e.store(tmp);
        for (int64_t t = 0; t < cnt; ++t) s += tmp[t];
      }
      // pass 3: scale
      const Vec inv(1.0f / s);
      j = 0;
      for (; j + V <= cols; j += V) (Vec::loadu(yr + j) * inv).store(yr + j);
      if (j < cols) (Vec::loadu(yr + j, cols - j) * inv).store(yr + j, cols - j);
#endif
    }
  });
}

const cpu_op::softmax softmax_kernels{.run = softmax_kernel};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
