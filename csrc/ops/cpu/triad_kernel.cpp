// envcheck::triad on CPU: checks, then the selected instruction-set variant of triad_kernel
// (triad_kernel_isa.h).  Schema: csrc/ops/triad.cpp.
// Per-operator headers instead of <ATen/ATen.h>: the same code, a fraction of the parse time.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/triad_kernel.h"

namespace envcheck {
namespace {

void triad_out_cpu(const at::Tensor& b, const at::Tensor& c, double s, at::Tensor& out) {
  check_device("triad", "b", b, c10::DeviceType::CPU);
  check_device("triad", "c", c, c10::DeviceType::CPU);
  check_dtype_float("triad", "b", b);
  check_dtype_float("triad", "c", c);
  check_triad_shapes(b, c);
  const at::Tensor bc = b.contiguous(), cc = c.contiguous();
  check_out("triad", out, b);
  cpu_kernels().triad->run(bc.data_ptr<float>(), cc.data_ptr<float>(), static_cast<float>(s),
                           out.data_ptr<float>(), out.numel());
}

at::Tensor triad_cpu(const at::Tensor& b, const at::Tensor& c, double s) {
  at::Tensor out = at::empty(b.sizes(), b.options().memory_format(at::MemoryFormat::Contiguous));
  triad_out_cpu(b, c, s, out);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) {
  m.impl("triad", &triad_cpu);
  m.impl("triad_out", &triad_out_cpu);
}

}  // namespace envcheck
