// The shape every host-side glue of a CUDA op (csrc/ops/cuda/<op>_glue.cpp) shares, so that a glue file
// holds only what is its op's own (its checks and its launch):
//
//   launch(t, [&] { ... })        runs the op's body on t's device (CUDAGuard) and checks the kernel
//                                 launch afterwards (C10_CUDA_KERNEL_LAUNCH_CHECK)
//   empty_contiguous_like(t)      a new contiguous output of t's shape, dtype and device
//   with_out<&op_out>::call       the functional variant of an out= variant `void op_out(a, ..., Tensor& out)`:
//                                 allocates out like a, calls op_out
//   impl_with_out<&op_out>(m, "op")  registers "op" (functional) and "op_out" (out=) for one backend
//
// and what the launchers need: the current stream, the SM count, the FloatType of a tensor.
// Host compiler only; never included from a .cu file.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

// Each glue file defines TORCH_ASSERT_ONLY_METHOD_OPERATORS before its first include.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
// Only c10/cuda headers: ATen/cuda/CUDAContext.h pulls in cuBLAS/cuSPARSE headers, which a bare
// nvcc toolkit (or one whose libraries come from pip wheels) may not have.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

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

// Runs `body` with t's device current and checks the kernel launch it queued (a launcher queues and
// returns; its launch error surfaces here as a c10::Error naming the CUDA error).  `body` may return
// early (an empty tensor launches nothing) and may return a value.
template <class Body>
auto launch(const at::Tensor& t, Body&& body) {
  const c10::cuda::CUDAGuard guard(t.device());
  if constexpr (std::is_void_v<decltype(body())>) {
    std::forward<Body>(body)();
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  } else {
    auto result = std::forward<Body>(body)();
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return result;
  }
}

// The output of an op whose result has the shape, dtype and device of t, laid out contiguously.
inline at::Tensor empty_contiguous_like(const at::Tensor& t) {
  return at::empty(t.sizes(), t.options().memory_format(at::MemoryFormat::Contiguous));
}

namespace detail {

template <class F>
struct out_op_args;
template <class... Args>
struct out_op_args<void (*)(Args...)> {
  using type = std::tuple<Args...>;  // the out= variant's parameters, the output last
};

template <auto OutOp, class Args, class Index>
struct with_out;
template <auto OutOp, class Args, std::size_t... I>
struct with_out<OutOp, Args, std::index_sequence<I...>> {
  static_assert(std::is_same_v<std::tuple_element_t<sizeof...(I), Args>, at::Tensor&>,
                "an out= variant takes its output last, as at::Tensor&");
  static at::Tensor call(std::tuple_element_t<I, Args>... args) {
    at::Tensor out = empty_contiguous_like(std::get<0>(std::forward_as_tuple(args...)));
    OutOp(args..., out);
    return out;
  }
};

}  // namespace detail

// with_out<&op_out>::call(a, ...): the functional variant of op_out, its output shaped like a (the first
// argument, a tensor).
template <auto OutOp, class Args = typename detail::out_op_args<decltype(OutOp)>::type>
using with_out = detail::with_out<OutOp, Args, std::make_index_sequence<std::tuple_size_v<Args> - 1>>;

// Registers both variants of an op for the backend of `m`: `name` (functional) and `name`_out (out=), as
// the schema file (csrc/ops/<op>.cpp) declares them.
template <auto OutOp>
void impl_with_out(torch::Library& m, const char* name) {
  m.impl(name, &with_out<OutOp>::call);
  m.impl((std::string(name) + "_out").c_str(), OutOp);
}

}  // namespace cuda
}  // namespace envcheck
