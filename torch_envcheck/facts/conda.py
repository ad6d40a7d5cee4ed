"""The facts layer's conda block: accessors for the `conda` snapshot section (probes/conda.py,
declared in contract.py), built on core.py's primitives.  The conda rules, the conda headline,
`pin --conda`, `advise` and doctor/areas.py read conda facts only through these.  Every field may be
missing, null or of the wrong type in a saved snapshot; these return safe values and bound what
they hand on.  A recorded object (a package's record, a pip distribution, a PATH entry) is handed out
as a frozen record of records.py, read by attribute; a name -> record map is read-only."""

from __future__ import annotations

import re
import types
from collections.abc import Mapping

from torch_envcheck._util.versions import major_minor
from torch_envcheck.facts.core import as_dict, as_list, dig, text
from torch_envcheck.facts.memo import per_report
from torch_envcheck.facts.records import CondaPackage, CondaRequest, CondaSearchPathEntry, PipDist, PytorchFlavour

MAX_ITEMS = 5000


def conda(s) -> dict:
    return as_dict(dig(s, "conda"))


def in_conda_env(s) -> bool:
    """The snapshot was taken inside a conda env (its conda facts, or the platform probe's env name)."""
    return bool(text(conda(s).get("prefix"))) or bool(text(dig(s, "platform", "python", "conda_env")))


def has_conda_facts(s) -> bool:
    return bool(text(conda(s).get("prefix")))


def prefix(s) -> str | None:
    return text(conda(s).get("prefix")) or text(dig(s, "platform", "python", "conda_prefix"))


def env_name(s) -> str | None:
    return text(conda(s).get("env_name")) or text(dig(s, "platform", "python", "conda_env"))


def manager(s) -> str:
    """The program to put in fix commands: the one that last changed the env (conda, mamba,
    micromamba), else conda."""
    m = conda(s).get("manager")
    return m if m in ("conda", "mamba", "micromamba") else "conda"


def manager_recorded(s) -> bool:
    """Whether the probe recorded which program manages the env (else conda-meta alone was read)."""
    return bool(conda(s).get("manager"))


def records(s) -> int | None:
    v = conda(s).get("records")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@per_report
def packages(s) -> Mapping[str, CondaPackage]:
    """{name: CondaPackage} of the CUDA-relevant conda packages (conda.packages[]: entries with a
    name and a version; the first of a name counts), read-only."""
    out = {}
    for raw in as_list(conda(s).get("packages"))[:MAX_ITEMS]:
        rec = CondaPackage.of(raw)
        if rec is not None and text(rec.name) and text(rec.version):
            out.setdefault(rec.name, rec)
    return types.MappingProxyType(out)


def package(s, name: str) -> CondaPackage | None:
    return packages(s).get(name)


def version(rec: CondaPackage | PipDist | None) -> str | None:
    return text(getattr(rec, "version", None))


def build(rec: CondaPackage | None) -> str:
    return text(getattr(rec, "build", None)) or ""


def channel(rec: CondaPackage | None) -> str | None:
    return text(getattr(rec, "channel", None))


def depends(rec: CondaPackage | None) -> list[str]:
    return list(getattr(rec, "depends", None) or ())[:500]


def runtime_files(item: CondaPackage | PipDist | None) -> list[str]:
    return list(getattr(item, "runtime_files", None) or ())[:100]


def pip_dists(s) -> list[PipDist]:
    """Distributions in the env's site-packages that conda did not install (each with a name and a
    version)."""
    return [d for d in (PipDist.of(x) for x in as_list(conda(s).get("pip"))[:MAX_ITEMS])
            if d is not None and text(d.name) and text(d.version)]


def pip_dist(s, name: str) -> PipDist | None:
    want = re.sub(r"[-_.]+", "-", name).lower()
    return next((d for d in pip_dists(s) if re.sub(r"[-_.]+", "-", d.name).lower() == want), None)


def requested(s) -> Mapping[str, CondaRequest]:
    """{name: CondaRequest(name, spec, version, build)} the user asked conda for (conda-meta/history),
    read-only."""
    out = {}
    for raw in as_list(conda(s).get("requested"))[:MAX_ITEMS]:
        item = CondaRequest.of(raw)
        if item is not None and text(item.name):
            out.setdefault(item.name, item)
    return types.MappingProxyType(out)


def errors(s) -> list[str]:
    return [e for e in as_list(conda(s).get("errors"))[:100] if isinstance(e, str) and e.strip()]


def search_path(s) -> list[CondaSearchPathEntry]:
    """Windows: the PATH entries that are the env's Library\\bin or hold a CUDA runtime, in order (each
    with its index and folder)."""
    return [e for e in (CondaSearchPathEntry.of(x) for x in as_list(conda(s).get("search_path"))[:1000])
            if e is not None and e.index is not None and text(e.dir)]


# ---------------------------------------------------------------- what a build string says

_PYTORCH_CHANNEL_BUILD = re.compile(r"^py\d+\.\d+_(?:cuda(\d+\.\d+)(?:\.\d+)*_cudnn([\d.]+)_|cpu_)\d+$")
_FORGE_CUDA = re.compile(r"^cuda(\d+)(\d)_")


def pytorch_flavour(s) -> PytorchFlavour | None:
    """What kind of build conda's pytorch is: PytorchFlavour(kind: "cpu"|"cuda"|None, cuda: "12.1"|None,
    cudnn, why) from its build string (pytorch channel: py3.11_cuda12.1_cudnn8.9.2_0 /
    py3.11_cpu_0; conda-forge: cuda120_py311h..._300 / cpu_mkl_py311h..._100), the pytorch-mutex
    variant and the cpuonly package.  None without a conda pytorch."""
    rec = package(s, "pytorch")
    if rec is None:
        return None
    b = build(rec)
    m = _PYTORCH_CHANNEL_BUILD.match(b)
    if m and m.group(1):
        return PytorchFlavour("cuda", m.group(1), m.group(2), f"build {b}")
    if (m and not m.group(1)) or b.startswith("cpu_") or "_cpu_" in b:
        return PytorchFlavour("cpu", None, None, f"build {b}")
    f = _FORGE_CUDA.match(b)
    if f:
        return PytorchFlavour("cuda", f"{f.group(1)}.{f.group(2)}", None, f"build {b}")
    mutex = package(s, "pytorch-mutex")
    if mutex and build(mutex) in ("cpu", "cuda"):
        return PytorchFlavour(build(mutex), None, None, f"pytorch-mutex {build(mutex)}")
    for dep in depends(rec):
        if dep.replace(" ", "").startswith("pytorch-mutex1.0") and dep.split()[-1] in ("cpu", "cuda"):
            return PytorchFlavour(dep.split()[-1], None, None, f"depends on {dep}")
    return PytorchFlavour(None, None, None, f"build {b}")


def depends_range(rec, name: str) -> str | None:
    """The major.minor a record's `depends` pins `name` to: 'cudatoolkit >=11.3,<11.4' -> '11.3',
    'pytorch-cuda 12.1.*' -> '12.1'; None when it does not pin one minor."""
    for dep in depends(rec):
        parts = dep.split(None, 1)
        if not parts or parts[0] != name or len(parts) < 2:
            continue
        spec = parts[1].split()[0]
        m = re.match(r"^>=(\d+)\.(\d+)(?:\.\d+)*,<(\d+)\.(\d+)$", spec)
        if m and (int(m.group(3)), int(m.group(4))) in ((int(m.group(1)), int(m.group(2)) + 1),):
            return f"{m.group(1)}.{m.group(2)}"
        m = re.match(r"^=?=?(\d+)\.(\d+)(?:\.\*)?$", spec)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def mm(version) -> tuple[int, int] | None:
    """(major, minor) of a conda version (the one parser: _util/versions.py)."""
    return major_minor(version) if isinstance(version, str) else None


def cuda_toolkit(s) -> tuple[str, str] | None:
    """The CUDA runtime conda put in the env: (package, major.minor) from cudatoolkit, else
    cuda-runtime / cuda-cudart / cuda-toolkit / pytorch-cuda / cuda-version."""
    for name in ("cudatoolkit", "cuda-runtime", "cuda-cudart", "cuda-toolkit", "pytorch-cuda", "cuda-version"):
        v = mm(version(package(s, name)))
        if v:
            return name, f"{v[0]}.{v[1]}"
    return None


def tensorflow(s) -> tuple[str, str] | None:
    """(where, version) of the TensorFlow in the env: conda's tensorflow/tensorflow-gpu/-base, else a
    pip-installed tensorflow / tensorflow-gpu / tensorflow-cpu."""
    for name in ("tensorflow", "tensorflow-gpu", "tensorflow-base"):
        rec = package(s, name)
        if rec:
            return f"conda's {name}", version(rec)
    for name in ("tensorflow", "tensorflow-gpu", "tensorflow-intel", "tensorflow-cpu"):
        d = pip_dist(s, name)
        if d:
            return f"pip's {d.name}", d.version
    return None
