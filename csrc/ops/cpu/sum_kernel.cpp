// envcheck::sum on CPU: a 0-dim float32 tensor; the summation order is fixed (see sum_kernel_isa.h).
// Schema: csrc/ops/sum.cpp.
// Per-operator headers instead of <ATen/ATen.h>: the same code, a fraction of the parse time.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/scalar_tensor.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/sum_kernel.h"

namespace envcheck {
namespace {

at::Tensor sum_cpu(const at::Tensor& x) {
  check_device("sum", "x", x, c10::DeviceType::CPU);
  check_dtype_float("sum", "x", x);
  const at::Tensor xc = x.contiguous();
  const float total = cpu_kernels().sum->run(xc.data_ptr<float>(), xc.numel());
  return at::scalar_tensor(total, x.options());
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) { m.impl("sum", &sum_cpu); }

}  // namespace envcheck
