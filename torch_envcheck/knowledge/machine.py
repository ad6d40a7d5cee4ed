"""Knowledge about the machine under the frameworks: which host compilers each nvcc accepts
(data/host_compilers.json) and which installed library versions have a published silent-corruption
or crash bug (data/advisories.json).  Every row names its public source."""

from __future__ import annotations

import dataclasses

import re

from torch_envcheck._util import versions
from torch_envcheck.knowledge.tables import KnowledgeError, load_table

HOST_COMPILERS_FILE = "host_compilers.json"
ADVISORIES_FILE = "advisories.json"


def _table(name: str) -> dict:
    t = load_table(name)
    if not isinstance(t, dict):
        raise KnowledgeError(f"{name} is not a table")
    return t


def host_compiler_row(cuda) -> dict | None:
    """The row for nvcc's CUDA major.minor ('12.4'), None when the table does not know it."""
    mm = versions.major_minor(cuda)
    if mm is None:
        return None
    for row in _table(HOST_COMPILERS_FILE).get("rows") or []:
        if isinstance(row, dict) and versions.major_minor(row.get("cuda")) == mm:
            return row
    return None


def newest_host_compiler_cuda() -> str | None:
    rows = [r for r in _table(HOST_COMPILERS_FILE).get("rows") or [] if isinstance(r, dict)]
    keyed = [(versions.major_minor(r.get("cuda")), r.get("cuda")) for r in rows]
    keyed = [k for k in keyed if k[0]]
    return max(keyed)[1] if keyed else None


# `gcc --version` / `c++ --version` first line: "c++ (Ubuntu 14.2.0-4ubuntu2) 14.2.0", "g++-13 (GCC) 13.3.1 20240611
# (Red Hat 13.3.1-2)"; clang's: "Ubuntu clang version 18.1.3 (1ubuntu1)".  The version is the first X.Y.Z after
# the parenthesised package note.
_GCC = re.compile(r"^(?:\S*/)?(?:gcc|g\+\+|c\+\+|cc)(?:-\d+)?\s+(?:\([^)]*\)\s+)?(\d+)\.(\d+)", re.I)
_CLANG = re.compile(r"clang version\s+(\d+)\.(\d+)", re.I)


def compiler_identity(version_line) -> tuple[str, int] | None:
    """('gcc', 13) / ('clang', 18) from a compiler's `--version` first line, None when unreadable."""
    if not isinstance(version_line, str):
        return None
    m = _CLANG.search(version_line)
    if m:
        return "clang", int(m.group(1))
    m = _GCC.match(version_line.strip())
    if m:
        return "gcc", int(m.group(1))
    return None


def host_compiler_fits(cuda, version_line) -> dict | None:
    """{'compiler', 'major', 'range': [lo, hi], 'fits': bool, 'source', 'cuda'} for a compiler and an
    nvcc; None when either is unknown to the table."""
    ident = compiler_identity(version_line)
    row = host_compiler_row(cuda)
    if ident is None or row is None:
        return None
    kind, major = ident
    rng = row.get(kind)
    if not (isinstance(rng, list) and len(rng) == 2):
        return None
    sources = _table(HOST_COMPILERS_FILE).get("sources") or {}
    return {"compiler": kind, "major": major, "range": rng, "fits": rng[0] <= major <= rng[1],
            "source": sources.get(row.get("source"), row.get("source")), "cuda": row.get("cuda"),
            "guide": sources.get("cuda_install_guide")}


def newest_cuda_for_compiler(kind: str, major: int) -> str | None:
    """The newest CUDA in the table whose nvcc accepts this compiler major."""
    best = None
    for row in _table(HOST_COMPILERS_FILE).get("rows") or []:
        rng = row.get(kind) if isinstance(row, dict) else None
        if isinstance(rng, list) and len(rng) == 2 and rng[0] <= major <= rng[1]:
            mm = versions.major_minor(row.get("cuda"))
            if mm and (best is None or mm > best[0]):
                best = (mm, row.get("cuda"))
    return best[1] if best else None


def advisories() -> list[dict]:
    t = _table(ADVISORIES_FILE)
    sources = t.get("sources") or {}
    out = []
    for a in t.get("advisories") or []:
        if isinstance(a, dict) and a.get("package") and a.get("affected"):
            out.append({**a, "source_text": sources.get(a.get("source"), a.get("source"))})
    return out


def _on_capability(adv: dict, capabilities) -> bool | None:
    caps = adv.get("capabilities")
    if not caps:
        return True
    if not capabilities:
        return None  # the GPUs are unknown: the bug may apply
    return any(str(c) == str(w) or str(c).split(".")[0] == str(w) for c in capabilities for w in caps)


@dataclasses.dataclass(frozen=True)
class Advisory:
    """One published bug that the installed version has (data/advisories.json), as rules read it."""
    id: str
    package: str
    affected: str
    installed: str
    kind: str
    summary: str
    source_text: str
    fixed: str | None = None
    severity: str | None = None
    capabilities: tuple = ()
    on_gpu: bool | None = None   # True: a GPU it happens on; False: none of them; None: GPUs unknown


def advisories_for(installed: dict, torch_cuda=None, capabilities=()) -> list[Advisory]:
    """The advisories whose package version is installed.  `installed` maps normalised distribution
    names to versions; 'torch-cuda' is matched against torch_cuda."""
    out = []
    for adv in advisories():
        name = adv["package"]
        have = torch_cuda if name == "torch-cuda" else installed.get(name)
        if not have or versions.satisfies(have, adv["affected"]) is not True:
            continue
        fields = {f.name for f in dataclasses.fields(Advisory)} - {"installed", "on_gpu", "capabilities"}
        row = {k: v for k, v in adv.items() if k in fields}
        out.append(Advisory(**{"kind": "bug", "summary": "", "source_text": "", **row, "id": str(row.get("id")),
                               "installed": have, "capabilities": tuple(adv.get("capabilities") or ()),
                               "on_gpu": _on_capability(adv, capabilities)}))
    return out
