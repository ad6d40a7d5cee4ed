"""Layer rules: diagnoses read from what a text is made of (extract.Entities), whoever wrote the message.

Each rule is a pure function of the entities (and the cleaned text, for a position) and returns a
match.Match whose signature is made here, or None:

    abi_tag          GLIBC_/GLIBCXX_/CXXABI_ x not found             -> c-runtime
    torch_abi        a binary wants a c10::/at::/torch:: symbol       -> that package was built for another torch
    built_for        "X was built for PyTorch A (you have B)"          -> X's build, or torch's (B is +cpu)
    library_symbol   nccl*/cublas*/cusparse*/cudnn*/__nvJitLink* wanted -> two versions of that library mixed
    missing_library  a soname/DLL that cannot be found                 -> its provider: wheel, driver, VC++ runtime
    error_code       a code of a decoded family (cudaError_t, CUresult, cuBLAS, ..., NCCL, NVML, HIP, errno,
                     signals, Windows)                                  -> the layer its table gives, the code's advice
    wsl_gpu_passthrough  a GPU that cannot start, in a text from WSL       -> the Windows driver / WSL 2 (wsl layer)
    tensorflow_windows_native  TF >= 2.11 on Windows without a GPU     -> no native-Windows GPU builds: WSL 2
    device_node_permission  /dev/kfd, /dev/dri, /dev/nvidia* refused   -> the groups that own the node
    torch_not_offered_on_mac  a resolver finds no torch on a Mac       -> the last x86_64 macOS release (2.2.2)
    rocblas_on_windows  rocBLAS without Tensile kernels, HIP SDK on Windows -> a HIP SDK (or libraries) with the gfx
    zluda_dll_dependency  WinError 126 under ZLUDA                      -> the HIP SDK's bin folder on PATH
    rocm_kfd_permission  HSA cannot open /dev/kfd, with its group shown   -> the render/video groups
    container_cli    nvidia-container-cli's stage and object          -> the image's driver files, the host driver's state
    pip_of_another_python  pip in an embedded Python's folder, installing elsewhere -> that folder's python -m pip
    gpu_newer_than_build  a kernel that cannot run, a GPU and the CUDA its build was made with -> arch (the sm and
                     the CUDA it needs, knowledge.gpu_generations)
    container_without_gpu  a GPU unreachable in a text from a container  -> --gpus all, or the devices it lost
    nccl_transport   NCCL's WARN lines on its sockets or /dev/shm       -> the interface / host network / shm size
    cuda_after_suspend  CUDA failing next to suspend/resume words       -> reload nvidia_uvm
    toolkit_not_torch_cuda  a build's own nvcc-vs-torch CUDA check      -> the toolkit (CUDA_HOME) or the torch build
    torch_too_new_for_intel_mac, mps_inside_linux_container  Mac structure -> 2.2.2 / run natively
    package_binary_missing  a package's own native library missing       -> that package's build for this CUDA
    p2p_through_pcie_switch_hangs  nvidia-smi topo PIX/PXB and a hang   -> ACS / IOMMU
    devices_unavailable_on_windows  "busy or unavailable" on Windows     -> the driver
    driver_older_than_build  CUDA unusable, the driver's version and torch's CUDA printed -> the driver (its table)
    tensorflow_missing_cuda_runtime  TensorFlow lists several libraries it cannot open -> the CUDA of the first
                     runtime it wanted (cudart64_101.dll: CUDA 10.1)
    package_ops_registration_fails  a package's frame calls into torch.library and fails -> its build for this torch
    visible_devices_hide_the_gpu  no device, with CUDA_VISIBLE_DEVICES set in the text -> that variable

The catalogue's sentences (knowledge/data/error_signatures.json) stay for what only a sentence says; a
rule's priority places it among them (match.find sorts both together).  Fix texts are templates like the
catalogue's: values from the text are filled in (and shell-quoted) by diagnose."""

from __future__ import annotations

import re

from torch_envcheck.explain.catalogue import Cause, Signature
from torch_envcheck.explain.match import Match, _line, last_match
from torch_envcheck.knowledge import compiled_modules, drivers, gpu_generations, headers
from torch_envcheck.knowledge.releases import index_url as torch_index_url, release as torch_release
from torch_envcheck.knowledge import jetson
from torch_envcheck.knowledge import tensorflow as tf_builds

SOURCES = {
    "itanium": {"url": "https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling",
                "what": "how C++ names are mangled: the c10/at/torch namespaces inside a symbol"},
    "ext": {"url": "https://pytorch.org/docs/stable/cpp_extension.html",
            "what": "torch C++/CUDA extensions are compiled against one torch's C++ API"},
    "libstdcxx": {"url": "https://gcc.gnu.org/onlinedocs/libstdc++/manual/abi.html",
                  "what": "libstdc++ symbol versions (GLIBCXX_, CXXABI_) and the GCC releases that define them"},
    "glibc": {"url": "https://peps.python.org/pep-0600/",
              "what": "manylinux_2_NN wheels need glibc 2.NN or newer"},
    "wheels": {"url": "https://pypi.org/user/nvidia/", "what": "NVIDIA's CUDA library wheels on PyPI"},
    "ld": {"url": "https://man7.org/linux/man-pages/man8/ld.so.8.html",
           "what": "how the dynamic loader finds libraries (LD_LIBRARY_PATH first)"},
    "vc": {"url": "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
           "what": "the Microsoft Visual C++ Redistributable"},
    "torch_index": {"url": "https://pytorch.org/get-started/locally/",
                    "what": "torch's CUDA builds are installed from download.pytorch.org/whl/cuXXX"},
    "container_toolkit": {"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",
                          "what": "the NVIDIA Container Toolkit gives containers the GPU"},
    "shm": {"url": "https://pytorch.org/docs/stable/data.html#multi-process-data-loading",
            "what": "DataLoader workers pass batches through shared memory (/dev/shm)"},
    "hsa": {"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html",
            "what": "the gfx targets ROCm ships code for"},
}


def _sig(sid: str, layer: str, title: str, priority: int, explanation: str, fix: str | None = None,
         look_at: str | None = None, causes: tuple = (), areas: tuple = (), sources: tuple = (),
         generic: bool = False) -> Signature:
    """A rule's diagnosis.  generic: it reads one entity (a code, a missing library) and says what any text with
    it means; a catalogue sentence matched on the same line says more and ranks first (identify)."""
    env = layer != "not-environment"
    return Signature(sid, layer, title, priority, env, (), {}, explanation,
                     tuple(Cause(*c) for c in causes), fix if env else None, None if env else (look_at or fix),
                     tuple(areas), tuple(sources) or (SOURCES["ld"],), {"from": "layer_rules", "generic": generic})


def _match(sig: Signature, text: str, at: int, captures: dict) -> Match:
    at = max(0, min(at, len(text)))
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    caps = {k: str(v) for k, v in captures.items() if v not in (None, "")}
    return Match(sig, at, end, _line(text, at, end), caps, {})


# --- helpers over entities ---------------------------------------------------------------------------

_MODULE_SUFFIX = re.compile(r"(?:_\d{1,2})?(?:_cuda|_C|_ext|_extensions?|_cpp|_gpu|_kernels?|_ops|_lib|_backend|_cu)$")


def _basename(path: str) -> str:
    return re.split(r"[/\\]", path or "")[-1]


def _module_of(path: str) -> str | None:
    """The import name a compiled file provides: flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so ->
    flash_attn_2_cuda."""
    base = _basename(path)
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]{0,80})", base)
    if not m:
        return None
    name = m.group(1)
    return name[3:] if name.startswith("lib") and ".so" in base and ".cpython" not in base else name


def package_guess(path: str | None, owner: str | None = None) -> str | None:
    """The distribution a compiled file most likely belongs to: its site-packages folder when it has one
    (torchvision/_C.so -> torchvision), else its module name without the conventional suffix of a compiled
    part (flash_attn_2_cuda -> flash_attn, transformer_engine_extensions -> transformer_engine)."""
    known = compiled_modules.distribution_of(_module_of(path or "") or owner)
    if known:
        return known["distribution"]  # a module named unlike its distribution (fused_layer_norm_cuda: apex)
    if owner and owner not in ("_C",) and not owner.endswith((".so", ".pyd")):
        if re.search(r"[/\\]" + re.escape(owner) + r"[/\\]", path or ""):
            return owner  # a folder in site-packages is a distribution's own name (sgl_kernel), not a module's
        mod = owner
    else:
        mod = _module_of(path or "")
        if not mod:
            return None
        bare = _MODULE_SUFFIX.sub("", mod)
        if mod.startswith("_") or not bare or bare.startswith("_"):
            # torch_scatter/_version_cuda.so, mmcv/_ext.so: the compiled part is named for its role; the
            # package is the folder it sits in
            parts = [p for p in re.split(r"[/\\]", path or "")[:-1] if p]
            parent = parts[-1] if parts else ""
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{1,60}", parent) and parent not in ("lib", "lib64", "bin", "build",
                                                                                       "site-packages", "dist-packages"):
                mod = parent
    for _ in range(2):
        new = _MODULE_SUFFIX.sub("", mod)
        if new == mod or not new:
            break
        mod = new
    return mod.lstrip("_") or mod


def _owner_of(ent, path: str | None) -> str | None:
    if not path:
        return None
    for p in reversed(ent.paths):
        if p["path"].endswith(_basename(path)) and p.get("distribution"):
            return p["distribution"]
    m = re.search(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z0-9_.-]{1,100})", path)
    return m.group(1) if m else None


_TORCH_LIBS = re.compile(r"(?:lib)?(?:torch|torch_cpu|torch_cuda(?:_cpp|_cu|_linalg)?|torch_hip|torch_python|torch_global_deps|"
                         r"c10|c10_cuda|c10_hip|caffe2_nvrtc|shm)\.(?:so|dll|dylib)")


_NOT_THE_PACKAGE = {"torch", "torchvision", "torchaudio", "numpy", "pip", "setuptools", "wheel", "python", "triton",
                    "typing-extensions", "cuda", "cudnn", "pytorch"}


def _named_package(ent, guess: str | None) -> str | None:
    """A distribution the text names (`name==version`, a wheel file) when the compiled module's own name does not
    say it (selective_scan_cuda.so ships in mamba-ssm): the one named last that is not a framework or a CUDA wheel."""
    if not guess:
        return None
    norm = guess.replace("_", "-").lower()
    named = [p for p in ent.packages if p not in _NOT_THE_PACKAGE and not p.startswith("nvidia-")]
    if not named or norm in named or any(norm in p or p in norm for p in named):
        return None
    return named[-1]


def _torch_owned(path: str | None, owner: str | None) -> bool:
    if owner and owner != "torch":
        return False  # torchaudio/lib/libtorchaudio.so is torchaudio's
    return owner == "torch" or bool(_TORCH_LIBS.match(_basename(path or "")))


def _cu_tag(cuda: str | None) -> str | None:
    m = re.match(r"(\d{1,2})\.(\d)", cuda or "")
    return f"cu{m.group(1)}{m.group(2)}" if m else None


CONTEXT_TAIL = 64 * 1024  # what a rule reads around the error: the end of the text, where the error is


def _context(text: str, pattern: str) -> bool:
    return re.search(pattern, text[-CONTEXT_TAIL:]) is not None


_WINDOWS_TEXT = r"[A-Za-z]:\\|\.dll\b|WinError|\\Lib\\site-packages|Windows"
_TF_TEXT = r"tensorflow|TensorFlow|tf\.|xla/|stream_executor|TF_CPP"
_SHM_TEXT = r"(?i)/dev/shm|shared memory|\bshm\b|dataloader|data_queue|_try_get_data|multiprocessing|semlock|</torch_\d|nccl"
_HIP_TEXT = r"\bHIP\b|\bhip[A-Z]|ROCm|rocm|\bgfx\d|amdgpu|HSA_"


# --- rules -------------------------------------------------------------------------------------------

def abi_tag(ent, text):
    if not ent.abi_tags:
        return None
    tags = ent.abi_tags
    t = tags[-1]
    cxx = [x for x in tags if x.get("kind") == "libstdc++"]
    glibc = [x for x in tags if x.get("kind") == "glibc"]
    required = t.get("required_by") or ""
    owner = _owner_of(ent, required) or package_guess(required) if required else None
    caps = {"tag": t["tag"], "needs": t.get("needs"), "required_by": required, "provider_file": t.get("provider_file"),
            "package": owner}
    parts = []
    fixes = []
    if cxx:
        c = cxx[-1]
        gcc = (c.get("gcc") or "").split(".")[0]
        caps["gcc_major"] = gcc or None
        provider = c.get("provider_file") or ""
        conda = bool(re.search(r"conda|mamba|/envs/|miniforge", provider))
        parts.append("{provider_file|libstdc++.so.6} has no " + c["tag"] + ": the libstdc++ loaded is older than "
                     "{required_by|the module being imported} needs (" + (c.get("needs") or "a newer GCC") + ").")
        if conda:
            fixes.append("The libstdc++ in the conda env is the old one: update it there, "
                         "`conda install -c conda-forge 'libstdcxx-ng>={gcc_major|12}'` (or `libstdcxx>={gcc_major|12}`),"
                         " or make the system's newer one load first: `export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libstdc++.so.6`.")
        else:
            fixes.append("The system's libstdc++ is the old one: use a conda/mamba env's newer libstdc++ "
                         "(`conda install -c conda-forge 'libstdcxx-ng>={gcc_major|12}'` and put $CONDA_PREFIX/lib on "
                         "LD_LIBRARY_PATH), install a newer GCC's libstdc++6, or install a build of the package made "
                         "for this older libstdc++ (an older release, or built from source here).")
    if glibc:
        g = glibc[-1]
        caps["glibc"] = g.get("glibc")
        caps["manylinux"] = g.get("manylinux")
        caps["first_in"] = ", ".join(g.get("first_in") or []) or None
        parts.append("{required_by|A compiled module} was built for glibc " + (g.get("glibc") or "?") +
                     " (" + (g.get("manylinux") or "") + "); this system's C library (glibc) is older. glibc is "
                     "the operating system's and cannot be upgraded inside a Python environment.")
        fixes.append("Install a build of {package|the package} made for this older glibc (an older release, or a "
                     "manylinux2014 wheel: `pip download` shows which releases have one), build it from source on this "
                     "machine, or run in a container / OS with glibc " + (g.get("glibc") or "") +
                     " or newer ({first_in|a newer distribution}).")
    sig = _sig("c-runtime-version-not-found", "c-runtime",
               "the C/C++ runtime is older than a compiled module needs (" + ", ".join(x["tag"] for x in tags[-2:]) + ")",
               91, " ".join(parts), fix="\n".join(fixes),
               causes=(("old-runtime", "the libstdc++/glibc found first is older than the one the module was built "
                        "against", ("TE904",)),), areas=("platform", "conda"),
               sources=(SOURCES["libstdcxx"], SOURCES["glibc"]))
    return _match(sig, text, t["at"], caps)


# A traceback frame in a package's __init__.py: "File ".../torchaudio/__init__.py", line 5" or IPython's
# "~/repo/audio/torchaudio/__init__.py in <module>()".
_INIT_FRAME = re.compile(r"[/\\](?P<pkg>[A-Za-z_][A-Za-z0-9_]{0,60})[/\\]__init__\.py\b")


def _frame_importing(text: str, mod: str, at: int) -> str | None:
    """The package of the traceback frame whose source line imports `mod` (`import selective_scan_cuda` in
    .../mamba_ssm/ops/selective_scan_interface.py -> mamba_ssm): a top-level compiled module belongs to the package
    that imports it.  None when no such frame precedes `at` or the frame is torch's or the standard library's."""
    frame = re.compile(r'File "(?P<path>[^"\n]{1,400})", line \d{1,6}[^\n]{0,200}\n[>\s]{0,12}(?:import|from) ' +
                       re.escape(mod) + r'\b')
    found = None
    for found in frame.finditer(text, max(0, at - 6000), at + 1):
        pass
    if found is None:
        return None
    dirs = [d for d in re.split(r"[/\\]", found.group("path"))[:-1] if d]
    if "site-packages" in dirs or "dist-packages" in dirs:
        i = max(i for i, d in enumerate(dirs) if d in ("site-packages", "dist-packages"))
        pkg = dirs[i + 1] if i + 1 < len(dirs) else None
    else:
        # a source checkout: the nearest folder above the module's that is not a package's usual sub-folder
        pkg = next((d for d in reversed(dirs) if d not in _SUBPACKAGE_NAMES), None)
    if not pkg or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}", pkg) or pkg in ("torch", "importlib"):
        return None
    return pkg


# the sub-folders packages commonly put their modules in (a frame there names the package one level up)
_SUBPACKAGE_NAMES = frozenset({"ops", "utils", "modules", "models", "layers", "kernels", "functional", "nn", "csrc", "src",
                               "lib", "core", "extensions", "ext", "cuda", "cpp", "triton", "backends", "_ext"})


def _importing_package(text: str, path: str | None, at: int) -> str | None:
    """The package that imported a private top-level compiled module (site-packages/_torch_sox.so, no folder of its
    own): the last `<package>/__init__.py` frame of the traceback before the error.  None when the module sits in a
    package folder (that folder says it) or no such frame precedes it."""
    mod = _module_of(path or "")
    if not mod:
        return None
    parts = [x for x in re.split(r"[/\\]", path or "")[:-1] if x]
    if parts and parts[-1] not in ("site-packages", "dist-packages"):
        return None
    if not mod.startswith("_"):
        return _frame_importing(text, mod, at)
    frame = None
    for frame in _INIT_FRAME.finditer(text, max(0, at - 4000), at):
        pass
    if frame is None or frame.group("pkg") in ("torch", "importlib"):
        return None
    return frame.group("pkg")


# names a compiled module takes for its role, not its package (_C.so, common_ops.abi3.so, _ext.so)
_ROLE_WORDS = frozenset({"c", "common", "ext", "core", "lib", "main", "native", "ops", "op", "kernels", "kernel", "cuda",
                         "cpp", "backend", "extension", "extensions", "functions", "module", "custom", "layers"})
# the package a text imports: "from detectron2.engine import X", "import sgl_kernel", "import common_ops from sgl_kernel",
# or a compiled submodule by its dotted name ("detectron2._C failed to import", "No module named 'mmcv._ext'")
_IMPORTS = re.compile(r"\bfrom (?P<a>[A-Za-z_]\w{1,60})(?:\.\w{1,60}){0,6} import\b|"
                      r"(?m:^)[ \t>]{0,12}import (?P<b>[A-Za-z_]\w{1,60})\b|"
                      r"\bimport \w{1,60} from (?P<c>[A-Za-z_]\w{1,60})\b|"
                      r"\b(?P<d>[A-Za-z][\w]{1,60})\._(?:C|ext|\w{1,30}_(?:C|cuda|ext|ops|cpp))\b")
_NOT_IMPORTED_PACKAGES = frozenset({"os", "sys", "re", "json", "time", "math", "typing", "collections", "functools",
                                   "subprocess", "pathlib", "importlib", "ctypes", "numpy", "np", "torch", "torchvision",
                                   "torchaudio", "triton", "tensorflow", "tf", "__future__", "setuptools", "pip"})


def _imported_package(text: str, allow: frozenset = frozenset()) -> str | None:
    """The last third-party package the text imports (or names a compiled submodule of); `allow` lets some of the
    frameworks count."""
    found = None
    for m in _IMPORTS.finditer(text[-CONTEXT_TAIL:]):
        name = next(g for g in m.groups() if g)
        if (name.lower() not in _NOT_IMPORTED_PACKAGES or name.lower() in allow) and not name.startswith("_"):
            found = name
    return found


def _traceback_package(ent) -> str | None:
    """The last third-party distribution whose files the traceback passes through (site-packages/<dist>/..., an egg's
    folder included): when the failing binary is not named, the package being imported owns it."""
    for p in reversed(ent.paths):
        dist = p.get("distribution")
        if dist and dist.lower() not in _NOT_IMPORTED_PACKAGES and dist.lower() not in _NOT_THE_PACKAGE \
                and not dist.startswith(("nvidia-", "_")) and dist.lower().strip("_") not in _ROLE_WORDS:
            return dist
    return None


# torch.utils.cpp_extension.load() builds a JIT extension into TORCH_EXTENSIONS_DIR (default
# ~/.cache/torch_extensions/py<XY>_<cuda tag>/<name>/<name>.so) and imports it from there: that file missing means its
# build failed (or was interrupted) before; the build log, not a library path, has the cause
_JIT_EXT_MISSING = re.compile(r"torch_extensions[/\\](?:[\w.]{1,40}[/\\])?(?P<op>[A-Za-z_]\w{0,60})[/\\](?P=op)\.(?:so|pyd)"
                              r"[^\n]{0,120}?(?:cannot open shared object file|No such file|could not be found|"
                              r"not found|[Ee]rror loading)")
# the packages that JIT-build their ops this way and how each prebuilds one instead (DeepSpeed:
# https://www.deepspeed.ai/tutorials/advanced-install/ , DS_BUILD_<OP>=1 or DS_BUILD_OPS=1 at install time)
_JIT_BUILDERS = (
    (re.compile(r"(?i)\bdeepspeed\b|DeepSpeed[A-Z]\w{0,40}"), "deepspeed",
     "install DeepSpeed with the op prebuilt: `DS_BUILD_{OP}=1 pip install --no-cache-dir --force-reinstall deepspeed` "
     "(DS_BUILD_OPS=1 for all; `ds_report` lists which ops are compatible and installed)",
     "https://www.deepspeed.ai/tutorials/advanced-install/"),
)


def jit_extension_missing(ent, text):
    """A JIT-compiled torch extension's .so missing from torch's extensions cache: its build failed earlier; the fix
    is that build (its log: compiler, nvcc, ninja), or the owning package's prebuilt op."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_JIT_EXT_MISSING, tail)
    if m is None:
        return None
    op = m.group("op")
    how, src = None, SOURCES["ext"]
    for pattern, _pkg, prebuilt, url in _JIT_BUILDERS:
        if pattern.search(tail):
            how, src = prebuilt.replace("{OP}", op.upper()), {"url": url, "what": "prebuilding the package's ops"}
            break
    sig = _sig("jit-extension-build-failed", "toolchain",
               "the JIT-compiled extension {op} was never built: its .so is missing from torch's extensions cache", 84,
               "torch.utils.cpp_extension.load() compiles {op} on first use into torch's extensions cache "
               "(TORCH_EXTENSIONS_DIR, ~/.cache/torch_extensions) and imports the .so from there. The file is missing, "
               "so that build failed or was interrupted; its own log (earlier in the output: the compiler's, nvcc's or "
               "ninja's first error) has the cause.",
               fix=("Find the first error of {op}'s build in the output above (a missing nvcc/CUDA_HOME, a compiler "
                    "nvcc does not support, a missing header or library) and fix it, then delete the cache folder "
                    "(~/.cache/torch_extensions/.../{op}) so it rebuilds; or " + how + ".") if how else
                   ("Find the first error of {op}'s build in the output above (a missing nvcc/CUDA_HOME, a compiler "
                    "nvcc does not support, a missing header or library) and fix it, then delete the cache folder "
                    "(~/.cache/torch_extensions/.../{op}) so it rebuilds, or install the package's prebuilt op."),
               causes=(("build-failed", "the extension's build failed", ("TE601", "TE602", "TE603")),),
               areas=("extension", "toolchain"), sources=(src, SOURCES["ext"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"op": op})


# the system's ROCm release as package managers and installs print it: apt's "Package: rocm-libs ... Version: 6.4.0",
# rpm/pip lists ("rocm-core 6.4.0"), the versioned install folder /opt/rocm-6.4.0, "ROCm version: 6.4"
_SYSTEM_ROCM = re.compile(r"Package: rocm[\w-]{0,30}\s{1,4}Version: (?P<a>\d\.\d{1,2})|/opt/rocm-(?P<b>\d\.\d{1,2})|"
                          r"\brocm-(?:core|libs|dev|hip-sdk|hip-runtime)[ =:]{1,4}(?P<c>\d\.\d{1,2})|"
                          r"\bROCm (?:[Vv]ersion:? ?)?(?P<d>\d\.\d{1,2})(?![.\d]*\+)")


def _rocm_pair(ent, text):
    """(torch's ROCm, the system's ROCm) when the text shows both and they differ, else None."""
    torch_v = ent.versions.get("torch") or ""
    if "+rocm" not in torch_v:
        # a `pip list` / `conda list` row: "torch    2.4.1+rocm6.0"
        row = re.search(r"(?m)^[ \t]{0,4}(?:py)?torch[ \t]{1,40}(\d{1,2}\.\d{1,2}[\w.]{0,20}\+rocm[\d.]{1,8})",
                        text[-CONTEXT_TAIL:])
        torch_v = row.group(1) if row else torch_v
    built = re.search(r"\+rocm(\d\.\d{1,2})", torch_v)
    if not built:
        return None
    system = None
    for m in _SYSTEM_ROCM.finditer(text[-CONTEXT_TAIL:]):
        system = m.group("a") or m.group("b") or m.group("c") or m.group("d")
    if system is None or system == built.group(1):
        return None
    return built.group(1), system


# NumPy's C API is a capsule a compiled module imports by name (numpy/core/include/numpy/__multiarray_api.h:
# _import_array looks up `_ARRAY_API`, _import_umath `_UFUNC_API`); NumPy 2 moved and changed it, so a module compiled
# against NumPy 1.x fails to find it ("AttributeError: _ARRAY_API not found", "_UFUNC_API not found")
_NUMPY_CAPSULE = re.compile(r"\b_(?P<api>ARRAY|UFUNC)_API (?:not found|is NULL pointer)")


def numpy_c_api_capsule(ent, text):
    """A compiled module that cannot find NumPy's C-API capsule was compiled against another NumPy (NumPy 1.x, run
    under NumPy 2): NumPy's layer, the module's owner named from the traceback."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NUMPY_CAPSULE, tail)
    if m is None:
        return None
    pkg = _traceback_package(ent)
    sig = _sig("numpy-c-api-capsule-not-found", "numpy",
               "a compiled module cannot find NumPy's C API (_{api}_API): it was compiled against another NumPy", 86,
               "Compiled modules reach NumPy's C functions through a capsule named _{api}_API, looked up when the module "
               "is imported. NumPy 2 changed that API, so a module compiled against NumPy 1.x ({package|the module "
               "being imported}) cannot find it under NumPy 2 (the same failure as \"A module that was compiled using "
               "NumPy 1.x cannot be run in NumPy 2\").",
               fix="Install `numpy<2` (`pip install \"numpy<2\"`) in this environment, or a {package|module's} release "
                   "built for NumPy 2 (most packages' releases from mid-2024 on), then keep numpy pinned accordingly.",
               causes=(("numpy2", "a module compiled for NumPy 1.x is imported with NumPy 2", ("TE250", "TE851")),),
               areas=("numpy",), sources=({"url": "https://numpy.org/devdocs/dev/depending_on_numpy.html",
                                           "what": "NumPy 2 ABI: modules built against NumPy 1.x do not run on 2.x"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"api": m.group("api"), "package": pkg})


# a package's private submodule that cannot be imported: its compiled part (mmcv._ext, detectron2._C, apex._C)
_PRIVATE_SUBMODULE = re.compile(r"No module named ['\"](?P<pkg>[A-Za-z][\w]{1,60})\.(?P<sub>_[A-Za-z]\w{0,40})['\"]|"
                                r"cannot import name ['\"](?P<sub2>_[A-Za-z]\w{0,40})['\"] from ['\"]?(?P<pkg2>[A-Za-z][\w]{1,60})\b")


def package_compiled_part_missing(ent, text):
    """A package's private submodule (`pkg._ext`, `pkg._C`) missing is its compiled part: the installed
    distribution has no compiled ops (a pure-Python variant, or a build that failed or was skipped), whoever the
    package is.  torch's own `torch._C` is not this (running inside torch's source tree is)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_PRIVATE_SUBMODULE, tail)
    if m is None:
        return None
    pkg, sub = m.group("pkg") or m.group("pkg2"), m.group("sub") or m.group("sub2")
    if pkg.lower() in _NOT_IMPORTED_PACKAGES:
        return None
    sig = _sig("package-compiled-part-missing", "toolchain",
               "{pkg}'s compiled part ({pkg}.{sub}) is not installed", 76,
               "{pkg}.{sub} is the compiled extension of {pkg}: the installed {pkg} has none. It is a variant without "
               "compiled ops (some packages ship them as a separate distribution, e.g. mmcv-full for mmcv 1.x), or its "
               "build failed or was skipped when it was installed, or it was built for another torch/CUDA.",
               fix="Install the {pkg} build that includes its compiled ops for your torch and CUDA (its install page "
                   "lists the wheels per torch/CUDA), or build it from source against the installed torch (`pip "
                   "install --no-build-isolation --no-cache-dir {pkg}` with the CUDA toolkit of torch.version.cuda) "
                   "and read the build log for the first error.",
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension",), sources=(SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"pkg": pkg, "sub": sub})


def torch_abi(ent, text):
    syms = [s for s in ent.symbols if s.get("abi") == "torch"]
    if not syms:
        return None
    s = syms[-1]
    f = s.get("file") or next((x["file"] for x in reversed(ent.libraries) if x.get("wants_symbol")), None)
    owner = _owner_of(ent, f)
    caps = {"symbol": s["symbol"], "demangled": s.get("demangled"), "ext": _basename(f) if f else None,
            "file": f}
    if _torch_owned(f, owner):
        sig = _sig("torch-libraries-mixed", "torch-build",
                   "torch's own libraries disagree: parts of two torch installs are mixed", 84,
                   "{ext|A torch library} wants {demangled|a torch symbol}, which the torch library loaded beside it "
                   "does not define: files of two torch versions are mixed (an interrupted upgrade, a pip torch over a "
                   "conda one, or another torch's lib folder on LD_LIBRARY_PATH / PATH).",
                   fix="Remove every torch and install one cleanly: `pip uninstall -y torch` (repeat until none is "
                       "left; in conda also `conda remove pytorch`), then install torch again from one index, and keep "
                       "other torch lib folders off LD_LIBRARY_PATH.",
                   causes=(("two-torches", "torch is installed twice", ("TE903",)),
                           ("library-path", "a folder on LD_LIBRARY_PATH makes `import torch` fail", ("TE505",))),
                   areas=("torch", "libraries"), sources=(SOURCES["itanium"],))
        return _match(sig, text, s["at"], caps)
    pkg = package_guess(f, owner)
    named = _named_package(ent, pkg)
    if named:
        pkg = named
    importer = _importing_package(text, f, s["at"])
    if importer:
        pkg = importer
    if not pkg or pkg.lower().strip("_") in _ROLE_WORDS:
        # the binary's name says its role only (_C.so, common_ops.abi3.so): the package the text imports is its owner
        pkg = _imported_package(text) or _traceback_package(ent)
    caps.update(package=pkg, module=_module_of(f or ""), torch=ent.versions.get("torch"))
    known = compiled_modules.distribution_of(_module_of(f or ""))
    sig = _sig("extension-abi-mismatch", "toolchain",
               "{package|a compiled package} was built against another torch than the one installed", 84,
               "{ext|A compiled module} wants {demangled|a torch C++ symbol} ({symbol}), which the installed torch does "
               "not define: {package|the package} was compiled against another torch version (torch's C++ ABI changes "
               "between releases) or with another C++ ABI setting. torch itself is fine; that package's binary is stale.",
               fix=("{module} belongs to {package}, compiled against another torch: " + known["build"]
                    + " torch itself needs no change.") if known else
                   ("Rebuild the extension {package|} against the installed torch (delete its build/ folder, then "
                   "`pip install --no-build-isolation --no-cache-dir --force-reinstall --no-deps {package|PACKAGE}`, or "
                   "`pip install --no-build-isolation .` in its source tree), or install the {package|package} build "
                   "made for your torch version (its wheels are built per torch and CUDA version: pick the one matching "
                   "`python -c \"import torch; print(torch.__version__)\"`). torch itself needs no change."),
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension", "torch"), sources=(SOURCES["ext"], SOURCES["itanium"]))
    return _match(sig, text, s["at"], caps)


def built_for(ent, text):
    b = ent.versions.get("built_for")
    if not b:
        return None
    pkg = b.get("package") or "the package"
    pkg_l = pkg.lower()
    built, have = b.get("torch"), b.get("have")
    cuda = b.get("cuda")
    built_local = (built or "").partition("+")[2]
    tag = built_local if built_local.startswith("cu") else _cu_tag(cuda)
    caps = {"package": pkg_l, "built": built, "have": have, "cuda": cuda, "cu_tag": tag,
            "have_base": (have or "").partition("+")[0] or None}
    if have and have.endswith("+cpu"):
        sig = _sig("cpu-torch-for-cuda-package", "torch-build",
                   "torch is its CPU-only build; {package} needs torch's CUDA build", 88,
                   "{package} was built for torch {built} with CUDA {cuda|?}, and the torch installed is {have}: the "
                   "CPU-only build, which has no CUDA at all. {package} is not the problem; torch's build is.",
                   fix="Install torch's CUDA build of the same version from the PyTorch index: `pip install "
                       "torch=={have_base} --index-url https://download.pytorch.org/whl/{cu_tag|cu121}` (also for "
                       "torchvision/torchaudio if installed).",
                   causes=(("cpu-wheel", "a CPU-only torch is installed on a machine with an NVIDIA GPU", ("TE202",)),),
                   areas=("torch",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, b["at"], caps)
    py_built, py_have = b.get("python"), b.get("have_python")
    if py_built and py_have and py_built.split(".")[:2] != py_have.split(".")[:2] and (not have or not built or
                                                                                    have == built):
        # the torch matches; the interpreter does not: a compiled module is built per Python minor (cpXY)
        caps.update(python=py_built, have_python=py_have,
                    cp="cp" + "".join(py_have.split(".")[:2]))
        sig = _sig("package-built-for-other-python", "toolchain",
                   "{package} was built for Python {python}, this is Python {have_python}", 87,
                   "{package}'s compiled extensions were built for Python {python} and torch {built|?}; the torch "
                   "matches, the interpreter does not. A compiled module is built for one Python minor version (its "
                   "wheel's cpXY tag) and does not load in another.",
                   fix="Install the {package} wheel built for this Python ({cp}) and the installed torch (`pip install "
                       "--force-reinstall --no-deps {package}` from the index it came from picks the {cp} wheel when one "
                       "exists), or build {package} from source in this environment; leave torch as it is.",
                   causes=(("stale-extension", "the compiled extension was built for another Python", ("TE701",)),),
                   areas=("extension",), sources=(SOURCES["ext"],))
        return _match(sig, text, b["at"], caps)
    if have and built and have == built and "+" not in have:
        sig = _sig("cuda-package-without-cuda", "macos",
                   "{package}'s CUDA extensions cannot load: this torch has no CUDA (macOS)", 86,
                   "{package} was built for torch {built} with CUDA, and the installed torch is that same version, so "
                   "the version is not the problem: this torch has no CUDA to run {package}'s kernels (macOS: "
                   "torch uses MPS, never CUDA).",
                   fix="Run without {package} on macOS (drop its flag / uninstall {package}; the program falls back to "
                       "plain attention); on Linux with an NVIDIA GPU, install torch's CUDA build.",
                   causes=(("macos", "macOS has no CUDA; use the MPS backend on Apple silicon", ("TE102",)),),
                   areas=("platform", "torch"), sources=(SOURCES["torch_index"],))
        return _match(sig, text, b["at"], caps)
    have_tag = (have or "").partition("+")[2]
    caps["have_tag"] = have_tag if have_tag.startswith("cu") else None
    sig = _sig("package-built-for-other-torch", "toolchain",
               "{package} was built for torch {built}, the installed torch is {have|another}", 87,
               "{package}'s compiled extensions were built for torch {built} (CUDA {cuda|?}) and only load with that "
               "torch; the installed torch is {have|another version}. torch is fine: {package} does not match it.",
               fix="Install the {package} release built for torch {have|installed}: its release notes name the torch "
                   "each version was built for (for xformers also `pip install -U xformers --index-url "
                   "https://download.pytorch.org/whl/{have_tag|cu121}`), or build {package} from source against this "
                   "torch, or `pip uninstall {package}` if the program runs without it. Leave torch as it is.",
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("torch", "extension"), sources=(SOURCES["ext"],))
    return _match(sig, text, b["at"], caps)


_LIB_NAMES = {"nccl": "NCCL", "cublas": "cuBLAS", "cublasLt": "cuBLASLt", "cusparse": "cuSPARSE", "cusparseLt": "cuSPARSELt",
              "cusolver": "cuSOLVER", "cufft": "cuFFT", "curand": "cuRAND", "cudnn": "cuDNN", "nvJitLink": "nvJitLink",
              "nvrtc": "NVRTC", "cuda": "the CUDA driver API", "nvml": "NVML", "cudart": "the CUDA runtime (cudart)"}
_LIB_WHEEL = {"nccl": "nvidia-nccl", "cublas": "nvidia-cublas", "cublasLt": "nvidia-cublas", "cusparse": "nvidia-cusparse",
              "cusparseLt": "nvidia-cusparselt", "cusolver": "nvidia-cusolver", "cufft": "nvidia-cufft",
              "curand": "nvidia-curand", "cudnn": "nvidia-cudnn", "nvJitLink": "nvidia-nvjitlink",
              "nvrtc": "nvidia-cuda-nvrtc", "cudart": "nvidia-cuda-runtime"}


def library_symbol(ent, text):
    syms = [s for s in ent.symbols if s.get("abi") in _LIB_NAMES]
    if not syms:
        return None
    s = syms[-1]
    lib = s["abi"]
    if lib == "cublas" and (s["symbol"].startswith("cublasLt") or "cublasLt" in (s.get("version") or "")):
        lib = "cublasLt"
    if lib == "cuda" and s["symbol"].startswith("cuda") and s["symbol"][4:5].isupper():
        lib = "cudart"  # cudaXxx is the runtime API (libcudart), cuXxx the driver's
    if lib == "cuda":
        return None  # cu* driver symbols: the driver rules say it better
    version_tag = s.get("version") or ""
    m = re.search(r"\.so\.(\d{1,2})", version_tag + " " + (s.get("provider_file") or ""))
    cuda = s.get("cuda") or (m.group(1) if m and lib not in ("nccl", "cudnn", "curand", "cusparse", "cufft") else None)
    if not cuda:
        t = re.search(r"\+cu(\d{2,3})\b|\bcu(1[1-3])\b", text[-CONTEXT_TAIL:])
        cuda = (t.group(1)[:-1] if t.group(1) else t.group(2)) if t else None
    wheel = _LIB_WHEEL.get(lib)
    if wheel and cuda:
        major = cuda.split(".")[0]
        wheel = wheel if major == "13" and lib not in ("nccl", "cudnn", "cusparseLt") else f"{wheel}-cu{major}"
    f = s.get("file")
    caps = {"symbol": s["symbol"], "library": _LIB_NAMES[lib], "lib": lib, "file": f, "ext": _basename(f) if f else None,
            "wheel": wheel, "version_tag": version_tag or None, "cuda": cuda}
    sig = _sig("cuda-library-version-mixed", "libraries",
               "{library} of another version than {ext|the caller} was built with is loaded ({symbol} missing)", 85,
               "{ext|A library} calls {symbol}, which the lib{lib} that the loader found does not define: that "
               "{library} is older (or of another CUDA major) than the one {ext|it} was linked against. Two versions "
               "are mixed: a system CUDA or another env's lib folder first on LD_LIBRARY_PATH, or nvidia-* wheels of "
               "two CUDA majors (cu11 and cu12) in one environment.",
               fix="Let torch load its own {library}: remove system/other CUDA folders from LD_LIBRARY_PATH (`unset "
                   "LD_LIBRARY_PATH` to test), and keep one set of nvidia-* wheels, the one torch requires: "
                   "`pip install --force-reinstall --no-deps {wheel|the nvidia wheel of torch's CUDA}` (lib{lib}); "
                   "uninstall nvidia-*-cu11 wheels left beside cu12 ones.",
               causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's", ("TE501", "TE505")),
                       ("mixed-wheels", "nvidia-* wheels beside conda's CUDA packages", ("TE905",))),
               areas=("libraries",), sources=(SOURCES["ld"], SOURCES["wheels"]))
    return _match(sig, text, s["at"], caps)


def cxx_runtime_symbol(ent, text):
    syms = [s for s in ent.symbols if s.get("abi") == "libstdc++"]
    if not syms:
        return None
    s = syms[-1]
    caps = {"symbol": s["symbol"], "demangled": s.get("demangled"), "file": s.get("file")}
    sig = _sig("cxx-runtime-symbol-missing", "c-runtime",
               "the C++ runtime (libstdc++) loaded lacks {demangled|a std:: symbol}", 83,
               "{file|A compiled module} wants {demangled|a C++ standard library symbol} ({symbol}), which the "
               "libstdc++ loaded does not define: that libstdc++ is older than the GCC the module was built with (an "
               "old system or conda libstdc++ found first).",
               fix="Load a newer libstdc++: in a conda env `conda install -c conda-forge libgcc libstdcxx-ng` (newer "
                   "than the module's GCC); outside conda, install a newer GCC's libstdc++6, or put the newer "
                   "libstdc++.so.6 first on LD_LIBRARY_PATH.",
               causes=(("runtime", "pip overwrote conda's C++/OpenMP runtime libraries", ("TE904",)),),
               areas=("platform", "conda"), sources=(SOURCES["libstdcxx"],))
    return _match(sig, text, s["at"], caps)


_WSL_LIBCUDA = re.compile(r"libcuda\.so|/usr/lib/wsl/lib")


def missing_library(ent, text):
    libs = [x for x in ent.libraries if x.get("missing") and x.get("provider")]
    win = _context(text, r"[A-Za-z]:\\[A-Za-z]|\\Lib\\site-packages|\.dll\b")
    linux_on_windows = [x for x in ent.libraries if x["file"].endswith(".so") or ".so." in x["file"]] if win else []
    if linux_on_windows and any(x.get("missing") for x in ent.libraries):
        owner = next((o for o in ent.owners() if o not in ("torch", "nvidia")), None)
        x = linux_on_windows[-1]
        caps = {"lib": x["file"], "package": owner}
        sig = _sig("linux-binary-on-windows", "toolchain",
                   "{package|a package} looks for Linux libraries (.so) on Windows", 76,
                   "{package|The package} loads {lib}, a Linux shared library, on Windows: the installed release ships "
                   "Linux binaries only (or searches for them), so its CUDA part cannot load here.",
                   fix="Install a release of {package|the package} that ships Windows binaries: `pip install -U "
                       "{package|PACKAGE}` (check its install notes for Windows), or run it under WSL 2.",
                   causes=(("ext", "the compiled extension exists but fails to load", ("TE705",)),),
                   areas=("platform",), sources=(SOURCES["vc"],))
        return _match(sig, text, x["at"], caps)
    if not libs:
        return None
    # "Could not load library A. Error: B: cannot open ...": B, the dependency A wanted, is the cause
    deps = [lib for lib in libs if lib.get("wanted_by")]
    x = deps[-1] if deps else libs[-1]
    p = x["provider"]
    caps = {"lib": x["file"], "library": x.get("library"), "wheel": x.get("wheel"), "cuda": x.get("cuda"),
            "cudnn": x.get("cudnn")}
    # under WSL only the driver's libraries come from Windows (/usr/lib/wsl/lib); a CUDA library such as cuDNN is
    # a wheel's or a toolkit's there as anywhere, unless what it failed on is the driver's libcuda
    if ent.platform.get("wsl") and (p == "driver" or x.get("kind") == "cudnn" and _WSL_LIBCUDA.search(text)):
        sig = _sig("wsl-libcuda-not-found", "wsl", "{lib} cannot be loaded under WSL: the Windows driver's libcuda is "
                   "not where the loader looks", 80,
                   "Under WSL 2 the GPU driver is the Windows one; its Linux libraries (libcuda.so.1) are mounted in "
                   "/usr/lib/wsl/lib, as copies, without the unversioned libcuda.so that cuDNN and some programs open. "
                   "Nothing is missing on Windows: the loader does not find the WSL copy.",
                   fix="Put /usr/lib/wsl/lib on the loader's path (`export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH`)"
                       " or link the unversioned name next to the library that wants it (`ln -s /usr/lib/wsl/lib/libcuda.so.1 "
                       "<that lib folder>/libcuda.so`); keep the Windows NVIDIA driver current and never install a Linux "
                       "driver inside WSL.",
                   causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("platform", "driver"),
                   sources=({"url": "https://docs.nvidia.com/cuda/wsl-user-guide/index.html",
                             "what": "CUDA on WSL: the driver comes from Windows, libraries in /usr/lib/wsl/lib"},))
        return _match(sig, text, x["at"], caps)
    if p == "cuda-library":
        layer = "cudnn" if x.get("kind") == "cudnn" else "libraries"
        wheels = x.get("wheel_choices")
        if wheels:
            caps["wheel"] = " or ".join(wheels)
        loader = x.get("wanted_by")
        if loader and _context(text, r"docker run|/\.dockerenv|nvidia-docker") is False and not _torch_owned(loader, None):
            pkg = re.match(r"(?:lib)?([a-z][a-z0-9]{2,40})", _basename(loader).lower())
            caps.update(loader=_basename(loader), package=pkg.group(1) if pkg else None)
            sig = _sig("package-built-for-other-cuda", layer,
                       "{loader} needs {lib} ({library}" + (" of CUDA {cuda})" if x.get("cuda") else ")"), 73,
                       "{loader}, part of {package|a package}, was built against {lib}" +
                       (" of CUDA {cuda}" if x.get("cuda") else "") + ", which this environment does not have: that "
                       "build of {package|the package} is for another CUDA than the one installed.",
                       fix="Install the {package|package} build made for the CUDA you have (its CUDA 12 / CUDA 11 builds "
                           "are separate packages or indexes; check its install page), or install the CUDA " +
                           (x.get("cuda") or "") + " libraries it needs: `pip install {wheel|the matching nvidia-* "
                           "wheel}` and put their lib folder on LD_LIBRARY_PATH.",
                       causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's",
                                ("TE501",)),), areas=("libraries",), sources=(SOURCES["wheels"], SOURCES["ld"]),
                       generic=True)
            return _match(sig, text, x["at"], caps)
        if _context(text, r"docker run|nvidia-docker|/\.dockerenv"):
            sig = _sig("container-without-gpu-libraries", "container",
                       "{lib} is missing inside the container: it was started without the GPU", 73,
                       "In a container, the NVIDIA Container Toolkit mounts the driver's libraries and the GPU when "
                       "the container starts with a GPU; started without it, CUDA programs find no CUDA libraries.",
                       fix="Start the container with the GPU: `docker run --gpus all ...` (install the NVIDIA Container "
                           "Toolkit on the host: nvidia-container-toolkit, then `nvidia-ctk runtime configure "
                           "--runtime=docker`), or use an image that ships {lib}.",
                       causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),),
                       areas=("driver",), sources=(SOURCES["container_toolkit"],), generic=True)
            return _match(sig, text, x["at"], caps)
        sig = _sig("cuda-library-not-found", layer, "{lib} ({library}) cannot be loaded", 72,
                   "The dynamic loader cannot find {lib}: {library}" + (" of CUDA {cuda}" if x.get("cuda") else "") +
                   ". It comes with the {wheel|nvidia-* wheel of that CUDA} (which a CUDA build of torch installs) or "
                   "with a CUDA toolkit; it is missing, or its folder is not on the loader's path.",
                   fix="Install the wheel that ships {lib}: `pip install {wheel|the matching nvidia-* wheel}` (or "
                       "reinstall the torch CUDA build that requires it); with a system CUDA toolkit instead, add its "
                       "lib64 folder to LD_LIBRARY_PATH.",
                   causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's", ("TE501",)),),
                   areas=("libraries",), sources=(SOURCES["wheels"], SOURCES["ld"]), generic=True)
        return _match(sig, text, x["at"], caps)
    if p == "driver":
        container = _context(text, r"docker|container|podman|kubernetes|k8s") or bool(ent.platform.get("container"))
        wsl = _context(text, r"/usr/lib/wsl|WSL|microsoft-standard")
        if x["file"] == "libcuda.so" and not container and not wsl:
            # the unversioned name: the driver installs libcuda.so.1 (its soname); libcuda.so is only a link that
            # development packages add, and programs that dlopen it (cuDNN, Triton, bitsandbytes, NCCL) need it
            sig = _sig("libcuda-unversioned-not-found", "libraries",
                       "libcuda.so (the unversioned name of the driver's libcuda.so.1) is not found", 80,
                       "{lib} is not the driver's soname: the driver installs libcuda.so.1, and libcuda.so is a link to it "
                       "that only development packages create. A library or program that opens the unversioned name "
                       "fails where the link is missing or its folder is not on the loader's path.",
                       fix="Find the driver's library (`ldconfig -p | grep libcuda`): if libcuda.so.1 is listed, put its "
                           "folder on LD_LIBRARY_PATH or create the link next to it (`sudo ln -s libcuda.so.1 libcuda.so` "
                           "in that folder, then `sudo ldconfig`); under WSL 2 the folder is /usr/lib/wsl/lib. If no "
                           "libcuda.so.1 is listed, install the NVIDIA driver.",
                       causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver", "libraries"),
                       sources=(SOURCES["ld"],))
            return _match(sig, text, x["at"], caps)
        layer = "container" if container else "wsl" if wsl else "driver"
        sig = _sig("driver-library-not-found", layer, "{lib}, the NVIDIA driver's library, cannot be loaded", 78 if layer == "driver" else 81,
                   "{lib} is installed by the NVIDIA driver, never by pip or conda. " +
                   ("In a container it is mounted by the NVIDIA Container Toolkit when the container starts with a GPU."
                    if container else "Under WSL 2 it comes from the Windows driver (/usr/lib/wsl/lib)." if wsl else
                    "No driver is installed, or it is not loaded."),
                   fix=("Start the container with the GPU (`docker run --gpus all ...`) after installing the NVIDIA "
                        "Container Toolkit (nvidia-ctk runtime configure --runtime=docker; restart docker)."
                        if container else "Install or update the NVIDIA driver on Windows (not inside WSL) and keep "
                        "/usr/lib/wsl/lib on LD_LIBRARY_PATH." if wsl else
                        "Install the NVIDIA driver (your distribution's nvidia-driver package, then reboot); check with "
                        "`nvidia-smi`."),
                   causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301", "TE309")),), areas=("driver",),
                   sources=(SOURCES["container_toolkit"],), generic=layer == "driver")
        return _match(sig, text, x["at"], caps)
    flavour = "rocm" if re.search(r"_hip\b|_hip\.", x["file"]) else "cuda" if re.search(r"_cuda", x["file"]) else None
    tv = ent.versions.get("torch") or ent.packages.get("torch") or ""
    built = "rocm" if "+rocm" in tv else "cuda" if "+cu" in tv else "cpu" if "+cpu" in tv else None
    if p == "torch" and flavour and built and flavour != built:
        # the binary wants the library of another torch build flavour (a ROCm torchaudio beside a CUDA torch)
        # the companion named without torch's local label (torchaudio==0.10.0 beside torch==1.10.0+cu111), else the
        # package the text imports
        unlabelled = [k for k in ("torchaudio", "torchvision") if k in ent.packages and "+" not in ent.packages[k]]
        pkg = unlabelled[-1] if unlabelled else _imported_package(text, allow=frozenset({"torchvision", "torchaudio"}))
        tag = tv.split("+", 1)[1]
        caps.update(package=pkg, torch=tv, tag=tag, flavour={"rocm": "ROCm", "cuda": "CUDA"}[flavour],
                    pkg_ver=ent.packages.get((pkg or "").replace("_", "-")))
        sig = _sig("package-for-another-torch-flavour", "toolchain",
                   "{package|a package} is a {flavour} build beside torch {torch}", 83,
                   "{lib} belongs to torch's {flavour} builds; the installed torch is {torch}, so {package|the package} "
                   "that loads it was installed as the build for another flavour (an unsuffixed version resolved from "
                   "another index or a find-links page).",
                   fix="Install {package|the package} of the same build as torch: `pip install {package|PACKAGE}=="
                       "{pkg_ver|<its version>}+{tag}` from the index torch came from (e.g. --index-url "
                       "https://download.pytorch.org/whl/{tag}), with torch, torchvision and torchaudio of one release.",
                   causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
                   areas=("torch", "extension"), sources=(SOURCES["torch_index"],))
        return _match(sig, text, x["at"], caps)
    if p == "torch" and ".so" in x["file"] and not ent.platform.get("windows"):
        sig = _sig("extension-loaded-before-torch", "toolchain",
                   "{lib}, a torch library, is not found while a compiled extension loads", 79,
                   "A compiled extension links to torch's own {lib}. The loader finds torch's libraries only after "
                   "`import torch` (torch adds its lib folder); imported first, the extension cannot load. If torch is "
                   "imported first and it still fails, the extension was built against a torch whose libraries differ "
                   "(libtorch_cpu.so exists from torch 1.5 on).",
                   fix="`import torch` before importing the extension; if it still fails, rebuild (recompile) the extension "
                       "against the installed torch (delete its build/ folder and reinstall it), or install the build "
                       "made for the same torch.",
                   causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
                   areas=("extension",), sources=(SOURCES["ext"],))
        return _match(sig, text, x["at"], caps)
    if p in ("vc-runtime", "torch", "openmp") and (x["file"].lower().endswith(".dll") or _context(text, _WINDOWS_TEXT)):
        sig = _sig("windows-dll-dependency-missing", "windows-runtime",
                   "{lib} or a DLL it needs cannot be loaded", 74,
                   "Windows could not load {lib}: a DLL it depends on is missing, most often the Microsoft Visual C++ "
                   "runtime (msvcp140.dll, vcruntime140_1.dll) or, for torch's fbgemm.dll, libomp140.x86_64.dll.",
                   fix="Install the latest Microsoft Visual C++ Redistributable (x64), vc_redist.x64.exe from "
                       "https://aka.ms/vs/17/release/vc_redist.x64.exe (it ships libomp140.x86_64.dll too), open a new "
                       "terminal and retry.",
                   causes=(("torch-not-importable", "torch cannot be imported in this interpreter", ("TE201",)),),
                   areas=("torch", "platform"), sources=(SOURCES["vc"],), generic=True)
        return _match(sig, text, x["at"], caps)
    if p == "cudnn":  # zlibwapi.dll
        sig = _sig("cudnn-zlib-missing", "cudnn", "{lib}, which cuDNN 8 needs on Windows, is not found", 79,
                   "cuDNN 8 on Windows loads zlibwapi.dll (zlib built with the WINAPI calling convention) and does not "
                   "ship it; cuDNN 8.9.? and later bundle what they need.",
                   fix="Install zlib for cuDNN: put zlibwapi.dll (from NVIDIA's cuDNN install guide's zlib download) "
                       "into the CUDA bin folder on PATH, or move to a cuDNN 9 build.",
                   causes=(("cudnn", "creating a cuDNN (or cuBLAS) handle failed", ("TE503",)),), areas=("libraries",),
                   sources=({"url": "https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-890/install-guide/index.html",
                             "what": "cuDNN 8 on Windows: install zlib (zlibwapi.dll)"},))
        return _match(sig, text, x["at"], caps)
    if p == "c-runtime":
        sig = _sig("c-runtime-library-missing", "c-runtime", "{lib} ({library}) cannot be loaded", 70,
                   "{lib} is part of the system's C/C++ runtime; the loader cannot find it.",
                   fix="Install the system's C++ runtime (Debian/Ubuntu: `sudo apt-get install libstdc++6 libgomp1`; "
                       "conda: `conda install -c conda-forge libstdcxx-ng libgomp`).",
                   causes=(("runtime", "pip overwrote conda's C++/OpenMP runtime libraries", ("TE904",)),),
                   areas=("platform",), sources=(SOURCES["libstdcxx"],))
        return _match(sig, text, x["at"], caps)
    if p == "os-package":
        sig = _sig("os-library-missing", "env", "{lib} ({library}) is not installed", 60,
                   "{lib} is a library of the operating system, not of pip: a package (often OpenCV's GUI build) "
                   "loads it and the OS lacks it (a slim container image).",
                   fix="Install the OS package (Debian/Ubuntu: `sudo apt-get install libgl1 libglib2.0-0`), or use "
                       "opencv-python-headless instead of opencv-python.",
                   causes=(("platform", "the platform and Python can run PyTorch", ("TE100",)),), areas=("platform",),
                   sources=(SOURCES["ld"],))
        return _match(sig, text, x["at"], caps)
    if p == "rocm":
        sig = _sig("rocm-library-missing", "rocm", "{lib} ({library}) cannot be loaded", 70,
                   "{lib} belongs to ROCm; the loader cannot find it (no ROCm installed, or a ROCm torch on a machine "
                   "without ROCm).",
                   fix="Install ROCm of the version the torch build names (torch's +rocmX.Y label), or install torch's "
                       "CUDA/CPU build on a machine without an AMD GPU.",
                   causes=(("rocm-wheel", "a ROCm torch is installed on a machine with only NVIDIA GPUs", ("TE206",)),),
                   areas=("torch",), sources=(SOURCES["hsa"],))
        return _match(sig, text, x["at"], caps)
    return None


# Per-code advice, by the code's bare name (prefix and underscores removed, lower case): what to do.
_ADVICE = {
    "unknown": ("The CUDA driver failed for an unstated reason; after a suspend/resume the nvidia_uvm module is "
                "left broken.", "Reload the unified-memory module: `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` "
                "(or reboot); check `nvidia-smi` works."),
    "systemnotready": ("On NVSwitch machines CUDA waits for NVIDIA Fabric Manager to configure the fabric.",
                       "Install nvidia-fabricmanager of exactly the driver's version and start it: `sudo systemctl "
                       "enable --now nvidia-fabricmanager` (restart it after a driver update)."),
    "systemdrivermismatch": ("The loaded NVIDIA kernel module and the user-space driver libraries differ.",
                             "Reboot (or reload the nvidia kernel modules) so both come from the same driver install."),
    "compatnotsupportedondevice": ("CUDA forward compatibility (the cuda-compat package) is used on a GPU that does not "
                                   "support it (GeForce/consumer GPUs).", "Remove the cuda-compat libraries from "
                                   "LD_LIBRARY_PATH and update the NVIDIA driver instead."),
    "insufficientdriver": ("The NVIDIA driver is older than the CUDA runtime needs.",
                           "Update the NVIDIA driver, or install a torch build for an older CUDA that this driver runs."),
    "callrequiresnewerdriver": ("The NVIDIA driver is older than the CUDA runtime needs.",
                                "Update the NVIDIA driver."),
    "nodevice": ("CUDA sees no GPU: none is present, the driver is not loaded, CUDA_VISIBLE_DEVICES hides them, or a "
                 "container was started without one.", "Check `nvidia-smi`; unset CUDA_VISIBLE_DEVICES or give valid "
                 "indices; start containers with `--gpus all`."),
    "stublibrary": ("The libcuda.so loaded is the toolkit's stub, not the driver's.",
                    "Remove the CUDA toolkit's lib64/stubs folder from LD_LIBRARY_PATH."),
    "operatingsystem": ("The operating system refused the GPU call (permissions, cgroups, or an unsupported OS call).",
                        "Check the device nodes /dev/nvidia* are readable (the `video`/`render` groups) and, in "
                        "containers, that the NVIDIA runtime is used."),
    "notpermitted": ("The operation is not permitted for this process (device-node permissions or MIG/exclusive mode).",
                     "Add the user to the `video`/`render` groups (or fix /dev/nvidia* permissions) and re-login."),
    "devicesunavailable": ("The GPU is in exclusive-process mode and busy, or prohibited.",
                           "Check `nvidia-smi -q -d COMPUTE` and the processes using the GPU; set the compute mode to "
                           "Default (`sudo nvidia-smi -c 0`)."),
    "invaliddevice": ("A device index beyond the GPUs this process sees.",
                      "Use an index below torch.cuda.device_count(); check CUDA_VISIBLE_DEVICES."),
    "jitcompilernotfound": ("The PTX JIT compiler library (libnvidia-ptxjitcompiler, part of the driver) is missing.",
                            "Reinstall the NVIDIA driver (containers: use the NVIDIA runtime)."),
    "eccuncorrectable": ("The GPU reported an uncorrectable ECC memory error: hardware.",
                         "Check `nvidia-smi -q -d ECC`, reset the GPU (`nvidia-smi -r`) or have it replaced."),
    "gpuislost": ("The GPU fell off the bus: power, thermal or hardware failure.",
                  "Check dmesg for Xid errors, power and cooling; reboot; reseat or replace the GPU."),
    "librmversionmismatch": ("The NVIDIA kernel module and the user-space driver libraries are of different versions "
                             "(after a driver update without reboot).", "Reboot, or reload the nvidia kernel modules."),
    "driverNotLoaded".lower(): ("No NVIDIA kernel driver is loaded.", "Install the NVIDIA driver and reboot."),
    "librarynotfound": ("libnvidia-ml is not found: no NVIDIA driver, or a container without the NVIDIA runtime.",
                        "Install the NVIDIA driver; start containers with `--gpus all`."),
    "nopermission": ("This user may not access the GPU.",
                     "Add the user to the `video`/`render` groups (or fix /dev/nvidia* permissions) and re-login."),
    "unsupportedptxversion": ("The PTX was generated by a CUDA toolkit newer than the driver supports.",
                              "Update the NVIDIA driver to one that supports the toolkit's CUDA version (or compile "
                              "with the CUDA the driver supports)."),
    "invalidptx": ("The driver could not JIT-compile the PTX (a toolkit newer than the driver).",
                   "Update the NVIDIA driver."),
    "archmismatch": ("The library has no code for this GPU's architecture.",
                     "Install a build whose CUDA supports this GPU (compute capability): torch's newer CUDA builds."),
}
def code_advice(code: dict) -> tuple | None:
    """(why, fix) this module's table gives for a decoded code (an entity of extract's `codes`), or None."""
    return _ADVICE.get(_bare(code))


_ARCH_FIX_CUDA = ("The binary has no code for this GPU's compute capability (sm_XY). Rebuild it for your GPU "
                  "(TORCH_CUDA_ARCH_LIST=\"8.6\" for torch extensions, CUDA_ARCH_BIN for OpenCV, -gencode arch=compute_XY,"
                  "code=sm_XY for nvcc), or install a build whose arch list includes your GPU.")
_ARCH_FIX_TF = ("This TensorFlow has no kernels (or PTX) for this GPU's architecture: install a TensorFlow release "
                "built with a CUDA that supports it (TensorFlow 2.4 or newer, CUDA 11, for Ampere GPUs such as A100 / RTX "
                "30xx; the newest release for newer GPUs), `pip install -U 'tensorflow[and-cuda]'`.")
_ARCH_FIX_HIP = ("The ROCm build has no code object for this GPU's gfx target. For a consumer RDNA GPU close to a "
                 "supported one, run with HSA_OVERRIDE_GFX_VERSION (e.g. HSA_OVERRIDE_GFX_VERSION=10.3.0 for gfx103x, "
                 "11.0.0 for gfx110x), or install a ROCm/torch build that lists your gfx target. A target no current "
                 "official build lists (one ROCm dropped, or never shipped) needs torch built from source for it "
                 "(`PYTORCH_ROCM_ARCH=<gfx target> python setup.py develop`) or an older ROCm release that still "
                 "shipped it.")
_NE_LOOK = {
    "memoryallocation": "The GPU ran out of memory: reduce the batch size or model size, free cached tensors, or use a "
                        "GPU with more memory (torch.cuda.memory_summary() shows who holds it).",
    "outofmemory": "The GPU ran out of memory: reduce the batch size or model size (torch.cuda.memory_summary()).",
    "allocfailed": "An allocation failed: the GPU is out of memory. Reduce the batch size or model size.",
    "notinitialized": "Creating the library's handle failed, which in practice means the GPU was out of memory at that "
                      "moment (or an earlier CUDA error): reduce the batch size, and rerun with CUDA_LAUNCH_BLOCKING=1 "
                      "to see the first error.",
    "illegaladdress": "A kernel accessed memory it does not own: a bug in the program or an extension (often an "
                      "out-of-range index). Rerun with CUDA_LAUNCH_BLOCKING=1 to see where.",
    "launchfailure": "A kernel failed: rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing operation.",
    "assert": "A device-side assert fired (usually an index out of range, e.g. a label >= the number of classes); "
              "rerun with CUDA_LAUNCH_BLOCKING=1.",
}


BURST = 3000


def _bare(code: dict) -> str:
    name = code["name"]
    name = re.sub(r"^(?:cuda(?:Error)?|CUDA_(?:ERROR_)?|CU(?:BLAS|SPARSE|SOLVER|RAND|DNN)_STATUS_|CUFFT_|NVRTC_(?:ERROR_)?|"
                  r"NVJITLINK_(?:ERROR_)?|nccl|NVML_(?:ERROR_)?|hip(?:Error)?|ERROR_|STATUS_)", "", name)
    return name.replace("_", "").lower()


_INIT_CALL = re.compile(r"(?:cuda)?[Gg]et_?[Dd]evice_?[Cc]ount|cuInit\b|CUDA initiali[sz]ation|NumCudaDevices|cudaGetDeviceProperties|"
                        r"cuDeviceGetCount")
_ROOT_ONLY_FIX = ("The GPU works for root only: this user may not open the GPU's device nodes. Check `ls -l /dev/nvidia*` "
                  "(Jetson: `/dev/nvhost*`, `/dev/nvmap`) and `id`: add the user to the group that owns them (`sudo "
                  "usermod -aG video $USER`, some systems use render; log out and in), or fix the udev rule / the "
                  "nvidia module's NVreg_DeviceFileMode; in a container run with `--group-add video` (the host's "
                  "group id) and the devices passed in.")


def _root_only(text: str) -> bool:
    tail = text[-CONTEXT_TAIL:]
    return bool(_ROOT_ONLY.search(tail) or _SUDO_FINDS.search(tail))


def gpu_only_as_root(ent, text):
    """The GPU that works under sudo or as root and not as the user is the device nodes' permission, whatever the
    failure as the user looks like (is_available False, an init error): a group, a udev rule, not a reinstall.
    AMD's nodes (/dev/kfd, /dev/dri) belong to `render` and `video`."""
    tail = text[-CONTEXT_TAIL:]
    fail = None
    for fail in _CUDA_UNUSABLE.finditer(tail):
        pass
    if fail is None or not _root_only(text):
        return None
    if ent.platform.get("amd"):
        sig = _sig("gpu-only-as-root-rocm", "rocm", "the GPU works as root only: /dev/kfd and /dev/dri permissions", 86,
                   "ROCm opens /dev/kfd and the /dev/dri render nodes, which belong to the `render` and `video` "
                   "groups: a command that works as root and not as the user lacks them.",
                   fix="Add the user to both groups: `sudo usermod -aG render,video $USER`, then log out and in; check "
                       "with `ls -l /dev/kfd /dev/dri/renderD*` and `id`.",
                   areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                                 "install/prerequisites.html#setting-permissions-for-groups",
                                                "what": "ROCm: the render and video groups"},))
    else:
        sig = _sig("gpu-only-as-root", "driver", "the GPU works as root only: device-node permissions", 86,
                   "CUDA opens the NVIDIA device nodes (/dev/nvidia*, on Jetson /dev/nvhost* and /dev/nvmap); they "
                   "are normally world-accessible, but a restrictive NVreg_DeviceFileMode, udev rule or (Jetson) the "
                   "`video` group keeps them from other users: root finds the GPU, the user does not.",
                   fix=_ROOT_ONLY_FIX, areas=("driver",),
                   sources=({"url": "https://download.nvidia.com/XFree86/Linux-x86_64/550.54.14/README/faq.html",
                             "what": "NVIDIA driver README: device file permissions (NVreg_DeviceFileMode)"},))
    return _match(sig, text, len(text) - len(tail) + fail.start(), {})


def error_code(ent, text):
    codes = [c for c in ent.codes if c.get("layer") not in (None, "none")]
    if not codes:
        return None
    # prefer a code read from its name or message over a bare number, the last of them
    strong = [c for c in codes if c.get("how") in ("name", "message", "signal")] or \
        [c for c in codes if c.get("how") == "message-context"]
    pool = [x for x in (strong or codes) if x.get("family") != "signal"] or (strong or codes)
    # the first code of the last burst (codes within BURST characters of the last one): once CUDA fails, later
    # calls fail too, so the first of them is the cause
    last = pool[-1]["at"]
    burst = [x for x in pool if last - x["at"] <= BURST]
    env = [x for x in burst if x.get("layer") not in ("not-environment",)]
    c = (env or burst)[0] if burst else pool[-1]
    via_collective = False
    if c["family"] in ("ncclResult_t", "rcclResult_t") and _bare(c) == "unhandledcudaerror":
        # NCCL's "unhandled cuda error" wraps a CUDA call that failed: the CUDA code it printed (by name, message or
        # number, often on a WARN line before it) is the cause, and its layer is the answer
        under = [x for x in codes if x["family"] in ("cudaError_t", "CUresult") and abs(x["at"] - c["at"]) <= BURST]
        under = [x for x in under if x.get("layer") != "not-environment" or _bare(x) == "peeraccessunsupported"
                 or _context(text, _NVLS_TEXT)]
        if under:
            c, via_collective = under[0], True
    bare = _bare(c)
    fam, layer = c["family"], c["layer"]
    hip = fam == "hipError_t" or (fam == "cudaError_t" and _context(text, _HIP_TEXT))
    if hip and layer not in ("not-environment",):
        layer = "rocm"
    hip_init = hip and _context(text, r"hipGetDeviceCount|hipInit|HIP initialization|NumHipDevices")
    caps = {"code": c["name"], "value": c["value"], "code_message": c.get("message") or c.get("description"),
            "library": c.get("library")}
    meaning = c.get("description") or c.get("message") or ""
    title = f"{c['library']} {c['name']} ({c['value']}): {c.get('message') or c.get('description') or ''}".strip()
    explanation = (f"{c['name']} = {c['value']} in {fam}: {meaning}").rstrip()
    fix = None
    look = None
    priority = {"name": 64, "message": 64, "message-context": 61}.get(c.get("how"), 58)
    newer = _gpu_newer_than_build(ent)
    # the CUDA code printed on NCCL's own NVLS line ("Failed to bind NVLink SHARP (NVLS) Multicast memory: CUDA error
    # 401") is the same call, whether or not NCCL's unhandled-CUDA-error code follows it in the paste
    line_start = text.rfind("\n", 0, c["at"]) + 1
    nvls_line = re.search(r"(?i:nvls)|NVLink SHARP|[Mm]ulticast", text[line_start:c["at"] + 200].split("\n", 1)[0]) is not None
    if (via_collective or nvls_line) and layer == "not-environment" and bare != "peeraccessunsupported":
        # a CUDA call NCCL made on NVLink SHARP (multicast) memory failed: the NVSwitch fabric's state, which the
        # Fabric Manager keeps (restarted, stopped or at another version than the driver)
        layer = "driver"
        fix = ("NCCL's NVLink SHARP (NVLS) setup failed in CUDA: the NVSwitch fabric is not in a usable state. Check "
               "the Fabric Manager (`systemctl status nvidia-fabricmanager`; its version must equal the driver's), "
               "restart it or reboot the host; meanwhile NCCL_NVLS_ENABLE=0 avoids NVLS.")
        explanation += " NCCL failed while binding NVLS (multicast) memory: the NVSwitch fabric, not the program."
    elif hip and layer == "rocm" and bare not in ("nokernelimagefordevice", "nobinaryforgpu", "invaliddevicefunction") \
            and _rocm_pair(ent, text):
        # torch's ROCm and the system's ROCm set against each other: code compiled here (an extension's hipcc) used
        # the system's, torch's wheel carries its own; a HIP failure between them is that difference
        built, system = _rocm_pair(ent, text)
        fix = (f"torch is built for ROCm {built}, the system's ROCm is {system}: install the torch build for ROCm "
               f"{system} (`pip install torch --index-url https://download.pytorch.org/whl/rocm{system}`, or its "
               f"nightly when no release has it) so torch and what was compiled here (hipcc from /opt/rocm) match, "
               f"then rebuild the compiled packages; or install ROCm {built} to match torch.")
        explanation += f" torch is built for ROCm {built}; the system's ROCm is {system}."
    elif bare == "memoryallocation" and fam == "cudaError_t" and ent.platform.get("wsl") and \
            "Tried to allocate" not in text[-CONTEXT_TAIL:]:
        # a CUDA call's own out-of-memory (not the caching allocator's "Tried to allocate": the GPU's memory was
        # not what ran out) under WSL 2: CUDA on WSL limits pinned (page-locked) host memory, and the WSL VM has a
        # memory limit of its own (NVIDIA's CUDA on WSL guide, known limitations)
        layer = "wsl"
        fix = ("Under WSL 2, CUDA's pinned (page-locked) host memory is limited and the WSL VM's memory is capped: "
               "set pin_memory=False in the DataLoader (and avoid large pinned buffers), and give the VM more memory "
               "and swap in %UserProfile%\\.wslconfig (`[wsl2]` `memory=...`, `swap=...`, then `wsl --shutdown`). "
               "If the GPU's own memory is full (`nvidia-smi`), use a smaller batch instead.")
        explanation += (" Raised by a CUDA call, not by torch's allocator running out of GPU memory, in a text from "
                        "WSL 2: CUDA on WSL limits pinned host memory.")
    elif bare in ("executionfailed", "archmismatch", "internalerror", "nokernelimagefordevice", "invaliddevicefunction",
                  "nobinaryforgpu") and newer and not hip:
        layer = "arch"
        fix = _NEWER_GPU_FIX
        caps.update(newer)
        explanation += (" {gpu} is compute capability {capability} ({sm}), which CUDA {cuda} predates: no library "
                        "built with it has code for this GPU.")
    elif fam == "cufftResult" and bare == "internalerror":
        # cuFFT raises it from inside the library on a valid plan: in practice a cuFFT without code for the GPU
        # (torch built with CUDA 11.7 on Ada / Hopper, with 12.x < 12.8 on Blackwell)
        layer = "arch"
        fix = ("cuFFT failed inside the library: the cuFFT this build ships predates the GPU (CUDA 11.7 or older on "
               "RTX 40xx / L4 / H100, sm_89/sm_90; older than CUDA 12.8 on RTX 50xx / B200). Install a torch built "
               "with a newer CUDA: CUDA 11.8 or newer (cu118, cu12x; cu128 for Blackwell), from "
               "https://pytorch.org/get-started/locally/.")
        explanation += " On a valid transform, an internal cuFFT error means its kernels do not support this GPU."
    elif bare in ("executionfailed", "archmismatch", "internalerror") and _old_torch(ent):
        # a kernel that cannot run at all under a torch older than CUDA 11: the GPU is newer than the build (the
        # table calls these codes the program's; the torch version says otherwise)
        layer = "arch"
        fix = ("torch {torch} was never built with CUDA 11, which GPUs from Ampere on (RTX 30xx, A100: sm_80/sm_86) "
               "need: install a torch release built with CUDA 11 or newer (cu118 / cu12x builds; torch >= 1.7 had the "
               "first cu110 builds).")
        caps["torch"] = ent.versions.get("torch")
        explanation += " The installed torch predates CUDA 11, so it has no code for GPUs newer than Turing."
    elif c.get("how") == "debugger" and layer == "not-environment":
        look = ("cuda-gdb prints a warning for every CUDA API call that returns an error, including errors the program "
                "expects and handles (here " + c["name"] + "): harmless when the program goes on; not an installation "
                "problem: the installation needs no change.")
        explanation += " Reported by cuda-gdb (\"Cuda API error detected\"), a debugger warning, not a failure of the program."
    elif bare == "peeraccessunsupported" and _context(text, r"NCCL|nccl|IPC|all_reduce|allreduce"):
        layer = "distributed"
        fix = ("The GPUs cannot reach each other peer-to-peer (PCIe topology, IOMMU/ACS, or consumer GPUs without P2P), "
               "and the collective library tried P2P/IPC between them: set NCCL_P2P_DISABLE=1 (it must reach every "
               "worker process; for a custom all-reduce, disable it), or enable P2P in the platform (IOMMU/ACS "
               "settings); `nvidia-smi topo -p2p r` shows which pairs can.")
        explanation += " NCCL (or a custom all-reduce) needs peer access between the GPUs for its P2P transport."
    elif layer == "not-environment" and fam in ("cudaError_t", "CUresult") and _INIT_CALL.search(
            text[max(0, c["at"] - 400):c["at"] + 80]):
        # returned while CUDA starts (cudaGetDeviceCount, cuInit): no argument of the program is involved yet, so
        # whatever the table says of the code elsewhere, here it is the driver refusing this process
        layer = "driver"
        if _root_only(text):
            fix = _ROOT_ONLY_FIX
            explanation += " The GPU works for root only: this user may not open its device nodes."
        else:
            fix = ("CUDA failed while starting, before the program ran any kernel: check the driver (`nvidia-smi`; "
                   "`dmesg` for NVRM/Xid lines), that this user may open the GPU's device nodes (`ls -l /dev/nvidia*`, "
                   "Jetson: the `video` group), and, in a container or VM, that the GPU is passed in with its driver.")
        explanation += " It was returned while CUDA initialised, so it is the driver's or the machine's answer."
    elif layer == "not-environment":
        look = _NE_LOOK.get(bare) or ("An error of the program or its inputs, not of the installation: "
                                      "rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing call, and check its arguments.")
        if bare == "notinitialized" and fam == "cublasStatus_t":
            explanation += (" cublasCreate returns it when it cannot allocate its workspace: the GPU was out of memory "
                            "(or a previous CUDA error left the context broken).")
    elif hip and bare == "nodevice":
        fix = ("HIP sees no GPU: check that `rocminfo` (Windows: `hipInfo`) lists it. The GPU must be one this ROCm / HIP "
               "SDK release supports (its supported-GPUs list; older parts such as gfx803 / RX 580 are not supported by "
               "recent releases: use an older release or a supported GPU); on Linux the user needs the `render` and "
               "`video` groups and the amdgpu driver loaded; HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES must not hide "
               "it; a container needs --device=/dev/kfd --device=/dev/dri; on Windows the HIP SDK needs the AMD driver of "
               "its release and the Visual C++ runtime.")
    elif hip_init:
        fix = ("HIP could not start on this GPU: check the kernel driver's messages (`dmesg | grep -i kfd`): older GPUs "
               "(gfx803) need PCIe atomics support from the CPU/motherboard; a gfx target ROCm does not ship needs "
               "HSA_OVERRIDE_GFX_VERSION; check the user is in the `render` and `video` groups.")
        explanation += " HIP failed while counting the GPUs: the ROCm kernel driver (amdgpu/kfd) refused the device."
    elif bare in ("nokernelimagefordevice", "nobinaryforgpu", "invaliddevicefunction", "invalidkernelimage",
                  "invalidimage", "invalidkernelfile"):
        fix = _ARCH_FIX_HIP if hip else (_ARCH_FIX_TF if _context(text, _TF_TEXT) else _ARCH_FIX_CUDA)
        explanation += " The binary was not compiled for this GPU's architecture."
    elif fam == "ncclResult_t":
        fix = _nccl_fix(bare, text)
    elif fam == "signal":
        fix, explanation, layer = _signal_fix(c, text, explanation, layer)
    elif fam == "errno":
        fix, layer = _errno_fix(c, text, layer)
    elif fam == "windows" and c["value"] in (127, 0xC0000139) and _dll_owner(ent):
        owner = _dll_owner(ent)
        caps["package"] = owner
        fix = ("A DLL of {package} lacks a procedure another of its DLLs wants: files of two {package} versions are "
               "mixed in its folder (an upgrade over an old install, a failed uninstall). Remove it completely: `pip "
               "uninstall -y {package}` (repeat until pip finds none), delete what is left of its folder in "
               "site-packages, then install it again; keep other copies of its DLLs off PATH.")
    elif fam == "windows" and c["value"] in (2, 3) and _MISSING_TOOL.search(text[-CONTEXT_TAIL:]):
        # Windows' "file not found" when a build runs a tool: errno's ENOENT by another name
        fix, layer = _errno_fix(dict(c, name="ENOENT"), text, layer)
    elif fam == "windows":
        fix = _windows_fix(c)
    elif fam == "nvmlReturn_t" and bare == "operatingsystem":
        fix = ("The operating system keeps this process from the GPU's control device: in a container, the NVIDIA "
               "runtime's cgroup setup (no-cgroups in /etc/nvidia-container-runtime/config.toml, or --privileged / "
               "the device list); under WSL 2 or a GPU-PV VM, the Windows host must expose the GPU (WDDM mode, a "
               "driver that supports WSL).")
    elif bare in _ADVICE:
        extra, fix = _ADVICE[bare]
        explanation += " " + extra
    else:
        fix = {"driver": "Check the NVIDIA driver: `nvidia-smi` must list the GPU; update or reinstall the driver "
                         "and reboot.",
               "libraries": "Check which CUDA libraries are loaded: keep one CUDA version (torch's nvidia-* wheels) and "
                            "remove other CUDA folders from LD_LIBRARY_PATH.",
               "env": "Check CUDA_VISIBLE_DEVICES and the device index the program uses.",
               "toolchain": "Check the compiler/JIT options and the CUDA toolkit version the program compiles with.",
               "distributed": "Rerun with NCCL_DEBUG=INFO and check the network interfaces (NCCL_SOCKET_IFNAME) and "
                              "/dev/shm.",
               "arch": _ARCH_FIX_CUDA, "rocm": _ARCH_FIX_HIP,
               "container": "Give the container enough shared memory: `docker run --shm-size=8g` or `--ipc=host`.",
               "windows-runtime": "Install the Microsoft Visual C++ Redistributable (x64)."}.get(
            layer, "Run `torch-envcheck` to check the installation.")
    if via_collective:
        priority = 80  # the cause under NCCL's wrapper: above the wrapper's own sentence
    if layer == "arch" and newer:
        priority = 89
    if fam in ("windows", "errno", "signal"):
        priority = 66 if c.get("how") != "number" or fam == "windows" else 60
        if fam == "signal":
            # a crash signal is the consequence of whatever was printed before it; only a bus error in shared
            # memory says its own cause
            priority = 66 if (c["name"] == "SIGBUS" and layer == "container") else 50
        if fam == "windows" and c["value"] not in (126, 0xC0000135):
            priority = 77  # decisive (the paging file, a wrong-bitness DLL): above "Error loading X" DLL guesses
    sig = _sig(f"code-{fam.lower().replace('_t', '').replace('_', '-')}-{bare[:40]}", layer, title, priority,
               explanation, fix=fix, look_at=look,
               causes=(("machine", "CUDA failed to initialise for another reason", ("TE303",)),) if layer == "driver" else (),
               areas=("driver",) if layer == "driver" else (),
               sources=({"url": c.get("source") or "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
                         "what": f"{fam}: {c['name']} = {c['value']} (the header that declares it)"},), generic=True)
    return _match(sig, text, c["at"], caps)


_NVLS_TEXT = r"NVLS|NVLink SHARP|[Ff]abric ?[Mm]anager|NVSwitch"
_NEWER_GPU_FIX = ("{gpu} (compute capability {capability}, {sm}) needs code built with CUDA {first_cuda} or newer; this "
                  "build uses CUDA {cuda}. Install a torch (and extensions) built with CUDA {first_cuda} or newer (the "
                  "cuXXX build from https://pytorch.org/get-started/locally/, or a previous version's page for older "
                  "torch releases); an extension you compile needs TORCH_CUDA_ARCH_LIST including {capability} and a "
                  "CUDA {first_cuda}+ toolkit.")


def _build_cuda(ent) -> str | None:
    """The CUDA a build in the text was made with: torch's (+cuXXX, collect_env), else a CUDA version named; a torch
    older than 1.7 had no CUDA 11 build at all (10.2 at most)."""
    v = ent.versions
    cuda = v.get("torch_cuda") or v.get("cuda")
    if not cuda and _old_torch(ent):
        cuda = "10.2"
    return cuda


def _gpu_newer_than_build(ent) -> dict | None:
    """The GPU named in the text, when the CUDA its build was made with predates the GPU's architecture
    (knowledge.gpu_generations): {"gpu", "capability", "sm", "first_cuda", "cuda"}."""
    cuda = _build_cuda(ent)
    for g in reversed(ent.gpus):
        need = gpu_generations.needs_newer_cuda(g, cuda)
        if need:
            return need
    return None


_ARCH_BARES = frozenset({"executionfailed", "archmismatch", "internalerror", "nokernelimagefordevice",
                         "invaliddevicefunction", "nobinaryforgpu", "invalidkernelimage"})
_ARCH_WORDS = re.compile(r"no kernel image is available|invalid device function|is not compatible with the current "
                         r"PyTorch installation|no binary for GPU")


def gpu_newer_than_build(ent, text):
    """A kernel that cannot run (no kernel image, invalid device function, cuDNN/cuFFT failing inside) on a GPU the
    text names, with the CUDA its build was made with: when that CUDA predates the GPU's architecture (a version
    table, knowledge.gpu_generations), the build cannot have code for it, whatever the message's wording."""
    newer = _gpu_newer_than_build(ent)
    if not newer or ent.platform.get("amd"):
        return None
    at = next((c["at"] for c in reversed(ent.codes) if _bare(c) in _ARCH_BARES), None)
    if at is None:
        tail = text[-CONTEXT_TAIL:]
        m = last_match(_ARCH_WORDS, tail)
        if m is None:
            return None
        at = len(text) - len(tail) + m.start()
    sig = _sig("gpu-newer-than-build-cuda", "arch", "{gpu} ({sm}) is newer than the CUDA {cuda} this build was made with",
               89, "{gpu} has compute capability {capability} ({sm}); CUDA toolkits before {first_cuda} cannot compile "
               "for it, so a build made with CUDA {cuda} (torch, its libraries, an extension) has no code that runs on it.",
               fix=_NEWER_GPU_FIX,
               causes=(("arch", "the installed torch has no code for this GPU's architecture", ("TE401",)),),
               areas=("gpu", "torch"), sources=({"url": "https://developer.nvidia.com/cuda-gpus",
                                                 "what": "compute capability of each NVIDIA GPU"},
                                                {"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                                                 "what": "the CUDA release that added each sm_XY target"}))
    return _match(sig, text, at, newer)


def _old_torch(ent) -> bool:
    """torch older than 1.7, the first release with CUDA 11 builds (pytorch.org/get-started/previous-versions)."""
    m = re.match(r"(\d{1,2})\.(\d{1,3})", ent.versions.get("torch") or "")
    return bool(m) and (int(m.group(1)), int(m.group(2))) < (1, 7)


def _nccl_fix(bare: str, text: str) -> str:
    if _context(text, r"Duplicate GPU detected"):
        return ("Each rank must use its own GPU: call torch.cuda.set_device(local_rank) (LOCAL_RANK from torchrun) before "
                "init_process_group, or give each process one GPU with CUDA_VISIBLE_DEVICES.")
    if _context(text, r"/dev/shm|shared memory|shm"):
        return ("NCCL could not create its shared-memory segments: enlarge /dev/shm (`docker run --shm-size=8g` or "
                "`--ipc=host`), or set NCCL_SHM_DISABLE=1.")
    if bare == "invalidusage":
        return ("Check that every rank uses its own GPU (torch.cuda.set_device(local_rank) with LOCAL_RANK), the same "
                "collective order and the same world size; rerun with NCCL_DEBUG=WARN.")
    return ("Rerun with NCCL_DEBUG=INFO: check /dev/shm is large enough (containers: `--shm-size` or `--ipc=host`), "
            "the network interface (NCCL_SOCKET_IFNAME), and that every rank uses its own GPU (set_device(LOCAL_RANK)).")


# (macOS' shells print a signal's number after its name: "Illegal instruction: 4", "Abort trap: 6")
# Names are bounded by ASCII letters and digits, not \b: in Chinese or Japanese prose ("换成M1的Mac笔记本") the
# characters around a name are word characters too.
_MAC_TEXT = (r"(?im)(?:Illegal instruction|Abort trap|Segmentation fault|Bus error): \d{1,2}[ \t]*$|\bdarwin\b|macOS|"
             r"(?<![A-Za-z0-9])mac ?book|(?<![A-Za-z0-9])Mac(?![A-Za-z0-9])|Apple (?:M\d|silicon)|"
             r"(?<![A-Za-z0-9])M[1-4](?: (?:Pro|Max|Ultra|chip))?(?![A-Za-z0-9])[^\n]{0,20}(?:Mac|chip|芯片)|Mac ?M[1-4]|arm64")
_INTEL_MAC_TEXT = r"(?i)Intel (?:Mac|Core|i[3579])|x86_64[^\n]{0,40}darwin|macosx_\d{1,2}_\d{1,2}_x86_64"


def _signal_fix(c: dict, text: str, explanation: str, layer: str):
    name = c["name"]
    if name == "SIGBUS":
        return ("Give the container more shared memory: `docker run --shm-size=8g ...` or `--ipc=host` (Kubernetes: "
                "mount an emptyDir with medium Memory at /dev/shm); or lower DataLoader num_workers.",
                explanation + " A bus error in DataLoader workers or NCCL means /dev/shm (shared memory) is full: "
                "containers get 64 MB by default.", "container")
    if name == "SIGKILL":
        return ("The process was killed, most often by the kernel's out-of-memory killer (host RAM): lower the batch "
                "size / num_workers, or add RAM or swap; `dmesg | grep -i oom` confirms it.", explanation, "env")
    if name == "SIGILL" and _context(text, _MAC_TEXT) and not _context(text, _INTEL_MAC_TEXT):
        # a Mac that is not an Intel one: an x86_64 binary under Rosetta 2, which does not translate AVX
        return ("This is an x86_64 build running under Rosetta on Apple silicon, which has no AVX: use a native arm64 "
                "Python (`python -c \"import platform; print(platform.machine())\"` must print arm64; not a terminal or "
                "conda opened under Rosetta) and the package's Apple-silicon build there (TensorFlow: its macOS arm64 "
                "wheels from 2.13, or tensorflow-macos with tensorflow-metal before; torch: the macOS arm64 wheels).",
                explanation + " On a Mac with Apple silicon an illegal instruction is an x86_64 binary under Rosetta.",
                "macos")
    if name == "SIGILL" and _context(text, _TF_TEXT + r"|\btf\b"):
        # TensorFlow's binaries use AVX from 1.6 on (and later ones more); the framework named is whose build to change
        return ("TensorFlow's prebuilt binaries need AVX (from release 1.6; newer ones more: AVX2, FMA) and this CPU "
                "lacks it: build TensorFlow from source on this machine (or use a community no-AVX build), use an old "
                "release made before AVX, or run on a CPU (or VM configuration) that exposes AVX.",
                explanation + " An illegal instruction at `import tensorflow` is a CPU without the AVX the binary uses.",
                "tensorflow")
    if name == "SIGILL":
        return ("The CPU lacks an instruction the binary uses (AVX/AVX2/AVX-512): install a build for this CPU (older "
                "wheels, or build from source).", explanation, "env")
    return ("Rerun with faulthandler enabled (`python -X faulthandler ...`) to see where it crashes.", explanation, layer)


def _errno_fix(c: dict, text: str, layer: str):
    name = c["name"]
    if name == "ENOSPC" and _context(text, _SHM_TEXT):
        return ("Enlarge shared memory: `docker run --shm-size=8g` or `--ipc=host`; check `df -h /dev/shm`.", "container")
    if name == "ENOSPC":
        return ("Free disk space (df -h) or point TMPDIR / caches (HF_HOME, TORCH_HOME, pip cache) at a bigger disk.", "env")
    if name == "EMFILE":
        return ("Raise the open-file limit (`ulimit -n 65535`) or use torch.multiprocessing.set_sharing_strategy("
                "'file_system').", "env")
    if name == "EADDRINUSE":
        return ("Another process holds the port: pick a free MASTER_PORT (torchrun --master_port) or stop the old job.",
                "distributed")
    if name in ("ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"):
        return ("Check MASTER_ADDR/MASTER_PORT are reachable from every node (firewall) and that rank 0 is running.",
                "distributed")
    if name in ("EACCES", "EPERM") and _context(text, r"/dev/nvidia|/dev/dri|/dev/kfd"):
        return ("Give the user access to the GPU device nodes: add it to the `video` and `render` groups "
                "(`sudo usermod -aG video,render $USER`) and log in again.", "driver")
    if name == "ENOMEM" and _context(text, r"/dev/kfd"):
        # opening the ROCm kernel driver's node fails with ENOMEM when kfd will not create a process for this GPU:
        # not host RAM
        return ("The ROCm kernel driver (kfd) refused the GPU: read `sudo dmesg | grep -i kfd`. \"not supported in kfd\" "
                "means the GPU is not supported by ROCm at all (e.g. GCN 1/2 parts such as Pitcairn): use a supported GPU; "
                "a message about PCIe atomics means the CPU/motherboard/slot lacks PCIe atomics support that this GPU "
                "needs (use a slot wired to the CPU, enable it in firmware, or a newer GPU).", "rocm")
    if name == "ENOMEM":
        return ("The host is out of memory (RAM): lower the batch size or DataLoader workers, or add RAM/swap.", "env")
    if name == "ENOENT":
        tool = _MISSING_TOOL.search(text[-CONTEXT_TAIL:])
        if tool:
            prog = tool.group("prog") or tool.group("prog2")
            base = prog.lower().removesuffix(".exe")
            how = _TOOL_FIX.get(base, "install it and make sure it is on PATH")
            return (f"The build runs `{prog}`, which is not installed or not on PATH: {how}.", "toolchain")
    return ("Check the file or resource the failing call names.", layer)


# A program a build runs that is not on PATH: subprocess' "[Errno 2] No such file or directory: 'ninja'" names it
# bare (no folder); the build tools among them are the toolchain's.
_TOOLS = r"(?:ninja|cmake|make|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cl|cl\.exe|nvcc|hipcc|ld|link\.exe|ccache|rustc|cargo)(?:-\d{1,2})?"
# the program named bare after the code (subprocess' "[Errno 2] No such file or directory: 'ninja'"), or in
# torch.utils.cpp_extension's own check of the compiler ("Error checking compiler version for cl: [WinError 2] ..."),
# which is how Windows' "file not found" (WinError 2, in any language) names it
_MISSING_TOOL = re.compile(r"No such file or directory: '(?P<prog>" + _TOOLS + r")'|"
                           r"[Ee]rror checking compiler version for (?P<prog2>" + _TOOLS + r")(?![\w.+-])")
_TOOL_FIX = {"ninja": "`pip install ninja` (torch.utils.cpp_extension builds with it)",
             "gcc": "install a C/C++ compiler (Debian/Ubuntu: `sudo apt install build-essential`; conda: gxx_linux-64)",
             "g++": "install a C++ compiler (Debian/Ubuntu: `sudo apt install build-essential`; conda: gxx_linux-64)",
             "cc": "install a C compiler (Debian/Ubuntu: `sudo apt install build-essential`)",
             "c++": "install a C++ compiler (Debian/Ubuntu: `sudo apt install build-essential`)",
             "cmake": "`pip install cmake` (or the system's cmake package)",
             "nvcc": "install a CUDA toolkit of torch's CUDA version and set CUDA_HOME to it (its bin/ on PATH)",
             "hipcc": "install the ROCm development packages (hipcc) and set ROCM_HOME",
             "cl": "install the Microsoft C++ Build Tools (Visual Studio Build Tools, workload \"Desktop development "
                   "with C++\") and build from its Developer prompt (vcvars64.bat), which puts cl.exe on PATH",
             "rustc": "install Rust (rustup)", "cargo": "install Rust (rustup)"}


def _dll_owner(ent) -> str | None:
    """The distribution whose own folder holds the DLL a Windows loader error names (site-packages\\torch\\lib\\
    c10_cuda.dll -> torch), when the text gives its path."""
    for p in reversed(ent.paths):
        if p.get("distribution") and p["path"].lower().endswith((".dll", ".pyd")):
            return p["distribution"]
    return None


def _windows_fix(c: dict) -> str:
    v = c["value"]
    if v == 1455:
        return ("Windows' paging file is too small for the DLLs torch maps: enlarge the page file (System > Advanced > "
                "Performance > Virtual memory: let Windows manage it, or set a larger size on the drive), reboot, and "
                "lower DataLoader num_workers (each worker maps the DLLs again).")
    if v in (126, 0xC0000135, 1114, 0xC0000142):
        return ("A DLL or one of its dependencies is missing: install the latest Microsoft Visual C++ Redistributable "
                "(x64, https://aka.ms/vs/17/release/vc_redist.x64.exe); for CUDA DLLs install the matching CUDA/cuDNN "
                "or torch's CUDA build.")
    if v in (127, 0xC0000139, 0xC0000138):
        return ("A DLL of another version was loaded (its procedure is missing): another copy earlier on PATH shadows "
                "the right one; remove other CUDA/torch folders from PATH or use os.add_dll_directory.")
    if v in (193, 0xC000007B):
        return ("A 32-bit DLL or Python is mixed with 64-bit ones: use a 64-bit Python and remove 32-bit DLL folders "
                "from PATH.")
    if v == 206:
        return "Enable long paths (LongPathsEnabled in the registry / group policy) or install into a shorter path."
    if v == 0xC000001D:
        return "The CPU lacks an instruction the binary uses (AVX): install a build for this CPU."
    return "Check the file or DLL the failing call names."


def platform_without_cuda(ent, text):
    """A CUDA call on a machine whose torch can have no CUDA: macOS (use MPS or the CPU: the program's device
    choice, not the installation), or an AMD GPU with torch's CUDA build (install the ROCm build)."""
    tail = text[-CONTEXT_TAIL:]
    i = max(tail.rfind("Torch not compiled with CUDA enabled"), tail.rfind("Found no NVIDIA driver on your system"))
    if i < 0 and ent.platform.get("amd") and not ent.platform.get("macos") and \
            "rocm" not in (ent.versions.get("torch") or "") and "hip" not in (ent.versions.get("torch") or ""):
        # torch.cuda is how a ROCm build reports AMD GPUs: no GPU there, on an AMD machine, from a torch the text
        # does not show as a ROCm build, is first of all the build (a CPU or CUDA wheel); ranked below the rules
        # that read a permission or a gfx target
        unusable = None
        for unusable in _CUDA_UNUSABLE.finditer(tail):
            pass
        if unusable is None:
            return None
        sig = _sig("no-gpu-from-torch-on-amd", "torch-build",
                   "torch finds no GPU on an AMD machine: check that torch is a ROCm build", 70,
                   "On AMD GPUs torch.cuda is served by torch's ROCm builds (torch.version.hip is set, the version ends "
                   "in +rocmX.Y). A CPU wheel, or the CUDA (NVIDIA) wheel a plain `pip install torch` gives, sees no "
                   "AMD GPU; pip falls back to the CPU wheel where no ROCm wheel exists for this Python.",
                   fix="Check `python -c \"import torch; print(torch.__version__, torch.version.hip)\"`: without +rocm, "
                       "install torch's ROCm build from the PyTorch index (`pip install torch torchvision torchaudio "
                       "--index-url https://download.pytorch.org/whl/rocm6.2`, the rocmX.Y your ROCm supports, for a "
                       "Python that index has wheels for). With a ROCm build, check the user is in the `render` and "
                       "`video` groups and that the GPU's gfx target is supported.",
                   causes=(("rocm", "a ROCm torch is installed on a machine with only NVIDIA GPUs", ("TE206",)),),
                   areas=("torch",), sources=(SOURCES["torch_index"], SOURCES["hsa"]), generic=True)
        return _match(sig, text, len(text) - len(tail) + unusable.start(), {})
    if i < 0:
        return None
    at = len(text) - len(tail) + i
    if ent.platform.get("macos") and not ent.platform.get("windows"):
        sig = _sig("cuda-requested-on-macos", "not-environment",
                   "the program asks for CUDA on a Mac: macOS has no CUDA (use MPS or the CPU)", 88,
                   "torch on macOS is built without CUDA, by design: Macs have no NVIDIA GPU support. The program (or a "
                   "library default) selected the 'cuda' device; on Apple silicon the GPU is the 'mps' device.",
                   look_at="Select the device in the program: `device = 'mps' if torch.backends.mps.is_available() else "
                           "'cpu'` (replace .cuda() / device='cuda' / map_location='cuda'; many tools take a --device "
                           "option). Nothing needs to change in the installation.",
                   sources=({"url": "https://pytorch.org/docs/stable/notes/mps.html",
                             "what": "the MPS backend: torch's GPU device on macOS"},))
        return _match(sig, text, at, {})
    if ent.platform.get("amd"):
        sig = _sig("cuda-torch-on-amd-gpu", "torch-build",
                   "torch's CUDA build is installed on a machine with an AMD GPU: install the ROCm build", 87,
                   "The installed torch is a CUDA (NVIDIA) build; this machine's GPU is AMD, which torch drives through its "
                   "ROCm builds. A package's requirements (or a plain `pip install torch`) replaced the ROCm build.",
                   fix="Install torch's ROCm build from the PyTorch index: `pip install --force-reinstall torch torchvision "
                       "torchaudio --index-url https://download.pytorch.org/whl/rocm6.2` (the rocmX.Y your ROCm supports), "
                       "and keep other packages' requirements from replacing it (`pip install --no-deps` for them).",
                   causes=(("rocm", "a ROCm torch is installed on a machine with only NVIDIA GPUs", ("TE206",)),),
                   areas=("torch",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, at, {})
    return None


def allocator_nvml_assert(ent, text):
    """torch's caching allocator asserting on an NVML call: out of memory in practice, or, on a MIG GPU, an
    NVML view of another device than CUDA_VISIBLE_DEVICES selects."""
    tail = text[-CONTEXT_TAIL:]
    init = re.search(r"NVML_SUCCESS == [\w:>()-]{0,60}nvmlInit\w{0,8}\(\) INTERNAL ASSERT FAILED", tail)
    if init is not None:
        # the assert names the call: NVML cannot even start, which is the driver's state, not memory
        sig = _sig("nvml-init-failed-in-torch", "driver", "NVML cannot initialise in this process (torch's allocator "
                   "asserts on nvmlInit)", 84,
                   "torch's CUDA allocator initialises NVML and asserts when it fails: CUDA works but NVML does not start, "
                   "which happens when the driver's user-space libraries and its loaded kernel module are of different "
                   "versions (a driver update without a reboot) or NVML is not reachable (a container without the "
                   "utility capability).",
                   fix="Check `nvidia-smi`: if it fails with a driver/library version mismatch, reboot (or reload the nvidia "
                       "kernel modules) so the driver and its libraries match; in a container start it with "
                       "NVIDIA_DRIVER_CAPABILITIES including utility (or `--gpus all`).",
                   causes=(("mismatch", "the driver's kernel module and libraries differ", ("TE303",)),),
                   areas=("driver",), sources=({"url": "https://github.com/pytorch/pytorch/issues/112950",
                                                "what": "nvmlInit_v2_ INTERNAL ASSERT FAILED in CUDACachingAllocator"},))
        return _match(sig, text, len(text) - len(tail) + init.start(), {})
    i = tail.rfind("NVML_SUCCESS == r INTERNAL ASSERT FAILED")
    if i < 0:
        return None
    at = len(text) - len(tail) + i
    if _context(text, r"\bMIG\b|MIG-[0-9a-f]{8}|MIG mode"):
        sig = _sig("mig-device-not-selected", "env",
                   "torch's allocator cannot query the MIG device it was given (CUDA_VISIBLE_DEVICES)", 86,
                   "On a GPU in MIG mode each process must be given one MIG instance; the allocator asks NVML about "
                   "the device CUDA_VISIBLE_DEVICES names and fails when that names the parent GPU or another instance.",
                   fix="Set CUDA_VISIBLE_DEVICES to the MIG instance assigned to the job (its MIG-<uuid> from "
                       "`nvidia-smi -L`; under Slurm use the device it assigned), one instance per process.",
                   causes=(("cvd", "CUDA_VISIBLE_DEVICES names devices that do not exist", ("TE403",)),),
                   areas=("gpu",), sources=({"url": "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html",
                                             "what": "MIG: CUDA_VISIBLE_DEVICES selects one instance"},))
        return _match(sig, text, at, {})
    sig = _sig("allocator-nvml-assert", "not-environment",
               "torch's CUDA allocator failed an NVML query while out of memory: not an environment problem", 62,
               "The caching allocator asks NVML for memory statistics when an allocation fails; this assert surfaces a "
               "CUDA out-of-memory (a known torch behaviour, see the source).",
               look_at="Treat it as out of memory: reduce the batch size or model size, free cached tensors, check other "
                       "processes in `nvidia-smi`.",
               sources=({"url": "https://github.com/pytorch/pytorch/issues/112377",
                         "what": "NVML_SUCCESS == r INTERNAL ASSERT FAILED on out of memory"},))
    return _match(sig, text, at, {})


# torch releases whose last macOS x86_64 (Intel) wheels exist: none after 2.2.2 (torch's deprecation notice)
INTEL_MAC_LAST = "2.2.2"
_INTEL_MAC_SOURCE = {"url": "https://github.com/pytorch/pytorch/issues/114602",
                     "what": "torch deprecates macOS x86_64 builds: 2.2 is the last release with them"}
_FRAMEWORKS = ("torch", "torchvision", "torchaudio", "triton")


_TF_DISTS = ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tf-nightly")


def _tf_no_wheel(ent, text, p):
    """pip offers no TensorFlow at all: no wheel for this interpreter.  TensorFlow's tested configurations give
    each release's Python range per OS (knowledge/tensorflow.py): the newest release's range says which Pythons
    have wheels now."""
    os_name = "windows" if ent.platform.get("windows") and not ent.platform.get("wsl") else "linux"
    rows = [r for r in tf_builds.releases(os_name) if r.get("python_min") and r.get("python_max")]
    newest = rows[-1] if rows else None
    caps = {"requirement": p["requirement"], "python": ent.versions.get("python")}
    if newest:
        caps.update(tf=newest["tensorflow"], py_min=newest["python_min"], py_max=newest["python_max"], os=os_name)
    sig = _sig("tensorflow-no-wheel-for-python", "tensorflow",
               "pip finds no {requirement|TensorFlow} at all for this Python/platform", 82,
               "pip saw no TensorFlow release for this interpreter: TensorFlow publishes 64-bit wheels for a few Python "
               "versions per release" + (" (TensorFlow {tf} on {os}: Python {py_min} to {py_max})" if newest else "") +
               "; a newer or older Python, or a 32-bit one, gets none.",
               fix="Use a 64-bit Python in a supported Python version range" +
                   (" (Python {py_min} to {py_max} for TensorFlow {tf})" if newest else "") +
                   ": check `python -VV`, create an environment with that Python (`py -3.12 -m venv .venv` on Windows, "
                   "`conda create -n tf python=3.12`), then `pip install tensorflow` there; an older Python needs an "
                   "older TensorFlow.",
               causes=(), areas=("tensorflow", "platform"),
               sources=(tf_builds.build(newest["tensorflow"], os_name)["source_ref"] if newest and
                        (tf_builds.build(newest["tensorflow"], os_name) or {}).get("source_ref") else
                        {"url": "https://www.tensorflow.org/install/pip", "what": "TensorFlow's supported Pythons"},))
    return _match(sig, text, p["at"], caps)


def pip_no_matching(ent, text):
    tf = [p for p in ent.pip if p["name"] in _TF_DISTS and not p["versions"]]
    if tf and not any(p["name"] in _FRAMEWORKS and p["at"] > tf[-1]["at"] for p in ent.pip):
        return _tf_no_wheel(ent, text, tf[-1])
    rows = [p for p in ent.pip if p["name"] in _FRAMEWORKS]
    if not rows:
        return None
    p = rows[-1]
    versions = p["versions"]
    caps = {"requirement": p["requirement"], "offered": ", ".join(versions[-6:]) or None,
            "latest": versions[-1] if versions else None, "python": ent.versions.get("python")}
    if p["name"] == "triton" and (not versions or ent.platform.get("windows")):
        sig = _sig("triton-no-wheel-here", "toolchain", "pip finds no Triton for this platform (Windows has none)", 84,
                   "Triton, which torch.compile's inductor backend uses for GPU kernels, publishes Linux wheels only; "
                   "on Windows pip finds none ({requirement}).",
                   fix="On Windows install the community build (`pip install triton-windows`, the version matching torch) "
                       "or run without torch.compile (eager); on Linux use a Python and platform Triton supports.",
                   causes=(), areas=("torch",), sources=({"url": "https://github.com/woct0rdho/triton-windows",
                                                          "what": "triton-windows: Triton built for Windows"},))
        return _match(sig, text, p["at"], caps)
    if p["name"] == "triton":
        return None
    if p["name"] == "torch" and versions and versions[-1] == INTEL_MAC_LAST:
        sig = _sig("torch-intel-mac-last-release", "macos",
                   "no torch newer than 2.2.2 for this Python: an Intel (x86_64) Mac or an x86_64 Python", 88,
                   "pip offers torch up to 2.2.2 only: torch's last release with macOS x86_64 wheels. This Python runs as "
                   "x86_64 (an Intel Mac, or an x86_64 Python under Rosetta on Apple silicon), and {requirement} does not "
                   "exist for it.",
                   fix="On an Intel Mac: torch 2.2.2 is the last release (`pip install torch==2.2.2`; pin what needs a newer "
                       "one), or use conda-forge's pytorch builds; on Apple silicon: install an arm64 Python (python.org or "
                       "conda's osx-arm64) and pip install torch there.",
                   causes=(("rosetta", "an x86_64 Python runs under Rosetta on Apple silicon", ("TE105",)),),
                   areas=("platform",), sources=(_INTEL_MAC_SOURCE,))
        return _match(sig, text, p["at"], caps)
    if not versions:
        sig = _sig("torch-no-wheel-for-python", "torch-build",
                   "pip finds no {requirement|torch} at all for this Python/platform", 82,
                   "pip saw no release of {requirement|torch} for this interpreter: its Python version is newer or older "
                   "than the releases support, it is 32-bit, or the platform has no wheels (e.g. an unsupported OS/CPU).",
                   fix="Use a 64-bit Python that torch supports (check `python -VV`; torch's release notes list the "
                       "Python versions of each release, usually the last four), then `pip install torch` again; on "
                       "platforms without wheels use conda-forge.",
                   causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                   areas=("platform",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, p["at"], caps)
    sig = _sig("torch-version-not-offered", "torch-build",
               "{requirement} does not exist for this Python/platform (pip offers up to {latest})", 80,
               "pip can install only the versions it lists for this interpreter and platform ({offered}); {requirement} is "
               "not among them: the Python is too new or too old for it, or the index (CPU/CUDA) has no such build.",
               fix="Install one of the offered versions (`pip install torch=={latest}`), or use a Python version that "
                   "release supports, or the index that has the build (e.g. --index-url https://download.pytorch.org/whl/cu121).",
               causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
               areas=("platform",), sources=(SOURCES["torch_index"],))
    return _match(sig, text, p["at"], caps)


_GPU_INIT_FAILURE = re.compile(
    r"cudaGetDeviceCount|cuInit|cuda driver library init|Failed to initialize NVML|couldn't communicate with the NVIDIA "
    r"driver|no CUDA-capable device|CUDA driver version is insufficient|cudaErrorInsufficientDriver|CUDA_ERROR_NO_DEVICE|"
    r"Function \"cu[A-Za-z]{3,40}\" not found|CUDA initialization|Found no NVIDIA driver|NVIDIA driver on your system|"
    # nvidia-smi's header when libcuda cannot say which CUDA the driver supports
    r"CUDA Version: ERR!")
_WSL_SOURCE = {"url": "https://docs.nvidia.com/cuda/wsl-user-guide/index.html",
               "what": "CUDA on WSL 2: the Windows driver provides the GPU; never install a Linux driver in WSL"}


# A GPU row of nvidia-smi on Windows: "|   0  NVIDIA L40S   TCC   |": its driver model is TCC (compute only, no
# WDDM display driver) -- the model the Windows host cannot paravirtualize into WSL 2.
_SMI_TCC_ROW = re.compile(r"(?m)^\|\s{1,6}\d{1,2}\s{1,4}[^|\n]{2,60}?\s(?:TCC|MCDM)\s{1,12}\|")


_TCC_WORDS = re.compile(r"\bTCC (?:mode|driver model)\b|\bin TCC\b|driver model[^\n]{0,30}\bTCC\b")


def wsl_gpu_passthrough(ent, text):
    """A GPU that cannot be initialised in a text from WSL: the driver is the Windows host's (passed through to
    WSL 2 by /dev/dxg and /usr/lib/wsl/lib), so the fix is on Windows, not a Linux driver.  WSL 1 has no GPU."""
    # NVML's "blocked by the operating system" is the OS or cgroups keeping the process from the GPU's control
    # device (nvml.h): outside a container that is the host of a paravirtualised GPU, i.e. WSL 2 (or a GPU-PV VM)
    os_blocked = any(c["name"] == "NVML_ERROR_OPERATING_SYSTEM" for c in ent.codes) and \
        not ent.platform.get("container") and not ent.platform.get("windows")
    if not ent.platform.get("wsl") and not os_blocked:
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_GPU_INIT_FAILURE, tail)
    codes = [c for c in ent.codes if c.get("family") in ("cudaError_t", "CUresult", "nvmlReturn_t")
             and c.get("layer") == "driver"]
    tcc = _SMI_TCC_ROW.search(tail) or _TCC_WORDS.search(tail)
    if m is None and not codes and tcc is None:
        return None
    if m is not None:
        at = len(text) - len(tail) + m.start()
    else:
        at = codes[-1]["at"] if codes else len(text) - len(tail) + tcc.start()
    # a data-center GPU under the TCC driver model (nvidia-smi's Driver-Model column) is never shared with WSL
    blocked = any(c["name"] == "NVML_ERROR_OPERATING_SYSTEM" for c in ent.codes) or tcc is not None
    if ent.platform.get("wsl1"):
        sig = _sig("wsl1-has-no-gpu", "wsl", "this is WSL 1, which has no GPU: CUDA needs WSL 2", 93,
                   "The kernel is WSL 1's (4.4.0-...-Microsoft): WSL 1 translates system calls and passes no GPU through; "
                   "only WSL 2 gets the Windows driver's GPU (/dev/dxg, /usr/lib/wsl/lib).",
                   fix="Convert the distribution to WSL 2 (`wsl --set-version <distro> 2`, `wsl --set-default-version 2`), "
                       "keep the Windows NVIDIA driver current, and do not install a Linux NVIDIA driver inside it.",
                   areas=("platform", "driver"), sources=(_WSL_SOURCE,))
    elif blocked:
        sig = _sig("wsl-gpu-not-exposed", "wsl", "the Windows host does not expose the GPU to WSL (GPU access blocked)", 93,
                   "NVML_ERROR_OPERATING_SYSTEM under WSL: the guest sees no usable GPU because the Windows driver does not "
                   "paravirtualize it: data-center GPUs in TCC mode (the default on Windows Server), a driver without WSL "
                   "support, or (in a GPU-PV VM) driver files missing from /usr/lib/wsl/lib.",
                   fix="On the Windows host put the GPU in WDDM mode (`nvidia-smi -i 0 -dm 0` as administrator, reboot; "
                       "TCC cannot be shared with WSL), use a Windows NVIDIA driver that supports WSL, run `wsl --update` "
                       "and `wsl --shutdown`; a custom WSL kernel must include the GPU paravirtualisation driver "
                       "(dxgkrnl, which provides /dev/dxg): use the stock WSL kernel otherwise; in a GPU-PV VM copy the "
                       "host driver's files into /usr/lib/wsl/lib.",
                   areas=("platform", "driver"), sources=(_WSL_SOURCE,))
    else:
        sig = _sig("wsl-gpu-init-failed", "wsl", "CUDA cannot start under WSL 2: the GPU comes from the Windows driver", 91,
                   "Under WSL 2 there is no Linux kernel driver: libcuda in /usr/lib/wsl/lib talks to the Windows NVIDIA "
                   "driver through /dev/dxg. A GPU that cannot be initialised there is a Windows driver problem (too old, "
                   "or a release whose WSL support is broken), a Linux driver installed inside WSL shadowing "
                   "/usr/lib/wsl/lib, or an outdated WSL kernel.",
                   fix="Update (or roll back) the Windows NVIDIA driver, run `wsl --update` then `wsl --shutdown`; never "
                       "install a Linux NVIDIA driver inside WSL (remove nvidia-driver-*/libnvidia-* packages there), and "
                       "keep /usr/lib/wsl/lib first for libcuda (`export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH`).",
                   areas=("platform", "driver"), sources=(_WSL_SOURCE,))
    return _match(sig, text, at, {})


_TF_VERSION = re.compile(r"(?i)(?:tensor ?flow|\btf)[ \w]{0,12}?(?:version)?[\s:=#-]{0,12}v?2\.(?P<minor>\d{1,2})\.\d{1,2}|"
                         r"\bv2\.(?P<minor2>\d{1,2})\.\d{1,2}-(?:rc\d-)?\d{1,6}-g[0-9a-f]{7,12}\b|"
                         r"(?i:tensor ?flow)[^\n]{0,40}\n(?:[^\n]{0,80}\n){0,3}\s{0,8}v?2\.(?P<minor3>\d{1,2})\.\d{1,2}\b")
_TF_NO_GPU = re.compile(r"(?i)list_physical_devices|list_local_devices|Num GPUs Available:\s{0,3}0|GPU is NOT AVAILABLE|"
                        r"is_build_with_cuda|device_type='CPU'\)\]|not (?:detected|recogni[sz]ed|found|available)|"
                        r"cannot use (?:the )?GPU|no GPU|tensorflow-gpu|GPU could not be (?:recogni[sz]ed|found|detected)")


def tensorflow_windows_native(ent, text):
    """TensorFlow 2.11 or newer on native Windows without a GPU: those releases have no GPU build for native
    Windows at all (2.10 was the last); the GPU needs WSL 2 (or the DirectML plugin)."""
    if not ent.platform.get("windows") or ent.platform.get("wsl") or not _context(text, _TF_TEXT + r"|Tensor ?Flow"):
        return None
    tail = text[-CONTEXT_TAIL:]
    minors = [int(m.group("minor") or m.group("minor2") or m.group("minor3")) for m in _TF_VERSION.finditer(tail)]
    no_gpu = _TF_NO_GPU.search(tail)
    if not minors or max(minors) < 11 or no_gpu is None:
        return None
    sig = _sig("tensorflow-windows-native-no-gpu", "tensorflow",
               "TensorFlow 2.{minor} on native Windows has no GPU support (2.10 was the last)", 86,
               "From TensorFlow 2.11 the Windows packages are CPU-only: GPU support on Windows is through WSL 2 "
               "(or the TensorFlow-DirectML plugin). Installing CUDA and cuDNN on Windows does not change that.",
               fix="Run TensorFlow in WSL 2 (`pip install tensorflow[and-cuda]` inside it), or stay on native Windows with "
                   "tensorflow<2.11 (2.10 with CUDA 11.2 and cuDNN 8.1), or use the DirectML plugin.",
               areas=("tensorflow", "platform"),
               sources=({"url": "https://www.tensorflow.org/install/pip#windows-native",
                         "what": "TensorFlow 2.10 was the last release that supported GPU on native Windows"},))
    return _match(sig, text, len(text) - len(tail) + no_gpu.start(), {"minor": max(minors)})


# TensorFlow's own device listing that comes back without a GPU: an empty list, a CPU-only list, a count of 0
_TF_LISTS_NO_GPU = re.compile(r"(?i)list_physical_devices\(\s{0,2}['\"]GPU['\"]\s{0,2}\)|list_local_devices\(\)|"
                              r"Num GPUs Available:\s{0,3}0\b|is_gpu_available\(\)|gpu_device_name\(\)")


def tensorflow_sees_no_gpu(ent, text):
    """TensorFlow asked for its GPUs and the text shows none, without a more specific error: the answer is the
    build for the platform (knowledge/tensorflow.py): native Windows has no GPU build after 2.10 (WSL 2, or
    tensorflow<2.11); on Linux and WSL 2 the CUDA libraries come with `tensorflow[and-cuda]` from 2.14, and an older
    release needs the CUDA/cuDNN of its tested configuration.  Ranked below every TensorFlow error that names a
    library."""
    if not _context(text, _TF_TEXT + r"|Tensor ?Flow"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TF_LISTS_NO_GPU, tail)
    if m is None or re.search(r"device_type=.GPU.|/physical_device:GPU:\d|Num GPUs Available:\s{0,3}[1-9]", tail):
        return None
    last_win = tf_builds.windows_last_gpu_release()
    since = tf_builds.and_cuda_since()
    minors = [int(x.group("minor") or x.group("minor2") or x.group("minor3")) for x in _TF_VERSION.finditer(tail)]
    minors += [int(v.split(".")[1]) for k, v in ent.packages.items() if k in _TF_DISTS and re.match(r"2\.\d", v)]
    caps = {"last_win": last_win, "since": since, "tf": f"2.{max(minors)}" if minors else None}
    windows = ent.platform.get("windows") and not ent.platform.get("wsl")
    linux = ent.platform.get("wsl") or _context(text, r"/usr/|/home/|Ubuntu|Debian|manylinux|linux_x86_64")
    last = tf_builds.build(last_win, "windows") or {}
    caps.update(win_cuda=last.get("cuda"), win_cudnn=last.get("cudnn"))
    win_fix = ("On native Windows TensorFlow's GPU support ended at {last_win}: use WSL 2 (`pip install "
               "tensorflow[and-cuda]` inside it), or tensorflow=={last_win}.* (with CUDA {win_cuda|of its tested "
               "configuration} and cuDNN {win_cudnn|of its tested configuration}), or the DirectML plugin.")
    linux_fix = ("On Linux (and WSL 2) install the GPU build with its CUDA libraries: `pip install tensorflow[and-cuda]` "
                 "(from TensorFlow {since}); an older release needs the CUDA and cuDNN of its tested configuration on "
                 "the library path. Check `tf.sysconfig.get_build_info()` and the log lines TensorFlow prints at import "
                 "(TF_CPP_MIN_LOG_LEVEL=0).")
    fix = win_fix if windows else linux_fix if linux else (win_fix + " " + linux_fix)
    sig = _sig("tensorflow-sees-no-gpu", "tensorflow", "TensorFlow ({tf|version not shown}) lists no GPU", 62,
               "TensorFlow lists its GPUs only when its build for this platform has GPU support and finds the CUDA "
               "libraries it was built with: native Windows builds after {last_win} have none; on Linux the CUDA "
               "libraries are the `and-cuda` extra's (or a CUDA/cuDNN of the tested configuration).",
               fix=fix, areas=("tensorflow",),
               sources=({"url": "https://www.tensorflow.org/install/pip",
                         "what": "TensorFlow's GPU install: tensorflow[and-cuda]; native Windows ends at 2.10"},),
               generic=True)
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# a torch build asked for by its local version label ("torch==2.6.0+cu121", "torch-2.6.0+cu121"), and pip's failure or
# fallback around it; a torch wheel's file name for Windows or macOS without a label
_TORCH_LABELLED = re.compile(r"\btorch(?:==|-)(?P<ver>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)\+(?P<tag>cu\d{2,3}|rocm\d{1,2}\.\d{1,2})\b")
_PIP_FAILED = re.compile(r"No matching distribution found|Could not find a version that satisfies|\+cpu\b")
_TORCH_PLAIN_WHEEL = re.compile(r"(?<![\w.-])(?<!cu\d\d/)(?<!cu\d\d\d/)torch-(?P<ver>\d{1,2}\.\d{1,2}\.\d{1,2})-cp\d{2,3}-[\w]{3,8}-"
                                r"(?P<plat>win_amd64|macosx_[\w.]{3,30})\.whl")


def _cuda_tag_key(tag: str) -> tuple:
    digits = tag[2:]
    return (int(digits[:-1]), int(digits[-1])) if tag.startswith("cu") and digits.isdigit() else (0, 0)


def torch_build_variant(ent, text):
    """torch's builds per release are a table (knowledge/releases.py): a +cuXXX label the release was never built
    with cannot be installed (pip fails, and a setup script falls back to the CPU wheel), and a torch wheel for
    Windows or macOS without a +cuXXX label is the CPU build.  The fix names the builds that release has."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TORCH_LABELLED, tail)
    if m is not None and m.group("tag").startswith("cu") and _PIP_FAILED.search(tail):
        rel = torch_release(m.group("ver"))
        tags = [b["tag"] for b in (rel or {}).get("builds", []) if b.get("tag", "").startswith("cu")]
        if rel and tags and m.group("tag") not in tags:
            want = _cuda_tag_key(m.group("tag"))
            near = min(tags, key=lambda t: (abs(_cuda_tag_key(t)[0] - want[0]), -_cuda_tag_key(t)[1] if
                                            _cuda_tag_key(t)[0] == want[0] else 0))
            caps = {"ver": m.group("ver"), "tag": m.group("tag"), "tags": "/".join(tags), "near": near,
                    "index": torch_index_url(near)}
            sig = _sig("torch-build-not-published", "torch-build",
                       "torch {ver}+{tag} does not exist: torch {ver}'s CUDA builds are {tags}", 84,
                       "torch's CUDA builds are published per release for a few CUDA versions only; {tag} is not one "
                       "of torch {ver}'s ({tags}), so pip finds no such wheel (and a setup that falls back installs "
                       "the CPU build instead).",
                       fix="Install a CUDA build that exists for torch {ver}: `pip install torch=={ver} --index-url "
                           "{index}` ({near}; the others: {tags}), keeping torchvision/torchaudio of the same release "
                           "and index.", causes=(), areas=("torch",), sources=(SOURCES["torch_index"],))
            return _match(sig, text, len(text) - len(tail) + m.start(), caps)
    w = None
    for w in _TORCH_PLAIN_WHEEL.finditer(tail):
        pass
    if w is None or w.group("plat").startswith("macosx"):
        return None  # (macOS has no CUDA build at all: nothing to install instead)
    rel = torch_release(w.group("ver"))
    tags = [b["tag"] for b in (rel or {}).get("builds", []) if b.get("tag", "").startswith("cu")]
    caps = {"ver": w.group("ver"), "tags": "/".join(tags) or None,
            "index": torch_index_url(tags[-1]) if tags else None}
    sig = _sig("torch-windows-plain-wheel-is-cpu", "torch-build",
               "torch-{ver} for Windows without a +cuXXX label is the CPU build", 60,
               "On Windows the torch wheels without a local version label (PyPI's, and the plain ones of the PyTorch "
               "index) are CPU-only; the CUDA builds carry +cuXXX in their version and come from the PyTorch index.",
               fix="Install a CUDA build of torch {ver} from the PyTorch index: `pip install torch=={ver} --index-url "
                   "{index|https://download.pytorch.org/whl/cuXXX}` (its CUDA builds: {tags|see the release's "
                   "install page}); check with `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`.",
               causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=(SOURCES["torch_index"],), generic=True)
    return _match(sig, text, len(text) - len(tail) + w.start(), caps)


_INDUCTOR_FAILED = re.compile(r"BackendCompilerFailed: backend='inductor' raised:|InductorError:")


def inductor_on_native_windows(ent, text):
    """torch.compile's inductor backend failing on native Windows with an OS error of its own (access denied, a
    file not found, a DLL) and nothing more specific: inductor there needs the Windows build of Triton for its GPU
    kernels and MSVC for its C++ ones, which a plain install lacks; eager mode needs neither.  Ranked below the
    sentences that name the missing piece (no Triton, no compiler)."""
    if not ent.platform.get("windows") or ent.platform.get("wsl"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_INDUCTOR_FAILED, tail)
    if m is None:
        return None
    sig = _sig("inductor-on-native-windows", "toolchain",
               "torch.compile (inductor) failed on native Windows: its Triton and compiler toolchain", 78,
               "The inductor backend compiles generated code: GPU kernels with Triton (on Windows only the community "
               "build, triton-windows, matching torch) and CPU code with MSVC (cl.exe from the Visual Studio Build "
               "Tools); an OS error inside it on Windows is that toolchain missing or not usable, not the model.",
               fix="Install the Windows build of Triton that matches torch (`pip install -U \"triton-windows<X.Y\"`, "
                   "see its table of torch versions) and the Visual Studio Build Tools (C++ workload), then retry from "
                   "a Developer prompt; or run without torch.compile (eager): remove the compile step or set "
                   "`torch._dynamo.config.suppress_errors = True`. WSL 2 runs the Linux toolchain.",
               causes=(), areas=("torch", "platform"),
               sources=({"url": "https://github.com/woct0rdho/triton-windows",
                         "what": "triton-windows: Triton built for Windows, per torch version"},
                        {"url": "https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html",
                         "what": "torch.compile troubleshooting: falling back to eager"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


_DEVICE_NODE_DENIED = re.compile(
    r"(?P<node>/dev/(?:kfd|dri/(?:renderD|card)\d{1,3}|nvidia(?:\d{1,2}|ctl|-uvm|-caps)?))\b[^\n]{0,80}?"
    r"(?:[Pp]ermission denied|[Oo]peration not permitted|EACCES|EPERM)|"
    r"(?:[Pp]ermission denied|[Oo]peration not permitted|EACCES|EPERM)[^\n]{0,80}?"
    r"(?P<node2>/dev/(?:kfd|dri/(?:renderD|card)\d{1,3}|nvidia(?:\d{1,2}|ctl|-uvm|-caps)?))\b")


_NODE = r"/dev/(?:kfd|dri(?:/(?:renderD|card)\d{1,3})?|nvidia(?:\d{1,2}|ctl|-uvm(?:-tools)?|-modeset|-caps)?|dxg)"
_DEVICE_NODE_MISSING = re.compile(
    r"(?P<node>" + _NODE + r")\b[^\n]{0,80}?(?:No such file or directory|ENOENT|does not exist)|"
    r"(?:No such file or directory|cannot (?:open|access|stat))[^\n]{0,40}?['\"`]?(?P<node2>" + _NODE + r")\b")


def device_node_missing(ent, text):
    """The GPU's device node does not exist (not: exists but refused): inside a container it was not passed in (the
    runtime's --device / --gpus), on a host its kernel driver is not loaded (amdgpu for /dev/kfd and /dev/dri, the
    NVIDIA module for /dev/nvidia*), and /dev/dxg is WSL 2's GPU (absent in WSL 1 or in a container not given it)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DEVICE_NODE_MISSING, tail)
    if m is None:
        return None
    node = m.group("node") or m.group("node2")
    amd = node.startswith(("/dev/kfd", "/dev/dri"))
    container = bool(ent.platform.get("container")) or _context(text, r"docker|podman|container|apptainer|singularity|"
                                                                      r"kubernetes|\bk8s\b")
    at = len(text) - len(tail) + m.start()
    if container:
        how = ("`docker run --device=/dev/kfd --device=/dev/dri --group-add video ...` (Apptainer: `--rocm`, or "
               "`--bind /dev/kfd,/dev/dri`; Kubernetes: the AMD GPU device plugin)" if amd else
               "`docker run --gpus all ...` with the NVIDIA Container Toolkit on the host (Kubernetes: the NVIDIA "
               "device plugin); a bare --device=/dev/nvidia0 lacks the driver's libraries")
        sig = _sig("container-gpu-device-not-passed", "container", "{node} does not exist in the container: the GPU "
                   "was not passed in", 84,
                   "A container sees only the device nodes its runtime passes in; {node} is absent, so the GPU stack "
                   "inside cannot reach the GPU, whatever is installed in the image.",
                   fix="Start the container with the GPU's devices: " + how + ".",
                   areas=("driver",), sources=(SOURCES["container_toolkit"] if not amd else
                                                {"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                                        "how-to/docker.html",
                                                 "what": "ROCm in Docker: --device=/dev/kfd --device=/dev/dri"},))
        return _match(sig, text, at, {"node": node})
    if node == "/dev/dxg":
        sig = _sig("wsl-dxg-missing", "wsl", "/dev/dxg does not exist: no WSL 2 GPU passthrough here", 84,
                   "/dev/dxg is how WSL 2 reaches the Windows driver's GPU; it is absent under WSL 1 and in a WSL "
                   "without GPU support.",
                   fix="Use WSL 2 (`wsl --set-version <distro> 2`), run `wsl --update`, and keep the Windows NVIDIA "
                       "driver current; never install a Linux driver inside WSL.", areas=("platform",),
                   sources=(_WSL_SOURCE,))
        return _match(sig, text, at, {"node": node})
    sig = _sig("gpu-device-node-missing-rocm" if amd else "gpu-device-node-missing", "rocm" if amd else "driver",
               "{node} does not exist: the GPU's kernel driver is not loaded", 80,
               "{node} is created by the GPU's kernel driver when it loads (" +
               ("amdgpu creates /dev/kfd and /dev/dri/renderD*" if amd else "the NVIDIA module creates /dev/nvidia*") +
               "); it is absent, so the driver is not loaded (not installed for this kernel, blocked, or the GPU is "
               "not bound to it).",
               fix=("Load the AMD kernel driver: `sudo modprobe amdgpu` and read `dmesg | grep -i -e amdgpu -e kfd`; "
                    "install the amdgpu-dkms of your ROCm for this kernel and reboot." if amd else
                    "Load the NVIDIA kernel module: `sudo modprobe nvidia` (and nvidia-uvm) and read `dmesg | grep -i "
                    "nvrm`; install the driver's kernel module for the running kernel (DKMS) and reboot; check with "
                    "`nvidia-smi`."),
               causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),) if not amd else (),
               areas=("driver",), sources=(SOURCES["hsa"] if amd else
                                            {"url": "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/"
                                                    "index.html",
                                             "what": "the NVIDIA driver creates /dev/nvidia* when its module loads"},))
    return _match(sig, text, at, {"node": node})


def device_node_permission(ent, text):
    """The GPU's device node refused to this user: the owner of the node says which stack (/dev/kfd and /dev/dri are
    AMD's ROCm, /dev/nvidia* NVIDIA's driver); the fix is group membership, not a reinstall."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DEVICE_NODE_DENIED, tail)
    if m is None:
        return None
    node = m.group("node") or m.group("node2")
    rocm = node.startswith(("/dev/kfd", "/dev/dri"))
    sig = _sig("gpu-device-node-denied-rocm" if rocm else "gpu-device-node-denied", "rocm" if rocm else "driver",
               "{node} cannot be opened by this user: GPU device-node permissions", 85,
               "The GPU's device node exists but this user may not open it: " + (
                   "ROCm needs read-write access to /dev/kfd and the /dev/dri render nodes, given to the `render` and "
                   "`video` groups." if rocm else "NVIDIA's nodes are normally world-accessible; a restrictive "
                   "NVreg_DeviceFileMode or udev rule limits them to a group.") +
               " In a container the nodes must be passed in and the container user must be in the host's groups "
               "(by number).",
               fix="Add the user to the groups that own the node: `sudo usermod -aG render,video $USER`, then log out and "
                   "in (check with `ls -l " + node + "` and `id`); in a container pass --device and --group-add with the "
                   "host's group ids.",
               areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                             "install/prerequisites.html#setting-permissions-for-groups",
                                            "what": "ROCm: the render and video groups give access to /dev/kfd, /dev/dri"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"node": node})


# rocminfo and the HSA runtime report a refused /dev/kfd as HSA_STATUS_ERROR_OUT_OF_RESOURCES (it maps EACCES to it).
# What says it is a permission: the node's owner group printed beside it (`ls -l`: "root render", "root:render"),
# rocminfo's own group check naming only `video` (newer kernels give /dev/kfd to `render`), or the same command
# working as root.
_HSA_OUT_OF_RESOURCES = re.compile(r"HSA_STATUS_ERROR_OUT_OF_RESOURCES|Unable to open /dev/kfd")
_KFD_OWNER = re.compile(r"/dev/kf?d\w{0,3}\b[^\n]{0,80}?\broot[: ](?P<group>render|video)\b|"
                        r"\broot[: ](?P<group2>render|video)\b[^\n]{0,80}?/dev/kf?d\w{0,3}\b")
_ROCM_GROUP_LINE = re.compile(r"\bis (?:a )?member of (?P<group>video|render) group\b")
_ROOT_ONLY = re.compile(r"(?i)\b(?:as|with|under) (?:root|sudo)\b[^\n]{0,60}?\bworks?\b|\bworks?\b[^\n]{0,60}?\b(?:as|with|under) "
                        r"(?:root|sudo)\b|\bonly (?:as|with) (?:root|sudo)\b|\b(?:run|running|ran) as (?:a )?(?:normal|regular|"
                        r"non-root|unprivileged) user\b|/dev/kfd (?:world|group)[ -](?:readable|writable)|"
                        # "only if I use the root user", "only when run with sudo", "for any non-root user"
                        r"\bonly (?:if|when) (?:I )?(?:use|run(?: it)?(?: as| with)?) (?:the )?(?:root|sudo)\b|"
                        r"\bonly (?:with|as|under|using|via) (?:the )?(?:root|sudo)\b|\b(?:any|a|the) non[- ]?root user\b")
# the same check run twice: under sudo it finds the GPU (True, a count), as the user it does not
_SUDO_FINDS = re.compile(r"(?m)\bsudo\b[^\n]{0,300}(?:is_available|device_count|nvidia-smi)[^\n]{0,80}\n[ \t>]{0,8}"
                         r"(?:True|[1-9]\d{0,2})[ \t]{0,4}$")


def rocm_kfd_permission(ent, text):
    """The HSA runtime cannot open /dev/kfd (HSA_STATUS_ERROR_OUT_OF_RESOURCES, rocminfo's "Unable to open /dev/kfd")
    and the text shows it is the node's group: ROCm needs the `render` group (and `video`), not a reinstall."""
    tail = text[-CONTEXT_TAIL:]
    err = None
    for err in _HSA_OUT_OF_RESOURCES.finditer(tail):
        pass
    if err is None:
        return None
    groups = {g.group("group") for g in _ROCM_GROUP_LINE.finditer(tail)}
    owner = _KFD_OWNER.search(tail)
    evidence = owner is not None or _ROOT_ONLY.search(tail) is not None or groups == {"video"}
    if not evidence:
        return None
    sig = _sig("rocm-kfd-permission", "rocm", "the HSA runtime cannot open /dev/kfd: this user lacks its group", 86,
               "The ROCm runtime reports a /dev/kfd it may not open as HSA_STATUS_ERROR_OUT_OF_RESOURCES. On current "
               "kernels /dev/kfd belongs to the `render` group (older ones: `video`); rocminfo only checks `video`, and "
               "a command that works as root but not as the user is the node's permission, not the installation.",
               fix="Add the user to both groups that own the nodes: `sudo usermod -aG render,video $USER`, then log out "
                   "and in (or reboot); check with `ls -l /dev/kfd /dev/dri/renderD*` and `id`.",
               areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                             "install/prerequisites.html#setting-permissions-for-groups",
                                            "what": "ROCm: the render and video groups give access to /dev/kfd, /dev/dri"},))
    return _match(sig, text, len(text) - len(tail) + err.start(), {})


# nvidia-container-cli names the stage that failed ("<stage> error: <detail>"); the detail's object says whose
# state it is: a file the runtime mounts from the host already in the image, the host driver's /proc entries
# (stale after a driver update without reboot), or the driver and its libraries of different versions.
_CONTAINER_CLI = re.compile(r"nvidia-container-cli: (?P<stage>[a-z]{3,20}) error: (?P<detail>[^\n]{0,600})")
_CLI_FILE_EXISTS = re.compile(r"file creation failed: \S{1,400}?(?P<file>/(?:usr/)?(?:s?bin|lib\w{0,20})/[^\s:]{1,200}|"
                              r"/run/nvidia[^\s:]{0,200}): file exists")
_CLI_PROC_DRIVER = re.compile(r"(?:mount|stat) (?:operation )?failed: \S{0,400}?/proc/driver/nvidia")
_CLI_MISMATCH = re.compile(r"driver/library version mismatch")
_CLI_NOT_LOADED = re.compile(r"nvml error: driver not loaded|driver not loaded")
_RUNTIME_EXE_MISSING = re.compile(r"(?:exec: \\{0,3}\"?|fork/exec \S{0,200}/)(?P<exe>nvidia-container-runtime(?:-hook)?)"
                                  r"\\{0,3}\"?: (?:executable file not found|no such file or directory)")


def container_cli(ent, text):
    """The NVIDIA container toolkit's own failures, read by the stage it names and the object of its detail."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CONTAINER_CLI, tail)
    src = ({"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/troubleshooting.html",
            "what": "NVIDIA Container Toolkit troubleshooting"},)
    if m is None and "nvidia-container-cli" in tail:
        # the tool named, its stage line broken by the paste (a wrapped terminal, escaped JSON): the object of the
        # failure still says what it is
        f = _CLI_FILE_EXISTS.search(tail)
        if f is not None:
            m = f
    if m is None:
        exe = _RUNTIME_EXE_MISSING.search(tail)
        if exe is None:
            return None
        sig = _sig("container-runtime-executable-missing", "container",
                   "docker is configured for the NVIDIA runtime but {exe} is not installed", 88,
                   "The engine's configuration (daemon.json, --runtime=nvidia) names the NVIDIA runtime, but its "
                   "executable {exe} is not on the host: the NVIDIA Container Toolkit is missing or half removed.",
                   fix="Install the NVIDIA Container Toolkit (package nvidia-container-toolkit), register it with "
                       "`sudo nvidia-ctk runtime configure --runtime=docker` and restart docker; or run with `--gpus all` "
                       "once the toolkit is installed.", areas=("driver",), sources=src)
        return _match(sig, text, len(text) - len(tail) + exe.start(), {"exe": exe.group("exe")})
    detail = m.group("detail") if "detail" in m.re.groupindex else m.group(0)
    at = len(text) - len(tail) + m.start()
    f = _CLI_FILE_EXISTS.search(detail)
    if f is not None:
        sig = _sig("container-image-has-driver-files", "container",
                   "the image already contains {file}, which the NVIDIA runtime mounts from the host", 89,
                   "The NVIDIA container runtime mounts the host driver's programs and libraries (nvidia-smi, "
                   "libnvidia-*, libcuda) into the container; an image that ships its own copy of one makes the mount "
                   "fail with 'file exists'. Driver files do not belong in an image: they must match the host's driver.",
                   fix="Rebuild the image without NVIDIA driver files (remove the driver packages / {file} from the "
                       "image: use an nvidia/cuda base image, which has none), so the runtime mounts the host's driver.",
                   areas=("driver",), sources=src)
        return _match(sig, text, at, {"file": f.group("file")})
    if _CLI_MISMATCH.search(detail) or _CLI_PROC_DRIVER.search(detail):
        sig = _sig("container-host-driver-stale", "driver",
                   "the host's NVIDIA driver state is stale: the container runtime cannot read it", 88,
                   "The container toolkit reads the host's loaded driver (/proc/driver/nvidia, NVML); after a driver "
                   "update without a reboot the loaded kernel module and the installed libraries differ, so its "
                   "entries are missing or mismatched.",
                   fix="Reboot the host (or unload and reload the nvidia kernel modules: `sudo rmmod nvidia_uvm "
                       "nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`), then check `nvidia-smi` on the host.",
                   areas=("driver",), sources=src)
        return _match(sig, text, at, {})
    if _CLI_NOT_LOADED.search(detail):
        sig = _sig("container-host-driver-not-loaded", "driver",
                   "the container toolkit finds no NVIDIA driver loaded on the host", 88,
                   "nvidia-container-cli asks the host's NVML for the GPUs; 'driver not loaded' means the host has no "
                   "NVIDIA kernel module loaded.",
                   fix="Install the NVIDIA driver on the host (or load it: `sudo modprobe nvidia`; rebuild it with dkms "
                       "after a kernel update), reboot, and check `nvidia-smi` on the host first.",
                   areas=("driver",), sources=src)
        return _match(sig, text, at, {})
    return None


_ROCBLAS_TENSILE = re.compile(r"(?:rocBLAS error|[Cc]annot read)[^\n]{0,400}TensileLibrary")
_GFX = re.compile(r"\bgfx[0-9a-f]{3,4}\b")
_HIP_SDK_DIR = re.compile(r"(?i)\\AMD\\ROCm\\(?P<ver>\d{1,2}\.\d{1,2})\\")


def rocblas_on_windows(ent, text):
    """rocBLAS without Tensile kernels for the GPU under Windows' HIP SDK: HSA_OVERRIDE_GFX_VERSION is a Linux ROCm
    runtime variable, so the answer is a HIP SDK (or rocBLAS libraries built for that SDK) that has the gfx target."""
    if not ent.platform.get("windows"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ROCBLAS_TENSILE, tail)
    if m is None:
        return None
    sdk = _HIP_SDK_DIR.search(tail)
    gfx = _GFX.search(_line(tail, m.start(), tail.find("\n", m.start()) if "\n" in tail[m.start():] else len(tail)))
    sig = _sig("rocblas-no-kernels-for-gfx-windows", "rocm",
               "the HIP SDK's rocBLAS has no kernels for {gfx|this GPU} on Windows", 86,
               "rocBLAS reads its Tensile kernels from rocblas/library in the HIP SDK {sdk|} folder; the SDK ships them only "
               "for the GPUs it supports, and on Windows there is no HSA_OVERRIDE_GFX_VERSION to borrow a neighbour's.",
               fix="Install a HIP SDK release that supports {gfx|the GPU's gfx target}, or rocBLAS/Tensile libraries built "
                   "for that gfx and for exactly the installed HIP SDK version {sdk|} (community builds, e.g. ROCmLibs, are "
                   "per SDK version), copied into the SDK's bin and bin\\rocblas\\library.",
               areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/"
                                             "reference/system-requirements.html",
                                            "what": "the GPUs each HIP SDK for Windows release supports"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"gfx": gfx.group(0) if gfx else None, "sdk": sdk.group("ver") if sdk else None})


def zluda_dll_dependency(ent, text):
    """A DLL of torch that cannot load under ZLUDA: its CUDA DLL names are ZLUDA's, which load the HIP SDK's runtime;
    without the SDK's bin folder on PATH the dependency is missing, whatever the Visual C++ runtime."""
    if not ent.platform.get("zluda"):
        return None
    codes = [c for c in ent.codes if c.get("family") == "windows" and c.get("value") in (126, 0xC0000135)]
    if not codes:
        return None
    sig = _sig("zluda-hip-sdk-not-on-path", "windows-runtime",
               "a torch DLL cannot find its dependencies under ZLUDA: the HIP SDK's runtime is not on PATH", 80,
               "Under ZLUDA, torch's CUDA DLLs are served by ZLUDA's replacements, which load AMD's HIP runtime from "
               "the HIP SDK for Windows; WinError 126 on an existing DLL means one of those dependencies is not found.",
               fix="Install the HIP SDK (ROCm for Windows) version the ZLUDA build expects and put its bin folder on the "
                   "system PATH (e.g. `C:\\Program Files\\AMD\\ROCm\\5.7\\bin`, also HIP_PATH), then open a new "
                   "console; check that `hipInfo.exe` runs from it.",
               areas=("platform",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/",
                                              "what": "the HIP SDK for Windows and its bin folder"},))
    return _match(sig, text, codes[-1]["at"], {})


_RESOLVER_NO_TORCH = re.compile(r"No matching distribution found for torch\b|Unable to find installation candidates for "
                                r"torch\b|Could not find a version that satisfies the requirement torch\b|"
                                # uv: "torch>=2.4.0 has no wheels with a matching platform tag"
                                r"\btorch\b[^\n]{0,60} has no (?:usable )?wheels? with a matching (?:platform|Python ABI) tag")
# the Mac the resolver ran for is an arm64 one (Apple silicon): torch publishes arm64 macOS wheels on PyPI only
_MAC_ARM64 = re.compile(r"macosx_[0-9_.]{0,12}\.{0,3}_?arm64|macosx_\.\.\._arm64|\barm64\b|Apple [Ss]ilicon|\bM[1-4]\b")


def torch_not_offered_on_mac(ent, text):
    """A resolver that finds no torch on a Mac, without the list of versions pip_no_matching reads: the Intel Mac
    (x86_64) releases ended at 2.2.2, so a newer pin has no wheel there."""
    if not ent.platform.get("macos") or ent.platform.get("windows") or ent.pip:
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_RESOLVER_NO_TORCH, tail)
    if m is None:
        return None
    if _MAC_ARM64.search(tail) and not ent.platform.get("intel_mac"):
        sig = _sig("torch-index-without-macos-wheels", "macos",
                   "the resolver finds no torch for an arm64 Mac: the index it uses has no macOS wheels", 85,
                   "torch publishes its macOS (arm64) wheels on PyPI only; the download.pytorch.org indexes for CUDA "
                   "(cuXXX) and ROCm have none for macOS, and a Mac has no CUDA. A project or command that pins such an "
                   "index for torch leaves the resolver nothing to install on a Mac.",
                   fix="Install torch from PyPI's default index on macOS (no --index-url / no CUDA index for torch there: in "
                       "uv, limit the CUDA index to Linux/Windows with a marker, e.g. `sys_platform != 'darwin'`); the Mac's "
                       "GPU is used through the 'mps' device.",
                   areas=("platform",), sources=({"url": "https://docs.astral.sh/uv/guides/integration/pytorch/",
                                                  "what": "uv: PyTorch indexes per platform with markers"},
                                                 SOURCES["torch_index"]))
        return _match(sig, text, len(text) - len(tail) + m.start(), {})
    sig = _sig("torch-intel-mac-last-release", "macos",
               "no torch for this Mac's Python: an Intel (x86_64) Mac or an x86_64 Python gets nothing newer than 2.2.2", 84,
               "torch's last release with macOS x86_64 wheels is 2.2.2; on an Intel Mac (or an x86_64 Python under "
               "Rosetta on Apple silicon) the resolver finds no newer torch, and none at all for Pythons 2.2.2 did not "
               "support (3.13 and newer).",
               fix="On an Intel Mac: torch 2.2.2 is the last release (`pip install torch==2.2.2` with Python <= 3.12; pin "
                   "what needs a newer one), or use conda-forge's pytorch builds; on Apple silicon: use an arm64 Python "
                   "(python.org or conda's osx-arm64).",
               causes=(("rosetta", "an x86_64 Python runs under Rosetta on Apple silicon", ("TE105",)),),
               areas=("platform",), sources=(_INTEL_MAC_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


def torch_too_new_for_intel_mac(ent, text):
    """An Intel (x86_64) Mac with a torch newer than 2.2.2 asked for: no such wheel exists for it (a version table:
    torch's macOS x86_64 builds ended with 2.2.2), whatever the tool says."""
    if not ent.platform.get("intel_mac"):
        return None
    wanted = [v for v in (ent.packages.get("torch"), ent.versions.get("torch")) if v]
    newer = [v for v in wanted if _version_key(v) > _version_key(INTEL_MAC_LAST)]
    if not newer:
        return None
    tail = text[-CONTEXT_TAIL:]
    at = len(text) - len(tail) + max(0, tail.rfind(newer[0]))
    sig = _sig("torch-intel-mac-last-release", "macos",
               "torch {wanted} does not exist for an Intel (x86_64) Mac: 2.2.2 is the last release there", 60,
               "torch's last release with macOS x86_64 wheels is 2.2.2; torch {wanted} has none for an Intel Mac (or an "
               "x86_64 Python under Rosetta on Apple silicon).",
               fix="On an Intel Mac: torch 2.2.2 is the last release (`pip install torch==2.2.2` with Python <= 3.12; pin "
                   "what needs a newer one), or use conda-forge's pytorch builds; on Apple silicon: use an arm64 Python "
                   "(python.org or conda's osx-arm64).",
               causes=(("rosetta", "an x86_64 Python runs under Rosetta on Apple silicon", ("TE105",)),),
               areas=("platform",), sources=(_INTEL_MAC_SOURCE,))
    return _match(sig, text, at, {"wanted": newer[0]})


def _version_key(v: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d{1,4}", v)[:3])


# Docker Desktop runs Linux containers in a VM whose kernel is named "-linuxkit": on a Mac, a Linux container
# sees no Apple GPU (MPS is macOS's Metal, not passed through)
_LINUXKIT = re.compile(r"\d\.\d{1,2}\.\d{1,3}-linuxkit\b")
_MPS_ASKED = re.compile(r"\bmps\b|\bMPS\b")


def mps_inside_linux_container(ent, text):
    tail = text[-CONTEXT_TAIL:]
    k = _LINUXKIT.search(tail)
    if k is None or _MPS_ASKED.search(tail) is None:
        return None
    sig = _sig("mps-in-linux-container", "macos", "MPS (the Mac's GPU) is not available inside a Linux container", 84,
               "The kernel is Docker Desktop's Linux VM (linuxkit): the process runs Linux, not macOS. MPS is torch's "
               "backend for Metal, which only macOS has; Docker Desktop passes no Apple GPU into its Linux VM.",
               fix="Run the program natively on macOS (an arm64 Python with `pip install torch`, device 'mps'); inside the "
                   "Linux container only the CPU is available.",
               areas=("platform",), sources=({"url": "https://pytorch.org/docs/stable/notes/mps.html",
                                              "what": "MPS: torch's GPU backend on macOS (Metal)"},))
    return _match(sig, text, len(text) - len(tail) + k.start(), {})


# A package's CUDA part failing, in the words of each stage: its build finds no CUDA toolkit, its loader finds a
# binary of another format (dyld: "not a mach-o file") or a build without GPU support (bitsandbytes' CUDA SETUP)
_CUDA_PART_FAILS = re.compile(r"CUDA_HOME environment variable is not set|CUDA was not found on the system|"
                              r"[Nn]o CUDA runtime is found|nvcc[^\n]{0,40}(?:not found|No such file)|not a mach-o file|"
                              r"compiled without GPU support|CUDA SETUP: [^\n]{0,80}(?:not found|failed|Defaulting to "
                              r"libbitsandbytes_cpu)")
_COLLECTING = re.compile(r"(?m)^\s{0,8}Collecting (?P<pkg>[A-Za-z][A-Za-z0-9_.-]{0,60}?)(?:[=<>~!\[ ]|$)")


def cuda_package_on_mac(ent, text):
    """A package's CUDA part failing (its build, its binary) in a text from a Mac: macOS has no CUDA, so no build of
    that package's CUDA part can exist there; the answer is to run without it (or its macOS alternative), not a
    CUDA toolkit or a reinstall.  The package is the one whose binary failed, else the one being collected/built."""
    if not ent.platform.get("macos") or ent.platform.get("windows") or ent.platform.get("wsl"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDA_PART_FAILS, tail)
    if m is None or _LINUXKIT.search(tail):
        return None
    pkg = None
    for b in _PKG_BINARY_DIR.finditer(tail):
        if b.group("pkg") not in ("lib", "lib64", "torch", "site-packages"):
            pkg = b.group("pkg")
    if pkg is None:
        for c in _COLLECTING.finditer(tail):
            pkg = c.group("pkg")
    if pkg is None:
        pkg = next((b.get("package") for b in reversed(ent.builds) if b.get("package")), None)
    if pkg is None or pkg.lower() in _NOT_THE_PACKAGE:
        return None
    pkg = pkg.lower().replace("_", "-")
    sig = _sig("cuda-package-on-macos", "macos", "{package} needs CUDA, which macOS does not have", 88,
               "{package}'s compiled part is CUDA code (NVIDIA GPUs). macOS has no CUDA: Apple silicon's GPU is "
               "Metal, torch's 'mps' device; so {package} has no working macOS build, whatever CUDA setting or "
               "toolkit is tried.",
               fix="Run without {package} on macOS: leave it out of the requirements (a project's Apple-silicon "
                   "requirements file, if it has one), and turn off the option that needs it (8-bit / 4-bit loading, "
                   "a CUDA attention kernel); use the mps or cpu device. No CUDA toolkit can be installed on macOS.",
               causes=(("macos", "macOS has no CUDA; use the MPS backend on Apple silicon", ("TE102",)),),
               areas=("platform",), sources=({"url": "https://pytorch.org/docs/stable/notes/mps.html",
                                              "what": "MPS: torch's GPU backend on macOS (Metal); no CUDA on macOS"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"package": pkg})


_PKG_BINARY_DIR = re.compile(r"[/\\](?P<pkg>[A-Za-z_][A-Za-z0-9_]{1,60})[/\\](?P<file>lib[A-Za-z0-9_.+-]{1,80}\.(?:so|dll|dylib))\b")


def package_binary_missing(ent, text):
    """A package's own native library, inside its folder and named for the package (bitsandbytes/libbitsandbytes_
    cuda124.so), cannot be found: that package's release has no binary for this CUDA/platform, or it was built
    without it; the fix is that package's build, not a CUDA library."""
    missing = [x for x in ent.libraries if x.get("missing") and not x.get("provider")]
    if not missing:
        return None
    tail = text[-CONTEXT_TAIL:]
    for x in reversed(missing):
        for m in _PKG_BINARY_DIR.finditer(tail):
            pkg, f = m.group("pkg"), m.group("file")
            if f != x["file"] or pkg.lower() in ("lib", "lib64", "bin", "site-packages", "dist-packages", "build"):
                continue
            if not f.lower().startswith("lib" + pkg.lower()[:6]):
                continue
            caps = {"package": pkg.replace("_", "-"), "lib": f}
            sig = _sig("package-binary-missing", "toolchain", "{package} has no native library {lib} here", 75,
                       "{lib} is {package}'s own compiled library, looked for in its package folder and not there: the "
                       "installed {package} has no binary for this CUDA version or platform (or was installed from "
                       "source without compiling it).",
                       fix="Install a {package} release that ships a binary for your CUDA and platform (`pip install -U "
                           "{package}`, checking its install notes for the CUDA versions it supports), or build it from "
                           "source for the CUDA you have; an override of which binary it loads (an environment variable "
                           "naming the CUDA version) must name one that exists.",
                       areas=("libraries",), sources=(SOURCES["ld"],))
            return _match(sig, text, len(text) - len(tail) + m.start(), caps)
    return None


# A Windows prompt whose folder is an embedded (portable) Python -- ComfyUI's python_embeded,
# python-3.11.7-embed-amd64 -- running a bare `pip`: that pip is the first one on PATH, and where it reports the
# packages to be ("Requirement already satisfied: ... in C:\...\site-packages") says which Python it serves.
_EMBED_PROMPT = re.compile(r"(?im)^(?P<cwd>[A-Z]:\\[^>\n]{0,260}?(?P<dir>python[\w.-]{0,30}?embed[\w-]{0,12}))>\s{0,4}"
                           r"pip3?(?:\.exe)?\s{1,4}install\b")
_PIP_SITE = re.compile(r"(?i)\b(?:Requirement already satisfied|already installed)[^\n]{0,300}? in "
                       r"(?P<site>[A-Z]:\\[^\s()]{1,260}?site-packages)")


def pip_of_another_python(ent, text):
    """`pip install` typed in an embedded Python's folder that installs into another Python's site-packages: the
    portable app's own interpreter never gets the package; `python.exe -m pip` of that folder does."""
    tail = text[-CONTEXT_TAIL:]
    prompt = None
    for prompt in _EMBED_PROMPT.finditer(tail):
        pass
    if prompt is None:
        return None
    site = _PIP_SITE.search(tail, prompt.end())
    if site is None or site.group("site").lower().startswith(prompt.group("cwd").lower()):
        return None
    sig = _sig("pip-of-another-python", "toolchain",
               "`pip` here installs into another Python ({site}), not the embedded one in {cwd}", 88,
               "The prompt is in a portable app's embedded Python folder, but the bare `pip` found first on PATH belongs "
               "to another Python: it reports the package in {site}. The embedded interpreter the app runs never sees "
               "what that pip installs, so the app still misses it.",
               fix="Install with the embedded interpreter itself: `.\\python.exe -m pip install <package>` run in {cwd} "
                   "(the embedded Python's own python -m pip), and check with `.\\python.exe -m pip show <package>`.",
               areas=("python",), sources=({"url": "https://docs.python.org/3/installing/index.html#work-with-multiple-"
                                                   "versions-of-python-installed-in-parallel",
                                            "what": "python -m pip installs into the interpreter that runs it"},))
    return _match(sig, text, len(text) - len(tail) + prompt.start(),
                  {"cwd": prompt.group("cwd"), "site": site.group("site")})


# A GPU the process cannot reach at all: no device, no kernel driver answering, NVML refusing to start.
_NO_GPU_HERE = re.compile(r"no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|couldn't communicate with the NVIDIA "
                          r"driver|/proc/driver/nvidia/version does not exist|kernel driver does not appear to be running|"
                          r"Failed to initialize NVML: Unknown Error|Found no NVIDIA driver on your system")
# the runtime did pass the GPU in: a --gpus flag, the NVIDIA runtime, nvidia-docker
_GPU_PASSED = re.compile(r"--gpus[ =]|--runtime[ =]nvidia|nvidia-docker|NVIDIA_VISIBLE_DEVICES|--device[ =]nvidia\.com/gpu")
_CGROUP_RELOAD = re.compile(r"daemon-reload|systemctl (?:restart|reload)|cgroup")


def container_without_gpu(ent, text):
    """A GPU that cannot be reached in a text from a container: the container runtime decides what the container
    sees (the host's driver and device nodes are mounted in when it starts with the GPU), so the answer is the
    runtime's, not a driver to install inside.  When the GPU was passed and is lost later (NVML "Unknown Error"
    after systemd reloaded its units), the container lost its device permissions."""
    if not ent.platform.get("container") and not _context(text, r"\(container\)|inside (?:the|a|my) container"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NO_GPU_HERE, tail)
    if m is None:
        return None
    at = len(text) - len(tail) + m.start()
    # NVML's "Unknown Error" needs nvidia-smi and libnvidia-ml inside the container, which only the NVIDIA runtime
    # mounts when the container starts with a GPU: the GPU was passed in and its device nodes were lost afterwards
    lost = _CGROUP_RELOAD.search(tail) is not None or "Unknown Error" in m.group(0)
    if lost:
        sig = _sig("container-lost-gpu-devices", "container",
                   "the running container lost access to its GPU (its device permissions were reset)", 86,
                   "The container was started with the GPU, then lost it: when systemd reloads its units (systemctl "
                   "daemon-reload, a package upgrade), it rewrites the container's cgroup device rules and drops the "
                   "NVIDIA device nodes the runtime had allowed; NVML then fails with \"Unknown Error\".",
                   fix="Recreate (restart) the container to get the GPU back; to keep it across reloads, create the "
                       "/dev/char symlinks on the host (`sudo nvidia-ctk system create-dev-char-symlinks --create-all`, "
                       "and its udev rule) or run with the cgroupfs driver, as the NVIDIA Container Toolkit's "
                       "troubleshooting page says.",
                   areas=("driver",), sources=({"url": "https://github.com/NVIDIA/nvidia-container-toolkit/issues/48",
                                                 "what": "containers lose GPU access after systemctl daemon-reload"},))
        return _match(sig, text, at, {})
    sig = _sig("container-started-without-gpu", "container", "the container has no GPU: it was started without one", 85,
               "Inside a container the NVIDIA driver is the host's: the NVIDIA Container Toolkit mounts its libraries and "
               "device nodes when the container starts with a GPU. Started without one, the container sees no driver "
               "and no device, whatever is installed in the image.",
               fix="Start the container with the GPU: `docker run --gpus all ...` (Compose: `deploy.resources."
                   "reservations.devices` with capabilities [gpu]; Kubernetes: the nvidia.com/gpu resource), after "
                   "installing the NVIDIA Container Toolkit on the host (nvidia-container-toolkit, then `sudo nvidia-ctk "
                   "runtime configure --runtime=docker` and restart docker). Never install a driver inside the image.",
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),),
               areas=("driver",), sources=(SOURCES["container_toolkit"],))
    return _match(sig, text, at, {})


# NCCL's socket layer: the bootstrap and the socket transport name the call that failed.
# (a peer that died makes the others print socketProgress / "Connection reset" too: those are not read here)
_NCCL_SOCKET = re.compile(r"NCCL WARN (?:socketStartConnect|[Ss]ocket creation failed|[Cc]onnect to \S{1,80} failed|"
                          r"Bootstrap : no socket interface found|NET/Socket : no interface found)|[Ss]ocket creation "
                          r"failed : Address family not supported|no socket interface found")
# also a failure on a file NCCL owns by its name (/dev/shm/nccl-XXXXXX: its segments), whatever prefix the log gives
_NCCL_SHM = re.compile(r"NCCL WARN[^\n]{0,200}(?:/dev/shm|shared memory segment)|transport/shm\.cc[^\n]{0,200}(?:failed|-> ?2)|"
                       r"(?i:error|fail|unable|cannot|could not)[^\n]{0,120}/dev/shm/nccl-\w")


# NCCL's INFO line naming the interfaces it bootstraps over ("Bootstrap : Using [0]ens5:172.31.0.137<0>
# [1]veth75fa783:fe80::...<0>"); a virtual one among them (a container's veth, docker's bridge, libvirt's, CNI's,
# the loopback) is an address the other ranks cannot reach
_NCCL_IFACES = re.compile(r"NCCL INFO (?:Bootstrap|NET/Socket) ?: Using (?P<list>(?:\[\d{1,2}\][^\s<]{1,80}<\d>\s{0,3}){2,8})")
_VIRTUAL_IFACE = re.compile(r"^(?:veth|docker|br-|virbr|cni|flannel|cali|vxlan|lo$|lo:|tun|tap|zt)")
_UNREACHABLE = re.compile(r"(?i)Network is unreachable|Connection refused|No route to host|ECONNREFUSED|ENETUNREACH|"
                          r"Connection timed out")


def nccl_transport(ent, text):
    """NCCL's own WARN line names the transport that failed: its sockets (the bootstrap network: an interface
    every rank reaches, NCCL_SOCKET_IFNAME; between containers, the host network) or its shared memory (/dev/shm,
    which containers get 64 MB of)."""
    tail = text[-CONTEXT_TAIL:]
    shm = sock = None
    for shm in _NCCL_SHM.finditer(tail):
        pass
    for sock in _NCCL_SOCKET.finditer(tail):
        pass
    if shm is None and sock is None:
        ifaces = None
        for ifaces in _NCCL_IFACES.finditer(tail):
            pass
        if ifaces is None or not _UNREACHABLE.search(tail):
            return None
        names = [n.split(":", 1)[0] for n in re.findall(r"\[\d{1,2}\]([^\s<]{1,80})<", ifaces.group("list"))]
        real = [n for n in names if not _VIRTUAL_IFACE.match(n)]
        if not real or len(real) == len(names):
            return None
        sig = _sig("nccl-virtual-interface", "distributed",
                   "NCCL bootstraps over a virtual interface ({virtual}) the other ranks cannot reach", 83,
                   "NCCL uses every interface it finds unless told otherwise; here it listed {virtual}, a virtual "
                   "interface (a container's veth, a bridge, the loopback) whose address the other nodes cannot "
                   "reach, beside {real}.",
                   fix="Pin NCCL to the interface the nodes share: `export NCCL_SOCKET_IFNAME={real}` (or exclude the "
                       "virtual ones: NCCL_SOCKET_IFNAME=^docker,veth,lo), on every rank; GLOO_SOCKET_IFNAME too for "
                       "gloo.",
                   areas=("platform",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                          "env.html#nccl-socket-ifname",
                                                   "what": "NCCL_SOCKET_IFNAME: the interfaces NCCL uses"},))
        return _match(sig, text, len(text) - len(tail) + ifaces.start(),
                      {"real": real[0], "virtual": ", ".join(n for n in names if n not in real)})
    if shm is not None and re.search(r"shm_open failed : (?:Permission denied|Operation not permitted)|/dev/shm[^\n]{0,80}"
                                     r"(?:Permission denied|Read-only file system)", tail):
        sig = _sig("nccl-shared-memory-not-writable", "distributed", "NCCL may not create files in /dev/shm", 84,
                   "NCCL's SHM transport creates its segments with shm_open in /dev/shm; the call was refused: /dev/shm "
                   "is not writable by this user (its mode is not 1777) or is mounted read-only.",
                   fix="Make /dev/shm writable for everyone (`ls -ld /dev/shm` must show drwxrwxrwt; `sudo chmod 1777 "
                       "/dev/shm`, or remount it), or set NCCL_SHM_DISABLE=1 to avoid the SHM transport.",
                   areas=("platform",), sources=(SOURCES["shm"],))
        return _match(sig, text, len(text) - len(tail) + shm.start(), {})
    if shm is not None:
        sig = _sig("nccl-shared-memory-too-small", "container",
                   "NCCL could not create its shared-memory segment in /dev/shm", 84,
                   "NCCL's SHM transport between processes on one machine allocates segments in /dev/shm; a container "
                   "gets 64 MB of it by default, too little for NCCL's buffers.",
                   fix="Give the container more shared memory: `docker run --shm-size=16g ...` or `--ipc=host` "
                       "(Kubernetes: an emptyDir with medium Memory at /dev/shm); check `df -h /dev/shm`. NCCL_SHM_DISABLE=1 "
                       "avoids it at a speed cost.",
                   areas=("platform",), sources=(SOURCES["shm"],))
        return _match(sig, text, len(text) - len(tail) + shm.start(), {})
    at = len(text) - len(tail) + sock.start()
    if ent.platform.get("container"):
        sig = _sig("nccl-container-network", "container",
                   "NCCL's sockets fail between containers: the ranks do not share a network", 83,
                   "NCCL bootstraps over TCP sockets on an interface it picks; inside containers on Docker's bridge "
                   "network each container has its own private address and interfaces, so ranks cannot reach each other "
                   "(or NCCL picks an interface the others do not see).",
                   fix="Run the containers with the host's network: `docker run --network=host --ipc=host ...` "
                       "(Kubernetes: hostNetwork: true), or set NCCL_SOCKET_IFNAME to an interface every rank reaches "
                       "(e.g. NCCL_SOCKET_IFNAME=eth0); rerun with NCCL_DEBUG=INFO to see the interface chosen.",
                   areas=("platform",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                         "env.html#nccl-socket-ifname",
                                                  "what": "NCCL_SOCKET_IFNAME: the interfaces NCCL uses"},))
        return _match(sig, text, at, {})
    sig = _sig("nccl-socket-interface", "distributed", "NCCL cannot open or connect its sockets on the chosen interface",
               82, "NCCL bootstraps over TCP sockets on an interface it picks; the socket could not be created (the "
               "address family, e.g. IPv6, is not available there) or the connection to another rank failed.",
               fix="Set NCCL_SOCKET_IFNAME to an IP interface every rank reaches (`ip addr`; e.g. NCCL_SOCKET_IFNAME=eth0, "
                   "or ^lo,docker to exclude), NCCL_SOCKET_FAMILY=AF_INET to force IPv4, and open the ports between the "
                   "nodes; rerun with NCCL_DEBUG=INFO.",
               areas=("platform",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                     "env.html#nccl-socket-ifname",
                                              "what": "NCCL_SOCKET_IFNAME / NCCL_SOCKET_FAMILY"},))
    return _match(sig, text, at, {})


# A driver suspended with the machine: CUDA stops working after a resume until nvidia_uvm is reloaded.
# the machine's own sleep: resumed/woken from suspend, sleep or hibernation, "suspend my laptop", suspend/resume
_SUSPEND = re.compile(r"(?i)\b(?:(?:resum\w{0,3}|wak\w{0,4}(?: up)?|back|coming back)(?: \w{1,12}){0,3} from (?:a )?"
                      r"(?:suspend|sleep|hibernat\w{0,5})|after (?:a )?(?:suspend|sleep|hibernat\w{0,5})|"
                      r"suspend(?:/| and | or |-)resume|suspend(?:ing)? (?:my|the) (?:device|laptop|computer|machine|pc|"
                      r"system|notebook)|systemctl (?:suspend|hibernate))\b")
# what a driver left broken by suspend prints: an unknown error, a failed launch or initialisation, no device
_CUDA_BROKEN = re.compile(r"cuInit|cudaGetDeviceCount|CUDA initialization|UNKNOWN_ERROR|CUDA_ERROR_UNKNOWN|"
                          r"cuda(?:Error)?Unknown|CUDA error: unknown error|unspecified launch failure|nvidia_uvm|"
                          r"CUDA (?:fails|failed) to initiali[sz]e|no CUDA-capable device|CUDA unknown error")


def cuda_after_suspend(ent, text):
    """CUDA failing in a text that says the machine was suspended: the unified-memory module does not come back
    from suspend on many systems; reloading nvidia_uvm (or a reboot) restores it, no reinstall."""
    tail = text[-CONTEXT_TAIL:]
    sus = _SUSPEND.search(tail)
    err = _CUDA_BROKEN.search(tail)
    if sus is None or err is None:
        return None
    sig = _sig("cuda-broken-after-suspend", "driver", "CUDA fails after the machine resumed from suspend", 84,
               "After a suspend and resume the NVIDIA unified-memory module (nvidia_uvm) is often left unusable: every "
               "CUDA call then fails (CUDA_ERROR_UNKNOWN, unspecified launch failure) while nvidia-smi still works.",
               fix="Reload the module: `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` (or reboot); to keep it "
                   "working across suspends, enable the driver's power management (NVreg_PreserveVideoMemoryAllocations=1 "
                   "with nvidia-suspend/nvidia-resume services).",
               areas=("driver",), sources=({"url": "https://download.nvidia.com/XFree86/Linux-x86_64/535.54.03/README/"
                                                   "powermanagement.html",
                                            "what": "NVIDIA driver README: power management across suspend"},))
    return _match(sig, text, len(text) - len(tail) + err.start(), {})


# A build's own check that the CUDA toolkit (nvcc) is the one torch was built with: torch.utils.cpp_extension's
# sentence is the catalogue's; packages with their own setup.py check (NVIDIA apex and its forks) say it otherwise.
_TOOLKIT_VS_TORCH = re.compile(r"(?i)version of cuda that does not match the version used to compile pytorch|"
                               r"cuda (?:version|toolkit)[^\n]{0,40}(?:does not match|mismatch(?:es)?)[^\n]{0,80}(?:pytorch|torch)")
_TORCH_BUILT_CUDA = re.compile(r"(?i)pytorch binaries were compiled with cuda (?P<v>\d{1,2}\.\d{1,2})|"
                               r"torch\.version\.cuda\W{1,6}(?P<v2>\d{1,2}\.\d{1,2})")


def toolkit_not_torch_cuda(ent, text):
    """A build refused because the CUDA toolkit's nvcc is another version than the CUDA torch was built with: the
    toolkit (CUDA_HOME) or the torch build must change, whichever package's setup.py says it."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TOOLKIT_VS_TORCH, tail)
    if m is None:
        return None
    built = _TORCH_BUILT_CUDA.search(tail)
    torch_cuda = (built.group("v") or built.group("v2")) if built else ent.versions.get("torch_cuda")
    caps = {"torch_cuda": torch_cuda, "nvcc": ent.versions.get("nvcc")}
    sig = _sig("build-toolkit-not-torch-cuda", "toolchain",
               "the CUDA toolkit used to build differs from the CUDA torch was built with", 85,
               "The package's build checks that nvcc (the CUDA toolkit at CUDA_HOME, here {nvcc|another version}) is the "
               "CUDA torch was built with ({torch_cuda|torch's CUDA}), and it is not: the extension would be compiled for "
               "another CUDA than the torch it loads into.",
               fix="Build with a CUDA {torch_cuda|of torch's version} toolkit: install it and `export "
                   "CUDA_HOME=/usr/local/cuda-{torch_cuda|X.Y}` (its bin/nvcc first on PATH), or install the torch build "
                   "for the toolkit you have (the cuXXX build of its CUDA version, e.g. cu121 for 12.1).",
               causes=(("toolkit", "the CUDA toolkit differs from torch's CUDA", ("TE602", "TE603")),),
               areas=("toolchain",), sources=({"url": "https://github.com/NVIDIA/apex/blob/master/setup.py",
                                               "what": "apex's check_cuda_torch_binary_vs_bare_metal"},
                                              SOURCES["ext"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# nvidia-smi topo -m: a row of the GPU matrix, and the PCIe link types that go through a switch or bridge
_TOPO_ROW = re.compile(r"(?m)^GPU\d{1,2}\s{1,8}(?:X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\s{1,8}(?:X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\b")
_PCIE_SWITCH = re.compile(r"\b(?:PIX|PXB)\b")
_HANGS = re.compile(r"(?i)\b(?:hangs?|hanging|hung|stuck|freez(?:es|ing)?|deadlock)\b")


def p2p_through_pcie_switch_hangs(ent, text):
    """Collectives that hang between GPUs behind one PCIe switch (nvidia-smi topo: PIX/PXB) while GPUs across the CPU
    link (SYS) work: PCIe Access Control Services (or the IOMMU) redirect peer-to-peer traffic to the root complex,
    where it stalls.  A platform setting, not the installation."""
    tail = text[-CONTEXT_TAIL:]
    row = _TOPO_ROW.search(tail)
    if row is None or _HANGS.search(tail) is None or _PCIE_SWITCH.search(tail) is None:
        return None
    sig = _sig("p2p-blocked-by-acs", "distributed",
               "peer-to-peer between GPUs behind a PCIe switch hangs: ACS / IOMMU redirect it", 80,
               "GPUs under one PCIe switch (PIX/PXB in `nvidia-smi topo -m`) talk peer-to-peer through it; with PCIe "
               "Access Control Services (ACS) enabled, or an IOMMU translating DMA, that traffic is sent up to the root "
               "complex and stalls, so NCCL's P2P transport hangs between exactly those GPUs.",
               fix="Disable ACS on the PCIe switches (the BIOS setting, or `setpci` as in NCCL's troubleshooting guide) and "
                   "the IOMMU / VT-d for bare metal (`iommu=pt` or off), then verify with the CUDA p2pBandwidthLatencyTest or "
                   "nccl-tests; NCCL_P2P_DISABLE=1 avoids P2P meanwhile, at a bandwidth cost.",
               areas=("gpu",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                "troubleshooting.html#pci-access-control-services-acs",
                                         "what": "NCCL troubleshooting: PCI Access Control Services (ACS)"},))
    return _match(sig, text, len(text) - len(tail) + row.start(), {})


def devices_unavailable_on_windows(ent, text):
    """cudaErrorDevicesUnavailable on Windows: WDDM gives GeForce GPUs no exclusive compute mode to be busy in, so the
    driver could not create a context at all (a broken or half-updated driver)."""
    if not ent.platform.get("windows") or ent.platform.get("wsl"):
        return None
    c = next((x for x in reversed(ent.codes) if x["name"] in ("cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE")),
             None)
    if c is None:
        # the runtime's message as torch prints it (its own wording differs from cudaGetErrorString's)
        tail = text[-CONTEXT_TAIL:]
        i = max(tail.rfind("devices are busy or unavailable"), tail.rfind("is/are busy or unavailable"))
        if i < 0:
            return None
        c = {"at": len(text) - len(tail) + i}
    sig = _sig("windows-cuda-devices-unavailable", "driver",
               "CUDA cannot create a context on Windows: the NVIDIA driver is not working", 78,
               "On Windows the display driver model (WDDM) has no exclusive compute mode for a GPU to be busy in: "
               "'busy or unavailable' means the driver could not give the process a context (a damaged or half-updated "
               "driver, or another program that took the GPU over).",
               fix="Reinstall the NVIDIA driver cleanly (NVIDIA's installer with 'Perform a clean installation', or DDU "
                   "first), reboot, and check `nvidia-smi`; close programs that hold the GPU exclusively.",
               causes=(("machine", "CUDA failed to initialise for another reason", ("TE303",)),), areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
                         "what": "cudaErrorDevicesUnavailable"},))
    return _match(sig, text, c["at"], {})


# CUDA unusable, in words that do not say why (the versions printed beside them do)
_CUDA_UNUSABLE = re.compile(r"(?i)is_available(?:\(\))?\W{0,20}(?:returns?\W{0,4}|is\W{0,4})?false\b|Is CUDA available: "
                            r"(?:False|No)\b|CUDA initialization|driver version is insufficient|"
                            r"cudaErrorInsufficientDriver|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")


def driver_older_than_build(ent, text):
    """CUDA unusable in a text that prints both the driver's version and the CUDA torch was built with (collect_env,
    nvidia-smi beside `torch.__version__`): the driver table (knowledge.drivers) says whether that driver runs that
    CUDA at all."""
    v = ent.versions
    cuda = v.get("torch_cuda")
    if not cuda or not (v.get("driver") or v.get("driver_cuda")):
        return None
    os_name = "Windows" if ent.platform.get("windows") or ent.platform.get("wsl") else "Linux"
    if drivers.driver_runs(cuda, driver_version=v.get("driver"), driver_cuda=v.get("driver_cuda"),
                           os_name=os_name) != drivers.NO:
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDA_UNUSABLE, tail)
    if m is None:
        return None
    need = drivers.min_driver_for_cuda(cuda, os_name) or {}
    caps = {"cuda": cuda, "driver": v.get("driver") or v.get("driver_cuda"),
            "need": need.get("compat_floor") or need.get("toolkit_minimum")}
    sig = _sig("driver-older-than-torch-cuda", "driver",
               "the NVIDIA driver ({driver}) is older than the CUDA {cuda} this torch was built with", 87,
               "torch was built with CUDA {cuda}, which needs an NVIDIA driver {need|newer than this one} or newer; the "
               "driver here is {driver}, so CUDA cannot start (torch.cuda.is_available() is False). The versions come "
               "from the text (NVIDIA's driver table per CUDA release).",
               fix="Update the NVIDIA driver to one that runs CUDA {cuda} ({need|a newer release} or newer; https://www.nvidia.com/"
                   "Download/index.aspx; on Ubuntu `sudo ubuntu-drivers install`) and reboot; or install the torch build "
                   "for a CUDA this driver supports (https://pytorch.org/get-started/previous-versions/).",
               causes=(("driver-older-than-build", "the installed NVIDIA driver is older than the CUDA runtime of the "
                        "installed torch", ("TE302", "TE307")),),
               areas=("driver",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                                            "what": "CUDA Toolkit and Corresponding Driver Versions"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# TensorFlow's dso_loader lists every library its build opens; the first it cannot open names the CUDA the build
# was made for (cudart64_101.dll / libcudart.so.10.1: CUDA 10.1), the rest follow from it
_TF_DSO_MISSING = re.compile(r"Could not (?:load dynamic|dlopen) library '(?P<lib>[A-Za-z0-9_.-]{1,60})'")


def _cuda_of_soname(lib: str) -> str | None:
    m = re.match(r"(?:lib)?cudart(?:64_(?P<dll>\d{2,3})\.dll|\.so\.(?P<so>\d{1,2}(?:\.\d{1,2})?))", lib)
    if not m:
        return None
    if m.group("dll"):
        d = m.group("dll")
        return f"{d[:-1]}.{d[-1]}" if len(d) == 3 else f"{d}"
    return m.group("so")


def tensorflow_missing_cuda_runtime(ent, text):
    """TensorFlow cannot open the CUDA runtime its build was linked for: that library's soname says which CUDA, and
    the fix is that CUDA's libraries (or a TensorFlow built for the CUDA installed), not the last library listed."""
    tail = text[-CONTEXT_TAIL:]
    first, libs = None, set()
    for m in _TF_DSO_MISSING.finditer(tail):
        libs.add(m.group("lib"))
        if first is None and _cuda_of_soname(m.group("lib")):
            first = m
    if first is None or len(libs) < 2:
        return None  # one library: the catalogue's sentence on its line says it
    lib = first.group("lib")
    cuda = _cuda_of_soname(lib)
    sig = _sig("tensorflow-cuda-runtime-missing", "tensorflow",
               "TensorFlow cannot open {lib}: it was built for CUDA {cuda}", 77,
               "TensorFlow's GPU support opens the CUDA libraries of the CUDA version it was built for, by exact name; "
               "{lib} is CUDA {cuda}'s runtime and the loader does not find it, so the GPU is not used (the other "
               "libraries it lists are that same CUDA's).",
               fix="Install CUDA {cuda} (its runtime, cuBLAS, cuFFT, cuSOLVER, cuSPARSE, and the cuDNN for it) and put its "
                   "bin folder on PATH (Windows) or its lib64 on LD_LIBRARY_PATH (Linux), or install the TensorFlow release "
                   "built for the CUDA you have (TensorFlow's tested build configurations). On Linux/WSL 2 `pip install "
                   "'tensorflow[and-cuda]'` brings its own; on native Windows TensorFlow 2.10 was the last GPU release.",
               areas=("tensorflow",), sources=({"url": "https://www.tensorflow.org/install/source#gpu",
                                                "what": "TensorFlow's tested build configurations: CUDA per release"},))
    return _match(sig, text, len(text) - len(tail) + first.start(), {"lib": lib, "cuda": cuda})


# A package's import registering its operators with torch (torch.library: register_fake, impl, define; torch._ops):
# the traceback's frames go from the package's module-level code into torch's registration and fail there
_FRAME = re.compile(r'File "(?P<path>[^"\n]{1,400})", line \d{1,6}, in (?P<fn>[\w<>.]{1,80})')
_TORCH_REGISTRATION = re.compile(r"[/\\]torch[/\\](?:library\.py|_ops\.py|_library[/\\])")


def package_ops_registration_fails(ent, text):
    """A package (torchvision, torchaudio, an extension) fails while registering its operators with torch at import:
    it was built for another torch (its ops' schemas or torch.library's API differ).  Read from the traceback's frames
    (the owner of the frame that calls into torch's registration), whatever the exception's text."""
    tail = text[-CONTEXT_TAIL:]
    frames = list(_FRAME.finditer(tail))[-12:]
    for i in range(len(frames) - 1, 0, -1):
        if not _TORCH_REGISTRATION.search(frames[i].group("path")):
            continue
        caller = frames[i - 1]
        if _TORCH_REGISTRATION.search(caller.group("path")):
            continue
        dirs = [d for d in re.split(r"[/\\]", caller.group("path"))[:-1] if d]
        if not any(d in ("site-packages", "dist-packages") for d in dirs):
            return None
        k = max(j for j, d in enumerate(dirs) if d in ("site-packages", "dist-packages"))
        pkg = dirs[k + 1] if k + 1 < len(dirs) else None
        if not pkg or pkg == "torch" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}", pkg):
            return None
        sig = _sig("package-ops-registration-failed", "toolchain",
                   "{package} fails to register its operators with the installed torch: it was built for another torch",
                   82, "Importing {package} registers its operators (and their fake/meta kernels) with torch; the "
                   "registration fails inside torch, so {package} was built for another torch release than the one "
                   "installed (their versions are released in pairs).",
                   fix="Install the {package} release that pairs with the installed torch, from the same index as torch "
                       "(for torchvision and torchaudio, the version their compatibility table lists for your torch, e.g. "
                       "`pip install {package}==<paired version> --index-url https://download.pytorch.org/whl/<torch's "
                       "cuXXX or cpu>`); leave torch as it is.",
                   causes=(("stale", "a package was built against another torch", ("TE701", "TE705")),),
                   areas=("torch",), sources=({"url": "https://github.com/pytorch/vision#installation",
                                               "what": "torchvision releases pair with torch releases"},))
        return _match(sig, text, len(text) - len(tail) + caller.start(), {"package": pkg})
    return None


# CUDA_VISIBLE_DEVICES set in the text itself, next to "no device": the variable hides the GPUs
_CVD_SET = re.compile(r"CUDA_VISIBLE_DEVICES\s{0,2}=\s{0,2}['\"]?[$\w,-]|environ\[['\"]CUDA_VISIBLE_DEVICES['\"]\]\s{0,2}=")
_NO_DEVICE = re.compile(r"no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice")


def visible_devices_hide_the_gpu(ent, text):
    """No CUDA device in a text that sets CUDA_VISIBLE_DEVICES: the variable decides which GPUs the process sees; an
    index that does not exist (or an unexpanded $1) leaves none."""
    tail = text[-CONTEXT_TAIL:]
    cvd = _CVD_SET.search(tail)
    m = last_match(_NO_DEVICE, tail)
    if cvd is None or m is None or ent.platform.get("container"):
        return None
    sig = _sig("visible-devices-hide-the-gpu", "env",
               "no CUDA device is visible: CUDA_VISIBLE_DEVICES, set here, names no GPU that exists", 76,
               "CUDA_VISIBLE_DEVICES selects the GPUs a process sees, by index or UUID; set to an index the machine does "
               "not have (or to an empty or unexpanded value such as $0), it hides every GPU and CUDA reports no device.",
               fix="Set CUDA_VISIBLE_DEVICES to indices that exist (`nvidia-smi -L` lists them; on a one-GPU machine only "
                   "0) or unset it; check the scripts and the code (os.environ['CUDA_VISIBLE_DEVICES']) that set it.",
               causes=(("cvd", "CUDA_VISIBLE_DEVICES names devices that do not exist", ("TE403",)),),
               areas=("gpu",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
                                                "#env-vars", "what": "CUDA_VISIBLE_DEVICES"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# The layers the rules give (with the catalogue's, every layer of catalogue.LAYERS is reachable).
LAYERS_PRODUCED = frozenset({"c-runtime", "toolchain", "torch-build", "macos", "libraries", "cudnn", "driver", "container",
                             "wsl", "windows-runtime", "env", "rocm", "arch", "distributed", "not-environment"})

# A compiler that cannot include a header says which one: gcc "fatal error: X: No such file or directory", clang
# "fatal error: 'X' file not found", MSVC "C1083: Cannot open include file: 'X'", or a short "no file X.h"
_HEADER_MISSING = re.compile(
    r"error(?: C1083)?: (?:Cannot open include file: )?['\"`]?(?P<h>[\w.+/\\-]{1,160}?)['\"`]?"
    r"(?:: No such file or directory| file not found)|"
    r"\bno (?:such )?(?:header )?file:? ['\"`]?(?P<h2>[\w./-]{1,120}\.(?:h|hpp|cuh))\b|"
    r"['\"`]?(?P<h3>[\w./-]{1,120}\.(?:h|hpp|cuh))['\"`]?:? (?:[Nn]o such file or directory|file not found|not found)")


def header_missing(ent, text):
    """A header the build cannot include is its owner's: torch's (installed in the building Python, 1.0 or newer;
    TH/THC gone since 1.11), the CUDA toolkit's, cuDNN's, NCCL's, ROCm's, Python's, pybind11's, NumPy's, a CUTLASS
    submodule's (knowledge/headers.py), whatever the compiler and whoever builds."""
    tail = text[-CONTEXT_TAIL:]
    found = None
    for m in _HEADER_MISSING.finditer(tail):
        h = headers.owner_of(m.group("h") or m.group("h2") or m.group("h3"))
        if h is not None:
            found = (m, h)
    if found is None:
        return None
    m, h = found
    sig = _sig("header-missing", "toolchain", "{header} ({what}) is not found by the build", 82,
               "The compiler could not include {header}: it is part of {what}, which the build environment does not "
               "have where the compiler looks.",
               fix=h["remedy"], causes=(("toolkit", "no CUDA toolkit (nvcc) where the build looks", ("TE601", "TE603")),)
               if h["owner"] == "cuda-toolkit" else (), areas=("toolchain",),
               sources=({"url": h["source"], "what": f"who ships {h['header']}"},), generic=True)
    return _match(sig, text, len(text) - len(tail) + m.start(), {"header": h["header"], "what": h["what"]})


# nvcc's host-compiler check (crt/host_config.h) stops the build with "#error -- unsupported <compiler> version!";
# read through any whitespace, so a log or a mail wrapped at 80 columns still says which compiler and which limit
_HOST_CONFIG = re.compile(r"#error\s{1,4}--\s{1,4}unsupported\s{1,4}(?P<comp>GNU|clang|ICC|IntelLLVM|NVHPC|PGI|XL|Arm)"
                          r"\s{1,4}version!(?:\s{1,4}(?P<what>gcc|clang|icc|\w{2,10})\s{1,4}versions\s{1,4}"
                          r"(?P<dir>later|earlier|older|newer)\s{1,4}than\s{1,4}(?P<lim>\d{1,4}(?:\.\d{1,2})?))?")
_HOST_CC = {"GNU": ("gcc", "g++"), "clang": ("clang", "clang++")}


def nvcc_host_compiler(ent, text):
    """nvcc refuses the host compiler its host_config.h does not list: the compiler and its limit are in the
    #error line, whatever the wrapping; the fix is a compiler within the limit (CC/CXX, NVCC_CCBIN) or a CUDA
    toolkit whose table includes this compiler."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_HOST_CONFIG, tail)
    if m is None:
        return None
    comp, lim = m.group("comp"), m.group("lim")
    cc, cxx = _HOST_CC.get(comp, (comp.lower(), comp.lower()))
    later = m.group("dir") in ("later", "newer")
    want = (f"{cc} {lim} or older" if later else f"{cc} newer than {lim}") if lim else f"a {cc} this nvcc supports"
    pin = f"-{lim.split('.')[0]}" if lim and later else ""
    sig = _sig("nvcc-host-compiler-unsupported", "toolchain",
               "nvcc refuses the host compiler ({comp} {limit|version})", 85,
               "nvcc checks the host C++ compiler against the versions its CUDA release supports (crt/host_config.h) "
               "and stops at one outside them: this CUDA toolkit supports {want}.",
               fix=f"Build with {want}: install it and `export CC={cc}{pin} CXX={cxx}{pin}` (torch's extension builds pass "
                   f"CC to nvcc as -ccbin; for nvcc directly `NVCC_CCBIN={cc}{pin}` or `-ccbin {cc}{pin}`), or use a newer "
                   "CUDA toolkit whose supported host compilers include this one (its installation guide lists them); "
                   "`-allow-unsupported-compiler` skips the check at your own risk.",
               causes=(("toolkit", "the CUDA toolkit (nvcc) and the host compiler disagree", ("TE602",)),),
               areas=("toolchain",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html"
                                                      "#host-compiler-support-policy",
                                               "what": "the host compilers each CUDA release supports"},))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"comp": comp, "limit": f"later than {lim} unsupported" if lim else None, "want": want})


_TRITON_ERRORS_SRC = {"url": "https://github.com/triton-lang/triton/blob/main/python/triton/runtime/errors.py",
                      "what": "Triton's runtime exceptions (OutOfResources, PTXASError)"}


def triton_exception(ent, text):
    """Triton's own exception types say which stage failed: PTXASError is its bundled ptxas refusing the PTX it
    generated (most often a GPU newer than that ptxas: sm_NNNa unknown), OutOfResources a kernel configuration that
    needs more shared memory or registers than this GPU has (the program's tuning, not the installation)."""
    names = [e.rsplit(".", 1)[-1] for e in ent.exceptions]
    if "PTXASError" in names:
        arch = next((a for a in reversed(ent.archs) if a.startswith("sm_")), None)
        gpu = ent.gpus[-1] if ent.gpus else None
        sig = _sig("triton-ptxas-failed", "arch", "Triton's bundled ptxas failed on the code it generated", 83,
                   "Triton compiles its kernels with the ptxas it ships (triton/backends/nvidia/bin/ptxas); PTXASError "
                   "means that ptxas refused the PTX, most often because the GPU ({arch|its architecture}) is newer than "
                   "the CUDA that ptxas comes from.",
                   fix="Point Triton at a ptxas that knows the GPU: `export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas` "
                       "from a CUDA toolkit new enough for {gpu|it}, or install a triton (with torch) release whose "
                       "bundled CUDA supports it; read the `ptxas` stderr Triton prints for the exact refusal.",
                   areas=("toolchain",), sources=(_TRITON_ERRORS_SRC,))
        at = text.rfind("PTXASError")
        return _match(sig, text, at, {"arch": arch, "gpu": gpu})
    # (its name does not end in Error, so the extractor's exception names do not hold it: read it off the text)
    if re.search(r"\bOutOfResources: out of resource: ", text[-CONTEXT_TAIL:]):
        sig = _sig("triton-out-of-resources", "not-environment",
                   "a Triton kernel's configuration needs more of the GPU than it has: not an environment problem", 80,
                   "Triton's OutOfResources: the kernel as configured (block sizes, num_stages, num_warps) needs more "
                   "shared memory or registers than this GPU provides (a smaller GPU than the one it was tuned on).",
                   look_at="Reduce the kernel's block sizes or num_stages (its autotune configs), or the batch/sequence "
                           "shape that selects them; no reinstall is needed.",
                   areas=(), sources=(_TRITON_ERRORS_SRC,))
        return _match(sig, text, text.rfind("OutOfResources"), {})
    return None


# A package saying its own compiled (CUDA/C++) part did not load: "xFormers can't load C++/CUDA extensions",
# "CUDA extension not installed", "CUDA kernels for auto_gptq are not installed", "<pkg>'s CUDA ops were not built".
_EXT_NOT_LOADED = re.compile(
    r"(?P<pkg>[A-Za-z][\w-]{1,40}) (?:can.?t|cannot|could not|couldn.t|failed to) load (?:its |the )?"
    r"(?:C\+\+/CUDA|CUDA/C\+\+|CUDA|C\+\+|compiled) (?:extensions?|kernels?|ops)|"
    r"(?:CUDA|C\+\+|compiled) (?:extensions?|kernels?|ops) (?:for (?P<pkg2>[A-Za-z][\w-]{1,40}) )?(?:is |are )?"
    r"not (?:installed|compiled|built|available)")
_PKG_MODULE = re.compile(r"\b(?P<pkg>[A-Za-z][A-Za-z0-9]{1,30})_(?:cuda|cpp|ext|C|kernels?)(?:_\w{1,20})?\b")


def package_extension_not_loaded(ent, text):
    """A package reporting that its own compiled part did not load is that package's build for this torch/CUDA,
    whoever the package is: the wheel has no kernels for this torch or CUDA, or its build was skipped."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_EXT_NOT_LOADED, tail)
    if m is None:
        return None
    pkg = m.group("pkg") or m.group("pkg2")
    if pkg and (pkg.lower() in ("the", "to", "and", "not", "extension", "cuda", "python") or pkg.lower() in _ROLE_WORDS):
        pkg = None
    if not pkg:
        named = [x for x in ent.packages if x not in _NOT_THE_PACKAGE and not x.startswith("nvidia-")]
        mod = None
        for mod in _PKG_MODULE.finditer(tail):
            pass
        pkg = (mod.group("pkg") if mod and mod.group("pkg").lower() not in _NOT_IMPORTED_PACKAGES else None) \
            or (named[-1] if named else None) or _imported_package(text)
    if not pkg:
        return None
    pkg = pkg.lower()
    sig = _sig("package-extension-not-loaded", "toolchain",
               "{package}'s compiled (CUDA/C++) part did not load", 70,
               "{package} reports that its compiled extension is not installed or cannot load: the installed {package} "
               "was built for another torch or CUDA than the ones here, its wheel carries no kernels for this "
               "platform, or its build from source was skipped (no nvcc, a CPU-only torch, a flag that disables it).",
               fix="Install the {package} build made for the installed torch and its CUDA (its release page lists the "
                   "wheels per torch/CUDA; `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"` "
                   "shows which), or build it from source against this torch: `pip install --no-build-isolation "
                   "--no-cache-dir --no-binary {package} {package}` with the CUDA toolkit of torch.version.cuda. A CPU-only "
                   "torch (torch.version.cuda is None) needs torch's CUDA build first.",
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension", "torch"), sources=(SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"package": pkg})


# cuDNN 8's sub-libraries on Windows (cudnn_cnn_infer64_8.dll, cudnn_ops_train64_8.dll ...) failing with code 126
# ("the module or one of its dependencies"): from cuDNN 8.3 to 8.9 they depend on zlibwapi.dll, which cuDNN does not
# ship (torch's wheels bundle it in torch\lib, so a failure there is something else).
_CUDNN8_SUBLIB = re.compile(r"(?P<lib>cudnn_(?:cnn|ops|adv)_(?:infer|train)64_8\.dll)")
_CODE_126 = re.compile(r"Error code 126\b|WinError 126\b|error 126\b")
_CUDNN_LOADED = re.compile(r"Loaded cuDNN version (?P<v>\d{4,5})")


def cudnn8_sublibrary_on_windows(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDNN8_SUBLIB, tail)
    if m is None or not _CODE_126.search(tail) or re.search(r"(?i)[/\\]torch[/\\]lib[/\\]cudnn_", tail):
        return None
    v = _CUDNN_LOADED.search(tail)
    if v and not 8300 <= int(v.group("v")) < 9000:
        return None
    sig = _sig("cudnn-zlib-missing", "cudnn", "{lib}, a cuDNN 8 library, cannot load: its zlibwapi.dll is missing", 80,
               "{lib} is one of cuDNN 8's sub-libraries; code 126 means it or a DLL it needs was not found. From cuDNN "
               "8.3 (until late 8.9 releases linked zlib in) they need zlibwapi.dll (zlib built with the WINAPI calling convention), which cuDNN does not "
               "ship; torch's wheels bundle it, a system or TensorFlow cuDNN does not.",
               fix="Put zlibwapi.dll (the zlib download of NVIDIA's cuDNN 8 install guide for Windows) into a folder on "
                   "PATH, e.g. the CUDA bin folder; or use the cuDNN your TensorFlow was built with (TensorFlow 2.10: "
                   "cuDNN 8.1, which needs no zlib), or a cuDNN 9 build.",
               causes=(("cudnn", "creating a cuDNN (or cuBLAS) handle failed", ("TE503",)),), areas=("libraries",),
               sources=({"url": "https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-890/install-guide/index.html",
                         "what": "cuDNN 8 on Windows: install zlib (zlibwapi.dll)"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"lib": m.group("lib")})


# CMake's compiler detection, by its own messages: "No CMAKE_<LANG>_COMPILER could be found." for every language, and
# for CUDA "Couldn't find CUDA library root." (the nvcc found has no nvvm/libdevice beside it or in /usr/lib/cuda: a
# wrapper or a partial toolkit, not the CUDA toolkit's own nvcc) or "Failed to find nvcc."
_CMAKE_NO_COMPILER = re.compile(r"No CMAKE_(?P<lang>CUDA|HIP|CXX|C|Fortran)_COMPILER could be found|"
                                r"(?P<root>Couldn't find CUDA library root)|(?P<nvcc>Failed to find nvcc)")
_CMAKE_SOURCE = {"url": "https://github.com/Kitware/CMake/blob/master/Modules/CMakeDetermineCUDACompiler.cmake",
                 "what": "CMake's CUDA compiler detection: the library root is the folder holding nvvm/libdevice "
                         "(the toolkit root, or /usr/lib/cuda); without one, FATAL_ERROR \"Couldn't find CUDA library root.\""}


def cmake_compiler_detection(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CMAKE_NO_COMPILER, tail)
    if m is None:
        return None
    lang = m.group("lang") or "CUDA"
    if lang in ("CXX", "C", "Fortran"):
        name = {"CXX": "C++", "C": "C", "Fortran": "Fortran"}[lang]
        fix = (f"Install a {name} compiler (Debian/Ubuntu: `sudo apt-get install build-essential`; Fedora: `sudo dnf "
               f"install gcc-c++`; Windows: Visual Studio Build Tools with 'Desktop development with C++', from a "
               f"Developer prompt; macOS: `xcode-select --install`), or point CMake at one with CMAKE_{lang}_COMPILER "
               f"({'CXX' if lang == 'CXX' else 'CC'} in the environment).")
    elif lang == "HIP":
        fix = ("Point CMake at ROCm's compiler: CMAKE_HIP_COMPILER=/opt/rocm/llvm/bin/clang++ (or HIPCXX), with ROCm's "
               "bin on PATH; install the ROCm HIP SDK if there is none.")
    else:
        fix = ("Point CMake at the CUDA toolkit's own nvcc: `export CUDACXX=/usr/local/cuda/bin/nvcc` (or "
               "-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc; CUDA_HOME / CUDA_PATH at that toolkit), with the "
               "toolkit's bin first on PATH. An nvcc that is a wrapper or a partial install (a distribution's "
               "/usr/bin/nvcc without nvvm/libdevice beside it) is not enough; with no toolkit at all, install the CUDA "
               "toolkit matching torch.version.cuda.")
    sig = _sig("cmake-compiler-not-found", "toolchain", "CMake could not use a {lang} compiler", 76,
               "CMake's detection of the {lang} compiler failed: none was found, or (CUDA) the nvcc it found has no "
               "toolkit around it (nvvm/libdevice, the library root), so the project cannot be configured.",
               fix=fix, causes=(), areas=("toolchain",), sources=(_CMAKE_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"lang": lang})


# TensorFlow's error classes (tf.errors, one per status code of its error_codes.proto) say which layer failed when the
# message line itself is cut: RESOURCE_EXHAUSTED with "OOM when allocating" is the workload's memory; UNIMPLEMENTED at
# a convolution (or pooling, batch-norm) node on the GPU is the DNN library (cuDNN) that is missing or older than the
# one TensorFlow was built with ("DNN library is not found").
_TF_CLASS = re.compile(r"\b(?P<cls>ResourceExhaustedError|UnimplementedError)\b")
_TF_OOM = re.compile(r"OOM when allocating tensor")
_TF_DNN_NODE = re.compile(r"(?i)node '?[\w/.-]{0,200}?(?:conv[123]d|conv[123]d_?transpose|depthwise|max_?pool|avg_?pool|"
                          r"fused_?batch_?norm|cudnn\w{0,20}|lstm|gru)\w{0,40}'?|DNN library")
_TF_ERRORS_SRC = {"url": "https://www.tensorflow.org/api_docs/python/tf/errors",
                  "what": "TensorFlow's error classes: ResourceExhaustedError (e.g. out of memory), UnimplementedError "
                          "(an operation not supported or not enabled here)"}


def tensorflow_error_class(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TF_CLASS, tail)
    if m is None or not (_context(text, _TF_TEXT) or "errors_impl" in tail or "Graph execution error" in tail):
        return None
    at = len(text) - len(tail) + m.start()
    if m.group("cls") == "ResourceExhaustedError" and _TF_OOM.search(tail):
        sig = _sig("tensorflow-out-of-memory", "not-environment",
                   "TensorFlow ran out of device memory: not an environment problem", 52,
                   "ResourceExhaustedError with \"OOM when allocating tensor\" is TensorFlow's out-of-memory: the "
                   "model, batch or another process's use does not fit the device's memory. The installation is fine.",
                   look_at="Lower the batch size (or the input/sequence size), use mixed precision, let TensorFlow grow "
                           "its memory instead of taking it all (tf.config.experimental.set_memory_growth), and check "
                           "other processes on the GPU in nvidia-smi; nothing needs installing.",
                   sources=(_TF_ERRORS_SRC,))
        return _match(sig, text, at, {})
    if m.group("cls") == "UnimplementedError" and _TF_DNN_NODE.search(tail):
        sig = _sig("tensorflow-dnn-unimplemented", "cudnn",
                   "TensorFlow could not run a convolution-type op on the GPU: its DNN library (cuDNN) is missing", 74,
                   "UnimplementedError at a convolution, pooling, normalisation or RNN node is TensorFlow finding no DNN "
                   "library for the GPU (\"DNN library is not found\"): cuDNN is not installed, not on the library path, "
                   "or older than the cuDNN this TensorFlow was built with.",
                   fix="Install the cuDNN this TensorFlow was built with, or newer within its major (Linux: `pip install "
                       "\"tensorflow[and-cuda]\"` pins nvidia-cudnn; conda: the cudnn package of the tested configuration; "
                       "Windows: TensorFlow 2.10 with cuDNN 8.1), and keep it first on the library path.",
                   causes=(), areas=("tensorflow", "libraries"), sources=(_TF_ERRORS_SRC,))
        return _match(sig, text, at, {})
    return None


# A Jetson named in the text (the board, JetPack, L4T, Tegra) with torch that has no CUDA
# (/etc/nv_tegra_release's own line, "# R36 (release), REVISION: 4.3", names the L4T release)
_JETSON = re.compile(r"(?i)\bjetson\b|\bjetpack\b|\bL4T\b|\btegra\b|nv_tegra_release|\bR\d{2} \(release\), REVISION:")
_NO_CUDA_HERE = re.compile(r"(?i)is_available\(?\)?[^\n]{0,40}?(?:\n[ \t]{0,8})?\bfalse\b|Torch not compiled with CUDA enabled|"
                           r"CUDA available:?\s{0,3}False|version\.cuda[^\n]{0,20}None")
_L4T_TEXT = re.compile(r"(?i)\bL4T\s{0,2}R?(?P<ver>\d{2}\.\d{1,2}(?:\.\d{1,2})?)|\bR(?P<rel>\d{2}) \(release\), REVISION: "
                       r"(?P<rev>\d{1,2}\.\d{1,2})")


def jetson_without_cuda(ent, text):
    """torch without CUDA on a Jetson is a wheel that is not NVIDIA's: PyPI's (and most third-party) aarch64 torch
    wheels are CPU-only; a Jetson runs NVIDIA's JetPack build (or, from JetPack 7, the PyTorch index's aarch64 ones)."""
    tail = text[-CONTEXT_TAIL:]
    j, n = _JETSON.search(tail), None
    if j is None:
        return None
    for n in _NO_CUDA_HERE.finditer(tail):
        pass
    if n is None:
        return None
    l4t = None
    lm = _L4T_TEXT.search(tail)
    if lm:
        l4t = jetson.parse_l4t(lm.group("ver") if lm.group("ver") else f"{lm.group('rel')}.{lm.group('rev')}")
    row = jetson.row_for(l4t)
    which = (f"JetPack {row['jetpack']} (L4T {jetson.l4t_text(l4t)}): NVIDIA's torch {row['torch']} for Python "
             f"{row['python']}, {row['wheel']}" if row else
             "NVIDIA's torch wheel for the board's JetPack release (developer.download.nvidia.com/compute/redist/jp/, "
             "per JetPack; `cat /etc/nv_tegra_release` shows the L4T release)")
    sig = _sig("jetson-torch-without-cuda", "torch-build",
               "torch has no CUDA on this Jetson: the wheel is not NVIDIA's JetPack build", 90,
               "On a Jetson, torch's CUDA build is NVIDIA's wheel for the JetPack release (CUDA comes with JetPack, not "
               "from pip); the aarch64 wheels on PyPI and most third-party aarch64 builds are CPU-only, so CUDA is not "
               "available with them.",
               fix="Uninstall the CPU-only torch and install NVIDIA's JetPack build: " + which + ". From JetPack 7 "
                   "(L4T R38) the PyTorch index's aarch64 CUDA wheels run on Jetson too.",
               causes=(("cpu-wheel", "a CPU-only torch is installed on a machine with an NVIDIA GPU", ("TE202",)),),
               areas=("torch", "platform"), sources=(SOURCES["torch_index"],))
    return _match(sig, text, len(text) - len(tail) + n.start(), {})


RULES = (abi_tag, torch_abi, built_for, library_symbol, cxx_runtime_symbol, missing_library, error_code, gpu_newer_than_build,
         platform_without_cuda, pip_no_matching, allocator_nvml_assert, wsl_gpu_passthrough, tensorflow_windows_native,
         device_node_permission, torch_not_offered_on_mac, rocblas_on_windows, zluda_dll_dependency,
         rocm_kfd_permission, container_cli, pip_of_another_python, container_without_gpu, nccl_transport,
         cuda_after_suspend, toolkit_not_torch_cuda, torch_too_new_for_intel_mac, mps_inside_linux_container,
         package_binary_missing, p2p_through_pcie_switch_hangs, devices_unavailable_on_windows, driver_older_than_build,
         tensorflow_missing_cuda_runtime, package_ops_registration_fails, visible_devices_hide_the_gpu, header_missing,
         nvcc_host_compiler, triton_exception, gpu_only_as_root,
         tensorflow_sees_no_gpu, torch_build_variant, inductor_on_native_windows,
         package_compiled_part_missing, device_node_missing, package_extension_not_loaded, jetson_without_cuda,
         cudnn8_sublibrary_on_windows, cmake_compiler_detection, tensorflow_error_class, cuda_package_on_mac,
         numpy_c_api_capsule, jit_extension_missing)


def find(text: str, ent) -> list:
    """Every rule's match for the entities of `text` (cleaned), unordered."""
    out = []
    for rule in RULES:
        m = rule(ent, text)
        if m is not None:
            out.append(m)
    return out
