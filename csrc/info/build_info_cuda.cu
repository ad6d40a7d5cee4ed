// The CUDA half of build_info_json(): facts only visible while nvcc compiles, i.e. its own version,
// the CUDA headers it used and the GPU architectures it generated code for (__CUDA_ARCH_LIST__,
// defined by nvcc >= 11.5 in both the host and the device pass).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <sstream>
#include <string>

#include "info/build_info.h"
#include "info/json.h"

#define ENVCHECK_STR2(...) #__VA_ARGS__
#define ENVCHECK_STR(...) ENVCHECK_STR2(__VA_ARGS__)

namespace envcheck {

std::string cuda_build_info_json() {
  json::Object o;
  o.str("nvcc_version", std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
                            std::to_string(__CUDACC_VER_BUILD__));
  o.num("cuda_h_version", CUDA_VERSION);         // e.g. 13000 for 13.0 (cuda.h)
  o.num("cudart_h_version", CUDART_VERSION);     // e.g. 13000 (cuda_runtime_api.h)
  json::Array archs;
#if defined(__CUDA_ARCH_LIST__)
  // "800,900" -> [800, 900]: each entry is a virtual architecture nvcc compiled this file for.
  std::stringstream ss(ENVCHECK_STR(__CUDA_ARCH_LIST__));
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      archs.num(std::stoll(item));
    } catch (...) {
      archs.str(item);  // keep an unexpected spelling rather than lose it
    }
  }
  o.raw("arch_list", archs.dump());
#else
  o.null("arch_list");
#endif
#if defined(__clang__)
  o.str("host_compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
  o.str("host_compiler", "gcc " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                             std::to_string(__GNUC_PATCHLEVEL__));
#else
  o.null("host_compiler");
#endif
  return o.dump();
}

}  // namespace envcheck
