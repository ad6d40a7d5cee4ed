// The CUDA launchers of envcheck::bias_gelu (kernels: bias_gelu_kernel.cu; checks and registration:
// bias_gelu_glue.cpp).
// No ATen here: nvcc parses this once per target architecture (see launchers.h).
#pragma once

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

// y = gelu(x + bias) over n contiguous elements; rows of `cols` elements, bias of `cols` elements.
void bias_gelu_launch(FloatType t, const void* x, const void* bias, void* y, int64_t n, int64_t cols, int sms,
                      cudaStream_t stream);

}  // namespace cuda
}  // namespace envcheck
