// envcheck::triad on CUDA: checks and registration; the kernel is in csrc/ops/cuda/triad_kernel.cu.
// Schema: csrc/ops/triad.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cuda/glue.h"
#include "ops/cuda/triad_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

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
  triad_launch(float_type(b), bc.const_data_ptr(), cc.const_data_ptr(), static_cast<float>(s), out.data_ptr(), n,
               sm_count(), current_stream());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
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
