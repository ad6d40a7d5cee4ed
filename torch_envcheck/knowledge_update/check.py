"""The maintainers' check: re-derive every row of the *shipped* tables that the package
indexes can answer (learn.py) and list the differences.

    torch          the releases and their newest patches (torch_releases.json, and
                   docker_images.json's latest_patch), the CPython range of the wheels, Requires-Python,
                   what PyPI's wheel is per platform (`pypi`: its Requires-Dist pins -> CUDA tag or
                   cpu), the cuDNN that build pins, and, where a PyTorch index was read, which CUDA
                   builds each release has, on which platforms, with which cuDNN
    tensorflow     the releases, the CPython range, Requires-Python and the `and-cuda` pins (with the
                   CUDA / cuDNN versions they name)

What the indexes cannot say (arch lists and PTX: only the binaries do, docs/knowledge-audit.md;
driver minimums; GPU tables) is not checked, and the output says so.  CI runs it against the
recorded answers in tests/fixtures/indexes; a maintainer runs it online before a release.  Exit
status: 0 no differences, 1 differences, 2 nothing could be read.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re

from torch_envcheck._util.versions import major_minor
from torch_envcheck.knowledge_update import learn


@dataclasses.dataclass
class Difference:
    table: str
    row: str
    field: str
    tables: object
    index: object
    evidence: str = ""

    def line(self) -> str:
        from torch_envcheck._util.escape import terminal  # noqa: PLC0415
        return terminal(f"{self.table} {self.row}: {self.field}: tables {_fmt(self.tables)}, index {_fmt(self.index)}"
                        + (f" ({self.evidence})" if self.evidence else ""))


def _fmt(v) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, (list, tuple, set)):
        return "[" + ", ".join(str(x) for x in sorted(v)) + "]"
    return str(v)


def shipped(name: str) -> dict:
    """A table as shipped (the overlay is what `update` learned, so it is never what is checked)."""
    from torch_envcheck import knowledge as kb  # noqa: PLC0415
    with open(os.path.join(kb.DATA_DIR, name), encoding="utf-8") as fh:
        return json.load(fh)


def _lower(spec: str | None) -> str | None:
    """'>=3.11' -> '3.11' (the Python minimum a Requires-Python names)."""
    m = re.search(r">=\s*(\d+\.\d+)", spec or "")
    return m.group(1) if m else None


def _canon_reqs(lines) -> set:
    from packaging.requirements import Requirement  # noqa: PLC0415
    out = set()
    for line in lines or ():
        r = Requirement(line)
        out.add(f"{r.name.lower().replace('_', '-')}{r.specifier}")
    return out


def _reason(text: str) -> str:
    """An unread wheel's reason without its URL (they repeat per wheel)."""
    return re.sub(r"^\S+?: ", "", str(text))[:160]


def compare(got: learn.Learned, pytorch_read: bool = True) -> tuple[list[Difference], list[str]]:
    """(differences, what could not be checked)."""
    diffs: list[Difference] = []
    skipped: list[str] = []
    rel_table = shipped("torch_releases.json")
    patches = shipped("docker_images.json").get("latest_patch", {})
    rows = {r["torch"]: r for r in rel_table["releases"]}
    T = "torch_releases.json"
    no_pins, why = [], set()
    for rel in sorted(got.torch, key=major_minor):
        tr = got.torch[rel]
        row = rows.get(rel)
        if rel in patches and patches[rel] != tr.latest:
            diffs.append(Difference("docker_images.json", f"latest_patch {rel}", "newest patch", patches[rel], tr.latest))
        elif rel not in patches and (row is not None or not rows or major_minor(rel) > max(major_minor(r) for r in rows)):
            diffs.append(Difference("docker_images.json", f"latest_patch {rel}", "newest patch", None, tr.latest))
        if row is None:
            if major_minor(rel) > max(major_minor(r) for r in rows) or major_minor(rel) >= min(major_minor(r) for r in rows):
                diffs.append(Difference(T, f"torch {rel}", "release", None, tr.latest, "on the index, not in the tables"))
            continue
        if tr.pythons and tr.pypi_platforms:
            if row.get("python_min") != tr.pythons[0]:
                diffs.append(Difference(T, f"torch {rel}", "python_min", row.get("python_min"), tr.pythons[0],
                                        f"CPython wheels of {rel}.x"))
            # the newest CPython with wheels is python_max, or python_experimental where the release
            # published its experimental Python's wheels on PyPI too (2.5: 3.13)
            if tr.pythons[-1] not in (row.get("python_max"), row.get("python_experimental")):
                diffs.append(Difference(T, f"torch {rel}", "python_max", row.get("python_max"), tr.pythons[-1],
                                        f"CPython wheels of {rel}.x"))
        low = _lower(tr.requires_python)
        if low and row.get("python_min") and major_minor(low) > major_minor(row["python_min"]):
            # Requires-Python may be looser than the wheels (2.5.1: >=3.8.0, wheels from 3.9), never stricter
            diffs.append(Difference(T, f"torch {rel}", "python_min (Requires-Python)", row.get("python_min"),
                                    tr.requires_python))
        table_pypi = row.get("pypi") or {}
        for plat, tag in sorted(tr.pypi.items()):
            if table_pypi and table_pypi.get(plat) != tag:
                diffs.append(Difference(T, f"torch {rel}", f"pypi.{plat}", table_pypi.get(plat), tag,
                                        f"Requires-Dist of {tr.latest} ({tr.metadata[plat]['source']})"))
        missing = [p for p in ("linux_x86_64", "linux_aarch64", "win_amd64", "macos_arm64")
                   if p in tr.pypi_platforms and p not in tr.pypi and table_pypi]
        if missing:
            no_pins.append(f"{rel} ({', '.join(missing)})")
            why.update(_reason(tr.unread[p]) for p in missing if p in tr.unread)
        builds = {b["tag"]: b for b in row.get("builds", [])}
        for tag, info in sorted(tr.builds.items()):
            b = builds.get(tag)
            if b is None:
                diffs.append(Difference(T, f"torch {rel}", f"build {tag}", None, ", ".join(info["platforms"]) or "listed",
                                        f"on {info['learned_from'].rsplit('/', 1)[0]}"))
                continue
            if info.get("cudnn") and b.get("cudnn") != info["cudnn"]:
                diffs.append(Difference(T, f"torch {rel} {tag}", "cudnn", b.get("cudnn"), info["cudnn"],
                                        "Requires-Dist nvidia-cudnn pin"))
            if b.get("platforms") and info["platforms"] and sorted(b["platforms"]) != sorted(
                    p for p in info["platforms"] if p in ("linux_x86_64", "linux_aarch64", "win_amd64")):
                on_pytorch = tag in got.tags_read
                if on_pytorch:
                    diffs.append(Difference(T, f"torch {rel} {tag}", "platforms", b["platforms"], info["platforms"]))
        for tag in got.tags_read:
            if tag in builds and tag not in tr.builds and tr.latest:
                diffs.append(Difference(T, f"torch {rel} {tag}", "build", "listed", None,
                                        f"the {tag} index has no torch {rel} wheel"))
    if got.torch:
        lo, hi = min((major_minor(r) for r in got.torch)), max((major_minor(r) for r in got.torch))
        for rel in rows:
            if lo <= major_minor(rel) <= hi and rel not in got.torch:
                diffs.append(Difference(T, f"torch {rel}", "release", "listed", None, "no wheel of it on the index"))
    if no_pins:
        skipped.append("torch's Requires-Dist (CUDA tag and cuDNN of PyPI's wheel) of " + "; ".join(no_pins)
                       + (f": {'; '.join(sorted(why))}" if why else ""))
    tags_missing = sorted({b["tag"] for r in rows.values() for b in r.get("builds", [])} - set(got.tags_read),
                          key=lambda t: int(t[2:]))
    if tags_missing:
        skipped.append("the builds on the PyTorch index of " + ", ".join(tags_missing)
                       + (" (not read: see the problems above, or --mirror)" if pytorch_read else " (--no-pytorch-index)"))
    skipped.append("arch lists and PTX (only the wheels' binaries say: docs/knowledge-audit.md), driver minimums, "
                   "GPU tables, torchvision/torchaudio pairing")
    # ---- TensorFlow
    tf = shipped("tensorflow_builds.json")
    tf_rows = {r["tensorflow"]: r for r in tf.get("builds", []) if r.get("os") == "linux"}
    F = "tensorflow_builds.json"
    unread_tf = []
    for rel in sorted(got.tensorflow, key=major_minor):
        tr = got.tensorflow[rel]
        row = tf_rows.get(rel)
        if row is None:
            if tf_rows and major_minor(rel) >= min(major_minor(r) for r in tf_rows):  # older than the first row: never covered
                diffs.append(Difference(F, f"tensorflow {rel} linux", "release", None, tr.latest,
                                        "on the index, not in the tables"))
            continue
        if tr.pythons:
            if row.get("python_min") != tr.pythons[0]:
                diffs.append(Difference(F, f"tensorflow {rel} linux", "python_min", row.get("python_min"), tr.pythons[0],
                                        f"CPython wheels of {rel}.x"))
            if row.get("python_max") != tr.pythons[-1]:
                diffs.append(Difference(F, f"tensorflow {rel} linux", "python_max", row.get("python_max"), tr.pythons[-1],
                                        f"CPython wheels of {rel}.x"))
        if "requires_python" in row and tr.requires_python and row["requires_python"] != tr.requires_python:
            diffs.append(Difference(F, f"tensorflow {rel} linux", "requires_python", row["requires_python"], tr.requires_python))
        if tr.unread:
            unread_tf.append(f"{rel} ({tr.unread})")
            continue
        if tr.and_cuda is None:
            continue
        if "and_cuda" in row or tr.and_cuda:
            if _canon_reqs(row.get("and_cuda")) != _canon_reqs(tr.and_cuda):
                # the pins only one side has (the others agree)
                diffs.append(Difference(F, f"tensorflow {rel} linux", "and_cuda pins on one side only",
                                        sorted(_canon_reqs(row.get("and_cuda")) - _canon_reqs(tr.and_cuda)) or None,
                                        sorted(_canon_reqs(tr.and_cuda) - _canon_reqs(row.get("and_cuda"))) or None,
                                        f"Requires-Dist with extra == 'and-cuda' of {tr.latest}"))
            if tr.cuda and major_minor(row.get("cuda")) != major_minor(tr.cuda):
                diffs.append(Difference(F, f"tensorflow {rel} linux", "cuda", row.get("cuda"), tr.cuda, "and-cuda pins"))
            if tr.cudnn and major_minor(row.get("cudnn")) != major_minor(tr.cudnn):
                diffs.append(Difference(F, f"tensorflow {rel} linux", "cudnn", row.get("cudnn"), tr.cudnn, "and-cuda pins"))
    if unread_tf:
        skipped.append("TensorFlow's and-cuda pins of " + "; ".join(unread_tf))
    return diffs, skipped


def run_check(src: learn.Sources, fetcher=None, since: str = "2.4", tf_since: str = "2.13",
              projects=("torch", "tensorflow")) -> dict:
    """Read the indexes and compare; the result as data (render() prints it)."""
    from torch_envcheck.knowledge_update import index as ix  # noqa: PLC0415
    fetcher = fetcher or ix.Fetcher()
    got = learn.Learned()
    if not src.tags and src.pytorch:
        src = dataclasses.replace(src, tags=tuple(sorted({b["tag"] for r in shipped("torch_releases.json")["releases"]
                                                          for b in r.get("builds", [])}, key=lambda t: int(t[2:]))))
    if "torch" in projects:
        learn.learn_torch(fetcher, src, got, want=lambda rel: major_minor(rel) >= major_minor(since))
    if "tensorflow" in projects:
        learn.learn_tensorflow(fetcher, src, got, want=lambda rel: major_minor(rel) >= major_minor(tf_since))
    diffs, skipped = compare(got, pytorch_read=bool(src.pytorch))
    return {"sources": src.describe(), "read": got.read, "problems": got.problems, "bytes_read": fetcher.used,
            "torch_releases": sorted(got.torch, key=major_minor), "tensorflow_releases": sorted(got.tensorflow, key=major_minor),
            "metadata_read": sum(len(t.metadata) for t in got.torch.values())
            + sum(1 for t in got.tensorflow.values() if t.and_cuda is not None),
            "skipped_files": got.skipped_files, "differences": [dataclasses.asdict(d) | {"line": d.line()} for d in diffs],
            "not_checked": skipped, "nothing_read": not got.torch and not got.tensorflow}


def render(result: dict) -> str:
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    out = ["torch-envcheck knowledge check: the shipped tables against " + ", ".join(result["sources"])]
    for line in result["read"]:
        out.append(f"  read {terminal(line)}")
    for line in result["problems"]:
        out.append(f"  problem: {terminal(line)}")
    tr = result["torch_releases"]
    out.append(f"torch releases on the index: {tr[0]} ... {tr[-1]} ({len(tr)})" if tr else "torch releases on the index: none read")
    tfr = result["tensorflow_releases"]
    out.append(f"tensorflow releases on the index: {tfr[0]} ... {tfr[-1]} ({len(tfr)})" if tfr
               else "tensorflow releases on the index: none read")
    out.append(f"wheel metadata read: {result['metadata_read']}; bytes read: {result['bytes_read']}"
               + (f"; files skipped (not valid wheel names): {result['skipped_files']}" if result["skipped_files"] else ""))
    for line in result["not_checked"]:
        out.append(f"not checked: {terminal(line)}")
    for d in result["differences"]:
        out.append(f"  DIFFERENCE {d['line']}")
    out.append(f"differences found: {len(result['differences'])}")
    return "\n".join(out) + "\n"
