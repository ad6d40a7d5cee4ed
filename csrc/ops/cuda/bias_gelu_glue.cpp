// envcheck::bias_gelu on CUDA: checks and launch; the kernel is in csrc/ops/cuda/bias_gelu_kernel.cu, the
// shared glue (device guard, launch check, the functional variant, registration) in glue.h.
// Schema: csrc/ops/bias_gelu.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
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
  launch(x, [&] {
    const at::Tensor xc = x.contiguous(), bc = bias.contiguous();
    if (y.numel() == 0) return;
    bias_gelu_launch(float_type(x), xc.const_data_ptr(), bc.const_data_ptr(), y.data_ptr(), y.numel(), x.size(-1),
                     sm_count(), current_stream());
  });
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) { cuda::impl_with_out<&cuda::bias_gelu_out_cuda>(m, "bias_gelu"); }

}  // namespace envcheck
