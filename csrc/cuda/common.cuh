// Helpers shared by the CUDA kernels: launch sizing, 16-byte vector packs, float conversion.
// cpp_extension compiles with -D__CUDA_NO_HALF_OPERATORS__ (and the bf16 equivalent), so half and
// bfloat16 values are converted to float for all arithmetic (c10::Half/BFloat16 convert on device).
#pragma once

// Only c10/cuda headers: ATen/cuda/CUDAContext.h pulls in cuBLAS/cuSPARSE headers, which a bare
// nvcc toolkit (or one whose libraries come from pip wheels) may not have.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace envcheck {
namespace cuda {

constexpr int kThreads = 256;

// A 16-byte group of elements, loaded and stored with one vector instruction.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

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
