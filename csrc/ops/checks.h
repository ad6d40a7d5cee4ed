// Precondition checks shared by the CPU and CUDA implementations: every message names the op and
// says what was expected.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

namespace envcheck {

inline void check_device(const char* op, const char* arg, const at::Tensor& t, c10::DeviceType want) {
  TORCH_CHECK(t.device().type() == want, "envcheck::", op, ": expected ", arg, " on ",
              c10::DeviceTypeName(want, /*lower_case=*/true), ", got a tensor on ", t.device());
}

inline void check_same_device(const char* op, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.device() == b.device(), "envcheck::", op, ": expected all tensors on the same device, got ",
              a.device(), " and ", b.device());
}

inline void check_dtype_float(const char* op, const char* arg, const at::Tensor& t) {
  TORCH_CHECK(t.scalar_type() == at::kFloat, "envcheck::", op, ": expected ", arg,
              " of dtype torch.float32, got ", t.scalar_type());
}

// CUDA elementwise/softmax kernels also take half and bfloat16.
inline void check_dtype_float_half_bf16(const char* op, const char* arg, const at::Tensor& t) {
  auto st = t.scalar_type();
  TORCH_CHECK(st == at::kFloat || st == at::kHalf || st == at::kBFloat16, "envcheck::", op, ": expected ",
              arg, " of dtype torch.float32, torch.float16 or torch.bfloat16, got ", st);
}

inline void check_same_dtype(const char* op, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "envcheck::", op, ": expected tensors of the same dtype, got ",
              a.scalar_type(), " and ", b.scalar_type());
}

inline void check_triad_shapes(const at::Tensor& b, const at::Tensor& c) {
  TORCH_CHECK(b.sizes() == c.sizes(), "envcheck::triad: expected b and c of the same shape, got ", b.sizes(),
              " and ", c.sizes());
}

inline void check_last_dim_op(const char* op, const at::Tensor& x) {
  TORCH_CHECK(x.dim() >= 1, "envcheck::", op, ": expected x with at least 1 dimension, got a 0-dim tensor");
}

inline void check_bias_shape(const at::Tensor& x, const at::Tensor& bias) {
  check_last_dim_op("bias_gelu", x);
  TORCH_CHECK(bias.dim() == 1 && bias.size(0) == x.size(-1),
              "envcheck::bias_gelu: expected bias of shape (", x.size(-1), ",) matching x.size(-1), got ",
              bias.sizes());
}

inline void check_sgemm_shapes(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "envcheck::sgemm: expected 2-D matrices a (M, K) and b (K, N), got ",
              a.dim(), "-D and ", b.dim(), "-D");
  TORCH_CHECK(a.size(1) == b.size(0), "envcheck::sgemm: expected a.size(1) == b.size(0) (inner dimensions), got a ",
              a.sizes(), " and b ", b.sizes());
}

// out= tensors: same device and dtype as the input, the result's exact shape, contiguous (we do not
// resize: a silently reallocated out would defeat the point of passing one).
inline void check_out(const char* op, const at::Tensor& out, const at::Tensor& like) {
  TORCH_CHECK(out.device() == like.device(), "envcheck::", op, ": expected out on ", like.device(), ", got ",
              out.device());
  TORCH_CHECK(out.scalar_type() == like.scalar_type(), "envcheck::", op, ": expected out of dtype ",
              like.scalar_type(), ", got ", out.scalar_type());
  TORCH_CHECK(out.sizes() == like.sizes(), "envcheck::", op, ": expected out of shape ", like.sizes(), ", got ",
              out.sizes());
  TORCH_CHECK(out.is_contiguous(), "envcheck::", op, ": expected a contiguous out tensor");
}

}  // namespace envcheck
