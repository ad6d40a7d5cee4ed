// The CUDA launchers of envcheck::softmax (kernels: softmax_kernel.cu; checks and registration:
// softmax_glue.cpp).
// No ATen here: nvcc parses this once per target architecture (see launchers.h).
#pragma once

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

// Softmax over rows of `cols` contiguous elements.
void softmax_launch(FloatType t, const void* x, void* y, int64_t rows, int64_t cols, int sms, cudaStream_t stream);

}  // namespace cuda
}  // namespace envcheck
