"""How the `_C` extension is compiled: sources, flags, whether CUDA is built, and the build metadata.

One plan serves both build paths, so they cannot drift apart: setup.py (ahead of time, when pip
runs with torch importable) and extension.py (just in time, into a per-torch cache).  This module
does not import torch at import time; callers pass the torch module in.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import platform
import re
import sys
import time

from torch_envcheck._util import versions
from torch_envcheck.ext import toolchain
from torch_envcheck._util.envflags import parse_flag

ENV_REQUIRE_CUDA = "TORCH_ENVCHECK_REQUIRE_CUDA"
ENV_DISABLE_CUDA = "TORCH_ENVCHECK_DISABLE_CUDA"
ENV_SKIP_AOT = "TORCH_ENVCHECK_SKIP_AOT"

# Used only when TORCH_CUDA_ARCH_LIST is unset and no GPU is visible at build time: Ampere SASS
# plus Hopper SASS and PTX (which later GPUs JIT-compile).  Small on purpose: each arch multiplies
# the CUDA compile time.  Set TORCH_CUDA_ARCH_LIST to cover other GPUs.
DEFAULT_ARCH_LIST = "8.0;9.0+PTX"

META_NAME = "_build_meta.json"


class BuildConfigError(RuntimeError):
    """The build cannot go ahead as asked (e.g. CUDA required but not possible)."""


def _truthy(value: str | None) -> bool:
    return parse_flag(value) is True  # the one flag parser (envflags): "false" is false


def package_dir() -> str:
    """The installed torch_envcheck package folder (where the AOT-built _C and its metadata live)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def csrc_dir() -> str:
    """The C++ sources: shipped inside the installed package, or the repo's csrc/ in a checkout."""
    shipped = os.path.join(package_dir(), "csrc")
    if os.path.isdir(shipped):
        return shipped
    repo = os.path.join(os.path.dirname(package_dir()), "csrc")
    if os.path.isdir(repo):
        return repo
    raise BuildConfigError(
        f"the extension's C++ sources are missing (looked in {shipped} and {repo}); "
        "reinstall torch_envcheck from a source checkout: pip install .")


# csrc/ layout (as torchvision's csrc/ops): bindings.cpp; info/ (build and run-time facts, json.h; its
# .cu files are the CUDA probes); ops/<op>.cpp (schemas); ops/cpu/<op>_kernel.cpp (CPU entry points) with
# the per-ISA kernel bodies; ops/cuda/<op>_kernel.cu + <op>_glue.cpp (CUDA kernels and their checks).
_ALWAYS = ("", "info", "ops", os.path.join("ops", "cpu"))
_CUDA_ONLY = (("info", "*.cu"), (os.path.join("ops", "cuda"), "*.cu"), (os.path.join("ops", "cuda"), "*.cpp"))


def sources(csrc: str, with_cuda: bool) -> list[str]:
    """Every source file of the extension: the .cpp files of csrc/, csrc/info/, csrc/ops/ and
    csrc/ops/cpu/ always; the CUDA probes (csrc/info/*.cu) and csrc/ops/cuda/* only for a CUDA build.
    csrc/app/ holds the stand-alone C++ program and is never part of the Python extension.  What the
    compiler is run on is build_units()."""
    found = []
    for sub in _ALWAYS:
        found += sorted(glob.glob(os.path.join(csrc, sub, "*.cpp")))
    if with_cuda:
        for sub, pattern in _CUDA_ONLY:
            found += sorted(glob.glob(os.path.join(csrc, sub, pattern)))
    return found


# The ops: csrc/ops/op_list.h, one `ENVCHECK_OP(name, CPU|NO_CPU, CUDA|NO_CUDA)` line each.  The C++ side
# reads it as an X-macro (the named entries of the CPU kernel table); this module reads it for what the
# preprocessor cannot do: the #include lines of the build units below.
OP_LIST = "ops/op_list.h"
_OP_LINE = re.compile(r"ENVCHECK_OP\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*(CPU|NO_CPU)\s*,\s*(CUDA|NO_CUDA)\s*\)")

# The files of one op, relative to csrc/ ({} is the op's name), by the backend that needs them.
OP_FILES = {
    "schema": ("ops/{}.cpp",),
    "cpu": ("ops/cpu/{}_kernel.h", "ops/cpu/{}_kernel_isa.h", "ops/cpu/{}_kernel.cpp"),
    "cuda": ("ops/cuda/{}_kernel.h", "ops/cuda/{}_kernel.cu", "ops/cuda/{}_glue.cpp"),
}
# The per-op file names of each folder: a file like these that belongs to no listed op is an error
# (it would otherwise be compiled on its own, or not at all).
_PER_OP = {"ops": (r"(\w+)\.cpp",),
           "ops/cpu": (r"(\w+)_kernel\.h", r"(\w+)_kernel_isa\.h", r"(\w+)_kernel\.cpp"),
           "ops/cuda": (r"(\w+)_kernel\.h", r"(\w+)_kernel\.cu", r"(\w+)_glue\.cpp")}


class Op:
    """One line of csrc/ops/op_list.h."""

    __slots__ = ("name", "cpu", "cuda")

    def __init__(self, name: str, cpu: bool, cuda: bool):
        self.name, self.cpu, self.cuda = name, cpu, cuda

    def files(self) -> list[str]:
        """Its files, relative to csrc/ with "/" separators."""
        kinds = ["schema"] + (["cpu"] if self.cpu else []) + (["cuda"] if self.cuda else [])
        return [f.format(self.name) for k in kinds for f in OP_FILES[k]]

    def __repr__(self) -> str:
        return f"Op({self.name!r}, cpu={self.cpu}, cuda={self.cuda})"


def op_list(csrc: str) -> list[Op]:
    """The ops of csrc/ops/op_list.h, in its order.  Raises BuildConfigError, naming the line, for a line
    that is neither a comment nor an ENVCHECK_OP entry, for an op listed twice, and for a listed op
    whose files are missing or a per-op file that belongs to no listed op."""
    path = os.path.join(csrc, *OP_LIST.split("/"))
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise BuildConfigError(f"cannot read the op list {path}: {exc.strerror or exc}") from exc
    ops: list[Op] = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0].strip()
        if not code:
            continue
        m = _OP_LINE.fullmatch(code)
        if not m:
            raise BuildConfigError(f"{OP_LIST}:{number}: expected ENVCHECK_OP(name, CPU|NO_CPU, CUDA|NO_CUDA), "
                                   f"got {code[:120]!r}")
        if any(op.name == m.group(1) for op in ops):
            raise BuildConfigError(f"{OP_LIST}:{number}: op {m.group(1)!r} is listed twice")
        ops.append(Op(m.group(1), m.group(2) == "CPU", m.group(3) == "CUDA"))
    _check_op_files(csrc, ops)
    return ops


def _check_op_files(csrc: str, ops: list[Op]) -> None:
    wanted = {f for op in ops for f in op.files()}
    missing = sorted(f for f in wanted if not os.path.isfile(os.path.join(csrc, *f.split("/"))))
    if missing:
        raise BuildConfigError(f"{OP_LIST} lists ops whose files are missing: {', '.join(missing)}")
    stray = []
    for folder, patterns in _PER_OP.items():
        try:
            names = sorted(os.listdir(os.path.join(csrc, *folder.split("/"))))
        except OSError:
            continue
        for name in names:
            rel = f"{folder}/{name}"
            if rel not in wanted and any(re.fullmatch(p, name) for p in patterns):
                stray.append(rel)
    if stray:
        raise BuildConfigError(f"{', '.join(stray)}: per-op file(s) of no op (or backend) listed in {OP_LIST}; "
                               "add the op's ENVCHECK_OP line there, or remove the file")


# Build units, generated from the op list at build time: ops/all_ops.cpp, ops/cpu/all_kernels.cpp and
# ops/cuda/all_glue.cpp each #include one per-op file of every op, which the compiler then runs on only
# through them: most of a small op file's compile time is parsing torch's headers, and one parse per
# folder instead of one per op halved a fresh build on 2 cores (90 s -> 46 s).  ops/cpu/all_kernels_isa.h
# puts every op's per-ISA kernel bodies into each ISA's translation unit (ops/cpu/kernels_impl.h).
_UNIT_PREFIX = "all_"
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
_UNITS = (  # (generated file, per-op file it includes, backend, what it is)
    ("ops/all_ops.cpp", "ops/{}.cpp", None, "the op schemas"),
    ("ops/cpu/all_kernels.cpp", "ops/cpu/{}_kernel.cpp", "cpu", "the CPU entry points"),
    ("ops/cpu/all_kernels_isa.h", "ops/cpu/{}_kernel_isa.h", "cpu", "the per-ISA CPU kernel bodies"),
    ("ops/cuda/all_glue.cpp", "ops/cuda/{}_glue.cpp", "cuda", "the CUDA ops' host-side glue"),
)


def unit_texts(csrc: str, with_cuda: bool) -> dict[str, str]:
    """{path relative to the generated folder: text} of every generated file of this build."""
    ops = op_list(csrc)
    out = {}
    for unit, member, backend, what in _UNITS:
        if backend == "cuda" and not with_cuda:
            continue
        chosen = [op for op in ops if backend is None or getattr(op, backend)]
        lines = [f"// Generated from csrc/{OP_LIST} by torch_envcheck/ext/buildcfg.py: {what}, one per op.",
                 "// Do not edit: add the op's line to the list."]
        lines += [f'#include "{member.format(op.name)}"' for op in chosen]
        out[unit] = "\n".join(lines) + "\n"
    return out


def unit_members(unit: str, csrc: str) -> list[str]:
    """The files a build unit includes by a quoted path (relative to csrc/, as the unit writes them)."""
    with open(unit, encoding="utf-8") as fh:
        return [os.path.join(csrc, *name.split("/")) for name in _INCLUDE.findall(fh.read())]


def write_units(csrc: str, with_cuda: bool, out_dir: str) -> list[str]:
    """Write the generated files under out_dir (a file whose text is unchanged is left alone, so its
    timestamp does not trigger a rebuild); returns their paths.  out_dir goes on the include path."""
    paths = []
    for rel, text in unit_texts(csrc, with_cuda).items():
        path = os.path.join(out_dir, *rel.split("/"))
        try:
            with open(path, encoding="utf-8") as fh:
                same = fh.read() == text
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        paths.append(path)
    return paths


def build_units(csrc: str, with_cuda: bool, out_dir: str) -> list[str]:
    """The files the compiler is run on: sources() less the per-op files the build units include, plus
    those units, written under out_dir (which the build must put on its include path, after csrc/)."""
    generated = write_units(csrc, with_cuda, out_dir)
    units = [g for g in generated if g.endswith(".cpp")]
    members = {m for u in units for m in unit_members(u, csrc)}
    return [f for f in sources(csrc, with_cuda) if f not in members] + units


def _visible_gpu_arch_list(torch) -> str | None:
    try:
        if not torch.cuda.is_available():
            return None
        caps = sorted({torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())})
    except Exception:  # a broken driver must not break the build: fall back to the default list
        return None
    if not caps:
        return None
    archs = [f"{a}.{b}" for a, b in caps]
    archs[-1] += "+PTX"
    return ";".join(archs)


def arch_list(torch) -> tuple[str, str]:
    """(TORCH_CUDA_ARCH_LIST to use, where it came from)."""
    env = os.environ.get("TORCH_CUDA_ARCH_LIST")
    if env and env.strip():
        return env.strip(), "TORCH_CUDA_ARCH_LIST"
    visible = _visible_gpu_arch_list(torch)
    if visible:
        return visible, "visible GPUs"
    return DEFAULT_ARCH_LIST, "default (no GPU visible at build time)"


def gencode_summary(archs: str) -> dict:
    """{"sass": ["sm_80", ...], "ptx": ["compute_90"]} for an arch list like "8.0;9.0+PTX"."""
    sass, ptx = [], []
    for item in archs.replace(",", ";").replace(" ", ";").split(";"):
        item = item.strip()
        if not item:
            continue
        with_ptx = item.upper().endswith("+PTX")
        num = item[:-4] if with_ptx else item
        suffix = ""
        if num and num[-1] in "aAfF":  # arch-specific variants such as 9.0a, 10.0f
            suffix, num = num[-1].lower(), num[:-1]
        try:
            major, minor = num.split(".")
            code = f"{int(major)}{int(minor)}{suffix}"
        except ValueError:
            code = num  # a named arch (e.g. "Hopper"); cpp_extension resolves it
        sass.append(f"sm_{code}")
        if with_ptx:
            ptx.append(f"compute_{code}")
    return {"sass": sass, "ptx": ptx}


def plan(torch) -> dict:
    """Decide what to build against this torch.  Raises BuildConfigError only when the user
    required CUDA (TORCH_ENVCHECK_REQUIRE_CUDA=1) and it cannot be built."""
    torch_cuda = getattr(torch.version, "cuda", None)
    p: dict = {
        "torch_version": torch.__version__,
        "torch_cuda": torch_cuda,
        "with_cuda": False,
        "cuda_reason": None,
        "notes": [],
        "nvcc": None,
        "nvcc_version": None,
        "nvcc_source": None,
        "cuda_home": None,
        "torch_cuda_arch_list": None,
        "arch_list_source": None,
        "gencode": None,
    }
    require = _truthy(os.environ.get(ENV_REQUIRE_CUDA))

    def skip(reason: str, fix: str) -> dict:
        p["cuda_reason"] = reason
        if require:
            raise BuildConfigError(f"{ENV_REQUIRE_CUDA}=1 but the CUDA part cannot be built: {reason}. Fix: {fix}")
        return p

    if _truthy(os.environ.get(ENV_DISABLE_CUDA)):
        return skip(f"CUDA disabled by {ENV_DISABLE_CUDA}=1", f"unset {ENV_DISABLE_CUDA}")
    if not torch_cuda:
        hip = getattr(torch.version, "hip", None)
        what = f"a ROCm build (HIP {hip})" if hip else "a CPU-only build"
        return skip(f"torch {torch.__version__} is {what} (torch.version.cuda is None)",
                    "install a CUDA build of torch, e.g. pip install torch --index-url "
                    "https://download.pytorch.org/whl/cu130")
    explicit = [v for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    candidates = toolchain.nvcc_candidates()
    if explicit:
        candidates = [c for c in candidates if c["source"] == explicit[0]]
        if not candidates:
            return skip(f"{explicit[0]}={os.environ[explicit[0]]} has no bin/nvcc",
                        f"point {explicit[0]} at a CUDA {versions.major(torch_cuda)}.x toolkit, or unset it")
    if not candidates:
        return skip("no nvcc found (looked in CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda*, /opt/cuda, "
                    "the conda env and the pip nvidia-cuda-nvcc wheel)",
                    f"install a CUDA {torch_cuda} toolkit and put its bin/ on PATH, or "
                    f"pip install nvidia-cuda-nvcc=={torch_cuda}.*")
    # Candidates with a toolkit beside them first: a bare wrapper script cannot give us headers.
    candidates = [c for c in candidates if c["toolkit_found"]] + [c for c in candidates if not c["toolkit_found"]]
    want = toolchain.major_minor(torch_cuda)
    checked = []
    chosen = None
    for cand in candidates:
        info = toolchain.nvcc_version(cand["path"])
        cand = dict(cand, version=info["version"], error=info["error"])
        checked.append(cand)
        have = toolchain.major_minor(cand["version"])
        if have and want and have[0] == want[0]:
            chosen = cand
            break
    if chosen is None:
        described = "; ".join(
            f"{c['path']} ({c['source']}): " + (f"CUDA {c['version']}" if c["version"] else c["error"])
            for c in checked)
        return skip(f"no nvcc matches torch's CUDA {torch_cuda} major version (found {described})",
                    f"install a CUDA {want[0] if want else torch_cuda}.x toolkit and set CUDA_HOME to it")
    if chosen is not checked[0]:
        p["notes"].append(f"skipped {checked[0]['path']} (CUDA {checked[0]['version']}): its major version "
                          f"differs from torch's CUDA {torch_cuda}")
    have = toolchain.major_minor(chosen["version"])
    if have != want:
        p["notes"].append(f"nvcc is CUDA {chosen['version']}, torch was built with CUDA {torch_cuda}: "
                          "same major version, so this works (CUDA minor-version compatibility)")
    archs, source = arch_list(torch)
    p.update(with_cuda=True, nvcc=chosen["path"], nvcc_version=chosen["version"], nvcc_source=chosen["source"],
             cuda_home=chosen["cuda_home"], torch_cuda_arch_list=archs, arch_list_source=source,
             gencode=gencode_summary(archs),
             cuda_reason=f"torch is a CUDA {torch_cuda} build and nvcc {chosen['version']} was found "
                         f"({chosen['source']})")
    return p


def cudnn_include_dirs() -> list[str]:
    """Where cudnn_version.h lives: CUDNN_HOME/CUDNN_PATH, else the pip nvidia-cudnn wheel."""
    dirs = []
    for var in ("CUDNN_HOME", "CUDNN_PATH"):
        home = os.environ.get(var)
        if home and os.path.isfile(os.path.join(home, "include", "cudnn_version.h")):
            dirs.append(os.path.join(home, "include"))
    for site in toolchain._site_dirs():
        inc = os.path.join(site, "nvidia", "cudnn", "include")
        if os.path.isfile(os.path.join(inc, "cudnn_version.h")):
            dirs.append(inc)
    return dirs[:1]


def apply_env(p: dict) -> None:
    """Point torch.utils.cpp_extension at the chosen toolkit and arch list.  cpp_extension reads
    CUDA_HOME once, at its import, so an already imported module is patched too."""
    if not p["with_cuda"]:
        return
    os.environ["CUDA_HOME"] = p["cuda_home"]
    os.environ["TORCH_CUDA_ARCH_LIST"] = p["torch_cuda_arch_list"]
    mod = sys.modules.get("torch.utils.cpp_extension")
    if mod is not None:
        mod.CUDA_HOME = p["cuda_home"]


def compile_args(p: dict) -> dict:
    """Flags shared by both build paths."""
    defines = ["-DENVCHECK_WITH_CUDA"] if p["with_cuda"] else []
    # -fopenmp at compile time makes at::parallel_for really parallel.  We do not link libgomp
    # ourselves: the OpenMP symbols resolve to the runtime torch already loaded (libtorch_cpu's
    # own libgomp), so there is one thread pool, not two.
    # -g0: setuptools adds Python's own -g to ahead-of-time builds; debug info made the build ~25 %
    # slower and _C.so 15x larger (31 MB vs 2 MB) for no use to anyone running the doctor.
    cxx = ["-O3", "-g0", "-fopenmp", "-fvisibility=hidden"] + defines
    nvcc = ["-O3", "-lineinfo"] + defines
    return {
        "cxx": cxx,
        "nvcc": nvcc,
        "ldflags": [],
        "include_dirs": cudnn_include_dirs() if p["with_cuda"] else [],
    }


def source_hash(csrc: str, with_cuda: bool) -> str:
    """Hash of the sources and this file, so an edited source gets a fresh JIT build."""
    h = hashlib.sha256()
    files = sources(csrc, with_cuda)
    files += sorted(glob.glob(os.path.join(csrc, "**", "*.h"), recursive=True))
    files += sorted(glob.glob(os.path.join(csrc, "**", "*.cuh"), recursive=True))
    files.append(os.path.abspath(__file__))
    for f in files:
        h.update(os.path.relpath(f, csrc).encode() if f.startswith(csrc) else os.path.basename(f).encode())
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:12]


def build_meta(p: dict, mode: str, flags: dict) -> dict:
    """The metadata file written next to the compiled extension."""
    return {
        "schema": 1,
        "mode": mode,
        "build_time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "torch_version": p["torch_version"],
        "torch_cuda": p["torch_cuda"],
        "python": platform.python_version(),
        "python_tag": f"cp{sys.version_info[0]}{sys.version_info[1]}",
        "machine": platform.machine(),
        "cuda": {
            "compiled": p["with_cuda"],
            "reason": p["cuda_reason"],
            "notes": p["notes"],
            "cuda_home": p["cuda_home"],
            "nvcc": p["nvcc"],
            "nvcc_version": p["nvcc_version"],
            "nvcc_source": p["nvcc_source"],
            "torch_cuda_arch_list": p["torch_cuda_arch_list"],
            "arch_list_source": p["arch_list_source"],
            "gencode": p["gencode"],
        },
        "flags": {"cxx": flags["cxx"], "nvcc": flags["nvcc"], "ldflags": flags["ldflags"]},
        "env": {k: os.environ.get(k) for k in ("CXX", "CC", "MAX_JOBS", "TORCH_CUDA_ARCH_LIST",
                                                 "CUDA_HOME", "CUDA_PATH", "CUDNN_HOME")},
    }


def write_meta(path: str, meta: dict) -> None:
    """Write atomically (atomic_write: a fresh exclusive temp file in the same folder, then rename),
    so a file or symlink already at a fixed `.tmp` name is never written through."""
    from torch_envcheck._util.atomic_write import write_atomic  # noqa: PLC0415
    write_atomic(path, json.dumps(meta, indent=2, sort_keys=True), 0o644, prefix=os.path.basename(path) + ".")
