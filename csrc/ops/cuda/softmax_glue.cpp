// envcheck::softmax on CUDA: checks and registration; the kernels are in
// csrc/ops/cuda/softmax_kernel.cu.
// Schema: csrc/ops/softmax.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
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
  const c10::cuda::CUDAGuard guard(x.device());
  const at::Tensor xc = x.contiguous();
  const int64_t cols = x.size(-1);
  const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  if (rows == 0) return;
  softmax_launch(float_type(x), xc.const_data_ptr(), y.data_ptr(), rows, cols, sm_count(), current_stream());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

at::Tensor softmax_cuda(const at::Tensor& x) {
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  softmax_out_cuda(x, y);
  return y;
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) {
  m.impl("softmax", &cuda::softmax_cuda);
  m.impl("softmax_out", &cuda::softmax_out_cuda);
}

}  // namespace envcheck
