// The bias_gelu CPU kernel, y = gelu(x + bias) (included by each kernels_<isa>.cpp, inside
// envcheck::CPU_CAPABILITY; entry point and checks: bias_gelu_kernel.cpp).  One pass over memory.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/bias_gelu_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

// gelu_vec: vec_math.h (gelu_ps in sse2_math.h for the DEFAULT variant on x86-64).

void bias_gelu_kernel(const float* x, const float* bias, float* y, int64_t rows, int64_t cols) {
  // Parallel over the flattened index range so that both "many short rows" and "few long rows"
  // are split evenly; each task walks its range row segment by row segment.
  const int64_t n = rows * cols;
  at::parallel_for(0, n, kGrain / 4, [&](int64_t begin, int64_t end) {
    constexpr int64_t V = Vec::size();
    int64_t i = begin;
    while (i < end) {
      const int64_t row = i / cols;
      const int64_t col0 = i - row * cols;
      const int64_t seg = std::min(end - i, cols - col0);
      const float* xr = x + i;
      const float* br = bias + col0;
      float* yr = y + i;
      int64_t j = 0;
#if defined(ENVCHECK_SSE2_KERNELS)
      for (; j + 8 <= seg; j += 8) {
        _mm_storeu_ps(yr + j, gelu_ps(_mm_add_ps(_mm_loadu_ps(xr + j), _mm_loadu_ps(br + j))));
        _mm_storeu_ps(yr + j + 4, gelu_ps(_mm_add_ps(_mm_loadu_ps(xr + j + 4), _mm_loadu_ps(br + j + 4))));
      }
      for (; j < seg; j += 4) {
        const int64_t cnt = std::min<int64_t>(4, seg - j);
        sse_store_partial(yr + j, gelu_ps(_mm_add_ps(sse_load_partial(xr + j, cnt), sse_load_partial(br + j, cnt))),
                          cnt);
      }
      (void)V;
#else
      for (; j + V <= seg; j += V) gelu_vec(Vec::loadu(xr + j) + Vec::loadu(br + j)).store(yr + j);
      if (j < seg) {
        const int64_t cnt = seg - j;
        gelu_vec(Vec::loadu(xr + j, cnt) + Vec::loadu(br + j, cnt)).store(yr + j, cnt);
      }
#endif
      i += seg;
    }
  });
}

const cpu_op::bias_gelu bias_gelu_kernels{.run = bias_gelu_kernel};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
