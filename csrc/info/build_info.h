// Facts fixed when the extension (or the stand-alone program) was compiled: the torch headers, the host
// compiler and its flags, and (in a CUDA build) nvcc, the CUDA headers and the GPU architectures.
// Plain C++: no pybind, no Python, so csrc/app can print the same report.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace envcheck {

// The build facts as a JSON object.  `extra` holds (key, JSON value) pairs the caller adds, e.g. the
// Python headers the binding was compiled with (only bindings.cpp sees those).
std::string build_info_json(const std::vector<std::pair<std::string, std::string>>& extra = {});

#ifdef ENVCHECK_WITH_CUDA
// Defined in info/build_info_cuda.cu: facts only nvcc knows (its version, __CUDA_ARCH_LIST__).
std::string cuda_build_info_json();
#endif

}  // namespace envcheck
