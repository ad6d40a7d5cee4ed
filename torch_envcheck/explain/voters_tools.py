"""Flags that name their tool's check: the default answer's voter for a text that names a compiler flag whose only
purpose is to override one check, so naming it names the check that failed, whatever the prose around it.

    tool_flags(text, ent, vote_cls) -> [Vote]

nvcc's `-allow-unsupported-compiler` exists only to skip its host-compiler version check (crt/host_config.h's
"#error -- unsupported GNU version! gcc versions later than N are not supported! The nvcc flag
'-allow-unsupported-compiler' can be used to override this version check", and the same for Microsoft Visual Studio
and clang): NVIDIA's installation guides list the host compilers each CUDA release supports."""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match

TAIL = 8192

_ALLOW_UNSUPPORTED = re.compile(r"-{1,2}allow-unsupported-compiler\b")
_MSVC = re.compile(r"Visual Studio|\bVS ?20\d\d\b|\bMSVC\b|\bcl\.exe\b")
_SOURCE = {"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-microsoft-windows/index.html",
           "what": "the host compilers each CUDA release supports (Windows; the Linux guide lists gcc/clang)"}


def tool_flags(text: str, ent, vote_cls) -> list:
    tail = text[-TAIL:]
    m = last_match(_ALLOW_UNSUPPORTED, tail)
    if m is None:
        return []
    msvc = _MSVC.search(tail) is not None
    compiler = "Visual Studio (MSVC)" if msvc else "host compiler (gcc/clang)"
    fix = (f"nvcc refused this {compiler} version (its host-compiler check, which -allow-unsupported-compiler skips): "
           f"build with a {compiler} that this CUDA release supports, or install a newer CUDA toolkit that supports "
           f"this one (the CUDA installation guide lists them per release"
           + ("; Visual Studio 2022 needs CUDA 11.6 or newer" if msvc else "; on Linux `-ccbin g++-N` / CC=gcc-N picks "
              "an older gcc") + "); -allow-unsupported-compiler only at your own risk.")
    return [vote_cls("toolchain", 2.0, 4, "tools", "nvcc's host-compiler check (-allow-unsupported-compiler)",
                     len(text) - len(tail) + m.start(), fix, _SOURCE)]
