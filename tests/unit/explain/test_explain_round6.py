"""explain's sixth round: mechanisms read from the structure of an error (a path's length against Windows' limit, ...),
each tested on texts written here from the documented format of the message, never copied from the corpus.  The
oracle is what the format means (a path of 260 characters or more is past MAX_PATH), written before the code ran."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose


@pytest.mark.parametrize("msg", [
    "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: '{p}'",
    "FileNotFoundError: [Errno 2] No such file or directory: '{p}'",
    "OSError: [WinError 3] The system cannot find the path specified: '{p}'",
])
def test_a_file_past_max_path_is_windows_long_paths_not_a_missing_file(msg):
    path = "C:\\\\Users\\\\me\\\\AppData\\\\Local\\\\Temp\\\\" + "\\\\".join(["a_rather_long_folder_name"] * 12) + "\\\\x.h"
    assert len(path.replace("\\\\", "\\")) >= 260
    r = diagnose.diagnose(msg.format(p=path))
    assert r["layer"] == "windows-runtime" and r["environment_problem"], r
    assert "LongPathsEnabled" in r["fix"] and "shorter path" in r["fix"]


def test_winerror_206_is_the_path_limit_whatever_the_length_shown():
    r = diagnose.diagnose("ERROR: Could not install packages due to an OSError: [WinError 206] The filename or "
                          "extension is too long: 'C:\\\\envs\\\\x\\\\Lib\\\\site-packages\\\\pkg-1.0.dist-info\\\\licenses'")
    assert r["layer"] == "windows-runtime" and "LongPathsEnabled" in r["fix"]


def test_a_short_missing_path_is_not_called_a_long_path():
    # 259 characters and below fit in MAX_PATH with its terminating NUL: a missing file, whatever else it is
    path = "C:\\\\data\\\\" + "d" * 60 + "\\\\model.bin"
    r = diagnose.diagnose(f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'")
    assert "LongPathsEnabled" not in (r.get("fix") or "") and r["layer"] != "windows-runtime"


REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?)\s+install\b|(?<!no )\breinstall\b|--force-reinstall",
                       re.IGNORECASE)


@pytest.mark.parametrize("gpu, have", [("Tesla P40", "6.1"), ("Quadro M4000", "5.2"), ("Tesla K80", "3.7")])
def test_a_gpu_below_tritons_floor_is_arch_and_runs_eager(gpu, have):
    # torch/_inductor/exc.py, GPUTooOldForTriton: the GPU's name and capability are filled in
    text = ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
            f"RuntimeError: Found {gpu} which is too old to be supported by the triton GPU compiler, which is used as the "
            f"backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability {have}")
    r = diagnose.diagnose(text)
    assert r["layer"] == "arch" and r["environment_problem"], r
    assert "torch.compile" in r["fix"] and "7.0" in r["fix"] and have in r["fix"] and "TORCHDYNAMO_DISABLE" in r["fix"]


def test_a_cut_triton_floor_message_still_reads_the_gpu_as_too_old():
    r = diagnose.diagnose("RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU "
                          "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0")
    assert r["layer"] == "arch" and "torch.compile" in r["fix"]


@pytest.mark.parametrize("gpu, have", [("Tesla T4", "7.5"), ("Tesla V100-SXM2-32GB", "7.0")])
def test_bfloat16_on_a_gpu_without_it_is_the_programs_dtype_not_the_installation(gpu, have):
    # vLLM's dtype check (vllm/config.py)
    r = diagnose.diagnose("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                          f"Your {gpu} GPU has compute capability {have}. You can use float16 instead by explicitly "
                          "setting the`dtype` flag in CLI, for example: --dtype=half.")
    answer = r["fix"] or r.get("look_at") or ""
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert "float16" in answer and not REINSTALL.search(answer), answer


def test_a_gpu_at_or_above_the_floor_is_not_called_too_old():
    r = diagnose.diagnose("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                          "Your NVIDIA A100 GPU has compute capability 8.0.")
    assert r.get("signature") not in ("gpu-below-dtype-capability", "gpu-below-capability-floor")


def test_another_components_floor_is_arch_with_both_capabilities():
    r = diagnose.diagnose("RuntimeError: FlashWidget requires a GPU with compute capability of at least 8.0; "
                          "the current device has compute capability 7.5")
    assert r["layer"] == "arch" and "8.0" in r["fix"] and "7.5" in r["fix"], r


def _dso(lib: str, level: str = "W") -> str:
    # TensorFlow's dso_loader line (tensorflow/tsl/platform/default/dso_loader.cc)
    return (f"2024-01-01 00:00:00.000000: {level} tensorflow/tsl/platform/default/dso_loader.cc:66] Could not load "
            f"dynamic library '{lib}'; dlerror: {lib}: cannot open shared object file: No such file or directory\n")


_TRT_WARN = ("2024-01-01 00:00:00.000000: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Cannot "
             "dlopen some TensorRT libraries. If you would like to use Nvidia GPU with TensorRT, please make sure the "
             "missing libraries mentioned above are installed properly.\n")


@pytest.mark.parametrize("major", ["7", "8", "10"])
def test_tensorrt_alone_missing_with_tensorflows_warning_is_harmless(major):
    r = diagnose.diagnose(_dso(f"libnvinfer.so.{major}") + _dso(f"libnvinfer_plugin.so.{major}") + _TRT_WARN)
    answer = r["fix"] or r.get("look_at") or ""
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert "TF-TRT" in answer and not REINSTALL.search(answer)


def test_tensorrt_missing_beside_cudas_own_libraries_is_not_called_harmless():
    r = diagnose.diagnose(_dso("libcudart.so.11.0") + _dso("libnvinfer.so.7") + _TRT_WARN)
    assert r["environment_problem"] and r["layer"] != "not-environment", r


def test_tensorrt_missing_when_the_program_uses_tf_trt_is_not_called_harmless():
    text = (_dso("libnvinfer.so.6") + _TRT_WARN + "2024-01-01 00:00:01.000000: F tensorflow/compiler/tf2tensorrt/stub/"
            "nvinfer_stub.cc:49] getInferLibVersion symbol not found.\nAborted (core dumped)\n")
    assert diagnose.diagnose(text).get("signature") != "tensorflow-tensorrt-optional"


@pytest.mark.parametrize("line", [
    "misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
    "libibverbs: ibv_create_qp() failed: Cannot allocate memory",
    "ERROR mlx5_1: ibv_create_cq() failed: Cannot allocate memory.",
])
def test_an_rdma_verb_out_of_memory_is_the_locked_memory_limit_not_ram(line):
    r = diagnose.diagnose(line)
    assert r["layer"] == "distributed" and "memlock" in r["fix"] and "ulimit -l" in r["fix"], r


def test_cannot_allocate_memory_without_rdma_stays_host_memory():
    r = diagnose.diagnose("OSError: [Errno 12] Cannot allocate memory")
    assert "memlock" not in (r.get("fix") or "")


def _paddle(libs: str) -> str:
    # PaddlePaddle's loader message (paddle/phi/backends/dynload/dynamic_loader.cc)
    return (f"RuntimeError: (PreconditionNotMet) The third-party dynamic library ({libs}) that Paddle depends on is not "
            "configured correctly. (error code is 126)\n  Suggestions:\n  1. Check if the third-party dynamic library "
            "(e.g. CUDA, CUDNN) is installed correctly and its version is matched with paddlepaddle you installed.")


# a DLL the Windows loader cannot open is Windows' DLL search path (windows-runtime) whoever ships it; the fix names
# the provider (cuDNN, the CUDA toolkit)
@pytest.mark.parametrize("dll, layer, words", [
    ("cudnn64_9.dll", "windows-runtime", ["cuDNN 9", "PATH"]),
    ("cufft64_11.dll", "windows-runtime", ["CUDA", "PATH"]),
    ("cusolver64_10.dll;cusolver64_11.dll", "windows-runtime", ["cusolver64_11.dll", "PATH"]),
])
def test_a_windows_cuda_dll_the_loader_cannot_open_is_installed_or_put_on_path(dll, layer, words):
    r = diagnose.diagnose(_paddle(dll))
    assert r["layer"] == layer and r["environment_problem"], r
    assert all(w in r["fix"] for w in words) and "LD_LIBRARY_PATH" not in r["fix"], r["fix"]
    # a list of alternative names is not one library wanting another (no "cusolver64 build" of a package)
    assert "cusolver64 build" not in r["fix"]


def test_a_choice_of_wheels_is_one_pip_command_each():
    r = diagnose.diagnose("OSError: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory")
    assert " or nvidia-" not in r["fix"] and "`pip install nvidia-cudnn-cu12`" in r["fix"], r["fix"]
