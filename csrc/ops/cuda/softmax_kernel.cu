// envcheck::softmax on CUDA over the last dimension, float32 / float16 / bfloat16 (float math).
//
// Online softmax: one pass keeps a running (max, sum of exp(x - max)) per thread, rescaling the sum
// when the max grows; the pairs are merged across the group (a warp for rows of <= 1024 elements, a
// block of 256 threads otherwise); a second pass writes exp(x - max) / sum.  The second read of the
// row mostly hits L1/L2.  Special values as on the CPU (csrc/ops/cpu/softmax_kernel_isa.h): a row of
// all -inf or with a nan is all nan; a row whose maximum is +inf is one-hot at a single +inf, else all nan
// (row_stats then counts the +inf entries in s: exp(+inf - +inf) would be nan).
// Checks and op registration: csrc/ops/cuda/softmax_glue.cpp.
#include <cmath>

#include "ops/cuda/common.cuh"
#include "ops/cuda/softmax_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

struct MaxSum {
  float m, s;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.f};
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    MaxSum o{__shfl_xor_sync(0xffffffffu, v.m, off), __shfl_xor_sync(0xffffffffu, v.s, off)};
    v = merge(v, o);
  }
  return v;
}

template <typename T>
__device__ __forceinline__ MaxSum row_stats(const T* __restrict__ xr, int64_t cols, int tid, int nthreads) {
  MaxSum st{-INFINITY, 0.f};
  for (int64_t j = tid; j < cols; j += nthreads) {
    const float v = static_cast<float>(xr[j]);
    if (v > st.m) {
      st.s = (st.m == -INFINITY ? 0.f : st.s * expf(st.m - v)) + 1.f;
      st.m = v;
    } else if (v != -INFINITY) {
      st.s += expf(v - st.m);
    }
  }
  return st;
}

template <typename T>
__device__ __forceinline__ void row_write(const T* __restrict__ xr, T* __restrict__ yr, int64_t cols, MaxSum st,
                                          int tid, int nthreads) {
  if (st.m == INFINITY) {  // s counts the +inf entries (nan if one thread met two: inf - inf)
    const float hit = st.s == 1.f ? 1.f : NAN, miss = st.s == 1.f ? 0.f : NAN;
    for (int64_t j = tid; j < cols; j += nthreads)
      yr[j] = static_cast<T>(static_cast<float>(xr[j]) == INFINITY ? hit : miss);
    return;
  }
  const float inv = 1.f / st.s;
  for (int64_t j = tid; j < cols; j += nthreads)
    yr[j] = static_cast<T>(expf(static_cast<float>(xr[j]) - st.m) * inv);
}

// One warp per row; blockDim = (32, 8).
template <typename T>
__global__ void softmax_warp_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; r < rows; r += stride) {
    const T* xr = x + r * cols;
    MaxSum st = warp_merge(row_stats(xr, cols, threadIdx.x, 32));
    row_write(xr, y + r * cols, cols, st, threadIdx.x, 32);
  }
}

// One block of kThreads per row.
template <typename T>
__global__ void softmax_block_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols) {
  __shared__ MaxSum warp_stats[kThreads / 32];
  __shared__ MaxSum row;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    MaxSum st = warp_merge(row_stats(xr, cols, threadIdx.x, kThreads));
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_stats[warp] = st;
    __syncthreads();
    if (warp == 0) {
      MaxSum v = lane < kThreads / 32 ? warp_stats[lane] : MaxSum{-INFINITY, 0.f};
      v = warp_merge(v);
      if (lane == 0) row = v;
    }
    __syncthreads();
    st = row;
    row_write(xr, y + r * cols, cols, st, threadIdx.x, kThreads);
    __syncthreads();  // `row` and warp_stats are reused by the next row
  }
}

}  // namespace

void softmax_launch(FloatType t, const void* x, void* y, int64_t rows, int64_t cols, int sms, cudaStream_t stream) {
  const int64_t max_grid = static_cast<int64_t>(sms) * 64;
  dispatch_float_type(t, [&](auto tag) {
    using scalar_t = decltype(tag);
    const auto* px = static_cast<const scalar_t*>(x);
    auto* py = static_cast<scalar_t*>(y);
    if (cols <= 1024) {
      const dim3 block(32, 8);
      const int64_t grid = std::min<int64_t>((rows + 7) / 8, max_grid);
      softmax_warp_kernel<scalar_t><<<grid, block, 0, stream>>>(px, py, rows, cols);
    } else {
      const int64_t grid = std::min<int64_t>(rows, max_grid);
      softmax_block_kernel<scalar_t><<<grid, kThreads, 0, stream>>>(px, py, rows, cols);
    }
  });
}

}  // namespace cuda
}  // namespace envcheck
