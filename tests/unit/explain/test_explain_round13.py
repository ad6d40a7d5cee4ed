"""explain's thirteenth round, from test13's misses read as structure: what the CUDA headers say a code means (an
operation "not supported on the current system or device"), the codes extensions' own checkers print as numbers
(spconv, TensorRT), the driver API's symbols (libcuda's, the driver's), a header a JIT says it needs, ggml's message
for a kernel without code for the running architecture, and a package imported from its unbuilt source tree.  The
texts follow each tool's documented format; the oracle is what the format means."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract


# --- cudaErrorNotSupported: the system's or the device's, not the program's ---------------------------------------

@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: operation not supported\nCUDA kernel errors might be asynchronously reported at some "
    "other API call, so the stacktrace below might be incorrect.",
    "torch.AcceleratorError: CUDA error: operation not supported\nSearch for `cudaErrorNotSupported' in "
    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
])
def test_an_operation_the_platform_does_not_support_is_not_the_programs(text):
    r = diagnose.diagnose(text)
    assert r["environment_problem"] is True and r["layer"] == "driver", (r["signature"], r["layer"])
    # the async allocator is the common case: ComfyUI's flag and torch's allocator setting are named
    assert "--disable-cuda-malloc" in r["fix"] and "PYTORCH_CUDA_ALLOC_CONF" in r["fix"], r["fix"]
    assert "reinstall" not in r["fix"].lower()


def test_the_driver_apis_not_supported_is_the_same_layer():
    ent = extract.entities("cuMemPoolCreate failed: CUDA_ERROR_NOT_SUPPORTED")
    assert [(c["name"], c["layer"]) for c in ent.codes] == [("CUDA_ERROR_NOT_SUPPORTED", "driver")], ent.codes


# --- a code printed as a number by an extension's own checker ----------------------------------------------------

def test_spconvs_checker_number_is_read_as_a_runtime_code():
    # cudaErrorInvalidDeviceFunction = 98 (driver_types.h): no code for this GPU
    r = diagnose.diagnose("RuntimeError: /src/spconv/src/spconv/indice.cu 120 cuda execution failed with error 98")
    assert r["layer"] == "arch" and "TORCH_CUDA_ARCH_LIST" in r["fix"], (r["signature"], r["fix"])


@pytest.mark.parametrize("num,layer", [("2", "not-environment"), ("35", "driver"), ("209", "arch")])
def test_tensorrts_cuda_error_line_is_decoded(num, layer):
    # TensorRT's logger: "<file> (<line>) - Cuda Error in <function>: <cudaError_t>"; 2 = out of memory, 35 = driver
    # older than the runtime, 209 = no kernel image for the device
    r = diagnose.diagnose(f"[TRT] runtime.cpp (25) - Cuda Error in allocate: {num}\n"
                          "terminate called after throwing an instance of 'nvinfer1::CudaError'\n  what():  "
                          "std::exception\nAborted (core dumped)")
    assert r["layer"] == layer, (num, r["signature"], r["layer"])
    assert r["signature"].startswith("code-cudaerror-"), r["signature"]


# --- the driver API's symbols are libcuda's -----------------------------------------------------------------------

@pytest.mark.parametrize("sym", ["cuGreenCtxCreate", "cuTensorMapEncodeTiled", "cuGetProcAddress_v2",
                                 "cuMemCreate"])
def test_a_driver_api_symbol_missing_is_a_driver_older_than_the_binarys_cuda(sym):
    r = diagnose.diagnose(f"ImportError: /venv/lib/python3.11/site-packages/some_kernels/ops.so: undefined symbol: {sym}")
    assert r["layer"] == "driver" and r["signature"] == "driver-api-symbol-missing", (r["signature"], r["layer"])
    assert "driver" in r["fix"].lower() and "ops.so" in r["fix"], r["fix"]


@pytest.mark.parametrize("sym,layer", [("cudaGetErrorString", "libraries"), ("cublasLtMatmul", "libraries"),
                                       ("cudnnCreate", "cudnn")])
def test_the_runtimes_and_the_math_libraries_symbols_are_not_the_drivers(sym, layer):
    r = diagnose.diagnose(f"OSError: /opt/lib/libfoo.so: undefined symbol: {sym}")
    assert r["signature"] != "driver-api-symbol-missing" and r["layer"] == layer, (sym, r["signature"])


# --- a header named as needed -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,owner", [
    ("RuntimeError: the JIT build requires cuda_fp16.h, which was not found", "CUDA toolkit"),
    ("error: cannot find cuda_runtime.h while compiling the kernel", "CUDA toolkit"),
])
def test_a_header_a_jit_says_it_needs_is_its_owners(text, owner):
    r = diagnose.diagnose(text)
    assert r["layer"] == "toolchain" and r["signature"] == "header-missing", (r["signature"], r["layer"])
    assert "toolkit" in r["fix"].lower(), r["fix"]


# --- ggml: a kernel without code for the running architecture --------------------------------------------------------

def test_ggmls_kernel_without_device_code_names_the_builds_architectures():
    r = diagnose.diagnose("/src/ggml/src/ggml-cuda/mmq.cuh:2422: ERROR: CUDA kernel mul_mat_q has no device code "
                          "compatible with CUDA arch 600. ggml-cuda.cu was compiled for: 600,700")
    assert r["layer"] == "arch" and r["signature"] == "ggml-kernel-without-arch", (r["signature"], r["layer"])
    assert "CMAKE_CUDA_ARCHITECTURES" in r["fix"] and "sm_60" in r["title"], (r["title"], r["fix"])


def test_ggmls_hip_build_is_rocms():
    r = diagnose.diagnose("ERROR: HIP kernel flash_attn_ext_f16 has no device code compatible with HIP arch 1030.")
    assert r["layer"] == "rocm" and r["signature"] == "ggml-kernel-without-arch", (r["signature"], r["layer"])


# --- a package's compiled part missing: its source tree, pip's resolver, any quotes ---------------------------------

def test_a_package_imported_from_its_unbuilt_source_tree_is_built_there():
    r = diagnose.diagnose('Traceback (most recent call last):\n  File "tools/train.py", line 9, in <module>\n'
                          '  File "/home/u/src/mmcv/mmcv/ops/nms.py", line 9, in <module>\n'
                          "ModuleNotFoundError: No module named 'mmcv._ext'")
    assert r["signature"] == "package-imported-from-source-tree" and r["layer"] == "toolchain", r["signature"]
    assert "pip install --no-build-isolation -e ." in r["fix"] and "another directory" in r["fix"], r["fix"]


def test_an_installed_package_without_its_compiled_part_is_not_a_source_tree():
    r = diagnose.diagnose('  File "/venv/lib/python3.10/site-packages/mmcv/ops/nms.py", line 9, in <module>\n'
                          "ModuleNotFoundError: No module named 'mmcv._ext'")
    assert r["signature"] == "package-compiled-part-missing", r["signature"]


@pytest.mark.parametrize("q", ["‘’", "“”", "''"])
def test_typographic_quotes_are_read(q):
    r = diagnose.diagnose(f"ImportError: No module named {q[0]}detectron2._C{q[1]}")
    assert r["signature"] in ("package-compiled-part-missing", "package-imported-from-source-tree"), r["signature"]


def test_pips_resolver_lines_say_which_torch_the_package_was_built_for():
    r = diagnose.diagnose("No module named 'mmcv._ext'\nERROR: pip's dependency resolver does not currently take into "
                          "account all the packages that are installed.\ntorchvision 0.13.1+cu113 requires "
                          "torch==1.12.1, but you have torch 2.5.0 which is incompatible.")
    assert "torch==1.12.1" in r["fix"] and "2.5.0" in r["fix"], r["fix"]


# --- a torch extension that pip failed to build, the cause hidden by pip's summary ---------------------------------

@pytest.mark.parametrize("text,pkg", [
    ("  Building wheel for torch-cluster (setup.py) ... error\n  ERROR: Failed building wheel for torch-cluster\n"
     "Failed to build torch-cluster", "torch-cluster"),
    ("  Running setup.py install for causal-conv1d ... error\nerror: legacy-install-failure", "causal-conv1d"),
    ("× Encountered error while trying to install package.\n╰─> flash-attn", "flash-attn"),
    ("ERROR: Could not build wheels for torch_scatter, which is required to install pyproject.toml-based projects",
     "torch-scatter"),
])
def test_a_failed_build_of_a_torch_extension_names_its_wheel_or_what_building_needs(text, pkg):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torch-extension-build-failed" and r["layer"] == "toolchain", (r["signature"], pkg)
    assert pkg in r["fix"] and "--no-build-isolation" in r["fix"] and "CUDA_HOME" in r["fix"], r["fix"]


def test_pygs_packages_get_pygs_wheel_index():
    r = diagnose.diagnose("ERROR: Failed building wheel for torch-sparse")
    assert "https://data.pyg.org/whl/torch-<TORCH>+<CUDA>.html" in r["fix"], r["fix"]


def test_a_package_pypi_does_not_serve_is_built_from_its_repository():
    # PyPI's "apex" is another project: the fix must not install it by name
    r = diagnose.diagnose("  Running setup.py install for apex ... error\nerror: legacy-install-failure")
    assert "git+https://github.com/NVIDIA/apex.git" in r["fix"], r["fix"]
    assert "pip install --no-build-isolation apex" not in r["fix"] and "prebuilt apex" not in r["fix"], r["fix"]


def test_setup_pys_bare_metal_version_is_a_build_without_a_cuda_toolkit():
    r = diagnose.diagnose("$ pip install causal-conv1d\nNameError: name 'bare_metal_version' is not defined")
    assert r["signature"] == "torch-extension-build-failed" and "no CUDA toolkit" in r["explanation"], r
    assert "CUDA_HOME" in r["fix"], r["fix"]


def test_a_failed_build_of_a_package_that_is_not_a_torch_extension_is_not_this():
    r = diagnose.diagnose("  ERROR: Failed building wheel for pycocotools\nFailed to build pycocotools")
    assert r["signature"] != "torch-extension-build-failed", r["signature"]


# --- a package's own word for its CPU build; torch's, in prose --------------------------------------------------------

def test_a_package_that_names_its_cuda_build_gets_its_index():
    r = diagnose.diagnose("dgl._ffi.base.DGLError: Check failed: allow_missing: Device API gpu is not enabled. "
                          "Please install the cuda version of dgl.")
    assert r["signature"] == "package-cpu-build", r["signature"]
    assert "https://data.dgl.ai/wheels/torch-<TORCH>/<CUDA>/repo.html" in r["fix"], r["fix"]


@pytest.mark.parametrize("text", ["my torch wasnt compiled with cuda enabled, why?",
                                  "It says pytorch is not compiled with CUDA enabled"])
def test_torchs_cpu_build_said_in_prose(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torch-not-compiled-with-cuda", r["signature"]


def test_a_build_log_that_says_torch_has_no_cuda_is_still_the_builds():
    r = diagnose.diagnose("Torch was not built with CUDA support, not building the GPU extensions.\n"
                          "fatal error: Python.h: No such file or directory")
    assert r["signature"] != "torch-not-compiled-with-cuda" and r["layer"] == "toolchain", r["signature"]


# --- ONNX Runtime's CUDA provider without its CUDA and cuDNN ----------------------------------------------------------

def test_onnxruntimes_cuda_provider_names_the_majors_it_printed():
    r = diagnose.diagnose("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 onnxruntime::python::"
                          "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require cuDNN 9.* "
                          "and CUDA 12.*, and the latest MSVC runtime.")
    assert r["layer"] == "libraries" and r["signature"] == "onnxruntime-cuda-libraries-not-loaded", r["signature"]
    assert "CUDA 12 and cuDNN 9" in r["fix"] and "preload_dlls" in r["fix"], r["fix"]
    assert "reinstall" not in r["fix"].lower()


# --- Triton without the driver's libcuda.so ---------------------------------------------------------------------------

_LAUNCHER = ("Command '['/usr/bin/gcc', '/tmp/x/main.c', '-O3', '-shared', '-fPIC', '-o', '/tmp/x/cuda_utils.so', "
             "'-lcuda', '-L{lib}', '-I/usr/include/python3.10']' returned non-zero exit status 1.")


def test_tritons_launcher_link_under_wsl_is_wsls_library_folder():
    r = diagnose.diagnose(_LAUNCHER.format(lib="/usr/lib/wsl/drivers/nv_dispi.inf_amd64_1234"))
    assert r["layer"] == "wsl" and "TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib" in r["fix"], (r["layer"], r["fix"])


def test_tritons_launcher_link_elsewhere_is_the_drivers_folder():
    r = diagnose.diagnose(_LAUNCHER.format(lib="/opt/venv/lib/python3.10/site-packages/triton/backends/nvidia/lib"))
    assert r["layer"] == "libraries" and "TRITON_LIBCUDA_PATH" in r["fix"] and "Python.h" in r["fix"], r["fix"]


def test_unsloths_link_check_is_the_same_cause():
    r = diagnose.diagnose("ImportError: Unsloth: CUDA is not linked properly.\nTry running `python -m bitsandbytes`")
    assert r["signature"] == "libcuda-not-in-linker-cache" and "ldconfig" in r["fix"], r["signature"]


# --- pip refusing its command line -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    'ERROR: You must give at least one requirement to install (see "pip help install")',
    "ERROR: Invalid requirement: 'torch==2.1.0 +cu118'",
    "$ pip install --cuda_ext\n\nUsage:\n  pip install [options] <requirement specifier> ...\n\nno such option: --cuda_ext",
])
def test_pips_usage_errors_are_the_command_not_the_environment(text):
    r = diagnose.diagnose(text)
    assert r["environment_problem"] is False and r["signature"] == "pip-usage-error", r["signature"]


def test_optparses_words_outside_pip_are_not_pips():
    r = diagnose.diagnose("myscript: error: no such option: --fast")
    assert r.get("signature") != "pip-usage-error"
