// envcheck::softmax on CPU: softmax over the last dimension.  Schema: csrc/ops/softmax.cpp.
// Per-operator headers instead of <ATen/ATen.h>: the same code, a fraction of the parse time.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/softmax_kernel.h"

namespace envcheck {
namespace {

void softmax_out_cpu(const at::Tensor& x, at::Tensor& y) {
  check_device("softmax", "x", x, c10::DeviceType::CPU);
  check_dtype_float("softmax", "x", x);
  check_last_dim_op("softmax", x);
  const at::Tensor xc = x.contiguous();
  check_out("softmax", y, x);
  const int64_t cols = x.size(-1);
  const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  cpu_kernels().softmax->run(xc.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
}

at::Tensor softmax_cpu(const at::Tensor& x) {
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  softmax_out_cpu(x, y);
  return y;
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) {
  m.impl("softmax", &softmax_cpu);
  m.impl("softmax_out", &softmax_out_cpu);
}

}  // namespace envcheck
