// Deterministic full sum with fp32 accumulation.
//
// The order of additions is fixed by the input size alone, never by the thread count or scheduling:
//  1. the input is cut into fixed blocks of kSumBlock elements (the last may be shorter);
//  2. each block is summed by one thread with 8 vector accumulators (accumulator a takes the vectors
//     at a*V, a*V + 8V, a*V + 16V, ...), folded as a0+a4, a1+a5, a2+a6, a3+a7, then the leftover
//     vectors go into a0 (whole) and a1 (the ragged last one), then (a0 + a1) + (a2 + a3), then
//     the lanes of the result are added pairwise in a fixed order;
//  3. the block partials, stored by block index, are added by a pairwise tree in block order.
// So a given input gives bit-identical results for any number of threads.  Different instruction-set
// variants (vector width V) use different lane groupings and may differ in the last bits.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/sum_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

constexpr int64_t kSumBlock = 1 << 16;

#if defined(CPU_CAPABILITY_AVX512)
// The AVX-512 variant streams with 256-bit loads: measured on the Zen 4 this was tuned on, where a
// 512-bit load is split into two 256-bit ones, the 256-bit loop read about 10% faster than the same
// loop with Vectorized<float> (512-bit), and matched torch.sum, whose 512-bit loop it otherwise trailed.
inline float sum_block(const float* x, int64_t n) {
  __m256 a[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) a[k] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) a[k] = _mm256_add_ps(a[k], _mm256_loadu_ps(x + i + 8 * k));
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) a[k] = _mm256_add_ps(a[k], a[k + 4]);
  for (; i + 8 <= n; i += 8) a[0] = _mm256_add_ps(a[0], _mm256_loadu_ps(x + i));
  const __m256 acc = _mm256_add_ps(_mm256_add_ps(a[0], a[1]), _mm256_add_ps(a[2], a[3]));
  __at_align__ float lanes[8];
  _mm256_store_ps(lanes, acc);
  float tail = 0.f;
  for (; i < n; ++i) tail += x[i];
  for (int64_t w = 4; w >= 1; w /= 2)
    for (int64_t j = 0; j < w; ++j) lanes[j] += lanes[j + w];
  return lanes[0] + tail;
}
#elif defined(ENVCHECK_SSE2_KERNELS)
// The DEFAULT variant on x86-64: the same eight accumulators on __m128 (with torch 2.14.1's headers the
// generic Vectorized<float> loop below ran at 0.89x torch.sum).
inline float sum_block(const float* x, int64_t n) {
  __m128 a[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) a[k] = _mm_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) a[k] = _mm_add_ps(a[k], _mm_loadu_ps(x + i + 4 * k));
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) a[k] = _mm_add_ps(a[k], a[k + 4]);
  for (; i + 4 <= n; i += 4) a[0] = _mm_add_ps(a[0], _mm_loadu_ps(x + i));
  if (i < n) a[1] = _mm_add_ps(a[1], sse_load_partial(x + i, n - i));
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, _mm_add_ps(_mm_add_ps(a[0], a[1]), _mm_add_ps(a[2], a[3])));
  return (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
}
#else
inline float sum_block(const float* x, int64_t n) {
  constexpr int64_t V = Vec::size();
  Vec a0(0.f), a1(0.f), a2(0.f), a3(0.f), a4(0.f), a5(0.f), a6(0.f), a7(0.f);
  int64_t i = 0;
  for (; i + 8 * V <= n; i += 8 * V) {
    a0 = a0 + Vec::loadu(x + i);
    a1 = a1 + Vec::loadu(x + i + V);
    a2 = a2 + Vec::loadu(x + i + 2 * V);
    a3 = a3 + Vec::loadu(x + i + 3 * V);
    a4 = a4 + Vec::loadu(x + i + 4 * V);
    a5 = a5 + Vec::loadu(x + i + 5 * V);
    a6 = a6 + Vec::loadu(x + i + 6 * V);
    a7 = a7 + Vec::loadu(x + i + 7 * V);
  }
  a0 = a0 + a4;
  a1 = a1 + a5;
  a2 = a2 + a6;
  a3 = a3 + a7;
  for (; i + V <= n; i += V) a0 = a0 + Vec::loadu(x + i);
  if (i < n) a1 = a1 + Vec::loadu(x + i, n - i);  // loadu with a count zero-fills the rest
  Vec acc = (a0 + a1) + (a2 + a3);
  __at_align__ float lanes[V];
  acc.store(lanes);
  // Pairwise over lanes: fixed order, and better rounding than a left-to-right chain.
  for (int64_t w = V / 2; w >= 1; w /= 2)
    for (int64_t j = 0; j < w; ++j) lanes[j] += lanes[j + w];
  return lanes[0];
}
#endif  // CPU_CAPABILITY_AVX512, ENVCHECK_SSE2_KERNELS

inline float pairwise(const float* p, int64_t n) {
  if (n <= 8) {
    float s = 0.f;
    for (int64_t i = 0; i < n; ++i) s += p[i];
    return s;
  }
  const int64_t h = n / 2;
  return pairwise(p, h) + pairwise(p + h, n - h);
}

float sum_kernel(const float* x, int64_t n) {
  if (n == 0) return 0.f;
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<float> partial(blocks);
  at::parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t start = b * kSumBlock;
      partial[b] = sum_block(x + start, std::min(kSumBlock, n - start));
    }
  });
  return pairwise(partial.data(), blocks);
}

const cpu_op::sum sum_kernels{.run = sum_kernel};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
