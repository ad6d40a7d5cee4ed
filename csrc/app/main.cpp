// envcheck_info: the stand-alone LibTorch program.  Prints the same build and run-time facts as the
// Python extension (same csrc/ core, compiled by CMake instead of torch.utils.cpp_extension), plus what
// LibTorch itself says, as one JSON object on stdout:
//   {"build_info": {...}, "runtime_info": {...}, "libtorch": {...}}
// Exit status 0 when the report was written; the facts themselves (no driver, no GPU) are not failures.
#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include <cstdio>
#include <exception>
#include <string>

#include "info/build_info.h"
#include "info/json.h"
#include "info/runtime_info.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: %s   (takes no arguments; prints JSON on stdout)\n", argv[0]);
    return 2;
  }
  envcheck::json::Object out;
  out.raw("build_info", envcheck::build_info_json({{"built_as", "\"cpp-program\""}}));
  out.raw("runtime_info", envcheck::runtime_info_json());
  envcheck::json::Object libtorch;
  try {
    libtorch.num("num_threads", at::get_num_threads());
    // Goes through libtorch's CUDA hooks: false on a CPU-only LibTorch or without a driver.
    libtorch.boolean("cuda_is_available", torch::cuda::is_available());
    libtorch.num("cuda_device_count", static_cast<long long>(torch::cuda::device_count()));
    libtorch.null("error");
  } catch (const std::exception& e) {
    libtorch.str("error", e.what());
  }
  out.obj("libtorch", libtorch);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
