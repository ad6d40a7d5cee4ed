"""The knowledge overlay: rows that `torch-envcheck knowledge update` learned from the
package indexes, kept as one dated JSON file in the user's cache, and merged over the shipped
tables whenever a table is loaded (knowledge.load_table calls apply()).

    <cache>/knowledge/overlay.json      <cache>: $TORCH_ENVCHECK_KNOWLEDGE_DIR, else
                                        platformdirs.user_cache_dir("torch_envcheck") (or the same
                                        folder computed without platformdirs)

The overlay prefers its rows over the shipped rows for the same release (field by field: a field
the overlay lacks keeps the shipped value), except that an overlay older than a shipped table only
adds what that table lacks (a newer torch_envcheck's verified rows win over an old overlay).

The file is input like any other: it is read only when it is a regular file no larger than
MAX_BYTES, and validated (schema, types, every version and tag against a strict pattern) before any
of it is used.  An overlay that fails is ignored with one warning line on stderr, and the shipped
tables serve.  Pure Python; no network, and no writing (knowledge_update/ learns and writes it).
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import json
import os
import re
import stat
import sys

from torch_envcheck._util.versions import version_tuple

SCHEMA = "torch_envcheck.knowledge-overlay/1"
FILE_NAME = "overlay.json"
ENV_DIR = "TORCH_ENVCHECK_KNOWLEDGE_DIR"
MAX_BYTES = 4 << 20
MAX_ROWS = 400
MAX_BUILDS = 32
MAX_TEXT = 600
MAX_SOURCES = 200

TABLES = ("torch_releases.json", "docker_images.json", "tensorflow_builds.json")
PLATFORMS = ("linux_x86_64", "linux_aarch64", "win_amd64", "macos_arm64", "macos_x86_64")

_RELEASE = re.compile(r"\d{1,3}\.\d{1,4}")
_VERSION = re.compile(r"\d{1,4}(\.\d{1,6}){0,4}")
_CUDA_TAG = re.compile(r"cu\d{2,4}")
_PYPI_TAG = re.compile(r"cu\d{2,4}|cpu")
_ARCH = re.compile(r"\d{1,2}\.\d(\+PTX)?(;\d{1,2}\.\d(\+PTX)?){0,40}")
_URL = re.compile(r"(https?|file)://[^\s\"'`<>\x00-\x1f\x7f]{1,1990}")
_REQ = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}(\[[A-Za-z0-9._,-]{1,200}\])?[<>=!~,.*0-9A-Za-z+-]{0,200}")
_SPEC = re.compile(r"[<>=!~,.*0-9 ]{1,100}")


class OverlayError(ValueError):
    """The overlay file cannot be used; the message says why (one line)."""


def cache_dir() -> str:
    """The folder the overlay lives in: $TORCH_ENVCHECK_KNOWLEDGE_DIR, else <user cache>/knowledge,
    the user cache being platformdirs' user_cache_dir("torch_envcheck") (XDG on Linux,
    ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows)."""
    env = os.environ.get(ENV_DIR)
    if env:
        return os.path.abspath(os.path.expanduser(env))
    return os.path.join(user_cache_dir(), "knowledge")


def user_cache_dir(app: str = "torch_envcheck") -> str:
    try:
        import platformdirs  # noqa: PLC0415  (optional: small and pure, but not required)
        return platformdirs.user_cache_dir(app)
    except ImportError:
        pass
    # The same folders platformdirs computes (its unix, macos and windows modules), without it.
    if sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser(r"~\AppData\Local")
        return os.path.join(base, app, app, "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser(os.path.join("~/Library/Caches", app))
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.expanduser("~/.cache")
    return os.path.join(base, app)


def path() -> str:
    return os.path.join(cache_dir(), FILE_NAME)


# ---------------------------------------------------------------- reading and validating

def read_bytes(file: str, limit: int = MAX_BYTES) -> bytes | None:
    """The file's bytes, None when there is none; OverlayError when it is not a regular file or is
    larger than `limit`.  Never blocks on a FIFO or device (checked before opening, and opened
    non-blocking)."""
    try:
        st = os.stat(file)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OverlayError(f"cannot read it: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise OverlayError("it is not a regular file")
    if st.st_size > limit:
        raise OverlayError(f"it is larger than {limit >> 20} MiB")
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise OverlayError(f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise OverlayError(f"it is larger than {limit >> 20} MiB")
    return data


def parse(data: bytes) -> dict:
    """The validated overlay; OverlayError names the first problem."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise OverlayError(f"it is not JSON ({type(exc).__name__})") from None
    return validate(doc)


def _text(value, what: str, limit: int = MAX_TEXT, nullable: bool = True):
    if value is None and nullable:
        return None
    if not isinstance(value, str) or len(value) > limit or re.search(r"[\x00-\x08\x0b-\x1f\x7f]", value):
        raise OverlayError(f"{what} is not a short text")
    return value


def _match(value, pattern: re.Pattern, what: str, nullable: bool = True):
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise OverlayError(f"{what} {str(value)[:40]!r} is not valid")
    return value


def _bool(value, what: str):
    if not isinstance(value, bool):
        raise OverlayError(f"{what} is not true/false")
    return value


def _list(value, what: str, limit: int) -> list:
    if not isinstance(value, list) or len(value) > limit:
        raise OverlayError(f"{what} is not a list of at most {limit} items")
    return value


_BUILD_FIELDS = {
    "tag": lambda v, w: _match(v, _CUDA_TAG, w, nullable=False),
    "cudnn": lambda v, w: _match(v, _VERSION, w),
    "cuda": lambda v, w: _match(v, _VERSION, w),
    "arch_list": lambda v, w: _match(v, _ARCH, w),
    "arch_list_linux_aarch64": lambda v, w: _match(v, _ARCH, w),
    "platforms": lambda v, w: [_match(p, re.compile("|".join(PLATFORMS)), w, nullable=False)
                               for p in _list(v, w, len(PLATFORMS))],
    "python": lambda v, w: [_match(p, _RELEASE, w, nullable=False) for p in _list(v, w, 20)],
    "unverified": _bool, "cudnn_unverified": _bool, "experimental": _bool,
    "source": _text, "note": _text, "unverified_reason": _text,
    "learned_from": lambda v, w: _match(v, _URL, w),
}
_RELEASE_FIELDS = {
    "torch": lambda v, w: _match(v, _RELEASE, w, nullable=False),
    "latest_patch": lambda v, w: _match(v, _VERSION, w),
    "python_min": lambda v, w: _match(v, _RELEASE, w),
    "python_max": lambda v, w: _match(v, _RELEASE, w),
    "python_experimental": lambda v, w: _match(v, _RELEASE, w),
    "requires_python": lambda v, w: _match(v, _SPEC, w),
    "torchvision": lambda v, w: _match(v, _RELEASE, w),
    "torchaudio": lambda v, w: _match(v, _RELEASE, w),
    "pypi": lambda v, w: _pypi(v, w),
    "builds_complete": _bool, "unverified": _bool,
    "source": _text, "note": _text, "builds_note": _text,
    "learned_from": lambda v, w: _match(v, _URL, w),
}
_TF_FIELDS = {
    "tensorflow": lambda v, w: _match(v, _RELEASE, w, nullable=False),
    "os": lambda v, w: _match(v, re.compile("linux|windows"), w, nullable=False),
    "python_min": lambda v, w: _match(v, _RELEASE, w),
    "python_max": lambda v, w: _match(v, _RELEASE, w),
    "cuda": lambda v, w: _match(v, _VERSION, w),
    "cudnn": lambda v, w: _match(v, _VERSION, w),
    "requires_python": lambda v, w: _match(v, _SPEC, w),
    "and_cuda": lambda v, w: [_match(r, _REQ, w, nullable=False) for r in _list(v, w, 64)],
    "compiler": _text, "source": _text, "note": _text, "unverified": _bool,
    "learned_from": lambda v, w: _match(v, _URL, w),
}


def _pypi(value, what: str) -> dict:
    if not isinstance(value, dict) or len(value) > len(PLATFORMS):
        raise OverlayError(f"{what} is not a platform map")
    for k, v in value.items():
        if k not in PLATFORMS:
            raise OverlayError(f"{what} names an unknown platform {str(k)[:30]!r}")
        _match(v, _PYPI_TAG, f"{what}.{k}", nullable=False)
    return dict(value)


def _row(value, fields: dict, what: str, required: str) -> dict:
    """A row with only the known fields, each checked; unknown fields are dropped (a newer
    torch_envcheck may write more)."""
    if not isinstance(value, dict):
        raise OverlayError(f"{what} is not an object")
    if required not in value:
        raise OverlayError(f"{what} has no {required!r}")
    out = {}
    for key, check in fields.items():
        if key in value:
            out[key] = check(value[key], f"{what}.{key}")
    return out


def validate(doc) -> dict:
    if not isinstance(doc, dict):
        raise OverlayError("it is not a JSON object")
    if doc.get("schema") != SCHEMA:
        raise OverlayError(f"its schema is {str(doc.get('schema'))[:60]!r}, expected {SCHEMA!r}")
    fetched = _text(doc.get("fetched"), "fetched", 40, nullable=False)
    try:
        _dt.datetime.fromisoformat(fetched.replace("Z", "+00:00"))
    except ValueError:
        raise OverlayError(f"fetched {fetched!r} is not an ISO date") from None
    sources = [_match(u, _URL, "sources[]", nullable=False) for u in _list(doc.get("sources", []), "sources", MAX_SOURCES)]
    tables = doc.get("tables")
    if not isinstance(tables, dict):
        raise OverlayError("it has no 'tables' object")
    out_tables: dict = {}
    rel = tables.get("torch_releases.json")
    if rel is not None:
        if not isinstance(rel, dict):
            raise OverlayError("tables.torch_releases.json is not an object")
        rows = []
        for i, r in enumerate(_list(rel.get("releases", []), "releases", MAX_ROWS)):
            row = _row(r, _RELEASE_FIELDS, f"releases[{i}]", "torch")
            if "builds" in r:
                row["builds"] = [_row(b, _BUILD_FIELDS, f"releases[{i}].builds[{j}]", "tag")
                                 for j, b in enumerate(_list(r["builds"], f"releases[{i}].builds", MAX_BUILDS))]
            rows.append(row)
        out_tables["torch_releases.json"] = {"releases": rows}
    dock = tables.get("docker_images.json")
    if dock is not None:
        patches = dock.get("latest_patch", {}) if isinstance(dock, dict) else None
        if not isinstance(patches, dict) or len(patches) > MAX_ROWS:
            raise OverlayError("tables.docker_images.json.latest_patch is not a map")
        for k, v in patches.items():
            _match(k, _RELEASE, "latest_patch key", nullable=False)
            _match(v, _VERSION, f"latest_patch[{k}]", nullable=False)
        out_tables["docker_images.json"] = {"latest_patch": dict(patches)}
    tf = tables.get("tensorflow_builds.json")
    if tf is not None:
        if not isinstance(tf, dict):
            raise OverlayError("tables.tensorflow_builds.json is not an object")
        out_tables["tensorflow_builds.json"] = {
            "builds": [_row(b, _TF_FIELDS, f"tensorflow builds[{i}]", "tensorflow")
                       for i, b in enumerate(_list(tf.get("builds", []), "tensorflow builds", MAX_ROWS))]}
    return {"schema": SCHEMA, "fetched": fetched, "sources": sources, "tables": out_tables,
            "tool_version": _text(doc.get("tool_version"), "tool_version", 40)}


_warned: set = set()


def _warn(file: str, reason: str) -> None:
    """One line per process: the overlay is not used, the shipped tables serve."""
    if file in _warned:
        return
    _warned.add(file)
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    try:
        print(f"torch-envcheck: warning: ignoring the knowledge overlay {terminal(file)}: {terminal(reason)}; "
              "the shipped tables serve (`torch-envcheck knowledge update` rewrites it)", file=sys.stderr)
    except Exception:  # noqa: BLE001  (no usable stderr)
        pass


@functools.lru_cache(maxsize=4)
def _load(file: str) -> dict | None:
    try:
        data = read_bytes(file)
        return None if data is None else parse(data)
    except OverlayError as exc:
        _warn(file, str(exc))
        return None


def load() -> dict | None:
    """The validated overlay, or None (none written, or unusable: then one warning line)."""
    return _load(path())


_generation = [0]


def generation() -> int:
    """A number that changes whenever the overlay may have changed (reset): the tables merged with
    it are cached under it, so a new overlay is never read through an old merge."""
    return _generation[0]


def reset() -> None:
    """Forget the loaded overlay (after a new one was written, or in tests)."""
    _load.cache_clear()
    _warned.clear()
    _generation[0] += 1


# ---------------------------------------------------------------- merging

def _date(text) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


def _merge_row(shipped: dict, new: dict, override: bool, skip=("builds",)) -> None:
    for key, value in new.items():
        if key in skip:
            continue
        if override or shipped.get(key) is None:
            shipped[key] = value


def _key(v):
    return version_tuple(v) or ()


def apply(name: str, table: dict) -> dict:
    """`table` (a shipped table, as loaded) with the overlay's rows merged in; the table itself when
    the overlay has nothing for it.  The merged table carries "overlay": {fetched, path, sources}."""
    if name not in TABLES:
        return table
    ov = load()
    if ov is None:
        return table
    mark = {"fetched": ov["fetched"], "path": path(), "sources": list(ov["sources"])}
    part = ov.get("tables", {}).get(name)
    if not part:
        # nothing to add, but the indexes were read on that date: the tables are current as of it
        return dict(table, overlay=mark)
    out = copy.deepcopy(table)
    shipped_date, ov_date = _date(table.get("updated")), _date(ov["fetched"])
    # An overlay older than the shipped table only fills gaps: the newer shipped rows win.
    override = shipped_date is None or (ov_date is not None and ov_date >= shipped_date)
    if name == "torch_releases.json":
        rows = out.setdefault("releases", [])
        for new in part.get("releases", []):
            row = next((r for r in rows if r.get("torch") == new["torch"]), None)
            if row is None:
                row = {"torch": new["torch"], "python_min": None, "python_max": None, "python_experimental": None,
                       "torchvision": None, "torchaudio": None, "source": "overlay", "unverified": True, "builds": []}
                rows.append(row)
                _merge_row(row, new, True)
                row["overlay"] = "added"
            else:
                _merge_row(row, new, override)
                row.setdefault("overlay", "merged")
            builds = row.setdefault("builds", [])
            for nb in new.get("builds", []):
                b = next((x for x in builds if x.get("tag") == nb["tag"]), None)
                if b is None:
                    b = {"tag": nb["tag"], "cudnn": None, "arch_list": None, "unverified": True, "source": "overlay"}
                    builds.append(b)
                    _merge_row(b, nb, True)
                    b["overlay"] = "added"
                else:
                    _merge_row(b, nb, override)
    elif name == "docker_images.json":
        patches = out.setdefault("latest_patch", {})
        for rel, patch in part.get("latest_patch", {}).items():
            if rel not in patches or _key(patch) > _key(patches[rel]):
                patches[rel] = patch
    elif name == "tensorflow_builds.json":
        rows = out.setdefault("builds", [])
        for new in part.get("builds", []):
            row = next((r for r in rows if r.get("tensorflow") == new["tensorflow"] and r.get("os") == new["os"]), None)
            if row is None:
                row = {"tensorflow": new["tensorflow"], "os": new["os"], "python_min": None, "python_max": None,
                       "compiler": None, "cuda": None, "cudnn": None, "source": "overlay", "unverified": True}
                rows.append(row)
                _merge_row(row, new, True, skip=())
                row["overlay"] = "added"
            else:
                _merge_row(row, new, override, skip=())
    out["overlay"] = mark
    return out

