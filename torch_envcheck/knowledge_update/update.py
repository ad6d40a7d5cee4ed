"""`torch-envcheck knowledge update`: learn releases and builds from the package indexes
the user can reach (learn.py) and keep what the shipped tables lack as the dated overlay in the
user's cache (overlay.py), which the doctor then prefers.

What the overlay takes, and only that:
  * torch releases newer than every shipped row: their newest patch, CPython range,
    Requires-Python, what PyPI's wheel is per platform, and their CUDA builds (tag, cuDNN pin,
    platforms seen); no arch list (only the binary has one: the doctor then judges GPUs from the
    installed torch's own list and never recommends such a build on a guessed one), no
    torchvision/torchaudio pairing (left to pip), builds_complete false;
  * for releases the tables know: CUDA builds they lack (seen on a PyTorch index), the cuDNN pin of
    builds whose cuDNN the tables mark unverified, and newer patches;
  * TensorFlow releases newer than every shipped row (Requires-Python, the and-cuda pins and the
    CUDA/cuDNN they name, the CPython range of the Linux wheels).
Offline, or when nothing could be read, no overlay is written and the shipped tables serve.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt

from torch_envcheck._util.versions import major_minor
from torch_envcheck.knowledge_update import learn


def _lower(spec):
    from torch_envcheck.knowledge_update.check import _lower as lower  # noqa: PLC0415
    return lower(spec)


def default_tags(extra=()) -> tuple:
    """The CUDA tags whose PyTorch index is read: every tag in the tables, and those given."""
    from torch_envcheck.knowledge_update.check import shipped  # noqa: PLC0415
    tags = {b["tag"] for r in shipped("torch_releases.json")["releases"] for b in r.get("builds", [])}
    tags |= set(extra)
    return tuple(sorted(tags, key=lambda t: int(t[2:])))


def _new_build(tag: str, info: dict) -> dict:
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    b = {"tag": tag, "cudnn": info.get("cudnn"), "unverified": True, "source": overlay.LEARNED_SOURCE,
         "learned_from": info["learned_from"], "note": overlay.LEARNED_NOTE}
    plats = [p for p in info.get("platforms", []) if p in ("linux_x86_64", "linux_aarch64", "win_amd64")]
    if plats:
        b["platforms"] = plats
    if info.get("pythons"):
        b["python"] = list(info["pythons"])
    return b


def overlay_doc(got: learn.Learned, src: learn.Sources, fetched: str | None = None,
                dropped: list | None = None) -> dict:
    """The overlay (overlay.SCHEMA) holding what `got` knows and the shipped tables lack; rows that
    fail the overlay's checks are left out and named in `dropped`."""
    from torch_envcheck._version import __version__  # noqa: PLC0415
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    from torch_envcheck.knowledge_update.check import shipped  # noqa: PLC0415
    rows = {r["torch"]: r for r in shipped("torch_releases.json")["releases"]}
    newest = max(rows, key=major_minor)
    patches = shipped("docker_images.json").get("latest_patch", {})
    releases, new_patches = [], {}
    for rel in sorted(got.torch, key=major_minor):
        tr = got.torch[rel]
        row = rows.get(rel)
        if rel not in patches or _key(tr.latest) > _key(patches[rel]):
            if row is not None or major_minor(rel) > major_minor(newest):
                new_patches[rel] = tr.latest
        if row is None:
            if major_minor(rel) <= major_minor(newest):
                continue  # an old release the tables never covered: not what the doctor needs
            new = {"torch": rel, "latest_patch": tr.latest,
                   "python_min": tr.pythons[0] if tr.pythons else _lower(tr.requires_python),
                   "python_max": tr.pythons[-1] if tr.pythons else None, "python_experimental": None,
                   "requires_python": tr.requires_python, "torchvision": None, "torchaudio": None,
                   "builds_complete": False, "unverified": True, "source": overlay.LEARNED_SOURCE,
                   "learned_from": tr.learned_from,
                   "builds": [_new_build(t, i) for t, i in sorted(tr.builds.items())]}
            if tr.pypi:
                new["pypi"] = dict(tr.pypi)
            releases.append({k: v for k, v in new.items() if v is not None or k in ("torchvision", "torchaudio")})
            continue
        known = {b["tag"]: b for b in row.get("builds", [])}
        builds = []
        for tag, info in sorted(tr.builds.items()):
            b = known.get(tag)
            if b is None:
                builds.append(_new_build(tag, info))
            elif b.get("cudnn_unverified") and info.get("cudnn") and info["cudnn"] != b.get("cudnn"):
                builds.append({"tag": tag, "cudnn": info["cudnn"], "learned_from": info["learned_from"]})
        if builds:
            releases.append({"torch": rel, "builds": builds})
    tf_rows = {r["tensorflow"]: r for r in shipped("tensorflow_builds.json").get("builds", []) if r.get("os") == "linux"}
    tf_newest = max(tf_rows, key=major_minor) if tf_rows else "0.0"
    tf_builds = []
    for rel in sorted(got.tensorflow, key=major_minor):
        tr = got.tensorflow[rel]
        if rel in tf_rows or major_minor(rel) <= major_minor(tf_newest):
            continue
        row = {"tensorflow": rel, "os": "linux", "python_min": tr.pythons[0] if tr.pythons else _lower(tr.requires_python),
               "python_max": tr.pythons[-1] if tr.pythons else None, "requires_python": tr.requires_python,
               "and_cuda": tr.and_cuda, "cuda": tr.cuda, "cudnn": tr.cudnn, "unverified": True,
               "source": overlay.LEARNED_SOURCE, "learned_from": tr.learned_from}
        tf_builds.append({k: v for k, v in row.items() if v is not None})
    # Every learned row is checked on its own, as the overlay's reader will check it: a bad one is
    # dropped and named, the others are kept (one stranger's value never costs the whole update).
    releases = _valid(releases, overlay.release_row, lambda r: f"torch {r.get('torch')}", dropped)
    tf_builds = _valid(tf_builds, overlay.tensorflow_row, lambda r: f"tensorflow {r.get('tensorflow')}", dropped)
    new_patches = dict(_valid(list(new_patches.items()), _patch_entry, lambda kv: f"newest patch of torch {kv[0]}",
                              dropped))
    sources = _valid(list(dict.fromkeys(_source_urls(got, src))), _source_entry, lambda u: "source", dropped)
    tables = {}
    if releases:
        tables["torch_releases.json"] = {"releases": releases}
    if new_patches:
        tables["docker_images.json"] = {"latest_patch": new_patches}
    if tf_builds:
        tables["tensorflow_builds.json"] = {"builds": tf_builds}
    return {"schema": overlay.SCHEMA, "tool_version": __version__,
            "fetched": fetched or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "sources": sources[:overlay.MAX_SOURCES], "tables": tables}


def _valid(rows: list, check, name, dropped: list | None) -> list:
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    out = []
    for row in rows:
        try:
            check(row)
        except overlay.OverlayError as exc:
            if dropped is not None:
                dropped.append(f"{terminal(str(name(row))[:80])} dropped: {terminal(str(exc))}")
            continue
        out.append(row)
    return out


def _patch_entry(kv) -> None:
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    overlay._match(kv[0], overlay._RELEASE, "release", nullable=False)
    overlay._match(kv[1], overlay._VERSION, f"newest patch {str(kv[1])[:40]!r}", nullable=False)


def _source_entry(url) -> None:
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    overlay._match(url, overlay._URL, "the index URL", nullable=False)


def _key(v):
    from torch_envcheck import knowledge as kb  # noqa: PLC0415
    return kb.version_tuple(v) or ()


def _source_urls(got: learn.Learned, src: learn.Sources):
    for line in got.read:
        yield line.split(" (", 1)[0]


def run_update(src: learn.Sources, fetcher=None, write: bool = True, fetched: str | None = None) -> dict:
    """Learn, build the overlay and (write=True) store it.  The result as data: 'doc', 'path' (None
    when nothing was written), 'read', 'problems', 'added' (lines saying what the overlay adds)."""
    from torch_envcheck.knowledge_update import index as ix  # noqa: PLC0415
    from torch_envcheck.knowledge_update import overlay_write  # noqa: PLC0415
    from torch_envcheck.knowledge_update.check import shipped  # noqa: PLC0415
    fetcher = fetcher or ix.Fetcher()
    if src.pytorch and not src.tags:
        src = dataclasses.replace(src, tags=default_tags())
    got = learn.Learned()
    rows = {r["torch"]: r for r in shipped("torch_releases.json")["releases"]}
    newest = max(rows, key=major_minor)
    incomplete = {k for k, r in rows.items() if r.get("builds_complete") is False}

    def want(rel):  # metadata only where the tables lack something
        return rel not in rows or rel in incomplete or major_minor(rel) >= major_minor(newest)
    learn.learn_torch(fetcher, src, got, want=want)
    # the PyPI builds of new releases name CUDA tags the tables may not have: read those indexes too
    new_tags = sorted({t for tr in got.torch.values() for t in tr.builds} - set(src.tags))
    if src.pytorch and new_tags:
        learn.learn_pytorch_index(fetcher, dataclasses.replace(src, tags=tuple(new_tags)), got, want)
    tf_rows = [r["tensorflow"] for r in shipped("tensorflow_builds.json").get("builds", [])]
    tf_newest = max(tf_rows, key=major_minor) if tf_rows else "0.0"
    learn.learn_tensorflow(fetcher, src, got, want=lambda rel: major_minor(rel) > major_minor(tf_newest))
    result = {"read": got.read, "problems": got.problems, "bytes_read": fetcher.used, "path": None,
              "torch_releases": sorted(got.torch, key=major_minor), "tensorflow_releases": sorted(got.tensorflow, key=major_minor),
              "dropped": [], "not_learned": not_learned(got, want)}
    if not got.torch and not got.tensorflow:
        result["doc"] = None
        result["added"] = []
        return result
    doc = overlay_doc(got, src, fetched, dropped=result["dropped"])
    result["doc"] = doc
    result["added"] = describe(doc)
    if write:
        result["path"] = overlay_write.write(doc)
        from torch_envcheck import knowledge as kb  # noqa: PLC0415
        kb.clear_caches()  # the tables merged with the old overlay
    return result


def not_learned(got: learn.Learned, want) -> list[str]:
    """One line per torch release the indexes listed that the tables lack something of, whose
    wheels' metadata could not be read: which versions were seen, where, and why not."""
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    out = []
    for rel in sorted(got.unlearned, key=major_minor):
        tr = got.torch.get(rel)
        if tr is None or not want(rel):
            continue
        seen = sorted({f"{tr.latest}+{t}" for t in tr.builds} | ({tr.latest} if tr.pypi or tr.unread else set()))
        where = learn.index_of(tr.learned_from)
        out.append(terminal(f"torch {rel} (seen: {', '.join(seen) or tr.latest}"
                            + (f" on {where}" if where else "") + "): " + "; ".join(got.unlearned[rel])))
    return out


def describe(doc: dict) -> list[str]:
    """What an overlay adds to the shipped tables, one line per row."""
    out = []
    t = doc.get("tables", {})
    for r in t.get("torch_releases.json", {}).get("releases", []):
        builds = ", ".join(b["tag"] + (f" (cuDNN {b['cudnn']})" if b.get("cudnn") else "") for b in r.get("builds", []))
        if "latest_patch" in r:
            rng = f"Python {r.get('python_min') or '?'}-{r.get('python_max') or '?'}"
            out.append(f"torch {r['torch']} (newest {r['latest_patch']}, {rng}): builds {builds or 'none seen'}")
        else:
            out.append(f"torch {r['torch']}: builds {builds}")
    for rel, patch in sorted(t.get("docker_images.json", {}).get("latest_patch", {}).items(), key=lambda kv: major_minor(kv[0])):
        out.append(f"newest patch of torch {rel}: {patch}")
    for b in t.get("tensorflow_builds.json", {}).get("builds", []):
        out.append(f"tensorflow {b['tensorflow']} ({b['os']}): Python {b.get('python_min') or '?'}-"
                   f"{b.get('python_max') or '?'}, CUDA {b.get('cuda') or '?'}, cuDNN {b.get('cudnn') or '?'}")
    return out
