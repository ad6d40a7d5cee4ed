"""Builds the recorded snapshots of the advice scenarios (fixes that fit the platform and never break the other
framework) from existing recorded snapshots, with published versions: the Requires-Dist lines come
from the wheels' METADATA on PyPI (tests/data/advice/requires_dist.json names each wheel and its
sha256), driver/CUDA pairs from NVIDIA's tables, the NVIDIA_VISIBLE_DEVICES values from the NVIDIA
Container Toolkit's README, the JetPack torch from NVIDIA's install page.  Not a test module:

    python tests/support/scenarios_advice.py          # (re)writes tests/snapshots/<name>.json

Each builder says what the machine is and what the doctor must say about it (tests/data/scenarios.json
holds the assertions)."""

from __future__ import annotations

import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SNAP_DIR = os.path.join(os.path.dirname(HERE), "snapshots")
REQUIRES = os.path.join(os.path.dirname(HERE), "data", "advice", "requires_dist.json")

with open(REQUIRES, encoding="utf-8") as _fh:
    META = json.load(_fh)


def base(name: str) -> dict:
    with open(os.path.join(SNAP_DIR, name + ".json"), encoding="utf-8") as fh:
        return copy.deepcopy(json.load(fh))


def requires(key: str, name: str | None = None, version: str | None = None) -> dict:
    dist, ver = key.split("==")
    return {"name": name or dist, "version": version or ver, "requires": list(META[key]["requires"])}


def lib(file: str, kind: str, version: str, so: str) -> dict:
    return {"file": file, "kind": kind, "version": version, "soversion": so}


WIN_CUDA11_DLLS = [lib("cublas64_11.dll", "cublas", "11", "11"), lib("cublasLt64_11.dll", "cublasLt", "11", "11"),
                   lib("cudart64_110.dll", "cudart", "11.0", "110"), lib("cudnn64_8.dll", "cudnn", "8", "8")]


def _tf_windows_210(distribution: str = "tensorflow", gpu: bool = True, gpu_name="NVIDIA GeForce GTX 1660 SUPER",
                    cap="7.5", mem=4051) -> dict:
    """TensorFlow 2.10.1 on native Windows (the last release with a GPU build there): build info as
    tf.sysconfig.get_build_info() writes it on Windows (DLL suffixes)."""
    build = ({"cpu_compiler": "MSVC 2019", "cuda_compute_capabilities": ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75",
                                                                         "compute_80"],
              "cuda_version": "64_112", "cudnn_version": "64_8", "cudart_dll_name": "cudart64_110.dll",
              "cudnn_dll_name": "cudnn64_8.dll", "nvcuda_dll_name": "nvcuda.dll",
              "msvcp_dll_names": "msvcp140.dll,msvcp140_1.dll", "is_cuda_build": True, "is_rocm_build": False,
              "is_tensorrt_build": False} if gpu else
             {"cpu_compiler": "MSVC 2019", "msvcp_dll_names": "msvcp140.dll,msvcp140_1.dll", "is_cuda_build": False,
              "is_rocm_build": False, "is_tensorrt_build": False})
    line = (f"I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/"
            f"device:GPU:0 with {mem} MB memory:  -> device: 0, name: {gpu_name}, pci bus id: 0000:01:00.0, "
            f"compute capability: {cap}")
    return {
        "installed": True, "distribution": distribution, "version": "2.10.1",
        "distributions": {distribution: "2.10.1", "keras": "2.10.0", "tensorboard": "2.10.1"},
        "extras": [], "and_cuda": [],
        "requires": {"numpy": [{"framework": "tensorflow", "distribution": distribution, "version": "2.10.1",
                                "specifier": ">=1.20", "applies": True}],
                     "protobuf": [{"framework": "tensorflow", "distribution": distribution, "version": "2.10.1",
                                   "specifier": "<3.20,>=3.9.2", "applies": True}]},
        "dependency_versions": {"numpy": "1.23.5", "protobuf": "3.19.6"},
        "installer": "pip", "requires_python": ">=3.7",
        "child": {"ran": True, "seconds": 7.9, "returncode": 0, "error": None, "timed_out": False, "skipped": None,
                  "timeout": 60.0},
        "log": {"dlopen_failures": [], "cannot_dlopen_gpu_libraries": False, "no_cuda_drivers": False,
                "cuinit_failed": False, "skipping_gpu_registration": False, "lines": [line] if gpu else []},
        "import_error": None, "importable": True, "import_seconds": 5.6, "build_info": build,
        "gpus": [{"name": "/physical_device:GPU:0", "device_type": "GPU", "device_name": gpu_name,
                  "capability": cap}] if gpu else []}


def _windows_venv(s: dict, user: str, env: str, py: str, py_dir: str) -> None:
    s["platform"]["python"].update(version=py, executable=f"C:\\Users\\{user}\\{env}\\Scripts\\python.exe",
                                   prefix=f"C:\\Users\\{user}\\{env}", venv=True, conda_env=None, conda_prefix=None,
                                   base_prefix=f"C:\\Users\\{user}\\AppData\\Local\\Programs\\Python\\{py_dir}")


MSVC_INSTALLED = {"cl": None, "vswhere": "C:\\Program Files (x86)\\Microsoft Visual Studio\\Installer\\vswhere.exe",
                  "installation": "C:\\Program Files\\Microsoft Visual Studio\\2022\\Community", "vc_tools": True,
                  "error": None}


def win10_tf210_torch_cu118_one_venv() -> dict:
    """Windows 10, GTX 1660 SUPER, one venv: torch 2.3.1+cu118 (its wheel bundles CUDA 11.8 and cuDNN
    8.7 in torch\\lib: cudart64_110.dll, cudnn64_8.dll) and TensorFlow 2.10.1 (CUDA 11.2 and cuDNN 8.1
    from PATH: the same DLL names).  TE812 must fire, with one environment per framework in the
    Windows layout; TE809 (shared nvidia/ folders) must not."""
    s = base("tf_win10_tf26_cudart_missing")
    s["created"] = "2026-12-01T09:00:00+00:00"
    _windows_venv(s, "kim", "ml", "3.10.11", "Python310")
    site = "C:\\Users\\kim\\ml\\Lib\\site-packages"
    s["torch"] = {"importable": True, "installed": True, "import_error": None, "import_seconds": 2.3,
                  "version": "2.3.1+cu118", "local": "cu118", "cuda": "11.8", "hip": None, "cudnn": 8700,
                  "cudnn_error": None, "arch_list": ["sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80",
                                                     "sm_86", "sm_90"],
                  "cuda_available": True, "device_count": 1, "cuda_init_error": None,
                  "devices": [{"index": 0, "name": "NVIDIA GeForce GTX 1660 SUPER", "capability": "7.5",
                               "total_memory_bytes": 6442123264}],
                  "mps": {"built": False, "available": False}, "mkldnn": True, "cxx11_abi": False,
                  "installer": "pip", "location": site + "\\torch", "requires_python": ">=3.8.0"}
    s["packages"] = {"torchvision": {"version": "0.18.1+cu118", "installer": "pip", "location": site},
                     "torchaudio": None, "triton": None, "nvidia": {},
                     "requires": [requires("torch==2.3.1", version="2.3.1+cu118"),
                                  requires("tensorflow==2.10.1")],
                     "installed": {"torch": "2.3.1+cu118", "tensorflow": "2.10.1", "typing-extensions": "4.12.2",
                                   "numpy": "1.23.5", "protobuf": "3.19.6", "keras": "2.10.0", "tensorboard": "2.10.1",
                                   "tensorflow-estimator": "2.10.0", "mkl": "2021.4.0", "sympy": "1.13.3"}}
    s["libraries"] = {"search_path_var": "PATH", "entries": [
        {"dir": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin", "libs": WIN_CUDA11_DLLS}]}
    s["toolchain"]["msvc"] = dict(MSVC_INSTALLED)
    s["extension"]["status"]["running_torch"] = "2.3.1+cu118"
    s["tensorflow"] = _tf_windows_210()
    s["tensorflow"]["location"] = site
    return s


def win10_tf210_torch_cu126_one_venv() -> dict:
    """The healthy twin: torch 2.6.0+cu126 (cudart64_12.dll, cudnn64_9.dll in torch\\lib) beside
    TensorFlow 2.10.1 (CUDA 11.2 from PATH): other DLL names, and torch never searches PATH.  No
    TE812, no TE809."""
    s = win10_tf210_torch_cu118_one_venv()
    site = "C:\\Users\\kim\\ml\\Lib\\site-packages"
    s["driver"].update(version="566.36", cuda_version="12.7")
    s["torch"].update(version="2.6.0+cu126", local="cu126", cuda="12.6", cudnn=90501,
                      arch_list=["sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
                      requires_python=">=3.9.0")
    s["packages"]["torchvision"] = {"version": "0.21.0+cu126", "installer": "pip", "location": site}
    s["packages"]["requires"][0] = requires("torch==2.6.0", version="2.6.0+cu126")
    s["packages"]["installed"].update(torch="2.6.0+cu126")
    s["packages"]["installed"].pop("mkl", None)
    s["extension"]["status"]["running_torch"] = "2.6.0+cu126"
    return s


def win10_tf210_cpu_build_gtx1660() -> dict:
    """tensorflow-cpu 2.10.1 on native Windows with a GPU: the fix is the `tensorflow` 2.10.1 wheel (the
    GPU build on Windows up to 2.10) with CUDA 11.2 / cuDNN 8.1 on PATH, never tensorflow[and-cuda]
    (no such extra before 2.14, and none on Windows)."""
    s = win10_tf210_torch_cu126_one_venv()
    s["tensorflow"] = _tf_windows_210(distribution="tensorflow-cpu", gpu=False)
    s["tensorflow"]["location"] = "C:\\Users\\kim\\ml\\Lib\\site-packages"
    s["packages"]["requires"][1] = requires("tensorflow==2.10.1", name="tensorflow-cpu")
    s["packages"]["installed"].pop("tensorflow", None)
    s["packages"]["installed"]["tensorflow-cpu"] = "2.10.1"
    s["libraries"]["entries"] = []
    return s


def linux_tf212_cpu_build_rtx3090() -> dict:
    """tensorflow-cpu 2.12.0 on Linux with an RTX 3090: the fix is `tensorflow==2.12.0` with CUDA 11.8
    and cuDNN 8.6 on the library path (2.12 has no and-cuda extra)."""
    s = base("tf_wsl2_tf221_and_cuda")
    s["created"] = "2026-12-01T09:30:00+00:00"
    s["platform"].update(release="6.8.0-49-generic", os_pretty="Ubuntu 22.04.5 LTS", wsl=None)
    s["driver"].update(version="550.127.05", cuda_version="12.4", nvidia_smi="/usr/bin/nvidia-smi",
                       gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 3090", "capability": "8.6",
                              "memory_total_mib": 24576, "uuid": "GPU-5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                              "pci_bus_id": "00000000:01:00.0"}],
                       pci_gpus=[{"bus_id": "0000:01:00.0", "device_id": "0x2204", "class": "0x030000"}])
    s["torch"]["devices"] = [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "capability": "8.6",
                              "total_memory_bytes": 25438126080}]
    tf = s["tensorflow"]
    tf.update(distribution="tensorflow-cpu", version="2.12.0", distributions={"tensorflow-cpu": "2.12.0", "keras": "2.12.0"},
              extras=[], and_cuda=[], requires_python=">=3.8", gpus=[],
              build_info={"cpu_compiler": "/usr/lib/llvm-16/bin/clang", "is_cuda_build": False, "is_rocm_build": False,
                          "is_tensorrt_build": False})
    tf["requires"] = {"numpy": [{"framework": "tensorflow", "distribution": "tensorflow-cpu", "version": "2.12.0",
                                 "specifier": "<1.24,>=1.22", "applies": True}],
                      "protobuf": [{"framework": "tensorflow", "distribution": "tensorflow-cpu", "version": "2.12.0",
                                    "specifier": "!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3",
                                    "applies": True}]}
    tf["dependency_versions"] = {"numpy": "1.23.5", "protobuf": "4.25.5"}
    tf["log"]["lines"] = []
    return s


def win11_tf210_cuda110_first_on_path() -> dict:
    """Windows 11, RTX 3060, one venv: torch 2.6.0+cu126 works; TensorFlow 2.10.1 finds its CUDA through
    PATH, where CUDA 11.0's bin comes before CUDA 11.2's (both name their runtime cudart64_110.dll).
    TE811 must fire for TensorFlow; torch, which never searches PATH, is not warned."""
    s = win10_tf210_torch_cu126_one_venv()
    s["created"] = "2026-12-01T10:00:00+00:00"
    s["platform"].update(release="11", os_pretty="Windows 11 Pro 23H2")
    _windows_venv(s, "ana", "tf210", "3.10.11", "Python310")
    site = "C:\\Users\\ana\\tf210\\Lib\\site-packages"
    gpu = {"index": 0, "name": "NVIDIA GeForce RTX 3060", "capability": "8.6", "memory_total_mib": 12288,
           "uuid": "GPU-7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "pci_bus_id": "00000000:01:00.0"}
    s["driver"].update(version="537.58", cuda_version="12.2", gpus=[gpu])
    s["torch"].update(location=site + "\\torch", devices=[{"index": 0, "name": "NVIDIA GeForce RTX 3060",
                                                          "capability": "8.6", "total_memory_bytes": 12884377600}])
    s["packages"]["torchvision"]["location"] = site
    s["tensorflow"] = _tf_windows_210(gpu_name="NVIDIA GeForce RTX 3060", cap="8.6", mem=9610)
    s["tensorflow"]["location"] = site
    s["libraries"] = {"search_path_var": "PATH", "entries": [
        {"dir": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\bin", "libs": WIN_CUDA11_DLLS},
        {"dir": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin", "libs": WIN_CUDA11_DLLS}]}
    return s


def conda_win11_pytorch23_cuda124_first_on_path() -> dict:
    """A healthy conda env on Windows 11: conda's pytorch 2.3.1 with pytorch-cuda 12.1 (its DLLs in the
    env's Library\\bin), and a system CUDA 12.4 toolkit first on PATH.  torch loads its DLLs through
    os.add_dll_directory and never searches PATH: TE908 must stay silent."""
    s = base("conda_windows10_tf26_cuda110_on_path")
    s["created"] = "2026-12-01T10:30:00+00:00"
    s["platform"].update(release="11", os_pretty="Windows 11 Pro 23H2")
    prefix = "C:\\Users\\user\\miniconda3\\envs\\torch"
    s["platform"]["python"].update(version="3.11.9", executable=prefix + "\\python.exe", prefix=prefix,
                                   conda_env="torch", conda_prefix=prefix)
    gpu = {"index": 0, "name": "NVIDIA GeForce RTX 4070", "capability": "8.9", "memory_total_mib": 12282,
           "uuid": "GPU-3c4d5e6f-7a8b-9c0d-1e2f-3a4b5c6d7e8f", "pci_bus_id": "00000000:01:00.0"}
    s["driver"].update(source="nvidia-smi", present=True, version="561.09", cuda_version="12.6", gpus=[gpu])
    site = prefix + "\\Lib\\site-packages"
    s["torch"] = {"importable": True, "installed": True, "import_error": None, "import_seconds": 3.1,
                  "version": "2.3.1", "local": None, "cuda": "12.1", "hip": None, "cudnn": 8907, "cudnn_error": None,
                  "arch_list": ["sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
                  "cuda_available": True, "device_count": 1, "cuda_init_error": None,
                  "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 4070", "capability": "8.9",
                               "total_memory_bytes": 12878086144}],
                  "mps": {"built": False, "available": False}, "mkldnn": True, "cxx11_abi": False, "installer": "conda",
                  "location": site + "\\torch", "requires_python": ">=3.8.0"}
    s["packages"] = {"torchvision": {"version": "0.18.1", "installer": "conda", "location": site}, "torchaudio": None,
                     "triton": None, "nvidia": {}, "requires": [requires("torch==2.3.1")],
                     "installed": {"torch": "2.3.1", "typing-extensions": "4.11.0", "sympy": "1.12", "mkl": "2021.4.0"}}
    s["tensorflow"] = {"installed": False, "distribution": None, "version": None, "distributions": {}, "extras": [],
                       "and_cuda": [], "requires": {"numpy": [], "protobuf": []},
                       "dependency_versions": {"numpy": "1.26.4", "protobuf": None},
                       "child": {"ran": False, "skipped": "not installed"}}
    c = s["conda"]
    c.update(prefix=prefix, env_name="torch", manager="conda")

    def rec(name, version, build, channel, depends=()):
        return {"name": name, "version": version, "build": build, "build_number": 0, "channel": channel,
                "channel_url": f"https://conda.anaconda.org/{channel}/win-64", "subdir": "win-64",
                "depends": list(depends), "constrains": [], "requested_spec": None, "features": None,
                "file": f"{name}-{version}-{build}.json", "runtime_files": None}
    c["packages"] = [
        rec("pytorch", "2.3.1", "py3.11_cuda12.1_cudnn8_0", "pytorch",
            ["pytorch-cuda >=12.1,<12.2", "pytorch-mutex 1.0 cuda", "python >=3.11,<3.12.0a0"]),
        rec("pytorch-cuda", "12.1", "hde6ce7c_5", "pytorch", ["cuda-cudart >=12.1,<12.2", "cuda-libraries >=12.1,<12.2"]),
        rec("pytorch-mutex", "1.0", "cuda", "pytorch"),
        rec("cuda-cudart", "12.1.105", "0", "nvidia"),
        rec("cuda-libraries", "12.1.0", "0", "nvidia"),
        rec("torchvision", "0.18.1", "py311_cu121", "pytorch", ["pytorch 2.3.1", "pytorch-cuda 12.1.*"])]
    c["requested"] = [{"name": "pytorch", "spec": "pytorch=2.3", "version": "2.3.1", "build": "py3.11_cuda12.1_cudnn8_0"},
                      {"name": "torchvision", "spec": "torchvision", "version": "0.18.1", "build": "py311_cu121"},
                      {"name": "pytorch-cuda", "spec": "pytorch-cuda=12.1", "version": "12.1", "build": "hde6ce7c_5"}]
    c["pip"] = []
    c["search_path"] = [
        {"index": 2, "dir": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin", "kind": "cuda",
         "cuda_version": "12.4"},
        {"index": 6, "dir": prefix + "\\Library\\bin", "kind": "env-library-bin", "cuda_version": "12.1"}]
    s["libraries"] = {"search_path_var": "PATH", "entries": [
        {"dir": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin",
         "libs": [lib("cublas64_12.dll", "cublas", "12", "12"), lib("cudart64_12.dll", "cudart", "12", "12")]},
        {"dir": prefix + "\\Library\\bin",
         "libs": [lib("cublas64_12.dll", "cublas", "12", "12"), lib("cudart64_12.dll", "cudart", "12", "12")]}]}
    s["toolchain"].update(nvcc=[], cuda_home={"CUDA_HOME": None, "CUDA_PATH": None}, msvc=dict(MSVC_INSTALLED))
    s["extension"]["status"]["running_torch"] = "2.3.1"
    return s


def _windows_torch_only(msvc: dict) -> dict:
    s = base("windows_cpu_wheel_rtx4070")
    s["created"] = "2026-12-01T11:00:00+00:00"
    site = "C:\\Users\\kim\\proj\\.venv\\Lib\\site-packages"
    s["torch"].update(version="2.14.1+cu126", local="cu126", cuda="12.6", cudnn=91002,
                      arch_list=["sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100",
                                 "sm_120"],
                      cuda_available=True, device_count=1,
                      devices=[{"index": 0, "name": "NVIDIA GeForce RTX 4070", "capability": "8.9",
                                "total_memory_bytes": 12878086144}])
    s["packages"]["torchvision"] = {"version": "0.29.1+cu126", "installer": "pip", "location": site}
    s["toolchain"]["host_compiler"] = None
    s["toolchain"]["msvc"] = msvc
    s["extension"]["status"]["running_torch"] = "2.14.1+cu126"
    return s


def win11_torch_cu126_no_msvc() -> dict:
    """Windows 11, torch 2.14.1+cu126 works, and neither the Visual Studio Installer (vswhere.exe) nor
    cl.exe exists: extensions cannot be compiled (TE604), torch itself is fine."""
    return _windows_torch_only({"cl": None, "vswhere": None, "installation": None, "vc_tools": None, "error": None})


def win11_torch_cu126_msvc_not_on_path() -> dict:
    """The twin: the Build Tools with the C++ workload are installed (vswhere finds them), cl.exe is
    not on PATH (no developer prompt), which torch's extension builds do not need: no TE604."""
    return _windows_torch_only({"cl": None, "vswhere": MSVC_INSTALLED["vswhere"],
                                "installation": "C:\\Program Files (x86)\\Microsoft Visual Studio\\2022\\BuildTools",
                                "vc_tools": True, "error": None})


def _jetson_with_torchvision(version: str) -> dict:
    s = base("jetson_agx_orin_jetpack_wheel")
    s["created"] = "2026-12-01T11:30:00+00:00"
    s["packages"]["torchvision"] = {"version": version, "installer": "pip",
                                    "location": "/home/user/venv/lib/python3.10/site-packages"}
    return s


def jetson_orin_jetpack_torch_source_built_torchvision() -> dict:
    """JetPack 6.1 torch 2.5.0a0+872d972e41.nv24.08 with torchvision 0.20.0a0+afc54f7 built from source
    (as NVIDIA's forum describes): both labels are builds' own, no index: TE204 must stay silent."""
    return _jetson_with_torchvision("0.20.0a0+afc54f7")


def jetson_orin_jetpack_torch_pypi_torchvision() -> dict:
    """The same board after `pip install torchvision`: PyPI's 0.22.1 (built for torch 2.7) beside the
    JetPack torch 2.5: TE204 fires, and its fix builds torchvision 0.20 from source."""
    return _jetson_with_torchvision("0.22.1")


# ---------------------------------------------------------------- two frameworks, one set of nvidia wheels

TORCH251_NVIDIA = {"nvidia-cublas-cu12": "12.4.5.8", "nvidia-cuda-cupti-cu12": "12.4.127",
                   "nvidia-cuda-nvrtc-cu12": "12.4.127", "nvidia-cuda-runtime-cu12": "12.4.127",
                   "nvidia-cudnn-cu12": "9.1.0.70", "nvidia-cufft-cu12": "11.2.1.3", "nvidia-curand-cu12": "10.3.5.147",
                   "nvidia-cusolver-cu12": "11.6.1.9", "nvidia-cusparse-cu12": "12.3.1.170", "nvidia-nccl-cu12": "2.21.5",
                   "nvidia-nvjitlink-cu12": "12.4.127", "nvidia-nvtx-cu12": "12.4.127"}


def _and_cuda_facts(tf_key: str, installed: dict) -> list[dict]:
    """tensorflow.and_cuda as the probe writes it: TensorFlow's and-cuda lines with what is installed."""
    import re
    out = []
    for line in META[tf_key]["requires"]:
        if "and-cuda" not in line:
            continue
        req = line.split(";")[0].strip()
        m = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", req)
        name, spec = m.group(1).lower(), m.group(2).replace(" ", "")
        out.append({"name": name, "specifier": spec, "extra": "and-cuda", "applies": True,
                    "requirement": line, "installed": installed.get(name)})
    return out


def _linux_tf_torch(torch_key: str, torch_version: str, tf_key: str, nvidia: dict, torchvision: str,
                    numpy: str, protobuf: str) -> dict:
    s = base("tf_wsl2_tf221_and_cuda")
    s["platform"].update(release="6.8.0-49-generic", os_pretty="Ubuntu 22.04.5 LTS", wsl=None)
    s["platform"]["python"].update(executable="/home/lee/ml/bin/python", prefix="/home/lee/ml")
    site = "/home/lee/ml/lib/python3.11/site-packages"
    gpu = {"index": 0, "name": "NVIDIA GeForce RTX 4090", "capability": "8.9", "memory_total_mib": 24564,
           "uuid": "GPU-8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e", "pci_bus_id": "00000000:01:00.0"}
    s["driver"].update(version="550.127.05", cuda_version="12.4", nvidia_smi="/usr/bin/nvidia-smi", gpus=[gpu],
                       pci_gpus=[{"bus_id": "0000:01:00.0", "device_id": "0x2684", "class": "0x030000"}])
    tv = torch_version
    s["torch"].update(version=tv, local=None, installer="pip", location=site + "/torch",
                      devices=[{"index": 0, "name": "NVIDIA GeForce RTX 4090", "capability": "8.9",
                                "total_memory_bytes": 25386352640}])
    s["packages"] = {"torchvision": {"version": torchvision, "installer": "pip", "location": site},
                     "torchaudio": None, "triton": None, "nvidia": dict(sorted(nvidia.items()))}
    tf_ver = tf_key.split("==")[1]
    s["packages"]["requires"] = [requires(torch_key, version=tv), requires(tf_key)]
    s["packages"]["installed"] = dict({"torch": tv, "tensorflow": tf_ver, "numpy": numpy, "protobuf": protobuf},
                                      **nvidia)
    tf = s["tensorflow"]
    tf.update(version=tf_ver, distributions={"tensorflow": tf_ver, "keras": "3.6.0", "tensorboard": tf_ver},
              extras=["and-cuda"], and_cuda=_and_cuda_facts(tf_key, nvidia), location=site)
    tf["dependency_versions"] = {"numpy": numpy, "protobuf": protobuf}
    for dep in ("numpy", "protobuf"):
        tf["requires"][dep] = [r for r in tf["requires"][dep] if r["framework"] == "torch"] + [
            {"framework": "tensorflow", "distribution": "tensorflow", "version": tf_ver,
             "specifier": _spec_of(tf_key, dep), "applies": True}]
        for r in tf["requires"][dep]:
            if r["framework"] == "torch":
                r["version"] = torchvision
    tf["gpus"] = [{"name": "/physical_device:GPU:0", "device_type": "GPU", "device_name": "NVIDIA GeForce RTX 4090",
                   "capability": "8.9"}]
    tf["log"]["lines"] = [
        "I0000 00:00:1733050000.123456    1234 gpu_device.cc:2022] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with 21770 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 4090, pci bus id: 0000:01:00.0, "
        "compute capability: 8.9"]
    s["extension"] = {"status": {"state": "missing"}, "build_info": None, "runtime_info": None}
    return s


def _spec_of(key: str, dep: str) -> str:
    import re
    for line in META[key]["requires"]:
        m = re.match(rf"{dep}\s*(.*?)\s*(;.*)?$", line)
        if m and (not m.group(2) or "python_version <= \"3.11\"" in m.group(2)):
            return m.group(1).replace(" ", "")
    return ""


def tf218_torch251_cudnn_pins_clash_torch_last() -> dict:
    """Linux, RTX 4090: `pip install tensorflow[and-cuda]==2.18.0`, then `pip install torch==2.5.1`.
    torch's exact pins (nvidia-cudnn-cu12==9.1.0.70, ...) replaced TensorFlow's (==9.3.0.75, ...): the
    wheels are installed, in torch's versions.  TE852 (no single environment satisfies both) must fire
    and TE801 must not call the installed wheels missing; the fix is two environments."""
    nv = dict(TORCH251_NVIDIA, **{"nvidia-cuda-nvcc-cu12": "12.5.82"})
    s = _linux_tf_torch("torch==2.5.1", "2.5.1", "tensorflow==2.18.0", nv, "0.20.1", "2.0.2", "5.28.3")
    s["created"] = "2026-12-01T12:00:00+00:00"
    s["torch"].update(cuda="12.4", cudnn=90100, arch_list=["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
                      cuda_available=True, device_count=1, import_error=None, importable=True, requires_python=">=3.8.0")
    s["packages"]["triton"] = {"version": "3.1.0", "installer": "pip", "location": "/home/lee/ml/lib/python3.11/site-packages"}
    s["packages"]["installed"]["triton"] = "3.1.0"
    s["tensorflow"]["build_info"].update(cuda_version="12.5.1", cudnn_version="9")
    return s


def tf217_after_torch251_import_fails() -> dict:
    """The reverse order: torch 2.5.1, then `pip install tensorflow[and-cuda]==2.17.0`, whose pins
    replaced torch's nvidia-cudnn-cu12 9.1.0.70 with 8.9.7.29 (and nvjitlink, cusparse, ...): `import
    torch` fails on libcudnn.so.9.  TE201 must name the wheel TensorFlow's pin replaced (TE852 explains
    it) and its fix must not be `reinstall torch`, which breaks TensorFlow again."""
    tf217 = {"nvidia-cublas-cu12": "12.3.4.1", "nvidia-cuda-cupti-cu12": "12.3.101", "nvidia-cuda-nvcc-cu12": "12.3.107",
             "nvidia-cuda-nvrtc-cu12": "12.3.107", "nvidia-cuda-runtime-cu12": "12.3.101",
             "nvidia-cudnn-cu12": "8.9.7.29", "nvidia-cufft-cu12": "11.0.12.1", "nvidia-curand-cu12": "10.3.4.107",
             "nvidia-cusolver-cu12": "11.5.4.101", "nvidia-cusparse-cu12": "12.2.0.103", "nvidia-nccl-cu12": "2.19.3",
             "nvidia-nvjitlink-cu12": "12.3.101", "nvidia-nvtx-cu12": "12.4.127"}
    s = _linux_tf_torch("torch==2.5.1", "2.5.1", "tensorflow==2.17.0", tf217, "0.20.1", "1.26.4", "4.25.5")
    s["created"] = "2026-12-01T12:30:00+00:00"
    err = "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory"
    s["torch"].update(importable=False, import_error=err, cuda=None, cudnn=None, arch_list=[], cuda_available=None,
                      device_count=None, devices=[], requires_python=">=3.8.0",
                      import_process={"returncode": 1, "signal": None, "timed_out": False, "limit_s": 30.0,
                                      "seconds": 1.4, "stderr_tail": err, "error": None})
    s["tensorflow"]["build_info"].update(cuda_version="12.3.2", cudnn_version="8")
    s["packages"]["triton"] = {"version": "3.1.0", "installer": "pip", "location": "/home/lee/ml/lib/python3.11/site-packages"}
    s["packages"]["installed"]["triton"] = "3.1.0"
    s["extension"] = {"status": {"state": "torch-missing"}, "build_info": None, "runtime_info": None}
    return s


def tf220_torch271_cu126_one_venv_pins_agree() -> dict:
    """The healthy twin: torch 2.7.1 (PyPI's cu126 build, exact pins) and TensorFlow 2.20.0, whose
    and-cuda extra gives ranges (<13.0, >=12.5...) that torch's pins satisfy: one environment serves
    both.  No TE852, no TE801, no TE809."""
    nv = {"nvidia-cublas-cu12": "12.6.4.1", "nvidia-cuda-cupti-cu12": "12.6.80", "nvidia-cuda-nvcc-cu12": "12.9.86",
          "nvidia-cuda-nvrtc-cu12": "12.6.77", "nvidia-cuda-runtime-cu12": "12.6.77", "nvidia-cudnn-cu12": "9.5.1.17",
          "nvidia-cufft-cu12": "11.3.0.4", "nvidia-cufile-cu12": "1.11.1.6", "nvidia-curand-cu12": "10.3.7.77",
          "nvidia-cusolver-cu12": "11.7.1.2", "nvidia-cusparse-cu12": "12.5.4.2", "nvidia-cusparselt-cu12": "0.6.3",
          "nvidia-nccl-cu12": "2.26.2", "nvidia-nvjitlink-cu12": "12.6.85", "nvidia-nvtx-cu12": "12.6.77"}
    s = _linux_tf_torch("torch==2.7.1", "2.7.1", "tensorflow==2.20.0", nv, "0.22.1", "2.1.3", "6.31.1")
    s["created"] = "2026-12-01T13:00:00+00:00"
    s["driver"].update(version="560.35.03", cuda_version="12.6")
    s["torch"].update(cuda="12.6", cudnn=90501, arch_list=["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
                      cuda_available=True, device_count=1, importable=True, import_error=None, requires_python=">=3.9.0")
    s["packages"]["triton"] = {"version": "3.3.1", "installer": "pip", "location": "/home/lee/ml/lib/python3.11/site-packages"}
    s["packages"]["installed"]["triton"] = "3.3.1"
    s["tensorflow"]["build_info"].update(cuda_version="12.5.1", cudnn_version="9")
    s["tensorflow"]["distributions"]["keras"] = "3.11.3"
    return s


# ---------------------------------------------------------------- containers without a GPU

def _container(kind: str, nvd: str) -> dict:
    """The recorded container (torch 2.14.1+cu130, its nvidia-*-cu13 wheels) on an A100 host whose
    driver 580.95.05 runs CUDA 13.0."""
    s = base("docker_gpu_host_without_gpus_flag")
    s["platform"]["container"] = kind
    s["env"]["NVIDIA_VISIBLE_DEVICES"] = nvd
    s["env"]["NVIDIA_DRIVER_CAPABILITIES"] = "compute,utility"
    return s


A100_PCI = [{"bus_id": "0000:07:00.0", "device_id": "0x20b0", "class": "0x030200"}]


def k8s_pod_without_gpu_request_void() -> dict:
    """A Kubernetes pod on an A100 node started without `nvidia.com/gpu` in its limits: the device
    plugin left NVIDIA_VISIBLE_DEVICES=void, so the container has neither GPU nor driver libraries
    (the host's kernel module still shows in /proc/driver/nvidia).  torch: "Found no NVIDIA driver".
    TE309 must name the variable and the pod spec fix; TE303 is its symptom."""
    s = _container("kubernetes", "void")
    s["created"] = "2026-12-01T13:30:00+00:00"
    s["driver"] = {"source": "/proc/driver/nvidia", "present": True, "version": "580.95.05", "cuda_version": None,
                   "gpus": [], "errors": ["NVML: NVML Shared Library Not Found", "nvidia-smi: not found on PATH"],
                   "nvidia_smi": None, "pci_gpus": A100_PCI}
    return s


def docker_nvidia_visible_devices_none() -> dict:
    """A Docker container started with NVIDIA_VISIBLE_DEVICES=none: the driver's libraries are mounted
    (nvidia-smi runs: "No devices were found"), no GPU is.  TE309 must name the variable and the
    docker fix."""
    s = _container("docker", "none")
    s["created"] = "2026-12-01T14:00:00+00:00"
    s["driver"] = {"source": "nvidia-smi", "present": True, "version": "580.95.05", "cuda_version": "13.0",
                   "gpus": [], "errors": ["nvidia-smi: No devices were found"], "nvidia_smi": "/usr/bin/nvidia-smi",
                   "pci_gpus": A100_PCI}
    s["torch"].update(cuda_init_error="RuntimeError: No CUDA GPUs are available")
    return s


def k8s_pod_cdi_void_gpu_works() -> dict:
    """The twin: a pod that requested its GPU, injected through CDI, where NVIDIA_VISIBLE_DEVICES=void is
    what the CDI spec sets; CUDA works: no TE309."""
    s = _container("kubernetes", "void")
    s["created"] = "2026-12-01T14:30:00+00:00"
    gpu = {"index": 0, "name": "NVIDIA A100-SXM4-40GB", "capability": "8.0", "memory_total_mib": 40960,
           "uuid": "GPU-9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f", "pci_bus_id": "00000000:07:00.0"}
    s["driver"] = {"source": "nvml", "present": True, "version": "580.95.05", "cuda_version": "13.0", "gpus": [gpu],
                   "errors": [], "nvidia_smi": "/usr/bin/nvidia-smi", "pci_gpus": A100_PCI}
    s["torch"].update(cuda_available=True, device_count=1, cuda_init_error=None,
                      devices=[{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "capability": "8.0",
                                "total_memory_bytes": 42298834944}])
    return s


def macos_rosetta_x86_64_python_no_torch() -> dict:
    """An x86_64 Python under Rosetta on Apple silicon, no torch yet: `advise` (and TE201's fix) must
    not print `pip install torch` for this interpreter, but the native-Python steps of TE105."""
    s = base("macos_rosetta_x86_64_python")
    s["created"] = "2026-12-01T15:00:00+00:00"
    s["torch"] = {"importable": False, "installed": False, "import_error": "ModuleNotFoundError: No module named 'torch'",
                  "version": None, "local": None, "cuda": None, "hip": None, "cudnn": None, "arch_list": [],
                  "cuda_available": None, "device_count": None, "cuda_init_error": None, "devices": [], "mps": None}
    s["extension"] = {"status": {"state": "torch-missing"}, "build_info": None, "runtime_info": None}
    return s


def conda_linux_cpuonly_on_rtx5090() -> dict:
    """The recorded cpuonly conda env (pytorch 2.3.0 from the pytorch channel, cpuonly, torchvision) moved
    to the recorded RTX 5090 machine (compute capability 12.0, driver 575.57.08, CUDA 12.9): no build of the
    pytorch channel (its last release is 2.5) has sm_120 kernels, so the conda fix is conda-forge's pytorch
    with CUDA 12.9, whose arch list ends in 12.0+PTX, after the pytorch channel's packages are taken out."""
    s = base("conda_linux_cpuonly_on_gpu")
    s["driver"] = base("rtx5090_cu121")["driver"]
    return s


BUILDERS = [conda_linux_cpuonly_on_rtx5090, win10_tf210_torch_cu118_one_venv, win10_tf210_torch_cu126_one_venv, win10_tf210_cpu_build_gtx1660,
            linux_tf212_cpu_build_rtx3090, win11_tf210_cuda110_first_on_path,
            conda_win11_pytorch23_cuda124_first_on_path, win11_torch_cu126_no_msvc, win11_torch_cu126_msvc_not_on_path,
            jetson_orin_jetpack_torch_source_built_torchvision, jetson_orin_jetpack_torch_pypi_torchvision,
            tf218_torch251_cudnn_pins_clash_torch_last, tf217_after_torch251_import_fails,
            tf220_torch271_cu126_one_venv_pins_agree, k8s_pod_without_gpu_request_void,
            docker_nvidia_visible_devices_none, k8s_pod_cdi_void_gpu_works, macos_rosetta_x86_64_python_no_torch]


def main() -> int:
    for build in BUILDERS:
        path = os.path.join(SNAP_DIR, build.__name__ + ".json")
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            json.dump(build(), fh, indent=1, ensure_ascii=False)
            fh.write("\n")
        print("wrote", os.path.relpath(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
