"""What every layer rule is made of: the sources rules cite, a rule's Signature (_sig) and Match (_match), and
helpers over the entities (the package a path belongs to, the text's tail a rule reads, words that place a text
on Windows, TensorFlow, ROCm or shared memory)."""

from __future__ import annotations

import re

from torch_envcheck.explain.catalogue import Cause, Signature
from torch_envcheck.explain.match import Match, _line, last_match
from torch_envcheck.knowledge import compiled_modules


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


def last_in_tail(pattern, text: str, needle: str | None = None) -> tuple:
    """(the last match of `pattern` in the text's tail, its position in the whole text), or (None, None); `needle`, a
    literal every match contains, skips the regex when it is absent."""
    tail = text[-CONTEXT_TAIL:]
    if needle is not None and needle not in tail:
        return None, None
    m = last_match(pattern, tail)
    return (m, len(text) - len(tail) + m.start()) if m is not None else (None, None)


def last_near(pattern, text: str, literal: str, before: int, after: int = 0) -> tuple:
    """(the last match of `pattern` in the text's tail, its position in the whole text), or (None, None), for a pattern
    whose matches contain `literal` and reach at most `before` characters ahead of it and `after` past its end: only
    the windows around the literal's occurrences are searched, latest first, so a pattern that opens with a bounded run
    (a path read leftwards from a loader's words) is not tried at every position of a long text."""
    tail = text[-CONTEXT_TAIL:]
    i = tail.rfind(literal)
    while i >= 0:
        last = None
        for last in pattern.finditer(tail, max(0, i - before), min(len(tail), i + len(literal) + after)):
            pass
        if last is not None:
            return last, len(text) - len(tail) + last.start()
        i = tail.rfind(literal, 0, i)
    return None, None


def _context(text: str, pattern: str) -> bool:
    return re.search(pattern, text[-CONTEXT_TAIL:]) is not None


# (a path of backslash-separated names, "\modules\core\src\cuda_info.cpp", is Windows' even without its drive letter)
_WINDOWS_TEXT = r"[A-Za-z]:\\|\.dll\b|WinError|\\Lib\\site-packages|Windows|(?<![\w\\])\\(?:[A-Za-z_][\w.-]{0,40}\\){2,8}[\w.-]{1,60}\.(?:cpp|cu|h|hpp|py|c)\b"


def on_windows(ent, text: str) -> bool:
    """Whether the text comes from Windows: extract's platform reading, or Windows' marks in the tail."""
    return bool(ent.platform.get("windows")) or _context(text, _WINDOWS_TEXT)


# TensorFlow named, or its own messages: gpu_device.cc's "CUDA runtime implicit initialization on GPU:N failed"
_TF_TEXT = r"tensorflow|TensorFlow|tf\.|xla/|stream_executor|TF_CPP|CUDA runtime implicit initialization on GPU:"


_SHM_TEXT = r"(?i)/dev/shm|shared memory|\bshm\b|dataloader|data_queue|_try_get_data|multiprocessing|semlock|</torch_\d|nccl"


_HIP_TEXT = r"\bHIP\b|\bhip[A-Z]|ROCm|rocm|\bgfx\d|amdgpu|HSA_"


# A container named near the error, in any case: wider than extract's platform["container"] (which a
# rule reads first), since a rule deciding between a host's and a container's fix reads the words of its
# own tail too ("the pod", "inside the container").
_CONTAINER_WORDS = re.compile(r"(?i)\bcontainer\b|\bdocker\b|\bpodman\b|\bkubernetes\b|\bpod\b|/\.dockerenv")


def in_container(ent, text: str) -> bool:
    """Whether the text comes from a container: extract's platform reading, or container words in the tail."""
    return bool(ent.platform.get("container")) or _CONTAINER_WORDS.search(text[-CONTEXT_TAIL:]) is not None


# A failure printed after a warning: the warning is then not the answer (a traceback, an exception's name, a crash)
_ERROR_AFTER = re.compile(r"Traceback \(most recent call last\)|\b[A-Z]\w{2,40}(?:Error|Exception)\b(?!')|"
                          r"\bSegmentation fault|\bAborted\b")


def error_after(text: str, m, at: int) -> bool:
    """Whether the text reports a failure after the match m (a match on the tail, at its position in the text)."""
    return _ERROR_AFTER.search(text, m.end() + (at - m.start())) is not None


def _bare(code: dict) -> str:
    name = code["name"]
    name = re.sub(r"^(?:cuda(?:Error)?|CUDA_(?:ERROR_)?|CU(?:BLAS|SPARSE|SOLVER|RAND|DNN)_STATUS_|CUFFT_|NVRTC_(?:ERROR_)?|"
                  r"NVJITLINK_(?:ERROR_)?|nccl|NVML_(?:ERROR_)?|hip(?:Error)?|miopenStatus|VK_(?:ERROR_)?|ERROR_|STATUS_)", "",
                  name)
    return name.replace("_", "").lower()


_WSL_SOURCE = {"url": "https://docs.nvidia.com/cuda/wsl-user-guide/index.html",
               "what": "CUDA on WSL 2: the Windows driver provides the GPU; never install a Linux driver in WSL"}
