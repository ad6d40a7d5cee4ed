"""The error codes of CUDA, its libraries, NVML, HIP, Linux and Windows (knowledge/data/error_codes.json,
generated from the public headers by benchmarks/gen_error_tables.py): look a code up by name, by number in
its family, or by the message its library prints.

    by_name(name)             -> Code | None   "cudaErrorNoKernelImageForDevice", "CUBLAS_STATUS_ALLOC_FAILED"
    by_value(family, value)   -> Code | None   ("cudaError_t", 209), ("windows", 0xC0000135), ("errno", 28)
    by_message(family, text)  -> Code | None   ("cudaError_t", "no kernel image is available ...")
    families()                -> {enum: table meta}

A HIP code whose header gives no message takes the CUDA runtime's for the code of the same name (HIP mirrors
the CUDA runtime's names: hipErrorInvalidDeviceFunction / cudaErrorInvalidDeviceFunction), which is what
hipGetErrorString prints."""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass

FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "error_codes.json")
SCHEMA = "torch_envcheck.error_codes/1"
# "none": success / not-ready values, never the cause of a failure
LAYERS = ("none", "driver", "arch", "libraries", "env", "distributed", "toolchain", "not-environment", "rocm", "cudnn",
          "windows-runtime", "container")


@dataclass(frozen=True)
class Code:
    family: str          # the enum: cudaError_t, CUresult, ..., errno, signal, windows
    library: str         # who returns it: "CUDA runtime", "cuBLAS", "Linux", ...
    name: str
    value: int
    layer: str
    description: str | None   # the header's comment (first sentence)
    message: str | None       # what the library's own *GetErrorString prints
    source: str               # where the table was read from (URL)

    @property
    def environment_problem(self) -> bool | None:
        if self.layer == "none":
            return None
        return self.layer != "not-environment"

    def as_dict(self) -> dict:
        return {"family": self.family, "library": self.library, "name": self.name, "value": self.value,
                "layer": self.layer, "description": self.description, "message": self.message, "source": self.source}


@functools.lru_cache(maxsize=1)
def _load() -> tuple:
    with open(FILE, encoding="utf-8") as fh:
        doc = json.load(fh)
    if doc.get("schema") != SCHEMA:
        raise ValueError(f"{FILE}: not a {SCHEMA} file")
    tables = doc["tables"]
    cuda_msg = {c["name"][len("cudaError"):]: c.get("message") for c in tables.get("cudaError_t", {}).get("codes", ())
                if c["name"].startswith("cudaError")}
    by_name, by_value, by_family, meta = {}, {}, {}, {}
    for enum, t in tables.items():
        src = t.get("source") or {}
        meta[enum] = {k: t.get(k) for k in ("enum", "library", "header", "source", "messages_from")}
        codes = by_family[enum] = []
        for c in t["codes"]:
            message = c.get("message")
            if message is None and enum == "hipError_t" and c["name"].startswith("hipError"):
                message = cuda_msg.get(c["name"][len("hipError"):])
            code = Code(enum, t["library"], c["name"], int(c["value"]), c["layer"], c.get("description"), message,
                        c.get("url") or src.get("url") or "")
            codes.append(code)
            # the first declaration of a name or value wins (later ones are deprecated aliases)
            by_name.setdefault(c["name"], code)
            if not c.get("alias_of") and not c.get("deprecated"):
                by_value.setdefault((enum, code.value), code)
            by_value.setdefault((enum, code.value), code)
    return by_name, by_value, by_family, meta


@functools.lru_cache(maxsize=64)
def _messages(family: str) -> dict:
    # normalised message -> Code, built per family when first asked: the Windows table's ~3500 messages are never
    # looked up by message, and normalising them all would triple the load time
    out = {}
    for code in _load()[2].get(family, ()):
        if code.message:
            out.setdefault(_norm(code.message), code)
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower().rstrip("."))


def by_name(name: str) -> Code | None:
    return _load()[0].get(name)


def by_value(family: str, value: int) -> Code | None:
    return _load()[1].get((family, value))


def by_message(family: str, text: str) -> Code | None:
    return _messages(family).get(_norm(text))


def messages(family: str) -> dict:
    """normalised message -> Code for one family (the extractor matches message prefixes against it)."""
    return dict(_messages(family))


def names() -> frozenset:
    return frozenset(_load()[0])


def families() -> dict:
    return dict(_load()[3])


def all_codes() -> list:
    """Every code, one per (family, name)."""
    return list(_load()[0].values())
