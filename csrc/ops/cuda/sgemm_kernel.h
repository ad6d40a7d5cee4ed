// The CUDA launchers of envcheck::sgemm (kernels: sgemm_kernel.cu; checks and registration:
// sgemm_glue.cpp).
// No ATen here: nvcc parses this once per target architecture (see launchers.h).
#pragma once

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

// Rows of C per block of the sgemm kernel (the grid has ceil(m / kSgemmTileRows) rows, at most 65535).
constexpr int kSgemmTileRows = 128;
// C (m x n) = A (m x k) * B (k x n), all row-major and contiguous; m, n, k > 0.
void sgemm_launch(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, cudaStream_t stream);

}  // namespace cuda
}  // namespace envcheck
