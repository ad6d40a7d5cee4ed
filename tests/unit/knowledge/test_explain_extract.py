"""What explain reads out of a text (explain/extract.py): codes, libraries and the wheels that ship them, symbols
and whose ABI they belong to, GLIBC_/GLIBCXX_/CXXABI_ tags, owners of files, versions, GPUs, targets, the platform.
The oracles are the naming schemes themselves (sonames, Itanium mangling, GCC's symbol-version history)."""

from __future__ import annotations

import re
import time

import pytest

from torch_envcheck.explain import catalogue, extract, match

try:  # Python 3.11+
    from re import _constants as sre_c
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants as sre_c
    import sre_parse
from torch_envcheck.knowledge import native


def ent(text: str):
    return extract.entities(match.clean(text))


@pytest.mark.parametrize("name, library, cuda, wheel", [
    ("libcublasLt.so.12", "cuBLASLt", "12", "nvidia-cublas-cu12"),
    ("libcublas.so.11", "cuBLAS", "11", "nvidia-cublas-cu11"),
    ("libcudart.so.13", "CUDA runtime", "13", "nvidia-cuda-runtime"),
    ("libnvrtc-builtins.so.11.1", "NVRTC's builtins", "11", "nvidia-cuda-nvrtc-cu11"),
    ("libcufft.so.11", "cuFFT", "12", "nvidia-cufft-cu12"),
    ("libcusparse.so.12", "cuSPARSE", "12/13", None),
    ("libnvJitLink.so.12", "nvJitLink", "12", "nvidia-nvjitlink-cu12"),
    ("cudart64_110.dll", "CUDA runtime", "11", "nvidia-cuda-runtime-cu11"),
    ("cublas64_12.dll", "cuBLAS", "12", "nvidia-cublas-cu12"),
])
def test_soname_says_library_cuda_major_and_wheel(name, library, cuda, wheel):
    info = native.library_provider(name)
    assert info["library"] == library and info.get("cuda") == cuda and info.get("wheel") == wheel


@pytest.mark.parametrize("name, provider", [
    ("libcudnn_cnn_infer.so.8", "cuda-library"), ("libcuda.so.1", "driver"), ("nvcuda.dll", "driver"),
    ("libstdc++.so.6", "c-runtime"), ("fbgemm.dll", "torch"), ("vcruntime140_1.dll", "vc-runtime"),
    ("libGL.so.1", "os-package"), ("libamdhip64.so.6", "rocm"), ("zlibwapi.dll", "cudnn"),
])
def test_library_providers(name, provider):
    assert native.library_provider(name)["provider"] == provider


def test_cudnn_soname_names_its_major_and_the_wheels_that_ship_it():
    info = native.library_provider("libcudnn_ops_infer.so.8")
    assert info["cudnn"] == "8" and set(info["wheel_choices"]) == {"nvidia-cudnn-cu11", "nvidia-cudnn-cu12"}


@pytest.mark.parametrize("sym, scope, abi", [
    ("_ZN3c104cuda9SetDeviceEi", "c10::cuda::SetDevice", "torch"),
    ("_ZNK2at6Tensor6deviceEv", "at::Tensor::device", "torch"),
    ("_ZN5torch3jit17parseSchemaOrNameERKSsb", "torch::jit::parseSchemaOrName", "torch"),
    ("_ZNSt13runtime_errorC2EPKc", "std::runtime_error", "libstdc++"),
    ("_ZN10tensorflow8internal15LogMessageFatalD1Ev", "tensorflow::internal::LogMessageFatal", "tensorflow"),
])
def test_demangled_scope_says_whose_abi(sym, scope, abi):
    assert extract.demangle_scope(sym).startswith(scope)
    assert extract._symbol_info(sym)["abi"] == abi


@pytest.mark.parametrize("sym, abi, extra", [
    ("ncclCommRegister", "nccl", {}), ("cublasLtHSHMatmulAlgoInit", "cublasLt", {}),
    ("cusparseSpMM_bufferSize", "cusparse", {}), ("__nvJitLinkComplete_12_4", "nvJitLink", {"cuda": "12.4"}),
    ("cudnnGetVersion_v9", "cudnn", {"api_version": "9"}),
])
def test_library_symbols(sym, abi, extra):
    info = extract._symbol_info(sym)
    assert info["abi"] == abi and all(info[k] == v for k, v in extra.items())


@pytest.mark.parametrize("tag, gcc", [("GLIBCXX_3.4.30", "12.1.0"), ("GLIBCXX_3.4.29", "11.1.0"),
                                      ("GLIBCXX_3.4.21", "5.1.0"), ("CXXABI_1.3.13", "11.1.0"), ("CXXABI_1.3.9", "5.1.0")])
def test_libstdcxx_tags_map_to_the_gcc_that_defines_them(tag, gcc):
    # GCC's libstdc++ manual, "Symbol versioning history"
    assert native.glibcxx_tag(tag)["gcc"] == gcc


def test_glibc_tag_names_the_manylinux_that_needs_it():
    info = native.glibc_tag("GLIBC_2.28")
    assert info["manylinux"] == "manylinux_2_28" and "Debian 10" in info["first_in"]


def test_a_whole_import_error_is_read():
    e = ent("Traceback (most recent call last):\n"
            '  File "/opt/venv/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py", line 10, in <module>\n'
            "    import flash_attn_2_cuda as flash_attn_cuda\n"
            "ImportError: /opt/venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104cuda9SetDeviceEi")
    s = e.symbols[-1]
    assert s["abi"] == "torch" and s["file"].endswith("flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so")
    assert "flash_attn" in e.owners() and e.versions["python"] == "3.10" and "ImportError" in e.exceptions


def test_abi_tag_line():
    e = ent("OSError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
            "(required by /env/lib/python3.11/site-packages/scipy/_lib/_uarray.cpython-311-x86_64-linux-gnu.so)")
    t = e.abi_tags[-1]
    assert t["gcc"] == "12.1.0" and t["provider_file"] == "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
    assert t["required_by"].endswith("_uarray.cpython-311-x86_64-linux-gnu.so")
    assert not any(x["missing"] for x in e.libraries)  # the library is there; it lacks a version


@pytest.mark.parametrize("text, name", [
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "cudaErrorIllegalAddress"),
    ("RuntimeError: HIP error: invalid device function", "hipErrorInvalidDeviceFunction"),
    ("Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW",
     "cudaErrorCompatNotSupportedOnDevice"),
    ("CUDAError: cuInit(0) returned 999", "CUDA_ERROR_UNKNOWN"),
    ("failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected", "CUDA_ERROR_NO_DEVICE"),
    ("OSError: [WinError 193] %1 is not a valid Win32 application", "ERROR_BAD_EXE_FORMAT"),
    ("OSError: The paging file is too small for this operation to complete. (os error 1455)", "ERROR_COMMITMENT_LIMIT"),
    ("Process finished with exit code -1073741515 (0xC0000135)", "STATUS_DLL_NOT_FOUND"),
    ("OSError: [Errno 28] No space left on device", "ENOSPC"),
    ("RuntimeError: DataLoader worker (pid 77) is killed by signal: Bus error.", "SIGBUS"),
    ("Illegal instruction (core dumped)", "SIGILL"),
    ("ggml_cuda_init: failed to initialize CUDA: system not yet initialized", "cudaErrorSystemNotReady"),
])
def test_codes_by_name_message_and_number(text, name):
    assert name in [c["name"] for c in ent(text).codes]


def test_a_bare_number_without_a_gpu_context_is_no_code():
    assert ent("epoch 3 error 35: loss diverged").codes == []


def test_versions_and_built_for():
    e = ent("xFormers was built for:\n    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.2.0+cu118)\n"
            "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2 |\n"
            "torch==2.2.0+cu118 numpy==1.26.4 ; cuDNN version 8902")
    b = e.versions["built_for"]
    assert (b["package"], b["torch"], b["have"], b["cuda"]) == ("xFormers", "2.1.0+cu121", "2.2.0+cu118", "12.1")
    assert e.versions["driver"] == "535.54.03" and e.versions["driver_cuda"] == "12.2"
    assert e.packages["numpy"] == "1.26.4"


def test_gpus_targets_and_platform():
    e = ent("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible; gfx1031; compute_89\n"
            "/usr/lib/wsl/lib/libcuda.so.1")
    assert "NVIDIA GeForce RTX 5090" in e.gpus
    assert {"sm_120", "gfx1031", "compute_89"} <= set(e.archs)
    assert e.platform.get("wsl")


def test_pip_resolution_failure():
    e = ent("ERROR: Could not find a version that satisfies the requirement torch==2.6.0 "
            "(from versions: 2.1.0, 2.2.0, 2.2.2)\nERROR: No matching distribution found for torch==2.6.0")
    assert e.pip[-1]["name"] == "torch" and e.pip[-1]["versions"][-1] == "2.2.2"


# --- linear time ---------------------------------------------------------------------------------------------------

def _patterns():
    out = [(n, p) for n, p in vars(extract).items() if isinstance(p, re.Pattern)]
    out += [(f"{s.id}#{i}", p) for s in catalogue.signatures() for i, p in enumerate(s.patterns)]
    return out


def _adversarial(pattern: re.Pattern, n: int) -> list:
    # the pattern's own literal start repeated (what makes a backtracking pattern quadratic), and plain letters
    lit = re.match(r"[A-Za-z0-9 _:'\"=.\-\[\]]{3,30}", re.sub(r"\\(.)", r"\1", pattern.pattern)) or None
    seed = lit.group(0) if lit else "a"
    return ["a" * n, (seed * (n // max(1, len(seed)) + 1))[:n]]


def _repeats_bounded(tree) -> bool:
    for op, av in tree:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            if av[1] == sre_c.MAXREPEAT or not _repeats_bounded(av[2]):
                return False
        elif op is sre_c.SUBPATTERN and not _repeats_bounded(av[-1]):
            return False
        elif op is sre_c.BRANCH and not all(_repeats_bounded(alt) for alt in av[1]):
            return False
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT) and not _repeats_bounded(av[1]):
            return False
    return True


@pytest.mark.parametrize("name, pattern", _patterns(), ids=[n for n, _ in _patterns()])
def test_every_pattern_repeat_is_bounded(name, pattern):
    assert _repeats_bounded(sre_parse.parse(pattern.pattern)), f"{name}: an unbounded repeat"


def _best(fn, arg, reps=3) -> float:
    # CPU time, not wall time: the matching is single-threaded, and a shared machine's other work (CI sets up
    # a venv beside the slow tier) would otherwise land in one size's figure and not the other's
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        fn(arg)
        best = min(best, time.process_time() - t0)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("name, pattern", _patterns(), ids=[n for n, _ in _patterns()])
def test_every_pattern_is_linear(name, pattern):
    # 4x the input may take at most 8x the time (a quadratic pattern takes 16x): measured side by side, so the load
    # of the machine cancels out; the absolute figures (s/MiB) are printed by benchmarks/explain_speed.py
    for small, large in zip(_adversarial(pattern, 1 << 18), _adversarial(pattern, 1 << 20)):
        a = _best(lambda t: sum(1 for _ in pattern.finditer(t)), small)
        b = _best(lambda t: sum(1 for _ in pattern.finditer(t)), large)
        assert b <= max(8 * a, 0.05), f"{name}: {a:.4f}s for 256 KiB, {b:.4f}s for 1 MiB"


# Three units in the default tier (a plain letter, a symbol, a Windows code); the slow tier sweeps the rest.
_LINEAR_DEFAULT = ["a", "undefined symbol: _ZN3c10", "[WinError 126] "]
_LINEAR_SLOW = ["cuda ", "lib.so.", "torch==", "Error: ", "/site-packages/x/", "NCCL WARN Cuda failure 1 "]


@pytest.mark.parametrize("unit", _LINEAR_DEFAULT + [pytest.param(u, marks=pytest.mark.slow) for u in _LINEAR_SLOW])
def test_explain_is_linear_in_the_text(unit):
    from torch_envcheck.explain import diagnose
    small = (unit * ((1 << 18) // len(unit) + 1))[:1 << 18]
    large = (unit * ((1 << 20) // len(unit) + 1))[:1 << 20]
    diagnose.diagnose("warm up")
    a, b = _best(diagnose.diagnose, small, 2), _best(diagnose.diagnose, large, 2)
    assert b <= max(8 * a, 0.25), f"{unit!r}: {a:.3f}s for 256 KiB, {b:.3f}s for 1 MiB"
