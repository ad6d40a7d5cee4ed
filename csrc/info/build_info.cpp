// build_info_json(): facts the preprocessor knew when this file was compiled.  Every value below is a
// macro expanded at compile time, so the report describes the binary, not the machine it runs on.
#include "info/build_info.h"

#include <torch/version.h>

#include <string>

#include "info/json.h"

#if defined(__has_include)
#if __has_include(<cudnn_version.h>)
// The build puts the cuDNN headers on the include path when CUDA is compiled (buildcfg.cudnn_include_dirs).
#include <cudnn_version.h>
#define ENVCHECK_HAVE_CUDNN_HEADER 1
#endif
#endif

#define ENVCHECK_STR2(x) #x
#define ENVCHECK_STR(x) ENVCHECK_STR2(x)

namespace envcheck {
namespace {

json::Object compiler_facts() {
  json::Object o;
#if defined(__clang__)
  o.str("id", "clang");
  o.str("version", std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
                       std::to_string(__clang_patchlevel__));
#elif defined(__GNUC__)
  o.str("id", "gcc");
  o.str("version", std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                       std::to_string(__GNUC_PATCHLEVEL__));
#elif defined(_MSC_VER)
  o.str("id", "msvc");
  o.str("version", std::to_string(_MSC_FULL_VER));
#else
  o.str("id", "unknown");
  o.null("version");
#endif
#if defined(__VERSION__)
  o.str("version_string", __VERSION__);
#else
  o.null("version_string");
#endif
  o.num("cplusplus", static_cast<long long>(__cplusplus));
#if defined(_GLIBCXX_USE_CXX11_ABI)
  o.num("glibcxx_use_cxx11_abi", _GLIBCXX_USE_CXX11_ABI);
#else
  o.null("glibcxx_use_cxx11_abi");  // not libstdc++ (libc++ or MSVC): the flag does not apply
#endif
#if defined(__OPTIMIZE__)
  o.boolean("optimized", true);
#else
  o.boolean("optimized", false);
#endif
#if defined(NDEBUG)
  o.boolean("ndebug", true);
#else
  o.boolean("ndebug", false);
#endif
  return o;
}

json::Object openmp_facts() {
  json::Object o;
#if defined(_OPENMP)
  o.boolean("enabled", true);
  o.num("version", _OPENMP);  // yyyymm of the OpenMP spec the compiler implements, e.g. 201511
#else
  o.boolean("enabled", false);
  o.null("version");
#endif
  return o;
}

// The instruction-set extensions the *host* code of this file was allowed to use (compiler -m flags).
// The kernels may compile some files with more (see "kernels", merged in by torch_envcheck.info).
json::Object cpu_isa_facts() {
  json::Array isa;
#if defined(__x86_64__) || defined(_M_X64)
  const char* arch = "x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
  const char* arch = "aarch64";
#elif defined(__powerpc64__)
  const char* arch = "ppc64";
#else
  const char* arch = "unknown";
#endif
#if defined(__SSE2__)
  isa.str("SSE2");
#endif
#if defined(__SSE3__)
  isa.str("SSE3");
#endif
#if defined(__SSSE3__)
  isa.str("SSSE3");
#endif
#if defined(__SSE4_1__)
  isa.str("SSE4_1");
#endif
#if defined(__SSE4_2__)
  isa.str("SSE4_2");
#endif
#if defined(__AVX__)
  isa.str("AVX");
#endif
#if defined(__AVX2__)
  isa.str("AVX2");
#endif
#if defined(__FMA__)
  isa.str("FMA");
#endif
#if defined(__F16C__)
  isa.str("F16C");
#endif
#if defined(__AVX512F__)
  isa.str("AVX512F");
#endif
#if defined(__AVX512BW__)
  isa.str("AVX512BW");
#endif
#if defined(__AVX512VL__)
  isa.str("AVX512VL");
#endif
#if defined(__AVX512DQ__)
  isa.str("AVX512DQ");
#endif
#if defined(__AVX512VNNI__)
  isa.str("AVX512VNNI");
#endif
#if defined(__AVX512BF16__)
  isa.str("AVX512BF16");
#endif
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
  isa.str("NEON");
#endif
#if defined(__ARM_FEATURE_SVE)
  isa.str("SVE");
#endif
#if defined(__ARM_FEATURE_FMA)
  isa.str("ARM_FMA");
#endif
  json::Object o;
  o.str("arch", arch);
  o.raw("host_code", isa.dump());
  return o;
}

json::Object cudnn_header_facts() {
  json::Object o;
#if defined(ENVCHECK_HAVE_CUDNN_HEADER) && defined(CUDNN_MAJOR)
  o.boolean("found", true);
  o.str("version", std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR) + "." +
                       std::to_string(CUDNN_PATCHLEVEL));
  o.num("version_int", static_cast<long long>(CUDNN_VERSION));
#else
  o.boolean("found", false);
  o.null("version");
  o.null("version_int");
#endif
  return o;
}

}  // namespace

std::string build_info_json(const std::vector<std::pair<std::string, std::string>>& extra) {
  json::Object out;
  json::Object torch;
  torch.str("version", std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                           std::to_string(TORCH_VERSION_PATCH));
  torch.num("major", TORCH_VERSION_MAJOR);
  torch.num("minor", TORCH_VERSION_MINOR);
  torch.num("patch", TORCH_VERSION_PATCH);
  out.obj("torch_headers", torch);
  out.obj("compiler", compiler_facts());
  out.obj("openmp", openmp_facts());
  out.obj("cpu_isa", cpu_isa_facts());
#ifdef ENVCHECK_WITH_CUDA
  out.boolean("cuda_compiled", true);
  out.raw("cuda", cuda_build_info_json());
#else
  out.boolean("cuda_compiled", false);
  out.null("cuda");
#endif
  out.obj("cudnn_headers", cudnn_header_facts());
  for (const auto& kv : extra) out.raw(kv.first, kv.second);
  return out.dump();
}

}  // namespace envcheck
