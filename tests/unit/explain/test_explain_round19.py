"""explain's nineteenth round, from test19's misses (the other frameworks and runtimes on the GPU stack) read as
structure: other libraries' own words for a CPU build (MXNet, XGBoost, OpenCV, Faiss, ONNX Runtime's C API) name that
library's CUDA build; a source build's own "no toolkit" words (CuPy's setup, a setup.py joining a None CUDA_HOME,
Bazel's cuda_configure) name the toolkit or a prebuilt wheel; a companion outside a library's version range names the
range; jax's PJRT plugin of another release, TF-TRT's TensorRT of another version, XLA under JAX without libdevice;
nvidia-smi's ERR! is the GPU's state; an environment variable naming a file the process cannot see is the
environment, and ".so/.dll/.dylib" in a message is not a Mac.  The texts follow each tool's documented format; the
oracle is what the format means."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose


@pytest.mark.parametrize("text, library, package", [
    ("[10:01:02] src/storage/storage.cc:119: Compile with USE_CUDA=1 to enable GPU usage", "MXNet", "mxnet-cu"),
    ("xgboost.core.XGBoostError: [12:00:01] /workspace/src/common/common.h:239: XGBoost version not compiled with GPU "
     "support.", "XGBoost", "py-xgboost=*=cuda*"),
    ("cv2.error: OpenCV(4.9.0) /io/opencv/modules/core/include/opencv2/core/private.cuda.hpp:106: error: (-216:No CUDA "
     "support) The library is compiled without CUDA support in function 'throw_no_cuda'", "OpenCV", "WITH_CUDA=ON"),
    ("    res = faiss.StandardGpuResources()\nAttributeError: module 'faiss' has no attribute 'StandardGpuResources'",
     "Faiss", "faiss-gpu"),
])
def test_another_librarys_words_for_its_cpu_build_name_its_cuda_build(text, library, package):
    r = diagnose.diagnose(text)
    assert r["signature"] == "framework-cpu-build" and r["layer"] == "gpu-unused", r  # another library's CPU build
    assert library in r["title"] and package in r["fix"], (r["title"], r["fix"])
    assert "pip install torch" not in r["fix"] and "reinstall torch" not in r["fix"].lower(), r["fix"]


def test_onnxruntime_c_api_words_and_a_wrapped_warning_are_its_cpu_package():
    r = diagnose.diagnose("Microsoft.ML.OnnxRuntime.OnnxRuntimeException: [ErrorCode:Fail] CUDA execution provider is "
                          "not enabled in this build.")
    assert r["signature"] == "onnxruntime-without-cuda-provider" and "Microsoft.ML.OnnxRuntime.Gpu" in r["fix"], r
    # the warning as a terminal wraps it, with both packages listed by pip
    w = diagnose.diagnose("UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider\n"
                          "names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n"
                          "onnxruntime                1.18.0\nonnxruntime-gpu            1.18.0")
    assert w["signature"] == "onnxruntime-without-cuda-provider" and "Both packages" in w["explanation"], w


def test_cupy_source_build_without_nvcc_names_the_prebuilt_wheel():
    r = diagnose.diagnose("Collecting cupy\n  Downloading cupy-13.0.0.tar.gz\n    **************************************"
                          "************\n    *** WARNING: nvcc not in path.\n    *** WARNING: Please set path to nvcc.\n")
    assert r["signature"] == "cupy-source-build-without-toolkit" and r["layer"] == "toolchain", r
    assert "cupy-cuda12x" in r["fix"] and "CUDA_PATH" in r["fix"], r["fix"]


def test_a_setup_py_joining_a_none_cuda_home_is_no_toolkit():
    r = diagnose.diagnose("  File \"setup.py\", line 75, in <module>\n    _, major, minor = get_cuda_bare_metal_version("
                          "CUDA_HOME)\n  File \"setup.py\", line 15, in get_cuda_bare_metal_version\n    raw_output = "
                          "subprocess.check_output([cuda_dir + \"/bin/nvcc\", \"-V\"])\nTypeError: unsupported operand "
                          "type(s) for +: 'NoneType' and 'str'")
    assert r["signature"] == "cuda-home-none-in-setup" and "CUDA_HOME" in r["fix"], r
    # the same TypeError without CUDA_HOME in the frames is not this
    o = diagnose.diagnose("    x = name + '/bin'\nTypeError: unsupported operand type(s) for +: 'NoneType' and 'str'")
    assert o["signature"] != "cuda-home-none-in-setup", o["signature"]


def test_bazel_cuda_configure_names_the_version_it_looked_for():
    r = diagnose.diagnose("Error in fail: Repository command failed\nCould not find any cudnn.h matching version '8' in "
                          "any subdirectory:\n        ''\n        'include'\nof:\n        '/usr/local/cuda-12.3'")
    assert r["signature"] == "bazel-cuda-configure-no-toolkit" and "TF_CUDA_PATHS" in r["fix"], r
    assert "cudnn.h" in r["title"], r["title"]


def test_a_companion_outside_the_required_range_names_the_range():
    r = diagnose.diagnose("ImportError: Requires Flash-Attention version >=2.6.0,<=2.7.4 but got 2.8.1.")
    assert r["signature"] == "companion-version-out-of-range", r
    assert "pip install 'flash-attn>=2.6.0,<=2.7.4'" in r["fix"] or 'pip install "flash-attn>=2.6.0,<=2.7.4"' in r["fix"], r["fix"]
    # a version inside the range is no refusal
    ok = diagnose.diagnose("note: Requires Flash-Attention version >=2.6.0,<=2.7.4 but got 2.7.0.")
    assert ok["signature"] != "companion-version-out-of-range", ok


def test_jax_pjrt_plugin_of_another_release():
    r = diagnose.diagnose("RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT plugin "
                          "PJRT API version (0.60) and framework PJRT API version 0.57).")
    assert r["signature"] == "jax-pjrt-plugin-mismatch" and r["layer"] == "toolchain", r
    assert "jax[cuda12]" in r["fix"], r["fix"]


def test_tf_trt_compiled_against_another_tensorrt():
    r = diagnose.diagnose("WARNING:tensorflow:TensorRT mismatch. Compiled against version 7.2.2, but loaded 8.0.1. "
                          "Things may not work.")
    assert r["signature"] == "tensorrt-library-version-mismatch" and r["layer"] == "libraries", r
    assert "7.2.2" in r["fix"], r["fix"]


def test_xla_under_jax_without_libdevice_is_the_toolchain_and_under_tensorflow_not_this_rule():
    jax = ("2024-01-01 10:00:00.000000: W external/xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:543] Can't "
           "find libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime failures\n"
           "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: libdevice not found at ./libdevice.10.bc")
    r = diagnose.diagnose(jax)
    assert r["signature"] == "jax-xla-compiler-pieces" and "--xla_gpu_cuda_data_dir" in r["fix"], r
    tf = diagnose.diagnose("tensorflow/compiler/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:543] Can't find "
                           "libdevice directory ${CUDA_DIR}/nvvm/libdevice.\nimport tensorflow as tf")
    assert tf["signature"] != "jax-xla-compiler-pieces", tf["signature"]


def test_nvidia_smi_err_is_the_gpu_state_not_the_program():
    r = diagnose.diagnose("RuntimeError: CUDA error: unspecified launch failure\n$ nvidia-smi\n"
                          "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
                          "|   3  NVIDIA A100-SXM...  On   | 00000000:4E:00.0 Off |                 ERR! |\n"
                          "| ERR!   ERR! ERR!    ERR! / ERR! |      0MiB / 81920MiB |    ERR!      Default |")
    assert r["signature"] == "gpu-in-error-state" and r["layer"] == "driver" and r["environment_problem"], r
    assert "dmesg" in r["fix"], r["fix"]


def test_an_operator_left_out_by_the_build_command():
    r = diagnose.diagnose("env XFORMERS_DISABLE_FLASH_ATTN=1 pip install -v --no-deps ./xformers\n"
                          "RuntimeError: No such operator xformers_flash::flash_fwd - did you forget to build xformers "
                          "with `python setup.py develop`?")
    assert r["signature"] == "build-option-left-part-out" and "XFORMERS_DISABLE_FLASH_ATTN" in r["fix"], r
    # without the setting, the operator missing is the package built for another torch (the catalogue's sentence)
    o = diagnose.diagnose("RuntimeError: No such operator xformers_flash::flash_fwd")
    assert o["signature"] != "build-option-left-part-out", o["signature"]


def test_an_environment_variable_naming_a_file_the_process_cannot_see():
    r = diagnose.diagnose("ValueError: NUMBA_CUDA_DRIVER /usr/lib/x86_64-linux-gnu/libcuda.so is not a valid file "
                          "path.  Note it must be a filepath of the .so/.dll/.dylib or the driver")
    assert r["signature"] == "env-var-path-not-found" and r["layer"] == "env", r
    assert "NUMBA_CUDA_DRIVER" in r["fix"], r["fix"]
    assert r["layer"] != "macos"
