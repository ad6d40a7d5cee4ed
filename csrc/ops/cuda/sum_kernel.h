// The CUDA launchers of envcheck::sum (kernels: sum_kernel.cu; checks and registration:
// sum_glue.cpp).
// No ATen here: nvcc parses this once per target architecture (see launchers.h).
#pragma once

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

// Blocks of the first sum pass for n elements, hence the size of its float scratch `partial`.
int sum_partial_blocks(int64_t n);
// *out = sum of x[0..n), n > 0; `partial` holds sum_partial_blocks(n) floats.  Two kernels: when the
// first fails to launch, the second is not queued.
void sum_launch(const float* x, int64_t n, float* partial, float* out, cudaStream_t stream);

}  // namespace cuda
}  // namespace envcheck
