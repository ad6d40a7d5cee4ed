"""What the doctor knows about TensorFlow builds: the tested build configurations (Python range, CUDA,
cuDNN) for Linux and Windows, TF 2.4 to 2.21 (data/tensorflow_builds.json, each row naming its
source page), and the decoding of the version numbers TF writes in its build info and its log lines
(Windows `64_112` = CUDA 11.2, `cudart64_110.dll` = the CUDA 11.0 runtime file name).
Pure Python; used by the rules and by `advise`."""

from __future__ import annotations

import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.knowledge.libraries import parse_library

TABLE = "tensorflow_builds.json"


def table() -> dict:
    return kb.load_table(TABLE)


def release_key(version) -> str | None:
    """'2.21.0' -> '2.21'; '2.15.0.post1' -> '2.15'."""
    return kb.release_key(version)


def os_column(system: str | None, wsl: int | None = None) -> str:
    """The tables' OS: native Windows is 'windows'; Linux and WSL 2 (Linux wheels) are 'linux'."""
    return "windows" if system == "Windows" and not wsl else "linux"


def build(release: str | None, os_name: str = "linux") -> dict | None:
    """The tested configuration of a TF release on an OS, with its source attached; None if unlisted."""
    if not release:
        return None
    t = table()
    row = next((r for r in t.get("builds", []) if r.get("tensorflow") == release and r.get("os") == os_name), None)
    if row is None:
        return None
    out = dict(row)
    out["source_ref"] = t.get("sources", {}).get(row.get("source"), {})
    return out


def releases(os_name: str = "linux") -> list[dict]:
    return sorted((r for r in table().get("builds", []) if r.get("os") == os_name),
                  key=lambda r: kb.version_tuple(r["tensorflow"]))


def windows_last_gpu_release() -> str:
    return table().get("windows_last_gpu_release", {}).get("tensorflow", "2.10")


def and_cuda_since() -> str:
    return table().get("and_cuda_extra_since", {}).get("tensorflow", "2.14")


def and_cuda_exists(version, os_name: str = "linux") -> bool | None:
    """Whether `tensorflow[and-cuda]==version` exists for this OS column: the extra is in the Linux
    wheels' Provides-Extra from 2.14 on (PyPI METADATA, table 'and_cuda_extra_since'), and native
    Windows has no GPU build after 2.10 (and never had the extra).  None when the version is unreadable."""
    if os_name == "windows":
        return False
    return at_least(version, and_cuda_since())


def and_cuda_pins(release) -> list[str]:
    """The Requires-Dist lines of a release's `and-cuda` extra (Linux x86_64 wheel, PyPI METADATA),
    as the table records them; [] when unknown."""
    row = build(release_key(release), "linux") or {}
    return [str(p) for p in row.get("and_cuda") or [] if isinstance(p, str)]


def at_least(version, release: str) -> bool | None:
    v, r = kb.major_minor(version), kb.major_minor(release)
    return None if v is None or r is None else v >= r


def decode_build_version(value, kind: str = "cuda") -> str | None:
    """A cuda_version/cudnn_version of tf.sysconfig.get_build_info() as a dotted version.
    Linux: '12.5.1', '9'.  Windows writes the DLL suffix: '64_112' (CUDA 11.2), '64_110' (11.0),
    '64_101' (10.1), '64_8' (cuDNN 8)."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    m = re.fullmatch(r"64_(\d+)", text)
    if m:
        digits = m.group(1)
        if kind == "cuda" and len(digits) == 3:
            return f"{digits[:-1]}.{digits[-1]}"
        if kind == "cuda" and len(digits) == 2 and digits[0] != "1":  # '90' = 9.0, '92' = 9.2
            return f"{digits[0]}.{digits[1]}"
        return digits
    return text if re.fullmatch(r"\d+(\.\d+)*", text) else None


_NAMES = {"cudart": "runtime", "cublas": "cuBLAS", "cublasLt": "cuBLASLt", "cufft": "cuFFT", "curand": "cuRAND",
          "cusolver": "cuSOLVER", "cusparse": "cuSPARSE", "cusparselt": "cuSPARSELt", "nvrtc": "NVRTC",
          "nvjitlink": "nvJitLink", "nccl": "NCCL", "cupti": "CUPTI"}


def describe_library(name: str) -> dict:
    """What a library file TF failed to load is: {'file', 'kind', 'version', 'text'}.
    cudart64_110.dll -> 'the CUDA 11.0 runtime'; cudnn64_8.dll -> 'cuDNN 8'; libcudart.so.12 ->
    'the CUDA 12 runtime'; libnvinfer.so.7 -> 'TensorRT 7'."""
    base = re.split(r"[\\/]", str(name))[-1][:200]
    p = parse_library(base) or {}
    kind, version = p.get("kind"), p.get("version")
    if kind == "cudart":
        text = f"the CUDA {version} runtime" if version else "the CUDA runtime"
    elif kind == "cudnn":
        text = f"cuDNN {versions.major(version)}" if versions.major(version) is not None else "cuDNN"
    elif kind in ("cublas", "cublasLt"):
        major = versions.major(version)
        text = f"{_NAMES[kind]} of CUDA {major}" if major else _NAMES[kind]
    elif kind == "cuda" or base.lower() == "nvcuda.dll":
        kind, text = "cuda", "the NVIDIA driver's CUDA library (libcuda / nvcuda.dll): no NVIDIA driver is installed"
    elif kind in _NAMES:
        text = f"{_NAMES[kind]} (library version {version})" if version else _NAMES[kind]
    else:
        m = re.match(r"(?:lib)?nvinfer(?:_plugin)?(?:64)?[._](?:so\.)?(\d+)", base)
        if m:
            kind, version, text = "tensorrt", m.group(1), f"TensorRT {m.group(1)} (optional: TF runs without it)"
        else:
            text = base
    # CUDA 11.1+ kept CUDA 11.0's file names (cudart64_110.dll, libcudart.so.11.0): TF 2.5-2.10, tested
    # with CUDA 11.2, ask for exactly these (tensorflow/tensorflow#48868, #57103).
    note = ("any CUDA 11.x toolkit provides this file name" if kind == "cudart" and version == "11.0" else None)
    return {"file": base, "kind": kind, "version": version, "text": text, "note": note}
