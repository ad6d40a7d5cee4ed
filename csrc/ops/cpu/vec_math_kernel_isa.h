// The vector math of one instruction set over an array: exactly the exp the softmax kernel calls and
// the GELU of bias_gelu (vec_math.h; sse2_math.h in the DEFAULT variant on x86-64).
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/vec_math_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

// y = f(x) over n floats, in parallel, with the variant's vector function (SSE2: f4 on four floats;
// otherwise fv on a Vec).
template <class F4, class FV>
void vec_math_map(const float* x, float* y, int64_t n, const F4& f4, const FV& fv) {
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    constexpr int64_t V = Vec::size();
    int64_t i = begin;
#if defined(ENVCHECK_SSE2_KERNELS)
    for (; i + 4 <= end; i += 4) _mm_storeu_ps(y + i, f4(_mm_loadu_ps(x + i)));
    if (i < end) sse_store_partial(y + i, f4(sse_load_partial(x + i, end - i)), end - i);
    (void)V;
    (void)fv;
#else
    for (; i + V <= end; i += V) fv(Vec::loadu(x + i)).store(y + i);
    if (i < end) fv(Vec::loadu(x + i, end - i)).store(y + i, end - i);
    (void)f4;
#endif
  });
}

#if defined(ENVCHECK_SSE2_KERNELS)
#define ENVCHECK_SSE2_FN(f) [](__m128 v) { return f(v); }
#else
#define ENVCHECK_SSE2_FN(f) [](float v) { return v; }
#endif

void vec_math_exp(const float* x, float* y, int64_t n) {
  vec_math_map(x, y, n, ENVCHECK_SSE2_FN(exp_ps), [](const Vec& v) { return exp_vec(v); });
}

void vec_math_gelu(const float* x, float* y, int64_t n) {
  vec_math_map(x, y, n, ENVCHECK_SSE2_FN(gelu_ps), [](const Vec& v) { return gelu_vec(v); });
}

void vec_math_exp_aten(const float* x, float* y, int64_t n) {
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    at::vec::map([](Vec v) { return v.exp_u20(); }, y + begin, x + begin, end - begin);
  });
}

void vec_math_gelu_aten(const float* x, float* y, int64_t n) {
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    at::vec::map(
        [](Vec z) {
          const Vec half(0.5f), one(1.0f), rsqrt2(static_cast<float>(M_SQRT1_2));
          z = at::vec::maximum(z, Vec(kGeluFloor));
          return half * z * (one + (z * rsqrt2).erf());
        },
        y + begin, x + begin, end - begin);
  });
}

#undef ENVCHECK_SSE2_FN

const cpu_op::vec_math vec_math_kernels{.exp = vec_math_exp,
                                        .gelu = vec_math_gelu,
                                        .exp_aten = vec_math_exp_aten,
                                        .gelu_aten = vec_math_gelu_aten};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
