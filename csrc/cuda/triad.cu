// envcheck::triad on CUDA: out = b + s * c for float32, float16 and bfloat16 (computed in float).
// Grid-stride loop over 16-byte packs when all three pointers are 16-byte aligned, else per element;
// 64-bit indices throughout.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <torch/library.h>

#include "checks.h"
#include "cuda/common.cuh"

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

void triad_out_cuda(const at::Tensor& b, const at::Tensor& c, double s, at::Tensor& out) {
  check_device("triad", "b", b, c10::DeviceType::CUDA);
  check_device("triad", "c", c, c10::DeviceType::CUDA);
  check_same_device("triad", b, c);
  check_dtype_float_half_bf16("triad", "b", b);
  check_same_dtype("triad", b, c);
  check_triad_shapes(b, c);
  check_out("triad", out, b);
  const c10::cuda::CUDAGuard guard(b.device());
  const at::Tensor bc = b.contiguous(), cc = c.contiguous();
  const int64_t n = out.numel();
  if (n == 0) return;
  auto stream = current_stream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, b.scalar_type(), "envcheck_triad", [&] {
    const scalar_t* pb = bc.data_ptr<scalar_t>();
    const scalar_t* pc = cc.data_ptr<scalar_t>();
    scalar_t* po = out.data_ptr<scalar_t>();
    constexpr int VEC = 16 / sizeof(scalar_t);
    if (aligned16(pb) && aligned16(pc) && aligned16(po)) {
      triad_kernel<scalar_t, VEC><<<grid_for(n / VEC), kThreads, 0, stream>>>(pb, pc, static_cast<float>(s), po, n);
    } else {
      triad_kernel<scalar_t, 1><<<grid_for(n), kThreads, 0, stream>>>(pb, pc, static_cast<float>(s), po, n);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

at::Tensor triad_cuda(const at::Tensor& b, const at::Tensor& c, double s) {
  at::Tensor out = at::empty(b.sizes(), b.options().memory_format(at::MemoryFormat::Contiguous));
  triad_out_cuda(b, c, s, out);
  return out;
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) {
  m.impl("triad", &cuda::triad_cuda);
  m.impl("triad_out", &cuda::triad_out_cuda);
}

}  // namespace envcheck
