// Helpers shared by the CUDA kernels: launch sizing, 16-byte vector packs, float conversion, the
// FloatType -> C++ type dispatch.  cpp_extension compiles with -D__CUDA_NO_HALF_OPERATORS__ (and the
// bf16 equivalent), so half and bfloat16 values are converted to float for all arithmetic
// (c10::Half/BFloat16 convert on device).
//
// Device side only, and deliberately small: nvcc parses every .cu once per target architecture, so
// no ATen, no torch/library.h and no c10 error machinery here (the glue in csrc/ops/cuda/<op>_glue.cpp
// has those).
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ops/cuda/launchers.h"

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

inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Blocks for a grid-stride loop over `work` items on a device with `sms` SMs: enough to fill every
// SM several times over, never more than the work needs.
inline int64_t grid_for(int64_t work, int sms, int threads = kThreads) {
  const int64_t need = (work + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(sms) * 32;
  return std::max<int64_t>(1, std::min(need, cap));
}

}  // namespace cuda
}  // namespace envcheck
