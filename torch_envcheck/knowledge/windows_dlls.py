"""How torch and TensorFlow find their CUDA DLLs on native Windows (data/windows_dll_search.json):
whether PATH's order matters to a framework of a given release, and which DLL names a CUDA/cuDNN
version loads, so that two frameworks sharing one name (the first module loaded wins) can be told
from two that merely use different CUDA generations side by side."""

from __future__ import annotations

from torch_envcheck._util.versions import major_minor, version_tuple
from torch_envcheck.knowledge.tables import load_table

TABLE = "windows_dll_search.json"


def table() -> dict:
    return load_table(TABLE)


def _row(framework: str, version) -> dict | None:
    v = major_minor(version)
    for row in table().get("frameworks", []):
        if row.get("framework") != framework:
            continue
        lo, hi = major_minor(row.get("from")), major_minor(row.get("until"))
        if v is None:
            continue
        if (lo is None or v >= lo) and (hi is None or v <= hi):
            return row
    return None


def path_searched(framework: str, version) -> bool | None:
    """Whether `framework` at `version` finds its CUDA DLLs through PATH on native Windows (torch:
    no, since 1.5.1; TensorFlow <= 2.10: yes); None when the table does not know the release."""
    row = _row(framework, version)
    return None if row is None else bool(row.get("path_searched"))


def how(framework: str, version) -> str | None:
    row = _row(framework, version)
    return row.get("how") if row else None


def sources(framework: str, version) -> list[dict]:
    row = _row(framework, version) or {}
    src = table().get("sources", {})
    return [src[k] for k in row.get("sources", []) if k in src]


def source_text(framework: str, version) -> str:
    """The row's sources in one line: 'repo path@commit' or the URL."""
    parts = []
    for s in sources(framework, version):
        parts.append(f"{s['repo']} {s['path']}@{s['commit'][:10]}" if s.get("repo") else s.get("url", ""))
    return "; ".join(p for p in parts if p)


def _name(kind: str, cuda=None, cudnn=None) -> str | None:
    cm, dm = version_tuple(cuda) or (), version_tuple(cudnn) or ()
    for rule in table().get("dll_names", {}).get(kind, []):
        if kind == "cudnn":
            return rule["name"].format(cudnn_major=dm[0]) if dm else None
        if not cm:
            return None
        major, minor = cm[0], cm[1] if len(cm) > 1 else 0
        if ("major" in rule and major != rule["major"]) or ("until_major" in rule and major > rule["until_major"]) \
                or ("from_major" in rule and major < rule["from_major"]):
            continue
        return rule["name"].format(major=major, minor=minor)
    return None


def dll_names(cuda=None, cudnn=None) -> dict:
    """{'cudart': 'cudart64_110.dll', 'cublas': 'cublas64_11.dll', 'cudnn': 'cudnn64_8.dll'} for a
    CUDA and a cuDNN version (a kind is left out when its version is unknown)."""
    out = {}
    for kind in ("cudart", "cublas"):
        n = _name(kind, cuda=cuda)
        if n:
            out[kind] = n
    n = _name("cudnn", cudnn=cudnn)
    if n:
        out["cudnn"] = n
    return out


def shared_names(a: dict, b: dict) -> list[str]:
    """The DLL names two frameworks' sets (dll_names()) have in common: in one process the module
    loaded first serves both."""
    return sorted({v.lower() for v in a.values()} & {v.lower() for v in b.values()})
