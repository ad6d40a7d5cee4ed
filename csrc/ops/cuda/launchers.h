// The CUDA kernel launchers: raw pointers, sizes and a stream in, kernels queued on that stream.
//
// Each op is split in two files: csrc/ops/cuda/<op>_kernel.cu holds the kernels and the launcher and
// includes only CUDA and small c10 headers, so nvcc (which parses a .cu once per target architecture)
// never sees ATen; csrc/ops/cuda/<op>_glue.cpp holds the TORCH_CHECKs and the TORCH_LIBRARY_IMPL glue
// and is compiled once by the host compiler.  Launchers trust their arguments: the glue checks them first.
// Launchers queue their kernels and return; the caller then checks the launch with
// C10_CUDA_KERNEL_LAUNCH_CHECK().  That check lives in the glue because c10/cuda/CUDAException.h
// (all of c10's error machinery) was most of what nvcc parsed per .cu file.  `sms` is the number of
// streaming multiprocessors of the current device (sm_count() in glue.h), for grid sizing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace envcheck {
namespace cuda {

// Element type of the float kernels (the glue maps at::ScalarType onto it; see glue.h).
enum class FloatType { Float, Half, BFloat16 };

// out = b + s * c over n contiguous elements of type t.
void triad_launch(FloatType t, const void* b, const void* c, float s, void* out, int64_t n, int sms,
                  cudaStream_t stream);

// y = gelu(x + bias) over n contiguous elements; rows of `cols` elements, bias of `cols` elements.
void bias_gelu_launch(FloatType t, const void* x, const void* bias, void* y, int64_t n, int64_t cols, int sms,
                      cudaStream_t stream);

// Softmax over rows of `cols` contiguous elements.
void softmax_launch(FloatType t, const void* x, void* y, int64_t rows, int64_t cols, int sms, cudaStream_t stream);

// Blocks of the first sum pass for n elements, hence the size of its float scratch `partial`.
int sum_partial_blocks(int64_t n);
// *out = sum of x[0..n), n > 0; `partial` holds sum_partial_blocks(n) floats.  Two kernels: when the
// first fails to launch, the second is not queued.
void sum_launch(const float* x, int64_t n, float* partial, float* out, cudaStream_t stream);

// Rows of C per block of the sgemm kernel (the grid has ceil(m / kSgemmTileRows) rows, at most 65535).
constexpr int kSgemmTileRows = 128;
// C (m x n) = A (m x k) * B (k x n), all row-major and contiguous; m, n, k > 0.
void sgemm_launch(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, cudaStream_t stream);

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
