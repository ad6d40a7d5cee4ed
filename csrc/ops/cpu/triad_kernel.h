// The CPU kernels of envcheck::triad in one instruction set (bodies: triad_kernel_isa.h).
#pragma once

#include <cstdint>

namespace envcheck {
namespace cpu_op {

struct triad {
  // out = b + s * c over n contiguous floats.
  void (*run)(const float* b, const float* c, float s, float* out, int64_t n);
};

}  // namespace cpu_op
}  // namespace envcheck
