// The CUDA launchers of envcheck::roofline (kernels: roofline_kernel.cu; checks and registration:
// roofline_glue.cpp).
// No ATen here: nvcc parses this once per target architecture (see launchers.h).
#pragma once

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

// Machine-limit microkernels (roofline_kernel.cu).  fma_peak: kFmaPeakThreads threads per block,
// `blocks` blocks, each thread `iters` steps of kFmaPeakChains independent chains (mixed: half of them
// add chains); returns the FLOPs queued.  *sink gets a checksum only if the chains reach an impossible
// value, so no step can be dropped.
constexpr int kFmaPeakThreads = 256;
constexpr int kFmaPeakChains = 8;
int64_t fma_peak_launch(float* sink, int64_t iters, bool mixed, int sms, cudaStream_t stream);
// *out = sum of x[0..n) (atomic adds of block partials: any order); out must hold 0 first.
void mem_read_launch(const float* x, int64_t n, float* out, int sms, cudaStream_t stream);
void mem_write_launch(float* y, int64_t n, float value, int sms, cudaStream_t stream);
void mem_copy_launch(const float* x, float* y, int64_t n, int sms, cudaStream_t stream);

}  // namespace cuda
}  // namespace envcheck
