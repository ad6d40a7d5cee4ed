// envcheck::bias_gelu on CUDA: y = gelu(x + bias) with the exact erf GELU, one pass, for float32,
// float16 and bfloat16 (computed in float).  16-byte packs when the row length is a multiple of the
// pack and the pointers are aligned (a pack then never straddles two rows), else per element.
// Checks and op registration: csrc/ops/cuda/bias_gelu_glue.cpp.
#include "ops/cuda/common.cuh"
#include "ops/cuda/bias_gelu_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

// z is raised to at least -20 first: below it GELU rounds to -0 in float, and at z = -inf the formula
// alone gives -inf * 0 = nan where the limit is 0.  A comparison (not fmaxf, which drops a nan) keeps nan.
__device__ __forceinline__ float gelu_erf(float z) {
  z = z < -20.0f ? -20.0f : z;
  return 0.5f * z * (1.0f + erff(z * 0.70710678118654752f));
}

template <typename T, int VEC>
__global__ void bias_gelu_kernel(const T* __restrict__ x, const T* __restrict__ bias, T* __restrict__ y, int64_t n,
                                 int64_t cols) {
  using P = Pack<T, VEC>;
  const int64_t npack = n / VEC;  // n is a multiple of VEC whenever VEC > 1
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < npack; i += stride) {
    const int64_t col = (i * VEC) % cols;
    const P px = reinterpret_cast<const P*>(x)[i];
    const P pb = *reinterpret_cast<const P*>(bias + col);
    P py;
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      py.v[j] = static_cast<T>(gelu_erf(static_cast<float>(px.v[j]) + static_cast<float>(pb.v[j])));
    reinterpret_cast<P*>(y)[i] = py;
  }
}

}  // namespace

void bias_gelu_launch(FloatType t, const void* x, const void* bias, void* y, int64_t n, int64_t cols, int sms,
                      cudaStream_t stream) {
  dispatch_float_type(t, [&](auto tag) {
    using scalar_t = decltype(tag);
    const auto* px = static_cast<const scalar_t*>(x);
    const auto* pb = static_cast<const scalar_t*>(bias);
    auto* py = static_cast<scalar_t*>(y);
    constexpr int VEC = 16 / sizeof(scalar_t);
    if (cols % VEC == 0 && aligned16(px) && aligned16(pb) && aligned16(py)) {
      bias_gelu_kernel<scalar_t, VEC><<<grid_for(n / VEC, sms), kThreads, 0, stream>>>(px, pb, py, n, cols);
    } else {
      bias_gelu_kernel<scalar_t, 1><<<grid_for(n, sms), kThreads, 0, stream>>>(px, pb, py, n, cols);
    }
  });
}

}  // namespace cuda
}  // namespace envcheck
