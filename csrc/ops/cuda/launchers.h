// What the CUDA kernel launchers share.  A launcher takes raw pointers, sizes and a stream, and queues its
// kernels on that stream; each op declares its own in ops/cuda/<op>_kernel.h.
//
// Each op is split in three files: csrc/ops/cuda/<op>_kernel.h declares its launchers;
// <op>_kernel.cu holds the kernels and the launchers and includes only CUDA and small c10 headers, so
// nvcc (which parses a .cu once per target architecture) never sees ATen; <op>_glue.cpp holds the
// TORCH_CHECKs and the TORCH_LIBRARY_IMPL glue and is compiled once by the host compiler.  Launchers
// trust their arguments: the glue checks them first.  Launchers queue their kernels and return; the
// caller then checks the launch with C10_CUDA_KERNEL_LAUNCH_CHECK().  That check lives in the glue
// because c10/cuda/CUDAException.h (all of c10's error machinery) was most of what nvcc parsed per .cu
// file.  `sms` is the number of streaming multiprocessors of the current device (sm_count() in
// glue.h), for grid sizing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace envcheck {
namespace cuda {

// Element type of the float kernels (the glue maps at::ScalarType onto it; see glue.h).
enum class FloatType { Float, Half, BFloat16 };

}  // namespace cuda
}  // namespace envcheck
