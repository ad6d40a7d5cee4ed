// envcheck::sum on CUDA (float32): deterministic two-pass reduction with fp32 accumulation.
//
// The order of additions depends only on n: the grid size G is a function of n (never of the GPU
// or of pointer alignment); thread t of the grid adds elements t, t + G*256, t + 2*G*256, ... in
// groups of eight combined by a fixed tree; each block reduces its 256 sums by a fixed shuffle tree
// into partial[block]; one block then reduces the G partials the same way.  Same input, same bits.
// Checks and op registration: csrc/ops/cuda/sum_glue.cpp.
#include "ops/cuda/common.cuh"
#include "ops/cuda/sum_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

constexpr int kMaxSumBlocks = 1024;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

// Fixed-order block reduction (blockDim.x == kThreads); the result is valid in thread 0.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_partial[kThreads / 32];
  v = warp_sum(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? warp_partial[threadIdx.x] : 0.f;
  if (warp == 0) v = warp_sum(v);
  return v;
}

__global__ void sum_partial_kernel(const float* __restrict__ x, int64_t n, float* __restrict__ partial) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float acc = 0.f;
  // Eight independent loads in flight per thread: each warp still reads 128 contiguous bytes per load.
  for (; i + 7 * stride < n; i += 8 * stride) {
    float v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = __ldg(x + i + j * stride);
    acc += ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  }
  for (; i < n; i += stride) acc += __ldg(x + i);
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void sum_final_kernel(const float* __restrict__ partial, int blocks, float* __restrict__ out) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < blocks; i += blockDim.x) acc += partial[i];
  acc = block_sum(acc);
  if (threadIdx.x == 0) *out = acc;
}

}  // namespace

// A function of n only (see the top of this file): at least 8 elements per thread, at most 1024 blocks.
int sum_partial_blocks(int64_t n) {
  return static_cast<int>(std::min<int64_t>(kMaxSumBlocks, (n + kThreads * 8 - 1) / (kThreads * 8)));
}

void sum_launch(const float* x, int64_t n, float* partial, float* out, cudaStream_t stream) {
  const int blocks = sum_partial_blocks(n);
  sum_partial_kernel<<<blocks, kThreads, 0, stream>>>(x, n, partial);
  // Left pending (peek, not get) for the caller's C10_CUDA_KERNEL_LAUNCH_CHECK().
  if (cudaPeekAtLastError() != cudaSuccess) return;
  sum_final_kernel<<<1, kThreads, 0, stream>>>(partial, blocks, out);
}

}  // namespace cuda
}  // namespace envcheck
