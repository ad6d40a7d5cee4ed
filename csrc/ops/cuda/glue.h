// Helpers shared by the host-side glue of the CUDA ops (csrc/ops/cuda/<op>_glue.cpp): the current
// stream, the SM count, the FloatType of a tensor.  Host compiler only; never included from a .cu file.
#pragma once

// Each glue file defines TORCH_ASSERT_ONLY_METHOD_OPERATORS before its first include.
#include <ATen/core/Tensor.h>
// Only c10/cuda headers: ATen/cuda/CUDAContext.h pulls in cuBLAS/cuSPARSE headers, which a bare
// nvcc toolkit (or one whose libraries come from pip wheels) may not have.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>

#include "ops/cuda/launchers.h"

namespace envcheck {
namespace cuda {

inline cudaStream_t current_stream() { return c10::cuda::getCurrentCUDAStream().stream(); }

// Streaming multiprocessors of the current device (queried once per device).
inline int sm_count() {
  static int cached[64] = {0};
  int dev = 0;
  C10_CUDA_CHECK(cudaGetDevice(&dev));
  if (dev >= 64) dev = 63;
  if (cached[dev] == 0) {
    int sms = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cached[dev] = sms > 0 ? sms : 1;
  }
  return cached[dev];
}

// For tensors that passed check_dtype_float_half_bf16.
inline FloatType float_type(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return FloatType::Float;
    case at::kHalf:
      return FloatType::Half;
    case at::kBFloat16:
      return FloatType::BFloat16;
    default:
      TORCH_CHECK(false, "envcheck: internal error: no CUDA kernel for dtype ", t.scalar_type());
  }
}

}  // namespace cuda
}  // namespace envcheck
