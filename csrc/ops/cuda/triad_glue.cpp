// envcheck::triad on CUDA: checks and launch; the kernel is in csrc/ops/cuda/triad_kernel.cu, the shared
// glue (device guard, launch check, the functional variant, registration) in glue.h.
// Schema: csrc/ops/triad.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
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
  launch(b, [&] {
    const at::Tensor bc = b.contiguous(), cc = c.contiguous();
    if (out.numel() == 0) return;
    triad_launch(float_type(b), bc.const_data_ptr(), cc.const_data_ptr(), static_cast<float>(s), out.data_ptr(),
                 out.numel(), sm_count(), current_stream());
  });
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) { cuda::impl_with_out<&cuda::triad_out_cuda>(m, "triad"); }

}  // namespace envcheck
