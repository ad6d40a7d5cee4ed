// envcheck::softmax on CUDA: checks and launch; the kernels are in csrc/ops/cuda/softmax_kernel.cu, the
// shared glue (device guard, launch check, the functional variant, registration) in glue.h.
// Schema: csrc/ops/softmax.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cuda/glue.h"
#include "ops/cuda/softmax_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

void softmax_out_cuda(const at::Tensor& x, at::Tensor& y) {
  check_device("softmax", "x", x, c10::DeviceType::CUDA);
  check_dtype_float_half_bf16("softmax", "x", x);
  check_last_dim_op("softmax", x);
  check_out("softmax", y, x);
  launch(x, [&] {
    const at::Tensor xc = x.contiguous();
    const int64_t cols = x.size(-1);
    const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
    if (rows == 0) return;
    softmax_launch(float_type(x), xc.const_data_ptr(), y.data_ptr(), rows, cols, sm_count(), current_stream());
  });
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) { cuda::impl_with_out<&cuda::softmax_out_cuda>(m, "softmax"); }

}  // namespace envcheck
