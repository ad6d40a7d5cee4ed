// The machine-limit microkernels on CUDA: FP32 FMA chains on registers, and read / write / copy of
// device memory with 16-byte accesses.  Checks and op registration: csrc/ops/cuda/roofline_glue.cpp.
//
// fma_peak: every thread runs kFmaPeakChains independent chains a = a * m + c (one FFMA each per step;
// mixed: half the chains are adds, FADD); 8 blocks of 256 threads per SM (64 warps: enough to hide the
// 4-cycle FMA latency on every scheduler).  The chains converge to c / (1 - m) = 1.
#include "ops/cuda/common.cuh"
#include "ops/cuda/roofline_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

constexpr int kFmaBlocksPerSm = 8;

template <bool kMixed>
__global__ void fma_peak_kernel(float* __restrict__ sink, int64_t iters) {
  const float m = 0.9990234375f, c = 0.0009765625f;
  float a[kFmaPeakChains];
#pragma unroll
  for (int k = 0; k < kFmaPeakChains; ++k) a[k] = 0.5f + 0.01f * (k + threadIdx.x % 7);
  for (int64_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kFmaPeakChains; ++k) {
      if (kMixed && k % 2 == 1)
        a[k] = a[k] + c;
      else
        a[k] = fmaf(a[k], m, c);
    }
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < kFmaPeakChains; ++k) s += a[k];
  if (s == -1.0f) sink[0] = s;  // never true (all chains stay positive): keeps every step live
}

// n4: how many leading float4 groups to read as such (0 when x is not 16-byte aligned), the rest singly.
__global__ void mem_read_kernel(const float* __restrict__ x, int64_t n, int64_t n4, float* __restrict__ out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float acc = 0.f;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  for (int64_t i = tid; i < n4; i += stride) {
    const float4 v = __ldcs(x4 + i);  // streaming: evict first, as the data is read once
    acc += (v.x + v.y) + (v.z + v.w);
  }
  for (int64_t i = n4 * 4 + tid; i < n; i += stride) acc += x[i];
#pragma unroll
  for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (threadIdx.x % 32 == 0) atomicAdd(out, acc);
}

__global__ void mem_write_kernel(float* __restrict__ y, int64_t n, int64_t n4, float value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float4* y4 = reinterpret_cast<float4*>(y);
  const float4 v = make_float4(value, value, value, value);
  for (int64_t i = tid; i < n4; i += stride) __stcs(y4 + i, v);
  for (int64_t i = n4 * 4 + tid; i < n; i += stride) y[i] = value;
}

__global__ void mem_copy_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, int64_t n4) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int64_t i = tid; i < n4; i += stride) __stcs(y4 + i, __ldcs(x4 + i));
  for (int64_t i = n4 * 4 + tid; i < n; i += stride) y[i] = x[i];
}

}  // namespace

int64_t fma_peak_launch(float* sink, int64_t iters, bool mixed, int sms, cudaStream_t stream) {
  const int blocks = sms * kFmaBlocksPerSm;
  if (mixed)
    fma_peak_kernel<true><<<blocks, kFmaPeakThreads, 0, stream>>>(sink, iters);
  else
    fma_peak_kernel<false><<<blocks, kFmaPeakThreads, 0, stream>>>(sink, iters);
  // An FFMA is 2 FLOPs, an FADD 1; mixed: half the chains of each.
  const int64_t per_step = mixed ? (kFmaPeakChains / 2) * 3 : kFmaPeakChains * 2;
  return static_cast<int64_t>(blocks) * kFmaPeakThreads * iters * per_step;
}

void mem_read_launch(const float* x, int64_t n, float* out, int sms, cudaStream_t stream) {
  mem_read_kernel<<<grid_for((n + 3) / 4, sms), kThreads, 0, stream>>>(x, n, aligned16(x) ? n / 4 : 0, out);
}

void mem_write_launch(float* y, int64_t n, float value, int sms, cudaStream_t stream) {
  mem_write_kernel<<<grid_for((n + 3) / 4, sms), kThreads, 0, stream>>>(y, n, aligned16(y) ? n / 4 : 0, value);
}

void mem_copy_launch(const float* x, float* y, int64_t n, int sms, cudaStream_t stream) {
  mem_copy_kernel<<<grid_for((n + 3) / 4, sms), kThreads, 0, stream>>>(x, y, n,
                                                               aligned16(x) && aligned16(y) ? n / 4 : 0);
}

}  // namespace cuda
}  // namespace envcheck
