// envcheck::bias_gelu on CUDA: checks and registration; the kernel is in
// csrc/ops/cuda/bias_gelu_kernel.cu.
// Schema: csrc/ops/bias_gelu.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cuda/glue.h"
#include "ops/cuda/bias_gelu_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

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
  bias_gelu_launch(float_type(x), xc.const_data_ptr(), bc.const_data_ptr(), y.data_ptr(), n, cols, sm_count(),
                   current_stream());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
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
