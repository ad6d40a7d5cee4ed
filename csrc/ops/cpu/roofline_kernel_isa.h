// The machine-limit microkernels of one instruction set (included by each kernels_<isa>.cpp, inside
// envcheck::CPU_CAPABILITY; entry points, threading and checks: roofline_kernel.cpp).  Each runs on one
// thread; roofline_kernel.cpp runs one copy per thread of torch's pool.
//
// Compute: independent chains of a = a * m + c on registers only (no loads), enough of them to keep
// every floating-point pipe busy: a pipe with latency L needs L operations in flight, so the number of
// chains is at least latency x pipes (4 x 2 on Zen 4/5 and Intel's cores).  The chains converge to
// c / (1 - m) = 1, so nothing overflows or turns subnormal.
//  * "fma" kernel: FMA chains only (the ceiling of code whose arithmetic is all FMAs, such as sgemm).
//    Without FMA (SSE2) each chain step is a multiply and a dependent add.
//  * "mixed" kernel: FMA chains plus independent add chains, 1:1.  On cores with separate add pipes next
//    to the FMA pipes (AMD Zen: 2 FMA + 2 FADD) this does more FLOPs per cycle than FMAs alone; on cores
//    whose adds share the FMA ports it does fewer.  The roofline takes the larger of the two as the
//    ceiling of mixed arithmetic (softmax's exp, GELU's erf, sum's adds).
// Memory: read (vector loads into 8 accumulators: the sum), write (non-temporal stores of one value: no
// read-for-ownership) and copy (loads + non-temporal stores).
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/roofline_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

#if defined(CPU_CAPABILITY_AVX512)
using RVec = __m512;
constexpr int kRWidth = 16;
constexpr int kFmaChains = 16;   // 32 zmm registers
constexpr int kMixFma = 10, kMixAdd = 10;
inline RVec r_set1(float v) { return _mm512_set1_ps(v); }
inline RVec r_fma(RVec a, RVec m, RVec c) { return _mm512_fmadd_ps(a, m, c); }
inline RVec r_add(RVec a, RVec b) { return _mm512_add_ps(a, b); }
inline RVec r_load(const float* p) { return _mm512_loadu_ps(p); }
inline void r_stream(float* p, RVec v) { _mm512_stream_ps(p, v); }
inline float r_hsum(RVec v) { return _mm512_reduce_add_ps(v); }
constexpr bool kRHaveStream = true;
constexpr const char* kFmaInstruction = "vfmadd231ps zmm";
constexpr int kFmaFlopsPerLane = 2;
#elif defined(CPU_CAPABILITY_AVX2)
using RVec = __m256;
constexpr int kRWidth = 8;
constexpr int kFmaChains = 12;   // 16 ymm registers: 12 chains + m + c
constexpr int kMixFma = 8, kMixAdd = 6;
inline RVec r_set1(float v) { return _mm256_set1_ps(v); }
inline RVec r_fma(RVec a, RVec m, RVec c) { return _mm256_fmadd_ps(a, m, c); }
inline RVec r_add(RVec a, RVec b) { return _mm256_add_ps(a, b); }
inline RVec r_load(const float* p) { return _mm256_loadu_ps(p); }
inline void r_stream(float* p, RVec v) { _mm256_stream_ps(p, v); }
inline float r_hsum(RVec v) {
  alignas(32) float l[8];
  _mm256_store_ps(l, v);
  return ((l[0] + l[4]) + (l[1] + l[5])) + ((l[2] + l[6]) + (l[3] + l[7]));
}
constexpr bool kRHaveStream = true;
constexpr const char* kFmaInstruction = "vfmadd231ps ymm";
constexpr int kFmaFlopsPerLane = 2;
#elif defined(ENVCHECK_SSE2_KERNELS)
using RVec = __m128;
constexpr int kRWidth = 4;
constexpr int kFmaChains = 12;   // 16 xmm registers; a multiply then an add per step
constexpr int kMixFma = 12, kMixAdd = 0;  // no FMA: the mul+add chains already use the add pipes
inline RVec r_set1(float v) { return _mm_set1_ps(v); }
inline RVec r_fma(RVec a, RVec m, RVec c) { return _mm_add_ps(_mm_mul_ps(a, m), c); }
inline RVec r_add(RVec a, RVec b) { return _mm_add_ps(a, b); }
inline RVec r_load(const float* p) { return _mm_loadu_ps(p); }
inline void r_stream(float* p, RVec v) { _mm_stream_ps(p, v); }
inline float r_hsum(RVec v) {
  alignas(16) float l[4];
  _mm_store_ps(l, v);
  return (l[0] + l[2]) + (l[1] + l[3]);
}
constexpr bool kRHaveStream = true;
constexpr const char* kFmaInstruction = "mulps + addps xmm";
constexpr int kFmaFlopsPerLane = 2;
#else
// Other architectures: ATen's Vectorized<float> (NEON/SVE where the build has them).
using RVec = Vec;
constexpr int kRWidth = static_cast<int>(Vec::size());
constexpr int kFmaChains = 12;
constexpr int kMixFma = 8, kMixAdd = 6;
inline RVec r_set1(float v) { return Vec(v); }
inline RVec r_fma(RVec a, RVec m, RVec c) { return at::vec::fmadd(a, m, c); }
inline RVec r_add(RVec a, RVec b) { return a + b; }
inline RVec r_load(const float* p) { return Vec::loadu(p); }
inline void r_stream(float* p, RVec v) { v.store(p); }
inline float r_hsum(RVec v) { return at::vec::vec_reduce_all<float>([](Vec& a, Vec& b) { return a + b; }, v); }
constexpr bool kRHaveStream = false;
constexpr const char* kFmaInstruction = "at::vec::fmadd";
constexpr int kFmaFlopsPerLane = 2;
#endif

// `iters` steps of every chain; returns the chains' sum (the caller stores it, so no step can be
// dropped).  FLOPs: iters * (chains * width * 2 [+ add chains * width]).
float fma_peak_thread(int64_t iters, bool mixed) {
  const RVec m = r_set1(0.9990234375f), c = r_set1(0.0009765625f);
  float out = 0.f;
  if (!mixed) {
    RVec a[kFmaChains];
#pragma GCC unroll 32
    for (int k = 0; k < kFmaChains; ++k) a[k] = r_set1(0.5f + 0.01f * k);
    for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 32
      for (int k = 0; k < kFmaChains; ++k) a[k] = r_fma(a[k], m, c);
    }
#pragma GCC unroll 32
    for (int k = 0; k < kFmaChains; ++k) out += r_hsum(a[k]);
    return out;
  }
  RVec a[kMixFma], b[kMixAdd > 0 ? kMixAdd : 1];
#pragma GCC unroll 32
  for (int k = 0; k < kMixFma; ++k) a[k] = r_set1(0.5f + 0.01f * k);
#pragma GCC unroll 32
  for (int k = 0; k < kMixAdd; ++k) b[k] = r_set1(0.25f * k);
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 32
    for (int k = 0; k < kMixFma; ++k) a[k] = r_fma(a[k], m, c);
#pragma GCC unroll 32
    for (int k = 0; k < kMixAdd; ++k) b[k] = r_add(b[k], c);  // grows by iters * 2^-10: no overflow
  }
#pragma GCC unroll 32
  for (int k = 0; k < kMixFma; ++k) out += r_hsum(a[k]);
#pragma GCC unroll 32
  for (int k = 0; k < kMixAdd; ++k) out += r_hsum(b[k]);
  return out;
}

int64_t fma_peak_flops_per_iter(bool mixed) {
  return mixed ? static_cast<int64_t>(kMixFma) * kRWidth * kFmaFlopsPerLane + static_cast<int64_t>(kMixAdd) * kRWidth
               : static_cast<int64_t>(kFmaChains) * kRWidth * kFmaFlopsPerLane;
}

// The sum of x[0..n) (any order): every element is loaded once.
float mem_read_thread(const float* x, int64_t n) {
  RVec a[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) a[k] = r_set1(0.f);
  int64_t i = 0;
  for (; i + 8 * kRWidth <= n; i += 8 * kRWidth) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) a[k] = r_add(a[k], r_load(x + i + k * kRWidth));
  }
  for (; i + kRWidth <= n; i += kRWidth) a[0] = r_add(a[0], r_load(x + i));
  float tail = 0.f;
  for (; i < n; ++i) tail += x[i];
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) a[k] = r_add(a[k], a[k + 4]);
  return r_hsum(r_add(r_add(a[0], a[1]), r_add(a[2], a[3]))) + tail;
}

// y[0..n) = value with non-temporal stores (aligned body, scalar head and tail).
void mem_write_thread(float* y, int64_t n, float value) {
  const RVec v = r_set1(value);
  int64_t i = 0;
  if (kRHaveStream) {
    for (; i < n && reinterpret_cast<uintptr_t>(y + i) % (kRWidth * sizeof(float)) != 0; ++i) y[i] = value;
    for (; i + 4 * kRWidth <= n; i += 4 * kRWidth) {
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) r_stream(y + i + k * kRWidth, v);
    }
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2) || defined(ENVCHECK_SSE2_KERNELS)
    _mm_sfence();  // streaming stores are weakly ordered: make them visible before the task ends
#endif
  }
  for (; i < n; ++i) y[i] = value;
}

// y[0..n) = x[0..n): loads and non-temporal stores.
void mem_copy_thread(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  if (kRHaveStream) {
    for (; i < n && reinterpret_cast<uintptr_t>(y + i) % (kRWidth * sizeof(float)) != 0; ++i) y[i] = x[i];
    for (; i + 4 * kRWidth <= n; i += 4 * kRWidth) {
      RVec v[4];
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) v[k] = r_load(x + i + k * kRWidth);
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) r_stream(y + i + k * kRWidth, v[k]);
    }
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2) || defined(ENVCHECK_SSE2_KERNELS)
    _mm_sfence();
#endif
  }
  for (; i < n; ++i) y[i] = x[i];
}

const cpu_op::roofline roofline_kernels{.vec_floats = kRWidth,
                                          .fma_chains = kFmaChains,
                                          .mix_fma_chains = kMixFma,
                                          .mix_add_chains = kMixAdd,
                                          .fma_instruction = kFmaInstruction,
                                          .fma_peak = fma_peak_thread,
                                          .fma_flops_per_iter = fma_peak_flops_per_iter,
                                          .mem_read = mem_read_thread,
                                          .mem_write = mem_write_thread,
                                          .mem_copy = mem_copy_thread};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
