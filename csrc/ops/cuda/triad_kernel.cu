// envcheck::triad on CUDA: out = b + s * c for float32, float16 and bfloat16 (computed in float).
// Grid-stride loop over 16-byte packs when all three pointers are 16-byte aligned, else per element;
// 64-bit indices throughout.  Checks and op registration: csrc/ops/cuda/triad_glue.cpp.
#include "ops/cuda/common.cuh"
#include "ops/cuda/triad_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

template <typename T, int VEC>
__global__ void triad_kernel(const T* __restrict__ b, const T* __restrict__ c, float s, T* __restrict__ out,
                             int64_t n) {
  using P = Pack<T, VEC>;
  const int64_t npack = n / VEC;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < npack; i += stride) {
    const P pb = reinterpret_cast<const P*>(b)[i];
    const P pc = reinterpret_cast<const P*>(c)[i];
    P po;
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      po.v[j] = static_cast<T>(static_cast<float>(pb.v[j]) + s * static_cast<float>(pc.v[j]));
    reinterpret_cast<P*>(out)[i] = po;
  }
  // The n % VEC trailing elements.
  for (int64_t i = npack * VEC + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<T>(static_cast<float>(b[i]) + s * static_cast<float>(c[i]));
}

}  // namespace

void triad_launch(FloatType t, const void* b, const void* c, float s, void* out, int64_t n, int sms,
                  cudaStream_t stream) {
  dispatch_float_type(t, [&](auto tag) {
    using scalar_t = decltype(tag);
    const auto* pb = static_cast<const scalar_t*>(b);
    const auto* pc = static_cast<const scalar_t*>(c);
    auto* po = static_cast<scalar_t*>(out);
    constexpr int VEC = 16 / sizeof(scalar_t);
    if (aligned16(pb) && aligned16(pc) && aligned16(po)) {
      triad_kernel<scalar_t, VEC><<<grid_for(n / VEC, sms), kThreads, 0, stream>>>(pb, pc, s, po, n);
    } else {
      triad_kernel<scalar_t, 1><<<grid_for(n, sms), kThreads, 0, stream>>>(pb, pc, s, po, n);
    }
  });
}

}  // namespace cuda
}  // namespace envcheck
