"""The facts layer's conda block: accessors for the `conda` snapshot section (probes/conda.py,
declared in contract.py), built on core.py's primitives.  The conda rules, the conda headline,
`pin --conda`, `advise` and doctor/areas.py read conda facts only through these.  Every field may be
missing, null or of the wrong type in a saved snapshot; these return safe values and bound what
they hand on."""

from __future__ import annotations

import re

from torch_envcheck._util.versions import major_minor
from torch_envcheck.facts.core import as_dict, as_list, dig, text

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


def packages(s) -> dict:
    """{name: record facts} of the CUDA-relevant conda packages (conda.packages[]: entries with a
    name and a version; the first of a name counts)."""
    out = {}
    for rec in as_list(conda(s).get("packages"))[:MAX_ITEMS]:
        if isinstance(rec, dict) and text(rec.get("name")) and text(rec.get("version")):
            out.setdefault(rec["name"], rec)
    return out


def package(s, name: str) -> dict | None:
    return packages(s).get(name)


def version(rec) -> str | None:
    return text(as_dict(rec).get("version"))


def build(rec) -> str:
    return text(as_dict(rec).get("build")) or ""


def channel(rec) -> str | None:
    return text(as_dict(rec).get("channel"))


def depends(rec) -> list[str]:
    return [d for d in as_list(as_dict(rec).get("depends"))[:500] if isinstance(d, str)]


def runtime_files(item) -> list[str]:
    return [f for f in as_list(as_dict(item).get("runtime_files"))[:100] if isinstance(f, str)]


def pip_dists(s) -> list[dict]:
    """Distributions in the env's site-packages that conda did not install."""
    return [d for d in as_list(conda(s).get("pip"))[:MAX_ITEMS]
            if isinstance(d, dict) and text(d.get("name")) and text(d.get("version"))]


def pip_dist(s, name: str) -> dict | None:
    want = re.sub(r"[-_.]+", "-", name).lower()
    return next((d for d in pip_dists(s) if re.sub(r"[-_.]+", "-", d["name"]).lower() == want), None)


def requested(s) -> dict:
    """{name: {"name", "spec", "version", "build"}} the user asked conda for (conda-meta/history)."""
    out = {}
    for item in as_list(conda(s).get("requested"))[:MAX_ITEMS]:
        if isinstance(item, dict) and text(item.get("name")):
            out.setdefault(item["name"], item)
    return out


def errors(s) -> list[str]:
    return [e for e in as_list(conda(s).get("errors"))[:100] if isinstance(e, str) and e.strip()]


def search_path(s) -> list[dict]:
    """Windows: the PATH entries that are the env's Library\\bin or hold a CUDA runtime, in order."""
    return [e for e in as_list(conda(s).get("search_path"))[:1000]
            if isinstance(e, dict) and isinstance(e.get("index"), int) and text(e.get("dir"))]


# ---------------------------------------------------------------- what a build string says

_PYTORCH_CHANNEL_BUILD = re.compile(r"^py\d+\.\d+_(?:cuda(\d+\.\d+)(?:\.\d+)*_cudnn([\d.]+)_|cpu_)\d+$")
_FORGE_CUDA = re.compile(r"^cuda(\d+)(\d)_")


def pytorch_flavour(s) -> dict | None:
    """What kind of build conda's pytorch is: {"kind": "cpu"|"cuda"|None, "cuda": "12.1"|None,
    "cudnn", "why"} from its build string (pytorch channel: py3.11_cuda12.1_cudnn8.9.2_0 /
    py3.11_cpu_0; conda-forge: cuda120_py311h..._300 / cpu_mkl_py311h..._100), the pytorch-mutex
    variant and the cpuonly package.  None without a conda pytorch."""
    rec = package(s, "pytorch")
    if rec is None:
        return None
    b = build(rec)
    m = _PYTORCH_CHANNEL_BUILD.match(b)
    if m and m.group(1):
        return {"kind": "cuda", "cuda": m.group(1), "cudnn": m.group(2), "why": f"build {b}"}
    if (m and not m.group(1)) or b.startswith("cpu_") or "_cpu_" in b:
        return {"kind": "cpu", "cuda": None, "cudnn": None, "why": f"build {b}"}
    f = _FORGE_CUDA.match(b)
    if f:
        return {"kind": "cuda", "cuda": f"{f.group(1)}.{f.group(2)}", "cudnn": None, "why": f"build {b}"}
    mutex = package(s, "pytorch-mutex")
    if mutex and build(mutex) in ("cpu", "cuda"):
        return {"kind": build(mutex), "cuda": None, "cudnn": None, "why": f"pytorch-mutex {build(mutex)}"}
    for dep in depends(rec):
        if dep.replace(" ", "").startswith("pytorch-mutex1.0") and dep.split()[-1] in ("cpu", "cuda"):
            return {"kind": dep.split()[-1], "cuda": None, "cudnn": None, "why": f"depends on {dep}"}
    return {"kind": None, "cuda": None, "cudnn": None, "why": f"build {b}"}


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
            return f"pip's {d['name']}", d["version"]
    return None
