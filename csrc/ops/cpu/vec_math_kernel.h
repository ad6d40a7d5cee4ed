// The vector math of one instruction set, elementwise over contiguous floats (bodies:
// vec_math_kernel_isa.h; the functions themselves: vec_math.h and sse2_math.h).
#pragma once

#include <cstdint>

namespace envcheck {
namespace cpu_op {

struct vec_math {
  void (*exp)(const float* x, float* y, int64_t n);   // what softmax's exp is in this variant
  void (*gelu)(const float* x, float* y, int64_t n);  // bias_gelu's GELU, without the bias
  // ATen's own vector math, to be measured beside ours in one process: Vectorized<float>::exp_u20 (the
  // exp of torch's softmax kernel) and 0.5 z (1 + Vectorized<float>::erf(z / sqrt 2)).
  void (*exp_aten)(const float* x, float* y, int64_t n);
  void (*gelu_aten)(const float* x, float* y, int64_t n);
};

}  // namespace cpu_op
}  // namespace envcheck
