// The CUDA half of runtime_info_json(): the CUDA runtime actually loaded, the devices, and whether this
// binary carries a kernel image each device can run.  Every CUDA error becomes a field; nothing throws.
// cudaErrorNoKernelImageForDevice from our own probe kernel is exactly the "rebuild with
// TORCH_CUDA_ARCH_LIST=<cc>" case the doctor reports.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "info/json.h"
#include "info/runtime_info.h"

namespace envcheck {
namespace {

// Writes the architecture of the image that really ran (__CUDA_ARCH__, e.g. 900), so a device that
// ran PTX JIT-compiled for a newer GPU shows the PTX's arch.
__global__ void envcheck_probe_kernel(int* out) {
#if defined(__CUDA_ARCH__)
  *out = __CUDA_ARCH__;
#endif
}

json::Object error_json(cudaError_t err) {
  json::Object o;
  o.num("code", static_cast<long long>(err));
  o.str("name", cudaGetErrorName(err));
  o.str("message", cudaGetErrorString(err));
  return o;
}

// Record a failed call and clear the (non-sticky) error so the next call starts clean.
std::string fail(cudaError_t err) {
  cudaGetLastError();
  return error_json(err).dump();
}

json::Object kernel_image_json() {
  json::Object o;
  cudaFuncAttributes attr{};
  cudaError_t err = cudaFuncGetAttributes(&attr, envcheck_probe_kernel);
  if (err != cudaSuccess) {
    o.boolean("available", false);
    o.raw("error", fail(err));
    o.null("binary_version");
    o.null("ptx_version");
    o.null("launch");
    return o;
  }
  o.boolean("available", true);
  o.null("error");
  o.num("binary_version", attr.binaryVersion);  // SASS arch of the image the runtime picked, e.g. 90
  o.num("ptx_version", attr.ptxVersion);        // virtual arch that image came from
  json::Object launch;
  int* d_out = nullptr;
  int h_out = -1;
  err = cudaMalloc(&d_out, sizeof(int));
  if (err == cudaSuccess) err = cudaMemset(d_out, 0, sizeof(int));
  if (err == cudaSuccess) {
    envcheck_probe_kernel<<<1, 1>>>(d_out);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpy(&h_out, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  if (d_out) cudaFree(d_out);
  if (err == cudaSuccess) {
    launch.boolean("ok", h_out > 0);
    launch.num("ran_arch", h_out);
    launch.null("error");
  } else {
    launch.boolean("ok", false);
    launch.null("ran_arch");
    launch.raw("error", fail(err));
  }
  o.obj("launch", launch);
  return o;
}

std::string device_json(int index) {
  json::Object o;
  o.num("index", index);
  cudaDeviceProp prop{};
  cudaError_t err = cudaGetDeviceProperties(&prop, index);
  if (err != cudaSuccess) {
    o.raw("error", fail(err));
    return o.dump();
  }
  o.str("name", prop.name);
  o.str("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  o.num("major", prop.major);
  o.num("minor", prop.minor);
  o.num("sm_count", prop.multiProcessorCount);
  o.num("total_memory_bytes", static_cast<long long>(prop.totalGlobalMem));
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), index) == cudaSuccess) {
    o.str("pci_bus_id", bus);
  } else {
    cudaGetLastError();
    o.null("pci_bus_id");
  }
  err = cudaSetDevice(index);
  if (err != cudaSuccess) {
    o.raw("error", fail(err));
    return o.dump();
  }
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
    o.num("free_memory_bytes", static_cast<long long>(free_b));
  } else {
    cudaGetLastError();
    o.null("free_memory_bytes");
  }
  o.obj("kernel_image", kernel_image_json());
  o.raw("cudnn_handle", cudnn_handle_json());
  o.raw("cublas_handle", cublas_handle_json());
  o.null("error");
  return o.dump();
}

}  // namespace

std::string cuda_runtime_json(int* device_count) {
  *device_count = -1;
  json::Object o;
  int runtime = 0;
  cudaError_t err = cudaRuntimeGetVersion(&runtime);  // the libcudart really loaded, not the headers
  if (err == cudaSuccess) {
    o.num("runtime_version", runtime);
    o.str("runtime_version_string", std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10));
  } else {
    o.null("runtime_version");
    o.null("runtime_version_string");
    o.raw("runtime_version_error", fail(err));
  }
  int driver = 0;
  err = cudaDriverGetVersion(&driver);  // 0 (with success) when no driver is installed at all
  if (err == cudaSuccess) {
    o.num("driver_version", driver);
  } else {
    o.null("driver_version");
    o.raw("driver_version_error", fail(err));
  }

  int count = 0;
  err = cudaGetDeviceCount(&count);
  json::Array devices;
  if (err != cudaSuccess) {
    o.null("device_count");
    o.raw("error", fail(err));
    o.raw("devices", devices.dump());
    return o.dump();
  }
  *device_count = count;
  o.num("device_count", count);
  o.null("error");
  int previous = 0;
  bool restore = cudaGetDevice(&previous) == cudaSuccess;
  for (int i = 0; i < count; ++i) devices.raw(device_json(i));
  if (restore) cudaSetDevice(previous);  // leave the caller's (torch's) current device as it was
  o.raw("devices", devices.dump());
  o.str("probe_kernel", "envcheck_probe_kernel");
  return o.dump();
}

}  // namespace envcheck
