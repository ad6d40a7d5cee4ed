"""Files that two installed distributions both claim, read from every distribution's RECORD.

pip installs a wheel's files without asking who owns them already: when two distributions ship the
same path (nvidia-cudnn-cu12 and nvidia-cudnn-cu13 both install nvidia/cudnn/lib/libcudnn.so.9), the
second overwrites the first, and uninstalling either deletes the file the other still needs.  RECORD
lists each installed file with its hash, so an overlap whose hashes differ is a real clash; one with
equal hashes (an empty namespace __init__.py shipped by several wheels) is counted but harmless until
an uninstall.

Bounded: at most MAX_DISTS distributions, MAX_RECORD_LINES lines (MAX_RECORD_BYTES) of each RECORD
and MAX_TOTAL_FILES files in all are read, a line longer than MAX_LINE_BYTES (no real path is) is
skipped and counted, and at most MAX_REPORTED overlaps are kept in the snapshot (the totals are
exact for what was read).  Memory stays small whatever the RECORDs hold: each file is kept as the
hash of its path and the hash of its RECORD digest (two ints; 64-bit hashes, so two of a million
paths collide with a chance of about 1 in 30 million), and RECORDs are read line by line through
_util/safe_open (a FIFO in their place is never opened for a blocking read).
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys

from torch_envcheck._util import safe_open

MAX_DISTS = 5000
MAX_RECORD_BYTES = 32 * 1024 * 1024
MAX_RECORD_LINES = 500_000
MAX_TOTAL_FILES = 1_000_000
MAX_LINE_BYTES = 16 * 1024
MAX_REPORTED = 100
_IDX_BITS = 16  # MAX_DISTS < 2**16: the owner's index sits in the low bits of the owner value
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


def _lines(path: str, stats: dict):
    """The lines of a RECORD (decoded, newline stripped), at most MAX_RECORD_BYTES read, in chunks of
    1 MiB; a line longer than MAX_LINE_BYTES is skipped whole and counted in stats["skipped"]."""
    try:
        fh = safe_open.open_binary(path)
    except OSError:
        return
    left, rest, skipping = MAX_RECORD_BYTES, b"", False
    with fh:
        while left > 0:
            chunk = fh.read(min(1 << 20, left))
            if not chunk:
                break
            left -= len(chunk)
            if skipping:  # the rest of an overlong line, up to its newline
                cut = chunk.find(b"\n")
                if cut < 0:
                    continue
                chunk, skipping = chunk[cut + 1:], False
            parts = (rest + chunk).split(b"\n")
            rest = parts.pop()
            if len(rest) > MAX_LINE_BYTES:
                stats["skipped"] += 1
                rest, skipping = b"", True
            long = [p for p in parts if len(p) > MAX_LINE_BYTES]
            if long:
                stats["skipped"] += len(long)
                parts = [p for p in parts if len(p) <= MAX_LINE_BYTES]
            # whole lines only: a multi-byte character is never cut
            yield from b"\n".join(parts).decode("utf-8", "replace").split("\n")
    if rest and not skipping:
        yield rest.decode("utf-8", "replace")


def _records(dist_info: str, stats: dict | None = None):
    """(absolute normalised path, hash) for each file in RECORD, paths resolved against the folder
    that holds the .dist-info (RECORD paths are relative to it).  Plain string splitting: the csv
    module and normpath on every line made this probe cost as much as a third of `import torch`.
    A line csv cannot read is skipped and counted, never the end of the scan."""
    stats = stats if stats is not None else {"skipped": 0}
    root = os.path.dirname(dist_info)
    windows = os.name == "nt"
    prefix = root + os.sep
    for i, line in enumerate(_lines(os.path.join(dist_info, "RECORD"), stats)):
        if i >= MAX_RECORD_LINES:
            return
        line = line.rstrip("\r")
        if not line:
            continue
        if line.startswith('"'):  # a quoted path (it holds a comma or a quote): let csv read it
            try:
                row = next(csv.reader(io.StringIO(line)), None) or [""]
            except csv.Error:  # e.g. a field over csv's limit: this line only
                stats["skipped"] += 1
                continue
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
    # path hash -> (digest hash << _IDX_BITS) | index of its first owner: two ints per file
    owner: dict[int, int] = {}
    names = [_name_version(d) for d in dist_infos]
    clashes: dict[tuple[str, ...], dict] = {}
    files = 0
    differ_total = same_total = 0
    stats = {"skipped": 0}
    capped = False
    mask = (1 << _IDX_BITS) - 1
    for i, d in enumerate(dist_infos):
        if capped:
            break
        for path, digest in _records(d, stats):
            if files >= MAX_TOTAL_FILES:
                capped = True
                break
            files += 1
            dh = hash(digest) >> _IDX_BITS << _IDX_BITS if digest else 0
            key = hash(path)
            prev = owner.get(key)
            if prev is None:
                owner[key] = dh | i
                continue
            j, prev_dh = prev & mask, prev & ~mask
            if j == i:
                continue
            same = bool(dh) and dh == prev_dh
            if same:
                same_total += 1
            else:
                differ_total += 1
            pair = (names[j][0], names[i][0])
            c = clashes.setdefault(pair, {"distributions": [f"{names[j][0]}=={names[j][1]}", f"{names[i][0]}=={names[i][1]}"],
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
            "lines_skipped": stats["skipped"],
            "truncated": len(dist_infos) >= MAX_DISTS or len(pairs) > MAX_REPORTED or capped}
