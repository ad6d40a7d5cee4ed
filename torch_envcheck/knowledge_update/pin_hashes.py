"""`pin --hashes`: the pinned requirements with the hashes their index publishes (pip's hash-checking
mode, `pip install --require-hashes -r`), each line gated by a marker for the platform it was pinned
on (a +cu130 wheel exists for Linux and Windows, never for macOS).

The hashes come from the index's own project page (knowledge_update/index.py: PEP 691 JSON or PEP 503
`#sha256=` links, bounded reads): download.pytorch.org/whl/<tag> for a build with a local label, PyPI's
simple index for the rest.  Nothing is downloaded and no wheel is hashed here: a hash is what the
index says.  Where the index cannot be read (offline) the line keeps no hash and a comment says the
hashes were not checked; the caller's exit status says so too.
"""

from __future__ import annotations

import re

from torch_envcheck.advice.targets import TARGETS, own
from torch_envcheck.facts import core as F

PYTORCH_BASE = "https://download.pytorch.org/whl/"
PYPI_SIMPLE = "https://pypi.org/simple/"
MAX_HASHES = 64   # per requirement: a release has a few dozen wheels at most
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9_,.-]+\])?)==([0-9][A-Za-z0-9.!+_-]*)$")


def marker_for(s) -> str | None:
    """The PEP 508 marker of the snapshot's platform, or None when the platform is unknown."""
    name = own(F.system(s), F.machine(s))
    return TARGETS[name].marker.replace("'", '"') if name else None


def _platform_key(s) -> str | None:
    name = own(F.system(s), F.machine(s))
    return {"linux": "linux_x86_64", "linux-aarch64": "linux_aarch64", "windows": "win_amd64",
            "macos": "macos_arm64"}.get(name) if name else None


def _wanted(files, version: str, local: str | None, py: str | None, plat: str | None) -> list:
    exact = [f for f in files if f.version == version and (f.local or None) == local and not f.yanked]
    mine = [f for f in exact if (not py or py in f.pythons or not f.pythons)
            and (not plat or plat in f.platforms or not f.platforms)]
    return mine or exact


def hashed(s, lines: list[str], pytorch_base: str = PYTORCH_BASE, pypi: str = PYPI_SIMPLE,
           fetcher=None) -> tuple[list[str], list[str]]:
    """(requirement lines with their platform marker and `--hash` options, the problems: one line
    for each requirement whose hashes could not be read).  `lines` are `pin`'s lines: comments and
    `--extra-index-url` lines pass through, `name==version` lines get hashes."""
    from torch_envcheck.knowledge_update import index as ix  # noqa: PLC0415  (packaging, urllib: only here)

    fetcher = fetcher or ix.Fetcher(timeout=10.0, deadline=30.0)
    marker = marker_for(s)
    py, plat = F.python_mm(s), _platform_key(s)
    out, problems, listings = [], [], {}
    for line in lines:
        m = _PIN.match(line.strip())
        if not m:
            out.append(line)
            continue
        name, version = m.group(1), m.group(2)
        public, _, local = version.partition("+")
        url = (pytorch_base.rstrip("/") + "/" + local) if local else pypi.rstrip("/")
        project = name.split("[", 1)[0]
        key = (url, project.lower())
        try:
            if key not in listings:
                listings[key] = ix.read_simple(fetcher, url, project)
            files = _wanted(listings[key].files, public, local or None, py, plat)
            hashes = sorted({f"{algo}:{h}" for f in files for algo, h in f.hashes.items() if algo == "sha256"})
            if not hashes:
                raise ix.IndexReadError(f"{ix._show(url)}: no sha256 of {project} {version} listed")  # noqa: SLF001
        except ix.IndexReadError as exc:
            problems.append(f"{project} {version}: hashes not checked ({exc})")
            out.append(f"# {project}: hashes not checked: {str(exc)[:200]}")
            out.append(line + (f" ; {marker}" if marker else ""))
            continue
        head = line + (f" ; {marker}" if marker else "")
        out.append(head + " \\")
        for i, h in enumerate(hashes[:MAX_HASHES]):
            out.append(f"    --hash={h}" + (" \\" if i < min(len(hashes), MAX_HASHES) - 1 else ""))
    return out, problems
