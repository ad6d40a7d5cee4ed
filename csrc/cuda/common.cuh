// Helpers shared by the CUDA kernels: launch sizing, 16-byte vector packs, float conversion, the
// FloatType -> C++ type dispatch.  cpp_extension compiles with -D__CUDA_NO_HALF_OPERATORS__ (and the
// bf16 equivalent), so half and bfloat16 values are converted to float for all arithmetic
// (c10::Half/BFloat16 convert on device).
//
// Device side only, and deliberately small: nvcc parses every .cu once per target architecture, so
// no ATen and no torch/library.h here (the glue in csrc/cuda/<op>_cuda.cpp has those).
#pragma once

#include <c10/cuda/CUDAException.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/launchers.h"

namespace envcheck {
namespace cuda {

constexpr int kThreads = 256;

// A 16-byte group of elements, loaded and stored with one vector instruction.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Calls f(T{}) with T the element type named by t: float, c10::Half or c10::BFloat16.
template <typename F>
void dispatch_float_type(FloatType t, F&& f) {
  switch (t) {
    case FloatType::Float:
      f(float{});
      break;
    case FloatType::Half:
      f(c10::Half{});
      break;
    case FloatType::BFloat16:
      f(c10::BFloat16{});
      break;
  }
}

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

inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Blocks for a grid-stride loop over `work` items: enough to fill every SM several times over,
// never more than the work needs.
inline int64_t grid_for(int64_t work, int threads = kThreads) {
  const int sms = sm_count();
  const int64_t need = (work + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(sms) * 32;
  return std::max<int64_t>(1, std::min(need, cap));
}

}  // namespace cuda
}  // namespace envcheck
