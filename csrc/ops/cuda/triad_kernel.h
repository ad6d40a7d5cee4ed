// The CUDA launchers of envcheck::triad (kernels: triad_kernel.cu; checks and registration:
// triad_glue.cpp).
// No ATen here: nvcc parses this once per target architecture (see launchers.h).
#pragma once

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

// out = b + s * c over n contiguous elements of type t.
void triad_launch(FloatType t, const void* b, const void* c, float s, void* out, int64_t n, int sms,
                  cudaStream_t stream);

}  // namespace cuda
}  // namespace envcheck
