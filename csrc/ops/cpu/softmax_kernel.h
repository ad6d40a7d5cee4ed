// The CPU kernels of envcheck::softmax in one instruction set (bodies: softmax_kernel_isa.h).
#pragma once

#include <cstdint>

namespace envcheck {
namespace cpu_op {

struct softmax {
  // y = softmax of each of `rows` contiguous rows of `cols` floats.
  void (*run)(const float* x, float* y, int64_t rows, int64_t cols);
};

}  // namespace cpu_op
}  // namespace envcheck
