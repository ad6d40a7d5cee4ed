// The float lanes of one instruction-set variant, as the row-wise kernels (softmax, bias_gelu) use them:
// one struct `Lanes` with the same static functions in every variant, so that each kernel is written once.
//  * AVX-512 / AVX2: raw __m512 / __m256 (VecF, exp_vf and gelu_vf of vec_math.h);
//  * DEFAULT on x86-64: SSE2's __m128 (exp_ps, gelu_ps of sse2_math.h);
//  * elsewhere: ATen's Vectorized<float> (exp_vec, gelu_vec).
// Streaming (non-temporal) stores write an output that will not be read soon straight to memory: no
// read-for-ownership of its lines and no eviction of the input from the caches, so a kernel that reads
// n bytes and writes n bytes moves 2n bytes instead of 3n.  They need aligned addresses (kAlign), and
// fence() before another thread may read what they wrote.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

// GCC's first instruction-scheduling pass (off by default on x86) interleaves the independent vectors'
// chains of the row-wise kernels: measured on a Zen 5, 4 AVX-512 GELUs side by side took 26 cycles per
// vector with it and 35 without, exp 5.6 and 6.5 (the out-of-order window alone does not reach far
// enough into the next chain).  The kernel files switch it on for their own functions only.
#if defined(__GNUC__) && !defined(__clang__)
#define ENVCHECK_ROWWISE_SCHEDULE_BEGIN \
  _Pragma("GCC push_options") _Pragma("GCC optimize(\"schedule-insns\", \"sched-pressure\")")
#define ENVCHECK_ROWWISE_SCHEDULE_END _Pragma("GCC pop_options")
#else
#define ENVCHECK_ROWWISE_SCHEDULE_BEGIN
#define ENVCHECK_ROWWISE_SCHEDULE_END
#endif
// On the lambdas rowwise_map calls: GCC's size limits would otherwise leave a GELU a call per vector.
#if defined(__GNUC__)
#define ENVCHECK_INLINE_LAMBDA __attribute__((always_inline))
#else
#define ENVCHECK_INLINE_LAMBDA
#endif

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
struct Lanes {
  using V = VecF;
  static constexpr int64_t N = sizeof(VecF) / sizeof(float);
  static constexpr int64_t kAlign = sizeof(VecF);
  static constexpr bool kCanStream = true;
  static V set(float v) { return vf_set(v); }
  static V add(V a, V b) { return vf_add(a, b); }
  static V mul(V a, V b) { return vf_mul(a, b); }
  static V gelu(V z) { return gelu_vf(z); }
#if defined(CPU_CAPABILITY_AVX512)
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void stream(float* p, V v) { _mm512_stream_ps(p, v); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
#else
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void stream(float* p, V v) { _mm256_stream_ps(p, v); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
#endif
  // max(x, m) returns m where x is nan (x86 max returns its second operand when either is nan)
  static V max_keep(V x, V m) { return vf_max(x, m); }
  static V exp_nonpos(V x) { return exp_nonpos_vf(x); }
  static void fence() { _mm_sfence(); }
};
#elif defined(ENVCHECK_SSE2_KERNELS)
struct Lanes {
  using V = __m128;
  static constexpr int64_t N = 4;
  static constexpr int64_t kAlign = 16;
  static constexpr bool kCanStream = true;
  static V set(float v) { return _mm_set1_ps(v); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V sub(V a, V b) { return _mm_sub_ps(a, b); }
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  static void stream(float* p, V v) { _mm_stream_ps(p, v); }
  static V max_keep(V x, V m) { return _mm_max_ps(x, m); }
  static V exp_nonpos(V x) { return exp_nonpos_ps(x); }
  static V gelu(V z) { return gelu_ps(z); }
  static void fence() { _mm_sfence(); }
};
#else
struct Lanes {
  using V = Vec;
  static constexpr int64_t N = Vec::size();
  static constexpr int64_t kAlign = sizeof(float);
  static constexpr bool kCanStream = false;
  static V set(float v) { return Vec(v); }
  static V add(V a, V b) { return a + b; }
  static V mul(V a, V b) { return a * b; }
  static V sub(V a, V b) { return a - b; }
  static V load(const float* p) { return Vec::loadu(p); }
  static void store(float* p, V v) { v.store(p); }
  static void stream(float* p, V v) { v.store(p); }
  // ATen's maximum propagates a nan: the row then comes out nan through its sum, as it must
  static V max_keep(V x, V m) { return at::vec::maximum(x, m); }
  static V exp_nonpos(V x) { return exp_vec(x); }
  static V gelu(V z) { return gelu_vec(z); }
  static void fence() {}
};
#endif

// The first n (< N) floats at p, the other lanes `fill`; and the store of the first n lanes.
inline Lanes::V lanes_load_part(const float* p, int64_t n, float fill) {
  alignas(64) float tmp[Lanes::N];
  for (int64_t t = 0; t < Lanes::N; ++t) tmp[t] = t < n ? p[t] : fill;
  return Lanes::load(tmp);
}
inline void lanes_store_part(float* p, Lanes::V v, int64_t n) {
  alignas(64) float tmp[Lanes::N];
  Lanes::store(tmp, v);
  std::memcpy(p, tmp, static_cast<size_t>(n) * sizeof(float));
}
// Horizontal max (ignoring nan lanes, as max_keep does) and sum.
inline float lanes_hmax(Lanes::V v) {
  alignas(64) float tmp[Lanes::N];
  Lanes::store(tmp, v);
  float m = tmp[0];
  for (int64_t t = 1; t < Lanes::N; ++t) m = tmp[t] > m ? tmp[t] : m;
  return m;
}
inline float lanes_hsum(Lanes::V v) {
  alignas(64) float tmp[Lanes::N];
  Lanes::store(tmp, v);
  float s = 0.f;
  for (int64_t t = 0; t < Lanes::N; ++t) s += tmp[t];
  return s;
}

// Elements to handle before p (float-aligned) is aligned for streaming stores: fewer than N, at most n.
inline int64_t lanes_head(const float* p, int64_t n) {
  const auto mis = static_cast<int64_t>(reinterpret_cast<uintptr_t>(p) % Lanes::kAlign);
  return mis == 0 ? 0 : std::min<int64_t>(n, (Lanes::kAlign - mis) / static_cast<int64_t>(sizeof(float)));
}

inline void prefetch_read(const float* p) {
#if defined(__x86_64__) || defined(_M_X64)
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
#elif defined(__GNUC__)
  __builtin_prefetch(p, 0, 3);
#else
  (void)p;
#endif
}

// Whether an output of `bytes` is better streamed to memory: when it is larger than the last-level
// cache (it cannot stay there for whoever reads it next, and the kernel's input competes for it too).
// TORCH_ENVCHECK_STREAM_MIN_BYTES (a byte count) moves the threshold, so that tests reach the streaming
// path with small tensors.
inline int64_t stream_min_bytes() {
  static const int64_t v = [] {
    const char* s = std::getenv("TORCH_ENVCHECK_STREAM_MIN_BYTES");
    if (s != nullptr) {
      char* end = nullptr;
      const long long n = std::strtoll(s, &end, 10);
      TORCH_CHECK(end != s && *end == '\0' && n >= 0,
                  "TORCH_ENVCHECK_STREAM_MIN_BYTES must be a byte count (a whole number >= 0), not '", s, "'");
      return static_cast<int64_t>(n);
    }
    const CacheSizes& cs = cpu_cache_sizes();
    return std::max(cs.l3, cs.l2);
  }();
  return v;
}
inline bool stream_output(int64_t bytes) { return Lanes::kCanStream && bytes > stream_min_bytes(); }

// y[j..j+c) = f(j, c) for j = 0, N, 2N, ... (c == N but at the row's ends).  With Stream, y's aligned
// whole vectors are streaming stores (the caller fences).  Four vectors per step: f is a long chain of
// dependent operations (exp, erfc), and four independent ones side by side keep the pipes busy where
// one at a time leaves them waiting on latency (see ENVCHECK_ROWWISE_SCHEDULE).
template <bool Stream, class F>
inline void rowwise_map(float* y, int64_t n, const F& f) {
  using L = Lanes;
  constexpr int64_t N = L::N;
  const bool stream = Stream && reinterpret_cast<uintptr_t>(y) % sizeof(float) == 0;
  int64_t j = 0;
  if (stream) {
    j = lanes_head(y, n);
    if (j > 0) lanes_store_part(y, f(0, j), j);
  }
  const auto put = [stream](float* p, L::V v) {
    if (stream)
      L::stream(p, v);
    else
      L::store(p, v);
  };
  for (; j + 4 * N <= n; j += 4 * N) {
    const L::V a = f(j, N), b = f(j + N, N), c = f(j + 2 * N, N), d = f(j + 3 * N, N);
    put(y + j, a);
    put(y + j + N, b);
    put(y + j + 2 * N, c);
    put(y + j + 3 * N, d);
  }
  for (; j + N <= n; j += N) put(y + j, f(j, N));
  if (j < n) lanes_store_part(y + j, f(j, n - j), n - j);
}

inline Lanes::V load_or_part(const float* p, int64_t c, float fill) {
  return c == Lanes::N ? Lanes::load(p) : lanes_load_part(p, c, fill);
}

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
