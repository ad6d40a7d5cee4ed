"""Layer rules for GPUs other than NVIDIA's CUDA path on Windows and WSL, read from their runtimes' own words: ONNX
Runtime's DirectML provider, ROCm under WSL 2, Triton's Intel XPU backend.

    directml_parameter_refused  DirectML's "The parameter is incorrect" (0x80070057) from ONNX Runtime's DML provider ->
                         not-environment: the session's options or an operator DirectML does not take
    rocm_under_wsl_without_amdgpu  rocminfo's "ROCk module is NOT loaded" / modprobe finding no amdgpu in a WSL2 kernel
                         -> wsl: ROCm on WSL goes through AMD's Windows driver (amdgpu-install --usecase=wsl,rocm)
    triton_intel_without_sycl  Triton's Intel backend "sycl headers not found" -> toolchain: intel-sycl-rt or oneAPI
    directx_device_removed  DirectX 12's device-removed state under DirectML (GetDeviceRemovedReason, DXGI_ERROR_DEVICE_
                         REMOVED/HUNG/RESET) -> driver: Windows reset the GPU (TDR, a driver fault, video memory)
    directml_package_missing  "Failed to import torch.dml" / the DirectML package asked for -> torch-build: the
                         torch-directml plugin and its device, torch_directml.device()
    gpu_stack_dll_dependency  WinError 126 for a DLL of Intel's extension (oneAPI's runtime DLLs) or torch's
                         caffe2_nvrtc.dll (the NVRTC DLL beside it, ZLUDA's replacement and the HIP SDK, the VC++
                         runtime) -> windows-runtime: the DLLs that DLL imports
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

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


# DirectX 12's removed-device state as DirectML surfaces it (torch-directml's CHECK on GetDeviceRemovedReason, ONNX
# Runtime's DXGI_ERROR_DEVICE_REMOVED 0x887A0005, HUNG 0x887A0006, RESET 0x887A0007, also as signed HRESULTs): Windows
# took the GPU away from every process using it
_DEVICE_REMOVED = re.compile(r"GetDeviceRemovedReason|DXGI_ERROR_DEVICE_(?:REMOVED|HUNG|RESET)\b|"
                             r"\b(?:0x)?887[aA]000[567]\b|-200527052[123]\b")


def directx_device_removed(ent, text):
    m, at = last_in_tail(_DEVICE_REMOVED, text)
    if m is None:
        return None
    sig = _sig("directx-device-removed", "driver",
               "DirectX removed the GPU device under DirectML (device removed, hung or reset)", 84,
               "DirectML runs on a Direct3D 12 device; Windows puts that device in the removed state when a GPU job "
               "outlasts the display driver's Timeout Detection and Recovery limit (TDR, 2 seconds by default), when "
               "the driver faults, or when video memory runs out, and every later call fails until the device is "
               "created again. The installed packages are not what failed.",
               fix="Update the GPU driver (the vendor's current release, a clean install), then rerun; if it recurs on "
                   "long or large steps, lower the work per call (batch size, image size) so the GPU answers within "
                   "TDR's limit and fits its memory, or raise the limit (the TdrDelay value under HKLM\\System\\"
                   "CurrentControlSet\\Control\\GraphicsDrivers, then reboot). The Event Viewer's System log shows "
                   "the display driver's reset (Display, event 4101).",
               areas=("driver",),
               sources=({"url": "https://learn.microsoft.com/en-us/windows-hardware/drivers/display/timeout-detection-"
                                "and-recovery",
                         "what": "Windows' Timeout Detection and Recovery: TdrDelay, the reset of a GPU that stops "
                                 "answering"},
                        {"url": "https://learn.microsoft.com/en-us/windows/win32/direct3ddxgi/dxgi-error",
                         "what": "DXGI_ERROR_DEVICE_REMOVED, _HUNG, _RESET: their values and meanings"}))
    return _match(sig, text, at, {})


# torch's DirectML backend is a plugin package of its own (torch-directml: `import torch_directml`,
# torch_directml.device()); an application asking for a torch.dml module or for "the PyTorch package for DirectML"
_DML_PACKAGE = re.compile(r"Failed to import torch\.dml\b|No module named '?torch\.dml'?|"
                          r"installed the PyTorch package for DirectML")


def directml_package_missing(ent, text):
    m, at = last_in_tail(_DML_PACKAGE, text)
    if m is None:
        return None
    sig = _sig("directml-package-missing", "torch-build", "torch's DirectML backend is not installed (torch-directml)",
               82,
               "torch reaches DirectML (any DirectX 12 GPU on Windows and WSL: AMD, Intel, NVIDIA) only through the "
               "torch-directml plugin package, which pins the torch release it works with; there is no torch.dml "
               "module in torch itself, and the older pytorch-directml fork is retired.",
               fix="Install the plugin into the environment that runs the program: `python -m pip install "
                   "torch-directml` (it installs the torch release it supports), then use `import torch_directml; "
                   "dml = torch_directml.device()` and move tensors and the model `.to(dml)`.",
               areas=("torch",),
               sources=({"url": "https://learn.microsoft.com/en-us/windows/ai/directml/pytorch-windows",
                         "what": "Microsoft: PyTorch with DirectML, pip install torch-directml, torch_directml.device()"},))
    return _match(sig, text, at, {})


# the code, then the first DLL named after it on its line (within 530 characters): read in two steps, because one
# pattern with the path and the name as nested bounded runs backtracks for seconds on a line with no ".dll" at all
_DLL_CODE = re.compile(r"\[WinError 126\]|WinError 126\b|0xC0000135", re.I)
_DLL_NAME = re.compile(r"(?P<dll>[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,59}\.dll)\b", re.I)


def _dll_loading(text: str):
    """(the DLL's name, the text before it on the line, the code's position in text) for the last code that names a
    DLL after it, or None."""
    tail = text[-CONTEXT_TAIL:]
    found = None
    for c in _DLL_CODE.finditer(tail):
        end = tail.find("\n", c.end())
        window = tail[c.end():min(c.end() + 530, len(tail) if end < 0 else end)]
        if ".dll" not in window.lower():
            continue
        d = _DLL_NAME.search(window)
        if d is not None:
            before = window[:d.start()]
            path = before.rsplit('"', 1)[-1] if '"' in before else re.sub(r"^.*?(?:Error loading |loading )", "",
                                                                          before, flags=re.I)
            found = (d.group("dll"), path[-260:], len(text) - len(tail) + c.start())
    return found


# Intel's extension: its own DLLs (intel-ext-pt-gpu.dll, esimd_kernels.dll) or any DLL in its package folder
_IPEX_DLL = re.compile(r"(?i)intel_extension_for_pytorch|intel-ext-pt-[\w-]{1,20}\.dll|esimd_kernels\.dll")


def gpu_stack_dll_dependency(ent, text):
    found = _dll_loading(text)
    if found is None:
        return None
    dll, path, at = found
    where = path + dll
    if _IPEX_DLL.search(where):
        sig = _sig("ipex-dll-dependency", "windows-runtime",
                   "a DLL of Intel's extension for PyTorch cannot load its dependencies ({dll})", 83,
                   "{dll} was found; a DLL it imports was not (WinError 126 names no file). Intel's extension imports "
                   "torch's DLLs (torch_cpu.dll, c10.dll) of the one torch release it was built for, and oneAPI's "
                   "runtime DLLs: the SYCL/DPC++ runtime, MKL (mkl_core, mkl_sycl) and Intel's OpenMP.",
                   fix="Install the set the extension's release pins, in the environment that runs the program: its "
                       "torch build (the +xpu wheel it names) and oneAPI's runtime packages (`intel-sycl-rt` / "
                       "`dpcpp-cpp-rt`, `mkl-dpcpp`, `intel-openmp`, the versions its Windows installation page lists), "
                       "or install the oneAPI Base Toolkit and run its setvars.bat (`\"C:\\Program Files (x86)\\Intel"
                       "\\oneAPI\\setvars.bat\"`) in the console that starts Python. torch 2.5 and later run Intel GPUs "
                       "through their own XPU wheels (https://download.pytorch.org/whl/xpu) without the extension.",
                   areas=("platform",),
                   sources=({"url": "https://intel.github.io/intel-extension-for-pytorch/index.html#installation?"
                                    "platform=gpu&os=windows",
                             "what": "Intel Extension for PyTorch on Windows: the torch release and oneAPI runtime "
                                     "packages each release needs"},))
        return _match(sig, text, at, {"dll": dll})
    if dll.lower() == "caffe2_nvrtc.dll" and not ent.platform.get("zluda"):
        sig = _sig("caffe2-nvrtc-dependency", "windows-runtime",
                   "torch's caffe2_nvrtc.dll cannot load the DLLs it imports", 81,
                   "caffe2_nvrtc.dll exists; a DLL it imports does not load. It imports NVRTC's DLL (nvrtc64_*.dll, "
                   "shipped beside it in torch\\lib by the CUDA wheels) and the Visual C++ runtime; the CUDA driver "
                   "(nvcuda.dll) is delay-loaded, so a machine without an NVIDIA driver is not the cause. Where ZLUDA "
                   "runs torch on an AMD GPU, the NVRTC and CUDA DLLs in torch\\lib are ZLUDA's, which load the HIP "
                   "SDK's runtime.",
                   fix="Install the latest Microsoft Visual C++ Redistributable (x64, https://aka.ms/vs/17/release/"
                       "vc_redist.x64.exe). Under ZLUDA (an AMD GPU): install the HIP SDK version that ZLUDA build names "
                       "and put its bin folder on the system PATH (e.g. `C:\\Program Files\\AMD\\ROCm\\5.7\\bin`, "
                       "with HIP_PATH set), then open a new console. Otherwise check that torch\\lib holds the "
                       "nvrtc64_*.dll of the same torch (a folder mixed from two installs: `pip uninstall torch` until "
                       "none is left, then install one build).",
                   areas=("platform",),
                   sources=({"url": "https://github.com/pytorch/pytorch/blob/main/caffe2/CMakeLists.txt",
                             "what": "caffe2_nvrtc links NVRTC and delay-loads nvcuda.dll on Windows"},
                            {"url": "https://github.com/patientx/ComfyUI-Zluda/issues/44",
                             "what": "caffe2_nvrtc.dll under ZLUDA: the HIP SDK's bin folder on PATH"}))
        return _match(sig, text, at, {})
    return None
