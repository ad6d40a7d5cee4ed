"""explain's eighth round: the default answer (a reading of the text's parts) made stronger where it transfers.  A log
line's source says its layer whatever word follows it (the NVIDIA kernel module's "NVRM:"), a library that could not
load because of another is not the root cause (the one it needs is), the library that needs a CUDA library names whose
build to change, and the same text gets the same answer in every run.  The texts are written here from each message's
documented format (cuDNN 8's and ONNX Runtime's loader messages, the kernel module's log prefix); the oracle is what
the format means, written before the code ran."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from torch_envcheck.explain import diagnose, identify, reading

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?)\s+install\b|(?<!no )\breinstall\b|--force-reinstall",
                       re.IGNORECASE)


def _read(text: str) -> dict:
    """The default answer alone, as if no rule or sentence had matched (what a text of a new shape gets)."""
    found, ent = identify.read_only(text)
    return diagnose.diagnose(text, found=found, entities=ent)


# --- the kernel module speaks in its own lines ----------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["", "[   12.345678] ", "Jan  5 09:12:44 gpu-3 kernel: ", "   "])
@pytest.mark.parametrize("line", [
    "NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x26:0x56:1474)",
    "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05",
])
def test_a_line_of_the_nvidia_kernel_module_is_read_as_the_driver(prefix, line):
    d = _read(f"$ sudo dmesg | tail -3\n{prefix}{line}\n")
    assert d["basis"] == "reading" and d["layer"] == "driver" and d["environment_problem"], d
    assert "driver" in d["fix"].lower()


def test_nvrm_inside_prose_is_not_a_kernel_line():
    # a sentence that quotes the word is not the module's log: it votes nothing (the text stays unread)
    d = _read("I searched for the word NVRM: nothing came up in the docs.")
    assert d.get("layer") != "driver", d


def test_nvrm_lines_kept_by_syslog_on_one_line_are_read():
    text = ("Jun  1 10:00:00 node kernel: NVRM: GPU at PCI:0000:3b:00: GPU-1f2e#012NVRM: GPU Board Serial Number: 0"
            "#012NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.")
    assert _read(text)["layer"] == "driver"


# --- the library that failed and the library it needs -----------------------------------------------------------------

_CUDNN8 = ("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such "
           "file or directory\nPlease make sure libcudnn_cnn_infer.so.8 is in your library path!\nAborted (core dumped)")


def test_cudnn_asking_for_the_unversioned_libcuda_is_the_link_not_cudnn():
    # cuDNN 8 dlopens "libcuda.so"; the driver ships libcuda.so.1: the library to make findable is the link
    d = _read(_CUDNN8)
    assert d["layer"] == "libraries" and d["environment_problem"], d
    assert "ln -s libcuda.so.1 libcuda.so" in d["fix"] and "libcudnn_cnn_infer.so.8" in d["fix"], d["fix"]
    assert "cudnn" not in d["signature"]


def test_the_same_under_wsl_is_wsls_library_folder():
    d = _read("Linux DESKTOP-1 5.15.153.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n" + _CUDNN8)
    assert d["layer"] == "wsl" and "/usr/lib/wsl/lib" in d["fix"], d
    assert "never install a Linux driver" in d["fix"]


# cuFFT's soname counts its own releases: libcufft.so.10 is CUDA 11's (the CUDA 11 toolkit ships cuFFT 10.x)
@pytest.mark.parametrize("missing, cuda", [("libcublasLt.so.11", "11"), ("libcufft.so.10", "11"), ("libcublas.so.12", "12")])
def test_onnx_runtimes_provider_names_its_distribution_and_the_cuda_it_wants(missing, cuda):
    text = ("[E:onnxruntime:Default, provider_bridge_ort.cc:1744 TryGetProviderInfo_CUDA] "
            "/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1426 onnxruntime::Provider& "
            "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
            "/opt/venv/lib/python3.10/site-packages/onnxruntime/capi/libonnxruntime_providers_cuda.so with error: "
            f"{missing}: cannot open shared object file: No such file or directory\n")
    d = _read(text)
    assert d["environment_problem"] and d["layer"] == "libraries", d
    assert "onnxruntime-gpu" in d["fix"] and missing in d["fix"] and f"CUDA {cuda}" in d["fix"], d["fix"]


def test_a_loader_whose_missing_library_is_not_read_still_votes():
    # without a library after "Error:" there is nothing deeper: the library named keeps its own vote
    d = _read("Could not load library libcudnn_cnn_infer.so.8. Error: \nPlease make sure libcudnn_cnn_infer.so.8 is "
              "in your library path!")
    assert d["layer"] == "cudnn", d


def test_the_loader_relation_is_read_from_both_loaders_words():
    assert reading._loaders(_CUDNN8) == {"libcuda.so": "libcudnn_cnn_infer.so.8"}
    assert reading._loaders("Failed to load library C:\\ort\\onnxruntime_providers_cuda.dll with error: "
                            "cublasLt64_12.dll: ") == {"cublasLt64_12.dll": "onnxruntime_providers_cuda.dll"}
    assert reading._loaders("libfoo.so: cannot open shared object file") == {}


# --- the same text, the same answer ------------------------------------------------------------------------------------

def test_two_layers_tied_on_weight_and_place_go_to_the_first_voted():
    a = reading.Vote("wsl", 1.0, 1, "platform", "wsl", 10)
    b = reading.Vote("container", 1.0, 1, "platform", "container", 10)
    assert reading.decide([a, b])[0] == "wsl"
    assert reading.decide([b, a])[0] == "container"


def test_of_two_components_on_one_line_the_one_named_last_wins():
    d = _read("E: the cuDNN version check of TensorFlow failed\n")
    assert d["layer"] == "tensorflow", d
    d = _read("E: the TensorFlow check of cuDNN failed\n")
    assert d["layer"] == "cudnn", d


_TIED = "Running inside docker on WSL 2 here.\nsomething is wrong and I do not know what\n"


def test_the_reading_does_not_depend_on_the_hash_seed():
    code = ("import sys; from torch_envcheck.explain import identify, diagnose; t = sys.stdin.read(); "
            "f, e = identify.read_only(t); print(diagnose.diagnose(t, found=f, entities=e).get('layer'))")
    seen = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], input=_TIED, capture_output=True, text=True, env=env,
                             timeout=120, check=True)
        seen.add(out.stdout.strip())
    assert len(seen) == 1, seen


# --- a not-environment error never gets an install ----------------------------------------------------------------------

def test_a_programs_error_beside_a_kernel_log_gets_no_install():
    d = _read("[  100.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14\n"
              "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 23.65 GiB total capacity)")
    # the module's load line is information; the error is the workload's size
    assert d["layer"] == "not-environment" and not d["environment_problem"], d
    assert not REINSTALL.search(d.get("fix") or d.get("look") or ""), d


# --- torch's line under every CUDA error is not the program's assertion ---------------------------------------------------

_DSA = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_{api}_DSA` to enable "
        "device-side assertions.\n")


@pytest.mark.parametrize("api", ["CUDA", "HIP"])
def test_the_dsa_hint_torch_appends_does_not_make_an_error_the_programs(api):
    d = _read("torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
              + _DSA.format(api=api))
    assert d["layer"] == "arch" and d["environment_problem"], d


def test_a_triggered_device_side_assert_is_still_the_programs():
    d = _read("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [3,0,0] Assertion "
              "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.\n"
              "RuntimeError: CUDA error: device-side assert triggered\n" + _DSA.format(api="CUDA"))
    assert d["layer"] == "not-environment" and not d["environment_problem"], d
    assert not REINSTALL.search(d.get("fix") or ""), d
