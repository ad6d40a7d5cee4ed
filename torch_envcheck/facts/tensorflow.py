"""Accessors for the TensorFlow and file-ownership facts (snapshot sections `tensorflow` and
`file_owners`).  Like core.py: every field may be missing, null or of the wrong type, and every
list is bounded, so the rules read these facts only through here.  A recorded object or a result
derived here is a frozen record of records.py, read by attribute; a name -> version map is read-only;
tf(), child(), log() and file_owners() hand a whole section (or sub-object) to the accessors here only
(tests/unit/contract/test_facts_only.py fails on their use elsewhere)."""

from __future__ import annotations

import re
import types
from collections.abc import Mapping

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.knowledge import tensorflow as tk
from torch_envcheck.facts import core as F
from torch_envcheck.facts.records import (
    AndCudaWheel, DependencyRequirement, DlopenFailure, LibraryFile, OwnedFile, OwnerPair, OwnersSummary, TfGpu,
    TfTestedBuild, WindowsCudaDir)

MAX_ITEMS = 50  # no list read from a snapshot is used beyond this


def tf(s) -> dict:
    return F.as_dict(F.dig(s, "tensorflow"))


def tf_recorded(s) -> bool:
    """The snapshot says whether TensorFlow is installed (a snapshot from before the probe does not)."""
    return isinstance(tf(s).get("installed"), bool)


def tf_installed(s) -> bool:
    return tf(s).get("installed") is True and tf_version(s) is not None


def tf_version(s) -> str | None:
    return F.text(tf(s).get("version"))


def tf_release(s) -> str | None:
    return tk.release_key(tf_version(s))


def tf_distribution(s) -> str:
    return F.text(tf(s).get("distribution")) or "tensorflow"


def tf_distributions(s) -> Mapping[str, str]:
    """Installed TensorFlow/Keras distributions: name -> version (text values only), read-only."""
    return types.MappingProxyType({k: v for k, v in F.as_dict(tf(s).get("distributions")).items()
                                   if isinstance(k, str) and isinstance(v, str)})


def tf_label(s) -> str:
    return f"{tf_distribution(s)} {tf_version(s) or '?'}"


def tf_os(s) -> str:
    return tk.os_column(F.system(s), F.wsl(s))


def is_native_windows(s) -> bool:
    return F.system(s) == "Windows"


def child(s) -> dict:
    return F.as_dict(tf(s).get("child"))


def child_ran(s) -> bool:
    return child(s).get("ran") is True


def child_error(s) -> str | None:
    return F.text(child(s).get("error"))


def child_timed_out(s) -> bool:
    return child(s).get("timed_out") is True


def child_timeout(s) -> float | None:
    v = child(s).get("timeout")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def child_returncode(s) -> int | None:
    v = child(s).get("returncode")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def child_skipped(s) -> str | None:
    return F.text(child(s).get("skipped"))


def import_seconds(s) -> float | None:
    v = tf(s).get("import_seconds")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def owners_summary(s) -> OwnersSummary:
    """OwnersSummary(distributions, pairs_total, identical: int | None, present) of the file_owners probe."""
    fo = file_owners(s)
    def num(k):
        v = fo.get(k)
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    return OwnersSummary(num("distributions"), num("pairs_total"), num("shared_files_identical"), bool(fo))


def importable(s) -> bool | None:
    """True/False when the child imported TensorFlow (or failed to); None when it did not run."""
    v = tf(s).get("importable")
    if not isinstance(v, bool):
        return None
    if v is False and import_error(s):
        return False  # also when the metadata says installed but no `tensorflow` module is there
    return v if child_ran(s) and not child_error(s) else None


def import_error(s) -> str | None:
    return F.text(tf(s).get("import_error"))


def build_info(s) -> dict:
    """tf.sysconfig.get_build_info() as recorded: read by the accessors below, and shown whole in a
    finding's details (never judged there)."""
    return F.as_dict(tf(s).get("build_info"))


def recorded_cuda_build(s) -> bool | None:
    """get_build_info()'s is_cuda_build, as the child recorded it (None: not recorded)."""
    v = build_info(s).get("is_cuda_build")
    return v if isinstance(v, bool) else None


def build_cuda(s) -> str | None:
    """get_build_info()'s cuda_version as a dotted version (decoded on Windows: '64_112' = 11.2)."""
    return tk.decode_build_version(build_info(s).get("cuda_version"), "cuda")


def is_cuda_build(s) -> bool | None:
    """From get_build_info() when the child ran; else from the distribution: tensorflow-cpu, the
    macOS builds and native-Windows releases after 2.10 have no CUDA; `tensorflow` on Linux x86_64
    is a CUDA build.  None when unknown."""
    v = recorded_cuda_build(s)
    if v is not None:
        return v
    dist = tf_distribution(s)
    if dist in ("tensorflow-cpu", "tensorflow-macos", "tensorflow-intel", "tensorflow-cpu-aws", "tf-nightly-cpu",
                "tensorflow-aarch64", "tensorflow-rocm") or F.is_macos(s):
        return False
    if is_native_windows(s):
        newer = tk.at_least(tf_version(s), "2.11")
        return None if newer is None else (not newer if dist in ("tensorflow", "tensorflow-gpu") else False)
    if dist in ("tensorflow", "tensorflow-gpu", "tf-nightly") and F.machine(s) in ("x86_64", "AMD64"):
        return True
    return None


def tested(s) -> TfTestedBuild | None:
    """TensorFlow's tested build configuration for this release and OS (data/tensorflow_builds.json)."""
    try:
        row = tk.build(tf_release(s), tf_os(s))
    except kb.KnowledgeError:
        return None
    return TfTestedBuild.of_row(row) if row else None


def tf_cuda(s) -> str | None:
    """The CUDA TF was built with: get_build_info()'s cuda_version (decoded on Windows), else the table's."""
    v = build_cuda(s)
    if v:
        return v
    if is_cuda_build(s):
        return F.text(getattr(tested(s), "cuda", None))
    return None


def tf_cudnn(s) -> str | None:
    v = tk.decode_build_version(build_info(s).get("cudnn_version"), "cudnn")
    if v:
        return v
    if is_cuda_build(s):
        return F.text(getattr(tested(s), "cudnn", None))
    return None


def tf_arch_list(s) -> list[str]:
    """cuda_compute_capabilities: ['sm_60', ..., 'compute_90'] (TF 2.x) or ['3.5', '7.0'] (older)."""
    raw = build_info(s).get("cuda_compute_capabilities")
    if isinstance(raw, str):
        raw = re.split(r"[,\s]+", raw)
    out = []
    for item in F.as_list(raw)[:MAX_ITEMS]:
        t = str(item).strip()
        m = re.fullmatch(r"(\d+)\.(\d+)", t)
        out.append(f"sm_{m.group(1)}{m.group(2)}" if m else t)
    return [a for a in out if a]


def tf_gpus(s) -> list[TfGpu]:
    return [TfGpu.of(g) for g in F.as_list(tf(s).get("gpus"))[:MAX_ITEMS] if isinstance(g, dict)]


def log(s) -> dict:
    return F.as_dict(tf(s).get("log"))


def dlopen_failures(s) -> list[DlopenFailure]:
    """Each library TF logged it could not load, decoded (tf_knowledge.describe_library)."""
    out, seen = [], set()
    for item in F.as_list(log(s).get("dlopen_failures"))[:MAX_ITEMS]:
        lib = F.text(F.as_dict(item).get("library")) if isinstance(item, dict) else F.text(item)
        if lib and lib not in seen:
            seen.add(lib)
            d = tk.describe_library(lib)
            out.append(DlopenFailure(d.get("file"), d.get("kind"), d.get("version"), d.get("text"), d.get("note"),
                                     F.text(F.as_dict(item).get("dlerror"))))
    # the runtime and cuDNN first: they name the CUDA and cuDNN versions that are missing
    order = {"cudart": 0, "cudnn": 1, "cublas": 2}
    return sorted(out, key=lambda f: order.get(f.kind, 3))


def log_lines(s) -> list[str]:
    return [ln for ln in F.as_list(log(s).get("lines"))[:MAX_ITEMS] if isinstance(ln, str)]


def log_flag(s, key) -> bool:
    return log(s).get(key) is True


def and_cuda(s) -> list[AndCudaWheel]:
    """TF's `and-cuda` extra: AndCudaWheel(name, specifier, installed, satisfied) (satisfied None: unknown)."""
    out = []
    for r in F.as_list(tf(s).get("and_cuda"))[:MAX_ITEMS]:
        if not isinstance(r, dict) or not F.text(r.get("name")):
            continue
        installed = F.text(r.get("installed"))
        out.append(AndCudaWheel(r["name"], F.text(r.get("specifier")) or "", installed,
                                satisfies(installed, F.text(r.get("specifier")) or "") if installed else False))
    return out


def has_and_cuda_extra(s) -> bool | None:
    extras = F.as_list(tf(s).get("extras"))
    if extras:
        return "and-cuda" in extras
    newer = tk.at_least(tf_version(s), tk.and_cuda_since())
    return newer


def satisfies(version, specifier: str) -> bool | None:
    """The one specifier check (_util/versions.py)."""
    return versions.satisfies(version, specifier or "")


def path_libs(s, kind: str) -> list[LibraryFile]:
    """CUDA/cuDNN libraries of one kind found in LD_LIBRARY_PATH/PATH (the libraries probe)."""
    out = []
    for e in F.as_list(F.dig(s, "libraries", "entries"))[:MAX_ITEMS]:
        for lib in F.as_list(F.as_dict(e).get("libs"))[:500]:
            if isinstance(lib, dict) and lib.get("kind") == kind:
                out.append(LibraryFile.of(lib))
    return out


def path_has(s, kind: str, major: int | None) -> bool:
    """Whether a library of this kind and CUDA/cuDNN major is on the library path."""
    return major is not None and any(versions.major(lib.version) == major for lib in path_libs(s, kind))


def requires(s, dep: str) -> list[DependencyRequirement]:
    """What each framework's distributions require of `dep` (numpy, protobuf), normalised:
    DependencyRequirement(framework, distribution, version, specifier, applies), text values '' when absent."""
    out = []
    for r in F.as_list(F.dig(s, "tensorflow", "requires", dep))[:MAX_ITEMS]:
        if not isinstance(r, dict) or not F.text(r.get("distribution")):
            continue
        applies = r.get("applies")
        out.append(DependencyRequirement(F.text(r.get("framework")) or "", r["distribution"],
                                         F.text(r.get("version")) or "", F.text(r.get("specifier")) or "",
                                         applies if isinstance(applies, bool) else None))
    return out


def dependency_version(s, dep: str) -> str | None:
    return F.text(F.dig(s, "tensorflow", "dependency_versions", dep))


def file_owners(s) -> dict:
    return F.as_dict(F.dig(s, "file_owners"))


def owner_pairs(s) -> list[OwnerPair]:
    out = []
    for p in F.as_list(file_owners(s).get("pairs"))[:MAX_ITEMS]:
        if not isinstance(p, dict):
            continue
        dists = [d for d in F.as_list(p.get("distributions"))[:2] if isinstance(d, str)]
        if len(dists) != 2:
            continue
        n = p.get("files") if isinstance(p.get("files"), int) else 0
        differing = p.get("differing") if isinstance(p.get("differing"), int) else n
        examples = tuple(OwnedFile.of(e) for e in F.as_list(p.get("examples"))[:5]
                         if isinstance(e, dict) and F.text(e.get("path")))
        out.append(OwnerPair(tuple(dists), n, differing, examples))
    return out


def gpu_state(s) -> str:
    """'yes' (an NVIDIA GPU is known), 'no' (the PCI bus was read and has none, no driver) or 'unknown'."""
    if F.has_nvidia_gpu(s) or tf_gpus(s):
        return "yes"
    if F.pci_gpus(s) == [] and F.driver_present(s) is not True:
        return "no"
    return "unknown"


_TOOLKIT_DIR = re.compile(r"[\\/]CUDA[\\/]v(\d+\.\d+)(?:[\\/]|$)", re.IGNORECASE)


def windows_path_cuda_dirs(s) -> list[WindowsCudaDir]:
    """Native Windows: the PATH folders (in PATH order) holding a CUDA runtime or cuDNN DLL, each
    {'position', 'dir', 'cuda', 'cudnn', 'files'}: 'cuda' from the toolkit folder's name
    (...\\CUDA\\v11.0\\bin) where it has one, since every CUDA 11.x runtime is named cudart64_110.dll;
    else from the DLL's name.  [] elsewhere."""
    if F.system(s) != "Windows" or F.library_path_var(s) != "PATH":
        return []
    out = []
    for i, e in enumerate(F.library_entries(s)[:MAX_ITEMS]):
        rt = [lib for lib in e.libs if lib.kind == "cudart"]
        dnn = [lib for lib in e.libs if lib.kind == "cudnn"]
        if not rt and not dnn:
            continue
        m = _TOOLKIT_DIR.search(e.dir)
        cuda = m.group(1) if m else (rt[0].version if rt else None)
        out.append(WindowsCudaDir(i, e.dir, cuda, dnn[0].version if dnn else None,
                                  tuple(lib.file for lib in rt + dnn if lib.file)[:6]))
    return out


def uses_and_cuda(s) -> bool:
    """TensorFlow's `and-cuda` extra is in use: at least one of its nvidia wheels is installed (pip
    records no extras, so this is the evidence that the user asked for it)."""
    return any(r.installed for r in and_cuda(s))
