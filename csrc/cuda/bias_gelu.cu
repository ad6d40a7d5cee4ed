// envcheck::bias_gelu on CUDA: y = gelu(x + bias) with the exact erf GELU, one pass, for float32,
// float16 and bfloat16 (computed in float).  16-byte packs when the row length is a multiple of the
// pack and the pointers are aligned (a pack then never straddles two rows), else per element.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <torch/library.h>

#include "checks.h"
#include "cuda/common.cuh"

namespace envcheck {
namespace cuda {
namespace {

__device__ __forceinline__ float gelu_erf(float z) { return 0.5f * z * (1.0f + erff(z * 0.70710678118654752f)); }

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

void bias_gelu_out_cuda(const at::Tensor& x, const at::Tensor& bias, at::Tensor& y) {
  check_device("bias_gelu", "x", x, c10::DeviceType::CUDA);
  check_device("bias_gelu", "bias", bias, c10::DeviceType::CUDA);
  check_same_device("bias_gelu", x, bias);
  check_dtype_float_half_bf16("bias_gelu", "x", x);
  check_same_dtype("bias_gelu", x, bias);
  check_bias_shape(x, bias);
  check_out("bias_gelu", y, x);
  const c10::cuda::CUDAGuard guard(x.device());
  const at::Tensor xc = x.contiguous(), bc = bias.contiguous();
  const int64_t n = y.numel();
  const int64_t cols = x.size(-1);
  if (n == 0) return;
  auto stream = current_stream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "envcheck_bias_gelu", [&] {
    const scalar_t* px = xc.data_ptr<scalar_t>();
    const scalar_t* pb = bc.data_ptr<scalar_t>();
    scalar_t* py = y.data_ptr<scalar_t>();
    constexpr int VEC = 16 / sizeof(scalar_t);
    if (cols % VEC == 0 && aligned16(px) && aligned16(pb) && aligned16(py)) {
      bias_gelu_kernel<scalar_t, VEC><<<grid_for(n / VEC), kThreads, 0, stream>>>(px, pb, py, n, cols);
    } else {
      bias_gelu_kernel<scalar_t, 1><<<grid_for(n), kThreads, 0, stream>>>(px, pb, py, n, cols);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

at::Tensor bias_gelu_cuda(const at::Tensor& x, const at::Tensor& bias) {
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  bias_gelu_out_cuda(x, bias, y);
  return y;
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) {
  m.impl("bias_gelu", &cuda::bias_gelu_cuda);
  m.impl("bias_gelu_out", &cuda::bias_gelu_out_cuda);
}

}  // namespace envcheck
