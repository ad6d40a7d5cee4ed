// The triad CPU kernel, out = b + s * c (included by each kernels_<isa>.cpp, inside
// envcheck::CPU_CAPABILITY; entry point and checks: triad_kernel.cpp).  One pass over memory: load,
// compute in registers, store.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/triad_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

// Outputs at least this large are written with non-temporal (streaming) stores where the ISA has
// them: the store then does not first read the destination line into the cache (write-allocate),
// which cuts the memory traffic of a triad from 16 to 12 bytes per element.  Smaller outputs are
// likely to be read again soon and stay cached with ordinary stores.
constexpr int64_t kStreamingStoreMin = (8 << 20) / sizeof(float);

#if defined(CPU_CAPABILITY_AVX512)
inline void stream_store(float* p, const Vec& v) { _mm512_stream_ps(p, v); }
constexpr bool kHaveStreamingStore = true;
#elif defined(CPU_CAPABILITY_AVX2)
inline void stream_store(float* p, const Vec& v) { _mm256_stream_ps(p, v); }
constexpr bool kHaveStreamingStore = true;
#elif defined(ENVCHECK_SSE2_KERNELS)
constexpr bool kHaveStreamingStore = true;  // _mm_stream_ps, in triad_kernel's SSE2 loop
#else
inline void stream_store(float* p, const Vec& v) { v.store(p); }
constexpr bool kHaveStreamingStore = false;
#endif

void triad_kernel(const float* b, const float* c, float s, float* out, int64_t n) {
  const Vec vs(s);
  const bool streaming = kHaveStreamingStore && n >= kStreamingStoreMin;
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
#if defined(ENVCHECK_SSE2_KERNELS)
    // The DEFAULT variant on x86-64: __m128 and SSE's own streaming store (a multiply and an add: no FMA).
    const __m128 s4 = _mm_set1_ps(s);
    if (streaming) {
      for (; i < end && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i) out[i] = b[i] + s * c[i];
      for (; i + 8 <= end; i += 8) {
        _mm_stream_ps(out + i, _mm_add_ps(_mm_loadu_ps(b + i), _mm_mul_ps(_mm_loadu_ps(c + i), s4)));
        _mm_stream_ps(out + i + 4, _mm_add_ps(_mm_loadu_ps(b + i + 4), _mm_mul_ps(_mm_loadu_ps(c + i + 4), s4)));
      }
      _mm_sfence();
    }
    for (; i + 8 <= end; i += 8) {
      _mm_storeu_ps(out + i, _mm_add_ps(_mm_loadu_ps(b + i), _mm_mul_ps(_mm_loadu_ps(c + i), s4)));
      _mm_storeu_ps(out + i + 4, _mm_add_ps(_mm_loadu_ps(b + i + 4), _mm_mul_ps(_mm_loadu_ps(c + i + 4), s4)));
    }
    for (; i < end; ++i) out[i] = b[i] + s * c[i];
    (void)vs;
#else
    constexpr int64_t V = Vec::size();
    if (streaming) {
      // Scalar head up to the vector alignment the streaming store requires, then aligned stores.
      for (; i < end && reinterpret_cast<uintptr_t>(out + i) % (V * sizeof(float)) != 0; ++i) out[i] = b[i] + s * c[i];
      for (; i + V <= end; i += V) stream_store(out + i, at::vec::fmadd(Vec::loadu(c + i), vs, Vec::loadu(b + i)));
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
      _mm_sfence();  // streaming stores are weakly ordered: make them visible before the task ends
#endif
    }
    for (; i + 2 * V <= end; i += 2 * V) {
      Vec r0 = at::vec::fmadd(Vec::loadu(c + i), vs, Vec::loadu(b + i));
      Vec r1 = at::vec::fmadd(Vec::loadu(c + i + V), vs, Vec::loadu(b + i + V));
      r0.store(out + i);
      r1.store(out + i + V);
    }
    for (; i < end; i += V) {
      const int64_t cnt = std::min<int64_t>(V, end - i);
      at::vec::fmadd(Vec::loadu(c + i, cnt), vs, Vec::loadu(b + i, cnt)).store(out + i, cnt);
    }
#endif
  });
}

const cpu_op::triad triad_kernels{.run = triad_kernel};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
