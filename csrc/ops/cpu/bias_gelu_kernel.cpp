// envcheck::bias_gelu on CPU: gelu(x + bias) in one pass, exact (erf) GELU.  Schema: csrc/ops/bias_gelu.cpp.
// Per-operator headers instead of <ATen/ATen.h>: the same code, a fraction of the parse time.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/bias_gelu_kernel.h"

namespace envcheck {
namespace {

void bias_gelu_out_cpu(const at::Tensor& x, const at::Tensor& bias, at::Tensor& y) {
  check_device("bias_gelu", "x", x, c10::DeviceType::CPU);
  check_device("bias_gelu", "bias", bias, c10::DeviceType::CPU);
  check_dtype_float("bias_gelu", "x", x);
  check_dtype_float("bias_gelu", "bias", bias);
  check_bias_shape(x, bias);
  const at::Tensor xc = x.contiguous(), bc = bias.contiguous();
  check_out("bias_gelu", y, x);
  const int64_t cols = x.size(-1);
  const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  cpu_kernels().bias_gelu->run(xc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
}

at::Tensor bias_gelu_cpu(const at::Tensor& x, const at::Tensor& bias) {
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  bias_gelu_out_cpu(x, bias, y);
  return y;
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) {
  m.impl("bias_gelu", &bias_gelu_cpu);
  m.impl("bias_gelu_out", &bias_gelu_out_cpu);
}

}  // namespace envcheck
