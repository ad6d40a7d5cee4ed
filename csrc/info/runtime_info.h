// Facts found while the program runs: the CUDA runtime and driver really loaded, the devices, whether
// this binary's own kernels can run on each, cuDNN and cuBLAS (loaded with dlopen, so a missing one is
// a fact, not a link error), and the library files mapped into the process.  No function here throws.
#pragma once

#include <string>

namespace envcheck {

// The full report as a JSON object.
std::string runtime_info_json();

// Create and destroy a cuDNN / cuBLAS handle on the current CUDA device; JSON {"ok", "status", ...}.
// Shared with info/runtime_probe.cu, which calls them once per device.
std::string cudnn_handle_json();
std::string cublas_handle_json();

#ifdef ENVCHECK_WITH_CUDA
// Defined in info/runtime_probe.cu.  Sets *device_count to the number of devices, or -1 when
// cudaGetDeviceCount failed.
std::string cuda_runtime_json(int* device_count);
#endif

}  // namespace envcheck
