"""The error-signature catalogue (torch_envcheck/knowledge/data/error_signatures.json): loaded,
checked and compiled once.  A signature names the layer an error comes from, its patterns, the
causes with the doctor's finding codes that confirm each one, the fix and its public sources.

    signatures() -> tuple[Signature, ...]     (compiled, in catalogue order)
    layers()     -> dict layer -> meaning
    data_path()  -> the JSON file (docs and tests read it too)

A broken catalogue is a bug of this package: CatalogueError names the signature and the field."""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field

from torch_envcheck.explain.decode import DECODERS

SCHEMA = "torch_envcheck.error_signatures/1"
LAYERS = ("driver", "arch", "torch-build", "libraries", "cudnn", "tensorflow", "toolchain", "numpy", "env",
          "distributed", "windows-runtime", "not-environment", "container", "rocm", "c-runtime", "macos", "wsl")


class CatalogueError(ValueError):
    """The catalogue file is missing or does not follow its schema."""


@dataclass(frozen=True)
class Cause:
    id: str
    text: str
    findings: tuple  # doctor finding codes whose presence confirms this cause


@dataclass(frozen=True)
class Signature:
    id: str
    layer: str
    title: str
    priority: int
    environment_problem: bool
    patterns: tuple  # compiled re.Pattern
    decode: dict  # group -> (name, decoder name)
    explanation: str
    causes: tuple
    fix: str | None
    look_at: str | None
    areas: tuple
    sources: tuple  # ({"url":..., "what":...}, ...)
    raw: dict = field(repr=False, compare=False)

    @property
    def source(self) -> str:
        return self.sources[0]["url"]


def data_path() -> str:
    # A path relative to this module: torch_envcheck/knowledge/ is a data folder of the package
    # (importlib.resources would need it to be a package).
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "knowledge", "data",
                        "error_signatures.json")


def _need(entry: dict, key: str, kind, where: str):
    value = entry.get(key)
    if not isinstance(value, kind):
        raise CatalogueError(f"{where}: field {key!r} must be {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


def _signature(entry: dict, index: int) -> Signature:
    where = f"signature #{index} ({entry.get('id', '?')})"
    sid = _need(entry, "id", str, where)
    layer = _need(entry, "layer", str, where)
    if layer not in LAYERS:
        raise CatalogueError(f"{where}: unknown layer {layer!r}")
    env = _need(entry, "environment_problem", bool, where)
    if env == (layer == "not-environment"):
        raise CatalogueError(f"{where}: environment_problem must be false exactly for the not-environment layer")
    try:
        patterns = tuple(re.compile(p) for p in _need(entry, "patterns", list, where))
    except re.error as exc:
        raise CatalogueError(f"{where}: bad pattern: {exc}") from None
    if not patterns:
        raise CatalogueError(f"{where}: no patterns")
    decode = {}
    for group, spec in (entry.get("decode") or {}).items():
        if not (isinstance(spec, list) and len(spec) == 2 and spec[1] in DECODERS):
            raise CatalogueError(f"{where}: decode[{group!r}] must be [name, one of {sorted(DECODERS)}]")
        decode[group] = (spec[0], spec[1])
    causes = tuple(Cause(_need(c, "id", str, where), _need(c, "text", str, where), tuple(_need(c, "findings", list, where)))
                   for c in _need(entry, "causes", list, where))
    sources = tuple(_need(entry, "sources", list, where))
    if not sources or not all(isinstance(s, dict) and str(s.get("url", "")).startswith("https://") for s in sources):
        raise CatalogueError(f"{where}: every signature needs sources with https URLs")
    fix, look_at = entry.get("fix"), entry.get("look_at")
    if env and not isinstance(fix, str):
        raise CatalogueError(f"{where}: an environment problem needs a fix")
    if not env and not isinstance(look_at, str):
        raise CatalogueError(f"{where}: a not-environment error needs look_at")
    return Signature(sid, layer, _need(entry, "title", str, where), int(_need(entry, "priority", int, where)), env,
                     patterns, decode, _need(entry, "explanation", str, where), causes, fix, look_at,
                     tuple(entry.get("areas") or ()), sources, entry)


@functools.lru_cache(maxsize=1)
def _load() -> tuple:
    path = data_path()
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"{path}: cannot read the error catalogue: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise CatalogueError(f"{path}: not a {SCHEMA} file")
    sigs = tuple(_signature(e, i) for i, e in enumerate(doc.get("signatures") or []))
    ids = [s.id for s in sigs]
    if len(set(ids)) != len(ids):
        raise CatalogueError(f"{path}: duplicate signature ids")
    return sigs, dict(doc.get("layers") or {})


def signatures() -> tuple:
    return _load()[0]


def layers() -> dict:
    return dict(_load()[1])


def by_id(sid: str) -> Signature:
    for s in signatures():
        if s.id == sid:
            return s
    raise KeyError(sid)
