// The bias_gelu CPU kernel, y = gelu(x + bias) (included by each kernels_<isa>.cpp, inside
// envcheck::CPU_CAPABILITY; entry point and checks: bias_gelu_kernel.cpp).  One pass over memory: x
// and the bias row read once, y written once, streamed to memory (non-temporal stores, no read for
// ownership) when the output is larger than the last-level cache (rowwise_lanes.h).
// GELU: gelu_vf (vec_math.h) on AVX-512 and AVX2, ATen's erf form (gelu_vec) off x86, gelu_ps
// (sse2_math.h) in the DEFAULT variant on x86-64.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/bias_gelu_kernel.h"
#include "ops/cpu/rowwise_lanes.h"

ENVCHECK_ROWWISE_SCHEDULE_BEGIN
namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

template <bool Stream>
void bias_gelu_rows(const float* x, const float* bias, float* y, int64_t rows, int64_t cols) {
  // Parallel over the flattened index range so that both "many short rows" and "few long rows"
  // are split evenly; each task walks its range row segment by row segment.
  const int64_t n = rows * cols;
  at::parallel_for(0, n, kGrain / 4, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    while (i < end) {
      const int64_t row = i / cols;
      const int64_t col0 = i - row * cols;
      const int64_t seg = std::min(end - i, cols - col0);
      const float* xr = x + i;
      const float* br = bias + col0;
      rowwise_map<Stream>(y + i, seg, [&](int64_t j, int64_t c) ENVCHECK_INLINE_LAMBDA {
        return Lanes::gelu(Lanes::add(load_or_part(xr + j, c, 0.f), load_or_part(br + j, c, 0.f)));
      });
      i += seg;
    }
    if (Stream) Lanes::fence();
  });
}

void bias_gelu_kernel(const float* x, const float* bias, float* y, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
  if (stream_output(rows * cols * static_cast<int64_t>(sizeof(float))))
    bias_gelu_rows<true>(x, bias, y, rows, cols);
  else
    bias_gelu_rows<false>(x, bias, y, rows, cols);
}

const cpu_op::bias_gelu bias_gelu_kernels{.run = bias_gelu_kernel};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
ENVCHECK_ROWWISE_SCHEDULE_END
