"""explain answers from the structure of a text (third round): message families read by their owner's enumeration
rather than by one example's wording.

Each text is a variant nobody collected: another package, another release's wording, another language around it.
The oracle is what the message's owner documents (the shell's strsignal() words, TensorFlow's cpu_feature_guard,
NumPy's import_array(), torch.utils.cpp_extension), written down before the code was run on the text."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b|\breinstall\b|"
                       r"--force-reinstall|--upgrade\b", re.IGNORECASE)


def _d(text: str) -> dict:
    return diagnose.diagnose(text)


# --- the shell's report of a signal, wherever it stands ----------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Segmentation fault (core dumped) when calling model.cuda() with torch 2.1",
    "Bus error (core dumped) in DataLoader worker inside docker",
])
def test_a_core_dumped_report_in_a_title_is_the_signal(text):
    d = _d(text)
    assert d["recognised"] and d["signature"].startswith("code-signal-")


@pytest.mark.parametrize("text", [
    "Illegal instruction (core dumped) after pip install tensorflow==2.4.0 on a Celeron",
    "$ python -c 'import tensorflow as tf'\nIllegal instruction (core dumped)",
    "import tf_keras fails: Illegal instruction (core dumped), tf 2.15",
])
def test_sigill_beside_tensorflow_is_its_avx_build(text):
    d = _d(text)
    assert d["layer"] == "tensorflow" and d["environment_problem"]
    assert "AVX" in d["fix"] and "source" in d["fix"]


def test_sigill_without_tensorflow_stays_the_cpu_in_general():
    d = _d("python train.py\nIllegal instruction (core dumped)")
    assert d["layer"] == "env" and "AVX" in d["fix"]


# --- Apple silicon named in CJK prose ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "zsh: illegal hardware instruction  python main.py\n换了M2的Mac以后就这样了",
    "zsh: illegal hardware instruction  python3 app.py\nM1チップのMacで実行しました",
    "zsh: illegal hardware instruction  python run.py\n用的是MacBook Air（M3芯片）",
])
def test_sigill_on_an_apple_silicon_mac_named_in_cjk_prose_is_rosetta(text):
    d = _d(text)
    assert d["layer"] == "macos" and "arm64" in d["fix"]


def test_an_intel_mac_in_cjk_prose_is_not_rosetta():
    d = _d("zsh: illegal hardware instruction  python a.py\n我的Mac是Intel Core i5的")
    assert d["layer"] != "macos"


# --- TensorFlow's cpu_feature_guard: the harmless notice and the fatal one -----------------------------------------

@pytest.mark.parametrize("text", [
    # TF 1.x wording, another instruction set
    "W tensorflow/core/platform/cpu_feature_guard.cc:45] The TensorFlow library wasn't compiled to use SSE4.2 "
    "instructions, but these are available on your machine and could speed up CPU computations.",
    # TF 1.13-2.x wording
    "I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports instructions that this TensorFlow binary "
    "was not compiled to use: AVX2 AVX512F FMA",
    # TF 2.4+ with oneDNN
    "I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow binary is optimized with oneAPI Deep Neural "
    "Network Library (oneDNN) to use the following CPU instructions in performance-critical operations:  AVX2 FMA",
    "I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU "
    "instructions in performance-critical operations.",
])
def test_tensorflow_cpu_feature_notices_are_harmless(text):
    d = _d(text)
    assert d["recognised"] and d["layer"] == "not-environment" and d["environment_problem"] is False
    assert not REINSTALL.search(d["fix"]) and "TF_CPP_MIN_LOG_LEVEL" in d["fix"]


def test_the_fatal_cpu_feature_message_is_still_the_build():
    d = _d("F tensorflow/core/platform/cpu_feature_guard.cc:37] The TensorFlow library was compiled to use AVX "
           "instructions, but these aren't available on your machine.\nAborted (core dumped)")
    assert d["layer"] == "tensorflow" and d["environment_problem"]


def test_a_notice_before_the_real_error_does_not_hide_it():
    d = _d("I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports instructions that this TensorFlow "
           "binary was not compiled to use: AVX2 FMA\n"
           "E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library: 7.1.4 but source was "
           "compiled with: 7.2.1.")
    assert d["layer"] == "cudnn" and d["environment_problem"]


# --- NumPy's import_array() failing, in each NumPy's module names --------------------------------------------------

@pytest.mark.parametrize("text", [
    "ImportError: numpy.core.multiarray failed to import",
    "ImportError: numpy.core._multiarray_umath failed to import",
    "ImportError: numpy._core.multiarray failed to import",      # NumPy 2's private core
    "ImportError: numpy.core.umath failed to import",
])
def test_numpy_import_array_failures_are_numpy(text):
    d = _d("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n    import cv2\n" + text)
    assert d["layer"] == "numpy" and d["environment_problem"] and re.search(r"numpy", d["fix"])


def test_the_more_specific_numpy_line_above_wins():
    d = _d("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.1 as it may crash.\n"
           "ImportError: numpy.core.multiarray failed to import")
    assert d["signature"] == "numpy-1-module-on-numpy-2"


# --- torch.utils.cpp_extension's ninja message, in either number, or told in prose ---------------------------------

@pytest.mark.parametrize("text", [
    "RuntimeError: Ninja is required to load C++ extension",
    "RuntimeError: Ninja is required to load C++ extensions",
    "Building the op failed: loading C++ extensions requires 'ninja' to be installed",
])
def test_ninja_required_in_its_wordings(text):
    d = _d(text)
    assert d["layer"] == "toolchain" and "ninja" in d["fix"]


def test_dnn_library_not_found_without_its_full_stop():
    d = _d("UnimplementedError DNN library is not found when running a Conv2D layer")
    assert d["layer"] == "cudnn"


# --- a torch-ABI symbol whose binary the text does not name: the traceback's package ------------------------------

@pytest.mark.parametrize("path, package", [
    ("/usr/lib/python3/dist-packages/pytorch3d-0.7.4-py3.10-linux-x86_64.egg/pytorch3d/renderer/__init__.py",
     "pytorch3d"),
    ("/opt/conda/lib/python3.9/site-packages/mmdet3d/ops/__init__.py", "mmdet3d"),
])
def test_an_unnamed_binary_belongs_to_the_package_the_traceback_imports(path, package):
    d = _d("undefined symbol: _ZN2at6Tensor7is_cudaEv\n"
           f'  File "{path}", line 3, in <module>\n    from .points import *')
    assert d["signature"] == "extension-abi-mismatch" and package in d["fix"]
    assert "torch itself needs no change" in d["fix"]


# --- a package saying its own compiled part did not load ----------------------------------------------------------

@pytest.mark.parametrize("text, package", [
    ("WARNING: CUDA kernels for autoawq are not installed, this will result in very slow inference speed.", "autoawq"),
    ("WARNING:root:exllama could not load its CUDA extension; falling back to torch", "exllama"),
    ("from vllm import LLM\nWARNING: CUDA extension not installed.", "vllm"),
    ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
     "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.3.0+cu121)", "xformers"),
])
def test_a_package_whose_compiled_part_did_not_load_is_that_packages_build(text, package):
    d = _d(text)
    assert d["layer"] == "toolchain" and d["environment_problem"] and package in d["fix"].lower()
    assert "torch" in d["fix"] and "pip install --force-reinstall torch" not in d["fix"]


def test_an_extension_that_loaded_is_not_this():
    d = _d("INFO: xformers loaded its C++/CUDA extensions (flash-attention 2.5.6)")
    assert d["signature"] != "package-extension-not-loaded"


# --- torch without CUDA on a Jetson ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, word", [
    ("Jetson Xavier NX with JetPack 5.1.2, pip install torch\n>>> torch.cuda.is_available()\nFalse", "JetPack"),
    ("# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64\n"
     "AssertionError: Torch not compiled with CUDA enabled", "6.1 / 6.2"),
])
def test_torch_without_cuda_on_a_jetson_is_nvidias_jetpack_build(text, word):
    d = _d(text)
    assert d["layer"] == "torch-build" and word in d["fix"] and "JetPack" in d["fix"]


def test_a_jetson_whose_torch_has_cuda_is_not_this():
    d = _d("Jetson Orin, JetPack 6.0\n>>> torch.cuda.is_available()\nTrue\nRuntimeError: CUDA error: out of memory")
    assert d["signature"] != "jetson-torch-without-cuda"


# --- cuDNN 8's sub-libraries on Windows, code 126: zlibwapi.dll --------------------------------------------------------

@pytest.mark.parametrize("text", [
    "I tensorflow/core/util/cuda_dnn.cc] Loaded cuDNN version 8401\n"
    "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n"
    "Please make sure cudnn_ops_infer64_8.dll is in your library path!",
    "OSError: [WinError 126] The specified module could not be found. Error loading "
    "\"C:\\tools\\cudnn-8.6\\bin\\cudnn_adv_train64_8.dll\" or one of its dependencies.",
])
def test_a_cudnn8_sublibrary_failing_with_126_outside_torch_is_zlibwapi(text):
    d = _d(text)
    assert d["layer"] == "cudnn" and "zlibwapi" in d["fix"]


@pytest.mark.parametrize("text", [
    # torch's wheels bundle zlibwapi.dll: a 126 in torch\lib is another missing dependency
    "OSError: [WinError 126] The specified module could not be found. Error loading "
    "\"D:\\py\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" or one of its dependencies.",
    # cuDNN 8.1 (TensorFlow 2.10's) predates the zlib dependency
    "Loaded cuDNN version 8100\nCould not load library cudnn_cnn_infer64_8.dll. Error code 126",
])
def test_a_cudnn8_sublibrary_that_is_not_zlibs_case(text):
    assert "zlibwapi" not in (_d(text)["fix"] or "")


# --- CMake's compiler detection, by its enumerated messages --------------------------------------------------------

@pytest.mark.parametrize("text, word", [
    ("CMake Error at /usr/share/cmake-3.28/Modules/CMakeDetermineCUDACompiler.cmake:180 (message):\n"
     "  Couldn't find CUDA library root.", "CUDACXX"),
    ("CMake Error at CMakeLists.txt:3 (project):\n  No CMAKE_CUDA_COMPILER could be found.\n\n  Tell CMake where to "
     "find the compiler by setting either the environment variable \"CUDACXX\" or the CMake cache entry "
     "CMAKE_CUDA_COMPILER to the full path to the compiler, or to the compiler name if it is in the PATH.", "nvcc"),
    ("-- The CXX compiler identification is unknown\nCMake Error at CMakeLists.txt:2 (project):\n"
     "  No CMAKE_CXX_COMPILER could be found.", "build-essential"),
])
def test_cmakes_compiler_detection_names_the_compiler_to_provide(text, word):
    d = _d(text)
    assert d["layer"] == "toolchain" and word in d["fix"]
    assert not re.search(r"install[^\n]{0,20}\btorch\b|--force-reinstall", d["fix"])  # the compiler, never torch


# --- TensorFlow's error classes when the message line itself says little ------------------------------------------

def test_tensorflows_resource_exhausted_oom_is_the_workload():
    d = _d("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
           "shape[64,256,56,56] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc")
    assert d["layer"] == "not-environment" and d["environment_problem"] is False and not REINSTALL.search(d["fix"])


@pytest.mark.parametrize("node", ["sequential/max_pooling2d/MaxPool", "model/batch_normalization/FusedBatchNormV3",
                                  "encoder/conv1d_transpose/conv1d_transpose"])
def test_tensorflows_unimplemented_at_a_dnn_node_is_cudnn(node):
    d = _d(f"tensorflow.python.framework.errors_impl.UnimplementedError: Graph execution error:\n\n"
           f"Detected at node '{node}' defined at (most recent call last):")
    assert d["layer"] == "cudnn" and "cuDNN" in d["fix"]


def test_tensorflows_unimplemented_elsewhere_is_not_cudnn():
    d = _d("tensorflow.python.framework.errors_impl.UnimplementedError: Cast string to float is not supported")
    assert d["layer"] != "cudnn"
