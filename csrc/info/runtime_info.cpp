// runtime_info_json(): what this process really finds at run time.  Host-only C++ (dlopen, /proc) so
// it works in CPU-only builds too; the CUDA runtime part lives in info/runtime_probe.cu.
//
// cuDNN, cuBLAS and the driver library are opened with dlopen by soname: a library that torch already
// loaded (from site-packages/nvidia/...) is returned as is, and a missing one becomes a field.  We never
// dlclose them: torch may be using the same copy.
#include "info/runtime_info.h"

#include <dlfcn.h>

#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "info/json.h"

namespace envcheck {
namespace {

struct DynLib {
  void* handle = nullptr;
  std::string soname;             // the name that opened it
  bool already_loaded = false;    // mapped before we asked (typically by torch)
  std::vector<std::string> errors;  // dlerror() for each name that failed
};

DynLib open_first(const std::vector<std::string>& names) {
  DynLib lib;
  for (const auto& name : names) {
    void* h = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      lib.handle = h;
      lib.soname = name;
      lib.already_loaded = true;
      return lib;
    }
  }
  for (const auto& name : names) {
    void* h = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (h) {
      lib.handle = h;
      lib.soname = name;
      return lib;
    }
    const char* err = dlerror();
    lib.errors.push_back(err ? err : (name + ": dlopen failed"));
  }
  return lib;
}

template <typename Fn>
Fn sym(const DynLib& lib, const char* name) {
  if (!lib.handle) return nullptr;
  return reinterpret_cast<Fn>(dlsym(lib.handle, name));
}

// The file a library was really loaded from, found through one of its symbols.
std::string file_of(const DynLib& lib, const char* symbol) {
  void* s = lib.handle ? dlsym(lib.handle, symbol) : nullptr;
  Dl_info info;
  if (s && dladdr(s, &info) && info.dli_fname) return info.dli_fname;
  return "";
}

json::Object library_json(const DynLib& lib, const char* symbol) {
  json::Object o;
  o.boolean("loaded", lib.handle != nullptr);
  if (lib.handle) {
    o.str("soname", lib.soname);
    std::string path = file_of(lib, symbol);
    if (path.empty()) o.null("path"); else o.str("path", path);
    o.boolean("already_loaded", lib.already_loaded);
    o.null("error");
  } else {
    o.null("soname");
    o.null("path");
    o.boolean("already_loaded", false);
    std::string all;
    for (const auto& e : lib.errors) all += (all.empty() ? "" : "; ") + e;
    o.str("error", all);
  }
  return o;
}

const DynLib& libcuda() {
  static const DynLib lib = open_first({"libcuda.so.1", "libcuda.so"});
  return lib;
}
const DynLib& libcudnn() {
  static const DynLib lib = open_first({"libcudnn.so.9", "libcudnn.so"});
  return lib;
}
const DynLib& libcublas() {
  static const DynLib lib = open_first({"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
  return lib;
}

std::string version_string_cudart(long long v) {  // 13000 -> "13.0", 12080 -> "12.8"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string version_string_cudnn(long long v) {
  // cuDNN 9 encodes major*10000 + minor*100 + patch; cuDNN 8 and older major*1000 + minor*100 + patch.
  if (v >= 90000) return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 100) + "." + std::to_string(v % 100);
}

json::Object driver_json(bool* present) {
  json::Object o;
  const DynLib& lib = libcuda();
  o.obj("library", library_json(lib, "cuDriverGetVersion"));
  using GetVersion = int (*)(int*);  // CUresult cuDriverGetVersion(int*): needs no cuInit
  auto get = sym<GetVersion>(lib, "cuDriverGetVersion");
  int version = 0;
  if (get && get(&version) == 0) {
    o.num("version", version);
    o.str("version_string", version_string_cudart(version));
  } else {
    o.null("version");
    o.null("version_string");
  }
  *present = lib.handle != nullptr && version > 0;
  return o;
}

json::Object cudnn_json() {
  json::Object o;
  const DynLib& lib = libcudnn();
  o.obj("library", library_json(lib, "cudnnGetVersion"));
  using SizeFn = size_t (*)();
  if (auto get = sym<SizeFn>(lib, "cudnnGetVersion")) {
    long long v = static_cast<long long>(get());
    o.num("version", v);
    o.str("version_string", version_string_cudnn(v));
  } else {
    o.null("version");
    o.null("version_string");
  }
  // The CUDA runtime version this cuDNN was built for (size_t cudnnGetCudartVersion(void)).
  if (auto get = sym<SizeFn>(lib, "cudnnGetCudartVersion")) {
    long long v = static_cast<long long>(get());
    o.num("cudart_version", v);
    o.str("cudart_version_string", version_string_cudart(v));
  } else {
    o.null("cudart_version");
    o.null("cudart_version_string");
  }
  return o;
}

json::Object cublas_json() {
  json::Object o;
  const DynLib& lib = libcublas();
  o.obj("library", library_json(lib, "cublasCreate_v2"));
  // cublasStatus_t cublasGetProperty(libraryPropertyType, int*): 0 major, 1 minor, 2 patch; no GPU needed.
  using PropFn = int (*)(int, int*);
  auto prop = sym<PropFn>(lib, "cublasGetProperty");
  int major = 0, minor = 0, patch = 0;
  if (prop && prop(0, &major) == 0 && prop(1, &minor) == 0 && prop(2, &patch) == 0) {
    o.str("version_string", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
  } else {
    o.null("version_string");
  }
  return o;
}

// Library files mapped into this process, by family, in the order /proc/self/maps lists them.
json::Object loaded_libraries_json() {
  struct Family {
    const char* key;
    const char* prefix;
    json::Array files;
  };
  std::vector<Family> families = {
      {"cudart", "libcudart", {}}, {"cudnn", "libcudnn", {}},   {"cublas", "libcublas", {}},
      {"libtorch", "libtorch", {}}, {"c10", "libc10", {}},       {"cuda_driver", "libcuda.so", {}},
  };
  json::Object o;
  std::ifstream maps("/proc/self/maps");
  if (!maps) {
    o.str("error", "/proc/self/maps is not readable (not Linux?)");
    return o;
  }
  std::vector<std::string> seen;
  std::string line;
  while (std::getline(maps, line)) {
    auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    const std::string deleted = " (deleted)";
    if (path.size() > deleted.size() && path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0)
      path.resize(path.size() - deleted.size());
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == path;
    if (dup) continue;
    seen.push_back(path);
    std::string base = path.substr(path.rfind('/') + 1);
    for (auto& f : families) {
      if (base.compare(0, std::string(f.prefix).size(), f.prefix) == 0) {
        f.files.str(path);
        break;
      }
    }
  }
  for (const auto& f : families) o.raw(f.key, f.files.dump());
  o.null("error");
  return o;
}

}  // namespace

namespace {

using HandleCreate = int (*)(void**);     // cudnnCreate / cublasCreate_v2
using HandleDestroy = int (*)(void*);     // cudnnDestroy / cublasDestroy_v2
using StatusText = const char* (*)(int);  // cudnnGetErrorString / cublasGetStatusName / ...String

// Create and destroy one library handle, reporting the status in the library's own words.  The
// handle needs a working driver and device, so its failure is the fact worth reporting.
// `message_fn` may be null (cuDNN has one status text, cuBLAS a name and a message).
std::string handle_json(const DynLib& lib, const char* lib_name, const char* create_fn, const char* destroy_fn,
                        const char* status_fn, const char* message_fn) {
  json::Object o;
  auto create = sym<HandleCreate>(lib, create_fn);
  auto destroy = sym<HandleDestroy>(lib, destroy_fn);
  auto status = sym<StatusText>(lib, status_fn);
  auto message = message_fn ? sym<StatusText>(lib, message_fn) : nullptr;
  if (!create || !destroy) {
    o.boolean("ok", false);
    o.null("status_code");
    o.str("status", lib.handle ? std::string(create_fn) + "/" + destroy_fn + " not found in the library"
                               : std::string(lib_name) + " not loaded");
    return o.dump();
  }
  void* handle = nullptr;
  int st = create(&handle);
  o.boolean("ok", st == 0);
  o.num("status_code", st);
  o.str("status", status ? status(st) : nullptr);
  if (message_fn) o.str("message", message ? message(st) : nullptr);
  if (st == 0 && handle) {
    int dst = destroy(handle);
    if (dst != 0) o.str("destroy_status", status ? status(dst) : nullptr);
  }
  return o.dump();
}

}  // namespace

std::string cudnn_handle_json() {
  return handle_json(libcudnn(), "libcudnn", "cudnnCreate", "cudnnDestroy", "cudnnGetErrorString", nullptr);
}

std::string cublas_handle_json() {
  // cublasGetStatusName/String exist since cuBLAS 11.4.2; older ones report a null status text.
  return handle_json(libcublas(), "libcublas", "cublasCreate_v2", "cublasDestroy_v2", "cublasGetStatusName",
                     "cublasGetStatusString");
}

std::string runtime_info_json() {
  json::Object out;
  try {
    bool driver_present = false;
    json::Object driver = driver_json(&driver_present);
    out.obj("driver", driver);
    out.boolean("driver_present", driver_present);
    int device_count = -1;
#ifdef ENVCHECK_WITH_CUDA
    out.boolean("cuda_compiled", true);
    out.raw("cuda", cuda_runtime_json(&device_count));
#else
    out.boolean("cuda_compiled", false);
    out.null("cuda");
#endif
    json::Object cudnn = cudnn_json();
    json::Object cublas = cublas_json();
    // With devices, cuda_runtime_json() made the handles per device.  Without any (no driver, no GPU,
    // CPU-only build) one attempt on the current device still says how the library reacts.
    if (device_count <= 0) {
      cudnn.raw("handle_without_device", cudnn_handle_json());
      cublas.raw("handle_without_device", cublas_handle_json());
    } else {
      cudnn.null("handle_without_device");
      cublas.null("handle_without_device");
    }
    out.obj("cudnn", cudnn);
    out.obj("cublas", cublas);
    out.obj("loaded_libraries", loaded_libraries_json());
    out.null("error");
  } catch (const std::exception& e) {
    out.str("error", std::string("runtime_info_json failed: ") + e.what());
  } catch (...) {
    out.str("error", "runtime_info_json failed with an unknown C++ exception");
  }
  return out.dump();
}

}  // namespace envcheck
