"""Files that two installed distributions both claim, read from every distribution's RECORD.

pip installs a wheel's files without asking who owns them already: when two distributions ship the
same path (nvidia-cudnn-cu12 and nvidia-cudnn-cu13 both install nvidia/cudnn/lib/libcudnn.so.9), the
second overwrites the first, and uninstalling either deletes the file the other still needs.  RECORD
lists each installed file with its hash, so an overlap whose hashes differ is a real clash; one with
equal hashes (an empty namespace __init__.py shipped by several wheels) is counted but harmless until
an uninstall.

Bounded: at most MAX_DISTS distributions and MAX_RECORD_LINES lines of each RECORD are read, and at
most MAX_REPORTED overlaps are kept in the snapshot (the totals are always exact for what was read).
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys

MAX_DISTS = 5000
MAX_RECORD_BYTES = 32 * 1024 * 1024
MAX_RECORD_LINES = 500_000
MAX_REPORTED = 100
_LIB_RE = re.compile(r"\.(so(\.[\d.]+)?|dll|dylib|pyd)$", re.IGNORECASE)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _dist_infos(paths) -> list[str]:
    """Every *.dist-info folder that has a RECORD, once (the same site-packages can be on sys.path twice)."""
    seen, out = set(), []
    for entry in paths:
        if not entry or not os.path.isdir(entry):
            continue
        try:
            names = sorted(os.listdir(entry))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            path = os.path.join(entry, name)
            real = os.path.realpath(path)
            if real in seen or not os.path.isfile(os.path.join(path, "RECORD")):
                continue
            seen.add(real)
            out.append(path)
            if len(out) >= MAX_DISTS:
                return out
    return out


def _name_version(dist_info: str) -> tuple[str, str]:
    base = os.path.basename(dist_info)[: -len(".dist-info")]
    name, _, version = base.partition("-")
    return _norm(name), version


def _records(dist_info: str):
    """(absolute normalised path, hash) for each file in RECORD, paths resolved against the folder
    that holds the .dist-info (RECORD paths are relative to it).  Plain string splitting: the csv
    module and normpath on every line made this probe cost as much as a third of `import torch`."""
    root = os.path.dirname(dist_info)
    try:
        with open(os.path.join(dist_info, "RECORD"), "rb") as fh:
            data = fh.read(MAX_RECORD_BYTES)
    except OSError:
        return
    windows = os.name == "nt"
    prefix = root + os.sep
    for i, line in enumerate(data.decode("utf-8", "replace").splitlines()):
        if i >= MAX_RECORD_LINES:
            return
        if not line:
            continue
        if line.startswith('"'):  # a quoted path (it holds a comma or a quote): let csv read it
            row = next(csv.reader(io.StringIO(line)), None) or [""]
            rel, digest = row[0], (row[1] if len(row) > 1 else "")
        else:
            parts = line.rsplit(",", 2)
            rel, digest = parts[0], (parts[1] if len(parts) > 1 else "")
        if not rel or rel.endswith(".pyc") or "__pycache__" in rel:
            continue
        if windows:
            path = os.path.normcase(os.path.normpath(os.path.join(root, rel)))
        elif rel.startswith("/") or "./" in rel:
            path = os.path.normpath(os.path.join(root, rel))
        else:
            path = prefix + rel
        yield path, digest


def probe(paths=None) -> dict:
    dist_infos = _dist_infos(sys.path if paths is None else paths)
    owner: dict[str, tuple[int, str]] = {}
    names = [_name_version(d) for d in dist_infos]
    clashes: dict[tuple[str, ...], dict] = {}
    files = 0
    differ_total = same_total = 0
    for i, d in enumerate(dist_infos):
        for path, digest in _records(d):
            files += 1
            prev = owner.get(path)
            if prev is None:
                owner[path] = (i, digest)
                continue
            j, prev_digest = prev
            if j == i:
                continue
            same = bool(digest) and digest == prev_digest
            if same:
                same_total += 1
            else:
                differ_total += 1
            key = (names[j][0], names[i][0])
            c = clashes.setdefault(key, {"distributions": [f"{names[j][0]}=={names[j][1]}", f"{names[i][0]}=={names[i][1]}"],
                                         "files": 0, "differing": 0, "examples": [], "location": os.path.dirname(d)})
            c["files"] += 1
            c["differing"] += 0 if same else 1
            if len(c["examples"]) < 50:
                c["examples"].append({"path": os.path.relpath(path, os.path.dirname(d)), "same_content": same})
    for c in clashes.values():
        # Show the clashes that break things first: differing shared libraries, then other differing files.
        c["examples"] = sorted(c["examples"], key=lambda e: (e["same_content"], not _LIB_RE.search(e["path"])))[:5]
    pairs = sorted(clashes.values(), key=lambda c: (-c["differing"], -c["files"]))
    return {"distributions": len(dist_infos), "files": files, "shared_files_differing": differ_total,
            "shared_files_identical": same_total, "pairs": pairs[:MAX_REPORTED], "pairs_total": len(pairs),
            "truncated": len(dist_infos) >= MAX_DISTS or len(pairs) > MAX_REPORTED}
