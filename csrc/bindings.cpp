// The Python module: two functions returning JSON text (torch_envcheck.info parses them).  The ops
// (torch.ops.envcheck.*) register themselves through TORCH_LIBRARY in their own files; this module
// only adds the introspection.  The Python-side facts (headers this binding was compiled with) are
// added here because only this file includes Python.h.
//
// Only pybind11 (shipped in torch's include dir): nothing here touches tensors, and
// <torch/extension.h> (all of ATen plus torch/python.h) made this the slowest file of the build.
// TORCH_EXTENSION_NAME comes from the compiler command line (cpp_extension defines it).
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "info/build_info.h"
#include "info/json.h"
#include "info/runtime_info.h"

#define ENVCHECK_STR2(x) #x
#define ENVCHECK_STR(x) ENVCHECK_STR2(x)

namespace {

std::string build_info() {
  envcheck::json::Object py;
  py.str("headers_version", PY_VERSION);  // Python.h this binary was compiled against
  py.str("module_name", ENVCHECK_STR(TORCH_EXTENSION_NAME));
#if defined(PYBIND11_VERSION_MAJOR)
  py.str("pybind11_version", std::to_string(PYBIND11_VERSION_MAJOR) + "." + std::to_string(PYBIND11_VERSION_MINOR) +
                                 "." + std::to_string(PYBIND11_VERSION_PATCH));
#endif
  return envcheck::build_info_json({{"built_as", "\"python-extension\""}, {"python", py.dump()}});
}

// The C++ side already turns every failure into a field; this is the last line of defence so that
// nothing crosses into Python as an exception.
std::string runtime_info() {
  try {
    return envcheck::runtime_info_json();
  } catch (const std::exception& e) {
    return "{\"error\":" + envcheck::json::quote(std::string("runtime_info_json threw: ") + e.what()) + "}";
  } catch (...) {
    return "{\"error\":\"runtime_info_json threw an unknown exception\"}";
  }
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "torch_envcheck's compiled extension: build-time and run-time facts as JSON";
  m.def("build_info_json", &build_info, "Facts fixed when this extension was compiled, as a JSON object");
  m.def("runtime_info_json", &runtime_info, pybind11::call_guard<pybind11::gil_scoped_release>(),
        "Facts found at run time (CUDA runtime/driver, devices, cuDNN, cuBLAS, loaded libraries), as JSON");
}
