// The CPU kernels of envcheck::sum in one instruction set (bodies: sum_kernel_isa.h).
#pragma once

#include <cstdint>

namespace envcheck {
namespace cpu_op {

struct sum {
  // The sum of x[0..n) in a fixed order (see sum_kernel_isa.h).
  float (*run)(const float* x, int64_t n);
};

}  // namespace cpu_op
}  // namespace envcheck
