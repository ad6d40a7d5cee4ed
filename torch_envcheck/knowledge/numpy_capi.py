"""NumPy's C-API feature versions and the first NumPy release that has each: a module compiled against C-API version X
needs a NumPy at least that new ("module compiled against API version 0x10 but this version of numpy is 0xf").

From numpy/numpy's numpy/_core/code_generators/cversions.txt (commit 00be3ef9459634aaf074c450008857bdf131b151), where
each version's comment names the release that introduced it; version 8 names none and is left out."""

from __future__ import annotations

SOURCE = ("https://github.com/numpy/numpy/blob/00be3ef9459634aaf074c450008857bdf131b151/"
          "numpy/_core/code_generators/cversions.txt")

FIRST_RELEASE = {0x6: "1.6", 0x7: "1.7", 0x9: "1.8", 0xA: "1.10", 0xB: "1.13", 0xC: "1.14", 0xD: "1.16", 0xE: "1.20",
                 0xF: "1.22", 0x10: "1.23", 0x11: "1.25", 0x12: "2.0", 0x13: "2.1", 0x14: "2.3", 0x15: "2.4",
                 0x16: "2.5"}


def first_release(api_version: int) -> str | None:
    """The first NumPy release with C-API version `api_version` (or the nearest newer one the table knows)."""
    if api_version in FIRST_RELEASE:
        return FIRST_RELEASE[api_version]
    newer = [v for v in FIRST_RELEASE if v > api_version]
    return FIRST_RELEASE[min(newer)] if newer else None
