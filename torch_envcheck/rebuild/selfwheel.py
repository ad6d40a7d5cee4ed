"""A wheel of the torch_envcheck that is running, so that a rebuilt environment gets this very
version, offline, whether it was installed from a wheel, from a checkout, or runs from a source tree.

The wheel holds the Python package, the knowledge tables, the templates and the C++/CUDA sources;
never a compiled `_C` (it was built against the old environment's torch: the new environment
compiles its own on first use, or with `torch-envcheck build`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zipfile

from torch_envcheck._util import safe_open

NAME = "torch_envcheck"
# The package's own entry points (pyproject.toml), used when no installed metadata can be read.
ENTRY_POINTS = ("[console_scripts]\ntorch-envcheck = torch_envcheck.cli:script\n\n"
                "[pytest11]\nenvcheck = torch_envcheck.pytest_plugin\n")
MAX_FILE_BYTES = 64 << 20  # no file of the package comes near it
_SKIP_DIRS = {"__pycache__", ".pytest_cache"}
_SKIP_FILES = ("_build_meta.json",)
_SKIP_SUFFIXES = (".so", ".pyd", ".dll", ".dylib", ".o", ".pyc", ".lib", ".exp")


def _package_dir() -> str:
    # this file's package's parent: the torch_envcheck package itself (not its public front door,
    # which would import the notebook and the doctor for nothing)
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _metadata() -> tuple[str, str, str]:
    """(version, METADATA text, entry_points.txt text) of the running package."""
    from torch_envcheck._version import __version__  # noqa: PLC0415
    from torch_envcheck.doctor.probes import dists  # noqa: PLC0415  (dist-info files read safely)

    dist = dists.distribution(NAME)
    if dist is not None and dists.version(dist) == __version__:
        meta = dist.read_text("METADATA")
        eps = dist.read_text("entry_points.txt")
        if meta:
            return __version__, meta, eps or ENTRY_POINTS
    return __version__, f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {__version__}\n", ENTRY_POINTS


def _files() -> list[tuple[str, str]]:
    """(path inside the wheel, path on disk) for every file the wheel carries."""
    from torch_envcheck.ext import buildcfg  # noqa: PLC0415

    pkg = _package_dir()
    out = []
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and d != "csrc")
        for f in sorted(files):
            if f in _SKIP_FILES or f.endswith(_SKIP_SUFFIXES):
                continue
            full = os.path.join(root, f)
            out.append((NAME + "/" + os.path.relpath(full, pkg).replace(os.sep, "/"), full))
    csrc = buildcfg.csrc_dir()  # shipped in the package, or the checkout's csrc/
    for root, dirs, files in os.walk(csrc):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for f in sorted(files):
            if not f.endswith(_SKIP_SUFFIXES):
                full = os.path.join(root, f)
                out.append((f"{NAME}/csrc/" + os.path.relpath(full, csrc).replace(os.sep, "/"), full))
    return out


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build(dest_dir: str) -> str:
    """Write the wheel into dest_dir; return its path."""
    version, metadata, entry_points = _metadata()
    dist_info = f"{NAME}-{version}.dist-info"
    path = os.path.join(dest_dir, f"{NAME}-{version}-py3-none-any.whl")
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        def add(arcname: str, data: bytes) -> None:
            zf.writestr(arcname, data)
            record.append(f"{arcname},{_record_hash(data)},{len(data)}")

        for arcname, full in _files():
            # regular files only (safe_open): a FIFO planted in the package folder cannot hang this
            add(arcname, safe_open.read_bytes(full, MAX_FILE_BYTES))
        add(f"{dist_info}/METADATA", metadata.encode())
        add(f"{dist_info}/entry_points.txt", entry_points.encode())
        add(f"{dist_info}/top_level.txt", f"{NAME}\n".encode())
        add(f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: torch_envcheck.rebuild\n"
                                  b"Root-Is-Purelib: true\nTag: py3-none-any\n")
        record.append(f"{dist_info}/RECORD,,")
        zf.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


def install_spec() -> str:
    """What a setup script installs torch_envcheck from: the local folder pip installed it from
    (PEP 610's direct_url.json), a source tree this copy runs from, else the release by name."""
    from torch_envcheck._version import __version__  # noqa: PLC0415
    try:
        from torch_envcheck.doctor.probes import dists  # noqa: PLC0415
        dist = dists.distribution(NAME)
        text = dist.read_text("direct_url.json") if dist is not None else None
        url = json.loads(text).get("url", "") if text else ""
        if url.startswith("file://") and os.path.isdir(url[len("file://"):]):
            return url[len("file://"):]
    except Exception:  # noqa: BLE001  (no metadata: fall through)
        pass
    tree = os.path.dirname(_package_dir())
    if os.path.isfile(os.path.join(tree, "pyproject.toml")) and os.path.isdir(os.path.join(tree, "csrc")):
        return tree
    return f"{NAME}=={__version__}"
