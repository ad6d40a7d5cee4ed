"""Layer rules for GPUs other than NVIDIA's CUDA path on Windows and WSL, read from their runtimes' own words: ONNX
Runtime's DirectML provider, ROCm under WSL 2, Triton's Intel XPU backend.

    directml_parameter_refused  DirectML's "The parameter is incorrect" (0x80070057) from ONNX Runtime's DML provider ->
                         not-environment: the session's options or an operator DirectML does not take
    rocm_under_wsl_without_amdgpu  rocminfo's "ROCk module is NOT loaded" / modprobe finding no amdgpu in a WSL2 kernel
                         -> wsl: ROCm on WSL goes through AMD's Windows driver (amdgpu-install --usecase=wsl,rocm)
    triton_intel_without_sycl  Triton's Intel backend "sycl headers not found" -> toolchain: intel-sycl-rt or oneAPI
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_DML_PARAMETER = re.compile(r"(?:DmlExecutionProvider|DirectML\.dll|DmlOperator)[\s\S]{0,600}?(?:80070057 The parameter "
                            r"is incorrect|\"The parameter is incorrect\.\")|(?:80070057 The parameter is incorrect|"
                            r"Exception \"The parameter is incorrect\.\")[\s\S]{0,600}?(?:DirectML\.dll|DmlOperator|"
                            r"DmlDevice)")


def directml_parameter_refused(ent, text):
    m, at = last_in_tail(_DML_PARAMETER, text, "parameter is incorrect")
    if m is None:
        return None
    sig = _sig("directml-parameter-refused", "not-environment",
               "DirectML refused a parameter of the model or the session (0x80070057)", 82,
               "DirectML, ONNX Runtime's DirectX 12 provider, answered E_INVALIDARG (\"The parameter is incorrect\") for "
               "one node or for the session: it does not support every ONNX operator configuration, nor the session "
               "options parallel execution (ORT_PARALLEL) and memory patterns. The installation is fine.",
               look_at="Create the session as the DirectML provider requires: `so = ort.SessionOptions(); "
                       "so.enable_mem_pattern = False; so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL`. If a "
                       "node still fails, that operator's configuration is not supported by this onnxruntime-directml: "
                       "try its newest release, or run that model on another provider.",
               areas=("program",),
               sources=({"url": "https://onnxruntime.ai/docs/execution-providers/DirectML-ExecutionProvider.html",
                         "what": "DirectML EP: no memory pattern optimisations, no parallel execution"},))
    return _match(sig, text, at, {})


_ROCM_WSL = re.compile(r"Module amdgpu not found in directory /lib/modules/[\w.-]{1,60}(?:microsoft|WSL)[\w.-]{0,40}|"
                       r"ROCk module is NOT loaded(?=[\s\S]{0,600}?(?:microsoft-standard|WSL))|"
                       r"(?:microsoft-standard|WSL)[\s\S]{0,600}?ROCk module is NOT loaded")


def rocm_under_wsl_without_amdgpu(ent, text):
    m, at = last_in_tail(_ROCM_WSL, text)
    if m is None:
        return None
    sig = _sig("rocm-under-wsl", "wsl", "ROCm under WSL 2 finds no AMD GPU: WSL's kernel has no amdgpu driver", 86,
               "WSL 2's kernel carries no amdgpu module, and ROCm's kernel driver (ROCk) cannot load there: under WSL "
               "ROCm reaches the GPU through AMD's Windows driver instead, for the Radeon GPUs AMD lists for WSL "
               "(integrated GPUs are not among them).",
               fix="Install AMD's Windows driver with WSL support (Adrenalin Edition for WSL) on Windows, then inside "
                   "WSL install ROCm without kernel modules: `amdgpu-install -y --usecase=wsl,rocm --no-dkms`, and the "
                   "ROCm torch wheels AMD's WSL guide names; on an unsupported or integrated GPU use DirectML "
                   "(torch-directml) on Windows instead.",
               areas=("wsl",),
               sources=({"url": "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html",
                         "what": "ROCm on WSL: AMD's Windows driver, amdgpu-install --usecase=wsl,rocm --no-dkms, "
                                 "supported GPUs"},))
    return _match(sig, text, at, {})


# intel-xpu-backend-for-triton (triton/backends/intel/driver.py, find_sycl): icpx, ONEAPI_ROOT, the intel-sycl-rt wheel
_TRITON_SYCL = re.compile(r"sycl headers not found|libsycl\.so not found|sycl\.dll not found")


def triton_intel_without_sycl(ent, text):
    m, at = last_in_tail(_TRITON_SYCL, text, "sycl")
    if m is None or not re.search(r"triton|xpu|intel", text, re.I):
        return None
    sig = _sig("triton-intel-without-sycl", "toolchain", "Triton's Intel GPU backend finds no SYCL headers or runtime",
               84,
               "Triton compiles kernels for Intel GPUs (torch.compile on XPU) with SYCL; its Intel backend looks for "
               "SYCL's headers and runtime through the icpx compiler, ONEAPI_ROOT, or the intel-sycl-rt wheel, and found "
               "none of them.",
               fix="Install the SYCL runtime wheel beside torch's XPU build (`pip install intel-sycl-rt`, the release the "
                   "torch XPU wheels require), or install oneAPI's DPC++/C++ compiler and run its setvars script "
                   "(Windows: `\"C:\\Program Files (x86)\\Intel\\oneAPI\\setvars.bat\"`; Linux: `source "
                   "/opt/intel/oneapi/setvars.sh`) so ONEAPI_ROOT and icpx are set in the shell that runs the program.",
               areas=("toolchain",),
               sources=({"url": "https://github.com/intel/intel-xpu-backend-for-triton",
                         "what": "Triton's Intel backend: SYCL from oneAPI or the intel-sycl-rt wheel"},))
    return _match(sig, text, at, {})
