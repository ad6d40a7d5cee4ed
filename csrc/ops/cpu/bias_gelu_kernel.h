// The CPU kernels of envcheck::bias_gelu in one instruction set (bodies: bias_gelu_kernel_isa.h).
#pragma once

#include <cstdint>

namespace envcheck {
namespace cpu_op {

struct bias_gelu {
  // y = gelu(x + bias) over `rows` contiguous rows of `cols` floats; bias has `cols` floats.
  void (*run)(const float* x, const float* bias, float* y, int64_t rows, int64_t cols);
};

}  // namespace cpu_op
}  // namespace envcheck
