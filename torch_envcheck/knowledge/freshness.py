"""Knowing what the tables do not know: whether an installed torch, its CUDA build, a
TensorFlow, a driver or a GPU is newer than the knowledge tables (shipped, plus the user's overlay
from `torch-envcheck knowledge update`), what date those tables carry, and the two decisions that
follow from it:

    keep_installed(...)   a working torch the tables cannot describe is the build to keep, judged
                          from live facts, never traded for an older release the tables know
    downgrade_note(...)   when the tables' fit is an older release than the installed one, the words
                          that say so (and where the installed release's other builds would be)

Pure functions over plain values (versions, tags, capabilities): the rules and `advise` pass in
the facts they read through the facts layer; nothing here reads a snapshot.
"""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util.versions import major_minor

UPDATE_COMMAND = "torch-envcheck knowledge update"


# ---------------------------------------------------------------- what the tables are

def table_dates(name: str = kb.RELEASES_FILE) -> dict:
    """{'updated': shipped date, 'overlay': overlay fetch time or None, 'overlay_sources': [...]}."""
    t = kb.load_table(name)
    ov = t.get("overlay") if isinstance(t.get("overlay"), dict) else None
    return {"updated": t.get("updated"), "overlay": ov.get("fetched") if ov else None,
            "overlay_sources": list(ov.get("sources", ())) if ov else []}


def tables_label(name: str = kb.RELEASES_FILE, what: str = "torch") -> str:
    """'the doctor's torch tables (updated 2026-12-01)', with the overlay's date when one is merged."""
    d = table_dates(name)
    text = f"the doctor's {what} tables (updated {d['updated'] or 'on an unknown date'}"
    if d["overlay"]:
        text += f"; overlay from `{UPDATE_COMMAND}` of {d['overlay'][:10]}"
    return text + ")"


def index_of(url) -> str | None:
    """The index folder a learned row's `learned_from` (a wheel's URL) lies in."""
    if not isinstance(url, str) or "://" not in url:
        return None
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    return terminal(url.rsplit("/", 1)[0] if url.endswith(".whl") else url)


def learned_label(row: dict | None = None) -> str:
    """Where rows without arch lists come from: 'learned by `torch-envcheck knowledge update` on
    DATE from <index>' (the index of `row`, a learned release or build row, where it names one)."""
    d = table_dates()
    src = index_of((row or {}).get("learned_from"))
    text = f"learned by `{UPDATE_COMMAND}` on {d['overlay'][:10]}" if d["overlay"] else "from a package index"
    return text + (f" from {src}" if src else "")


def newest_release() -> str | None:
    """The newest release of the verified tables: a release an overlay learned never moves it (an
    index that lists a made-up release must not make a newer installed torch look old)."""
    try:
        return kb.latest_known_release()
    except IndexError:
        return None


def is_newer_release(version, newest: str | None = None) -> bool:
    """Whether a torch version's release is newer than every release in the tables."""
    newest = newest or newest_release()
    mm = major_minor(version)
    return bool(mm and newest and mm > major_minor(newest))


def build_row(release_row: dict | None, tag: str | None) -> dict | None:
    if not release_row or not tag:
        return None
    return next((b for b in release_row.get("builds", []) if b.get("tag") == tag), None)


def builds_complete(release_row: dict | None) -> bool:
    """Whether the tables claim every CUDA build of a release.  False where the row says not
    (2.15: only the PyPI build could be read), for rows an index update added without reading the
    PyTorch index, and for unknown releases."""
    if not release_row:
        return False
    return release_row.get("builds_complete", True) is not False


def index_for(tag: str) -> str:
    try:
        return kb.index_url(tag)
    except kb.KnowledgeError:
        return "https://download.pytorch.org/whl/" + tag


# ---------------------------------------------------------------- gaps

def torch_gap(torch_version, tag) -> dict | None:
    """How the tables fall short of an installed CUDA torch, or None when they describe it:
    kind 'release' (a release newer than every row), 'build' (the release is known, this CUDA
    build is not), 'arch' (the build is known from an index only: no arch list).  A release older
    than the tables' first row, a source build or a CPU/ROCm build is not a gap."""
    rel = kb.release_key(torch_version)
    if not rel or not tag or not str(tag).startswith("cu"):
        return None
    row = kb.release(rel)
    newest = newest_release()
    base = {"torch": str(torch_version), "release": rel, "tag": tag, "cuda": kb.cuda_from_tag(tag),
            "newest": newest, "tables": tables_label(), **table_dates()}
    if row is None:
        return dict(base, kind="release", known_tags=[]) if is_newer_release(torch_version, newest) else None
    tags = [b.get("tag") for b in row.get("builds", [])]
    b = build_row(row, tag)
    if b is None:
        return dict(base, kind="build", known_tags=tags, complete=builds_complete(row))
    if not b.get("arch_list"):
        return dict(base, kind="arch", known_tags=tags, complete=builds_complete(row))
    return None


def driver_gap(driver_version, driver_cuda, torch_cuda, os_name: str | None = "Linux") -> dict | None:
    """The driver table ends before the CUDA torch uses ('torch-cuda') or before the CUDA the
    driver supports ('driver'); None when it covers both."""
    table = kb.load_table(kb.DRIVERS_FILE)
    rows = [r for r in table.get("toolkit_minimums", []) if major_minor(r.get("cuda"))]
    if not rows:
        return None
    newest = max(rows, key=lambda r: major_minor(r["cuda"]))["cuda"]
    floors = {r.get("cuda_major") for r in table.get("compat_floors", [])}
    base = {"newest_cuda": newest, "driver_version": driver_version, "driver_cuda": driver_cuda,
            "torch_cuda": torch_cuda, "tables": tables_label(kb.DRIVERS_FILE, "driver"),
            **table_dates(kb.DRIVERS_FILE)}
    tc, dc = major_minor(torch_cuda), major_minor(driver_cuda)
    if tc and tc > major_minor(newest):
        return dict(base, kind="torch-cuda", major_known=tc[0] in floors)
    if dc and dc > major_minor(newest):
        return dict(base, kind="driver", major_known=dc[0] in floors)
    return None


def gpu_gap(capability) -> dict | None:
    """A compute capability newer than every row of torch's device table (as copied)."""
    cc = major_minor(capability)
    if cc is None:
        return None
    table = kb.load_table(kb.CAPABILITIES_FILE)
    keys = [major_minor(k) for k in list(table.get("device_requirement", {})) + list(table.get("device_requirement_from_cuda_13_2", {}))]
    keys = [k for k in keys if k]
    if not keys or cc <= max(keys):
        return None
    top = max(keys)
    return {"capability": f"{cc[0]}.{cc[1]}", "newest": f"{top[0]}.{top[1]}",
            "tables": tables_label(kb.CAPABILITIES_FILE, "GPU"), **table_dates(kb.CAPABILITIES_FILE)}


def tensorflow_gap(tf_version, os_name: str = "linux") -> dict | None:
    """A TensorFlow release newer than the TensorFlow table's newest row for that OS."""
    from torch_envcheck.knowledge import tensorflow as tk  # noqa: PLC0415
    mm = major_minor(tf_version)
    rows = tk.releases(os_name)
    if not mm or not rows:
        return None
    newest = rows[-1]["tensorflow"]
    if mm <= major_minor(newest) or tk.build(kb.release_key(tf_version), os_name):
        return None
    return {"tensorflow": str(tf_version), "release": kb.release_key(tf_version), "newest": newest,
            "tables": tables_label(tk.TABLE, "TensorFlow"), **table_dates(tk.TABLE)}


# ---------------------------------------------------------------- decisions

def keep_installed(torch_version, tag, cuda, fits: bool | None, capability=None, arch_list=()) -> dict | None:
    """The installed CUDA torch as the build to recommend, when the tables cannot describe it (a
    torch_gap) and the live facts do not show it failing here (`fits`: True proven working, None
    unknown, False the driver or the GPU rules it out).  Shaped like
    knowledge.latest_release_for()'s answer, with 'kept': True and 'judged_from': 'live facts'."""
    gap = torch_gap(torch_version, tag)
    if gap is None or fits is False:
        return None
    from torch_envcheck._util.escape import requirement_version  # noqa: PLC0415
    if requirement_version(str(torch_version).split("+", 1)[0]) is None:
        return None  # a version that is not PEP 440 is never put into a command
    try:
        from packaging.version import Version  # noqa: PLC0415
        if Version(str(torch_version)).is_prerelease:
            return None  # a nightly or release candidate: its index is not <tag>'s, so it is not re-advised
    except Exception:  # noqa: BLE001  (packaging missing or the version unparsable: keep the check above)
        pass
    via = entry = None
    if capability is not None and arch_list:
        m = kb.capability_match(capability, list(arch_list), cuda)
        if m["ok"] is False:
            return None
        via, entry = m["via"], m["entry"]
    rng = kb.python_range(gap["release"]) if kb.release(gap["release"]) else None
    row = build_row(kb.release(gap["release"]), tag) or {}
    return {"torch": gap["release"], "tag": tag, "cuda": cuda or kb.cuda_from_tag(tag), "via": via, "entry": entry,
            "driver_support": "live", "cudnn": row.get("cudnn"), "index_url": index_for(tag),
            "python_min": rng[0] if rng else None, "python_max": rng[1] if rng else None,
            "unverified": True, "kept": True, "judged_from": "live facts", "gap": gap["kind"],
            "installed": str(torch_version)}


def is_downgrade(installed_version, build: dict | None) -> bool:
    """Whether installing `build` would replace the installed torch with an older release."""
    if not build or not installed_version:
        return False
    a, b = major_minor(installed_version), major_minor(build.get("torch"))
    return bool(a and b and b < a)


def look_at(release: str, tags=()) -> str:
    """Where builds of a release the tables do not list would be: the PyTorch index per CUDA tag."""
    urls = [index_for(t) for t in dict.fromkeys(t for t in tags if t)] or ["https://download.pytorch.org/whl/"]
    shown = " or ".join(urls[:3])
    return (f"look for torch {release} builds on {shown} (`pip index versions torch --index-url {urls[0]}`), "
            f"or run `{UPDATE_COMMAND}` to learn them")


def unpicked_builds(release: str, driver=None) -> list[str]:
    """The CUDA tags of a release's builds that the tables know only from a package index (no arch
    list, so never recommended), restricted to those the driver runs when `driver` =
    (driver_version, os_name) is given."""
    row = kb.release(release)
    tags = [b["tag"] for b in (row or {}).get("builds", []) if not b.get("arch_list") and b.get("tag")]
    if driver and driver[0]:
        tags = [t for t in tags if kb.driver_runs(kb.cuda_from_tag(t), driver[0], None, driver[1]) != kb.NO]
    return tags


def downgrade_note(installed_version, build: dict | None, reason: str = "", driver=None) -> str | None:
    """The sentence that says a recommended build is an older release than the installed one, why
    (`reason`), and, where the tables' list of the installed release's builds is incomplete or the
    release is unknown, which release family and index to look at instead of taking it.  `driver`
    (driver_version, os_name) narrows the builds named to those the driver runs."""
    if not is_downgrade(installed_version, build):
        return None
    rel = kb.release_key(installed_version)
    note = (f"torch {build['torch']} {build['tag']} is an older release than the installed {installed_version}"
            + (f" ({reason})" if reason else ""))
    row = kb.release(rel)
    others = unpicked_builds(rel, driver) if row else []
    if others:
        return (note + f"; the package index also lists torch {rel} " + ", ".join(others)
                + f" ({learned_label(build_row(row, others[0]))}), "
                "whose GPU architectures the tables do not know, so it was not picked: "
                + look_at(rel, others).split(", or run", 1)[0] + ".")
    if row is None or not builds_complete(row):
        known = ", ".join(b.get("tag", "?") for b in (row or {}).get("builds", [])) or "none"
        note += (f"; {tables_label()} " + (f"list only {known} for torch {rel}" if row else f"end at torch {newest_release()}")
                 + f": other builds of {rel} may fit, so " + look_at(rel, [build.get("tag")]))
    return note + "."


DOWNGRADE_PREFIX = "a downgrade: "


def tables_incomplete_for(installed_version) -> bool:
    """Whether the tables may lack builds of the installed release (a release newer than every row,
    or a row whose build list is known to be incomplete): then an older release is the tables'
    answer only because they end earlier."""
    rel = kb.release_key(installed_version)
    if not rel:
        return False
    row = kb.release(rel)
    return (row is None and is_newer_release(installed_version)) or (row is not None and not builds_complete(row))


def kept_line(build: dict) -> str:
    """advise's reason for keeping the installed torch (keep_installed's answer)."""
    if build.get("gap") == "arch":
        row = kb.release(build.get("torch"))
        src = index_of((build_row(row, build.get("tag")) or row or {}).get("learned_from"))
        what = ("is known to " + tables_label() + " from a package index" + (f" ({src})" if src else "")
                + ", without its GPU architectures")
        learn_more = "the installed binary's own list is used"
    else:
        what = ("is newer than " if build.get("gap") == "release" else "is a build not listed in ") + tables_label()
        learn_more = f"`{UPDATE_COMMAND}` learns it"
    return (f"keep the installed torch {build.get('installed')}: it {what}, and nothing in the live "
            f"facts shows it failing here" + (f" (its {build['entry']} kernels cover the GPU)" if build.get("entry") else "")
            + f"; judged from live facts, not from the tables ({learn_more})")


def newer_unpicked(pick: dict | None) -> str | None:
    """advise's note when the tables (with an overlay) know newer releases than the pick but not
    their GPU architectures: which release, which builds, where to look."""
    row = kb.latest_learned_release()
    newest = row["torch"] if row else None
    if not pick or not newest or not is_newer_release(newest, pick.get("torch")):
        return None
    tags = unpicked_builds(newest)
    if not tags:
        return None
    return (f"torch {newest} is newer ({learned_label(row)}; unverified), but the tables do not know its GPU architectures, "
            f"so it was not picked; its builds {', '.join(tags)}: " + look_at(newest, tags).split(", or run", 1)[0])
