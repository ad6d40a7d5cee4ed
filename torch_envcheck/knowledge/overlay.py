"""The knowledge overlay: rows that `torch-envcheck knowledge update` learned from the
package indexes, kept as one dated JSON file in the user's cache, and merged over the shipped
tables whenever a table is loaded (knowledge.load_table calls apply()).

    <cache>/knowledge/overlay.json      <cache>: $TORCH_ENVCHECK_KNOWLEDGE_DIR, else
                                        platformdirs.user_cache_dir("torch_envcheck") (or the same
                                        folder computed without platformdirs)

Learned rows are hints from a stranger's index, never facts: the overlay only fills what the
shipped (verified) tables lack.  A shipped row or build keeps every value it has; the overlay adds
releases and builds the tables do not list (always marked unverified, with the index they came
from), a cuDNN pin other than the shipped one as `cudnn_learned` beside it, and the newest patches
it saw as `latest_patch_learned` (never `latest_patch`, which names images and pins).

The file is input like any other, and anyone who can plant a file in the cache folder is a
stranger too.  It is read only when it is a regular file (not a symlink) owned by this user and
writable by nobody else, no larger than MAX_BYTES, fetched on a date that is neither before
torch_envcheck existed nor in the future, holding only the fields `knowledge update` writes (with
the values it writes: learned rows are unverified, their builds have no arch list), and carrying
the digest `write()` recorded (a file edited afterwards no longer matches it).  An overlay that
fails any of it is ignored with one warning line on stderr, and the shipped tables serve.  Pure
Python; no network and no writing (knowledge_update/ learns and writes it).
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import hashlib
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

# What `knowledge update` writes in its text fields: nothing else is accepted there.
LEARNED_SOURCE = "package index (knowledge update)"
LEARNED_NOTE = "learned from the index: no arch list (only the binary has one)"
OLDEST_DATE = _dt.date(2020, 1, 1)   # before torch_envcheck existed: not a date update wrote
FUTURE_SLACK = _dt.timedelta(days=1)  # clocks differ; a day ahead is a wrong clock, a year is a plant

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
    """The file's bytes, None when there is none; OverlayError when it is not a regular file (a
    symlink is not followed), is not owned by this user or is writable by others, or is larger than
    `limit`.  Never blocks on a FIFO or device (opened non-blocking, then checked by fstat: what was
    opened, not what the path named a moment before)."""
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_NOCTTY", 0))
    try:
        fd = os.open(file, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(file):
            raise OverlayError("it is a symbolic link (the overlay is written as a plain file)") from None
        raise OverlayError(f"cannot read it: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OverlayError("it is not a regular file")
        owner_problem(st)
        if st.st_size > limit:
            raise OverlayError(f"it is larger than {limit >> 20} MiB")
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise OverlayError(f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise OverlayError(f"it is larger than {limit >> 20} MiB")
    return data


def owner_problem(st: os.stat_result) -> None:
    """OverlayError unless the file is this user's and no other user may write it (POSIX; Windows
    has no such bits in stat and keeps per-user cache folders)."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return
    if st.st_uid != geteuid():
        raise OverlayError(f"it is owned by user id {st.st_uid}, not by this user ({geteuid()})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise OverlayError(f"other users may write it (mode {stat.S_IMODE(st.st_mode):o})")


def parse(data: bytes) -> dict:
    """The validated overlay; OverlayError names the first problem."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise OverlayError(f"it is not JSON ({type(exc).__name__})") from None
    clean = validate(doc)
    if "digest" not in doc:
        raise OverlayError("it carries no digest (not written by `knowledge update`)")
    if digest(doc) != doc["digest"]:
        raise OverlayError("its digest does not match its content (changed after `knowledge update` wrote it)")
    return clean


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


def _is(expected):
    """A field `knowledge update` always writes with one value: that value, or the row is refused."""
    def check(value, what):
        if value != expected or type(value) is not type(expected):
            raise OverlayError(f"{what} is {str(value)[:40]!r}; `knowledge update` writes {expected!r}")
        return value
    return check


def _null(value, what):
    if value is not None:
        raise OverlayError(f"{what} is {str(value)[:40]!r}; `knowledge update` never pairs it (null)")
    return None


_BUILD_FIELDS = {
    "tag": lambda v, w: _match(v, _CUDA_TAG, w, nullable=False),
    "cudnn": lambda v, w: _match(v, _VERSION, w),
    "platforms": lambda v, w: [_match(p, re.compile("|".join(PLATFORMS)), w, nullable=False)
                               for p in _list(v, w, len(PLATFORMS))],
    "python": lambda v, w: [_match(p, _RELEASE, w, nullable=False) for p in _list(v, w, 20)],
    "unverified": _is(True), "source": _is(LEARNED_SOURCE), "note": _is(LEARNED_NOTE),
    "learned_from": lambda v, w: _match(v, _URL, w),
}
_RELEASE_FIELDS = {
    "torch": lambda v, w: _match(v, _RELEASE, w, nullable=False),
    "latest_patch": lambda v, w: _match(v, _VERSION, w),
    "python_min": lambda v, w: _match(v, _RELEASE, w),
    "python_max": lambda v, w: _match(v, _RELEASE, w),
    "python_experimental": _null,
    "requires_python": lambda v, w: _match(v, _SPEC, w),
    "torchvision": _null, "torchaudio": _null,
    "pypi": lambda v, w: _pypi(v, w),
    "builds_complete": _is(False), "unverified": _is(True), "source": _is(LEARNED_SOURCE),
    "learned_from": lambda v, w: _match(v, _URL, w),
    "builds": None,  # checked row by row (_BUILD_FIELDS)
}
_TF_FIELDS = {
    "tensorflow": lambda v, w: _match(v, _RELEASE, w, nullable=False),
    "os": lambda v, w: _match(v, re.compile("linux"), w, nullable=False),
    "python_min": lambda v, w: _match(v, _RELEASE, w),
    "python_max": lambda v, w: _match(v, _RELEASE, w),
    "cuda": lambda v, w: _match(v, _VERSION, w),
    "cudnn": lambda v, w: _match(v, _VERSION, w),
    "requires_python": lambda v, w: _match(v, _SPEC, w),
    "and_cuda": lambda v, w: [_match(r, _REQ, w, nullable=False) for r in _list(v, w, 64)],
    "source": _is(LEARNED_SOURCE), "unverified": _is(True),
    "learned_from": lambda v, w: _match(v, _URL, w),
}
_TOP_FIELDS = ("schema", "tool_version", "fetched", "sources", "tables", "digest")


def _pypi(value, what: str) -> dict:
    if not isinstance(value, dict) or len(value) > len(PLATFORMS):
        raise OverlayError(f"{what} is not a platform map")
    for k, v in value.items():
        if k not in PLATFORMS:
            raise OverlayError(f"{what} names an unknown platform {str(k)[:30]!r}")
        _match(v, _PYPI_TAG, f"{what}.{k}", nullable=False)
    return dict(value)


def _row(value, fields: dict, what: str, required: str) -> dict:
    """A row with only the fields `knowledge update` writes, each checked; any other field refuses
    the row (an arch list, a cuda field or a note nobody learned from an index was put there by
    hand or by a plant, and it would steer the advice)."""
    if not isinstance(value, dict):
        raise OverlayError(f"{what} is not an object")
    if required not in value:
        raise OverlayError(f"{what} has no {required!r}")
    extra = sorted(str(k)[:30] for k in value if k not in fields)
    if extra:
        raise OverlayError(f"{what} has fields `knowledge update` never writes ({', '.join(extra[:5])!r})")
    out = {}
    for key, check in fields.items():
        if key in value and check is not None:
            out[key] = check(value[key], f"{what}.{key}")
    return out


def release_row(value, what: str = "release") -> dict:
    """One torch release row as `knowledge update` writes it (its builds included), checked;
    OverlayError names what is wrong.  update.py checks each row it learned with it before writing."""
    row = _row(value, _RELEASE_FIELDS, what, "torch")
    if "builds" in value:
        row["builds"] = [_row(b, _BUILD_FIELDS, f"{what}.builds[{j}]", "tag")
                         for j, b in enumerate(_list(value["builds"], f"{what}.builds", MAX_BUILDS))]
    return row


def tensorflow_row(value, what: str = "tensorflow build") -> dict:
    return _row(value, _TF_FIELDS, what, "tensorflow")


def check_date(fetched: str, now: _dt.datetime | None = None) -> str:
    """`fetched` when it is an ISO date between OLDEST_DATE and now (plus a day of clock skew)."""
    try:
        when = _dt.datetime.fromisoformat(fetched.replace("Z", "+00:00"))
    except ValueError:
        raise OverlayError(f"fetched {fetched!r} is not an ISO date") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    now = now or _dt.datetime.now(_dt.timezone.utc)
    if when.date() < OLDEST_DATE or when > now + FUTURE_SLACK:
        raise OverlayError(f"fetched {fetched!r} is not a date `knowledge update` could have written "
                           f"(before {OLDEST_DATE} or in the future)")
    return fetched


def digest(doc: dict) -> str:
    """The digest `write()` records: sha256 over the document without its digest, as canonical JSON."""
    body = {k: v for k, v in doc.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def validate(doc) -> dict:
    if not isinstance(doc, dict):
        raise OverlayError("it is not a JSON object")
    if doc.get("schema") != SCHEMA:
        raise OverlayError(f"its schema is {str(doc.get('schema'))[:60]!r}, expected {SCHEMA!r}")
    extra = sorted(str(k)[:30] for k in doc if k not in _TOP_FIELDS)
    if extra:
        raise OverlayError(f"it has fields `knowledge update` never writes ({', '.join(extra[:5])!r})")
    fetched = check_date(_text(doc.get("fetched"), "fetched", 40, nullable=False))
    sources = [_match(u, _URL, "sources[]", nullable=False) for u in _list(doc.get("sources", []), "sources", MAX_SOURCES)]
    tables = doc.get("tables")
    if not isinstance(tables, dict):
        raise OverlayError("it has no 'tables' object")
    out_tables: dict = {}
    rel = tables.get("torch_releases.json")
    if rel is not None:
        if not isinstance(rel, dict):
            raise OverlayError("tables.torch_releases.json is not an object")
        rows = [release_row(r, f"releases[{i}]")
                for i, r in enumerate(_list(rel.get("releases", []), "releases", MAX_ROWS))]
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
            "builds": [tensorflow_row(b, f"tensorflow builds[{i}]")
                       for i, b in enumerate(_list(tf.get("builds", []), "tensorflow builds", MAX_ROWS))]}
    unknown_tables = sorted(str(k)[:30] for k in tables if k not in TABLES)
    if unknown_tables:
        raise OverlayError(f"it has tables `knowledge update` never writes ({', '.join(unknown_tables[:3])!r})")
    out = {"schema": SCHEMA, "fetched": fetched, "sources": sources, "tables": out_tables,
           "tool_version": _text(doc.get("tool_version"), "tool_version", 40)}
    if "digest" in doc:
        out["digest"] = _match(doc["digest"], re.compile(r"sha256:[0-9a-f]{64}"), "digest", nullable=False)
    return out


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

def _fill(row: dict, new: dict, skip=("builds",)) -> None:
    """Copy the overlay's values into the empty fields of a row the overlay adds."""
    for key, value in new.items():
        if key not in skip and row.get(key) is None:
            row[key] = value


def _key(v):
    return version_tuple(v) or ()


def is_learned(row: dict | None) -> bool:
    """Whether a release or build row exists only because the overlay added it (a hint from an
    index, never a verified fact: no advice picks it and it never defines the newest release)."""
    return bool(row) and row.get("overlay") == "added"


def apply(name: str, table: dict) -> dict:
    """`table` (a shipped table, as loaded) with the overlay's hints merged in: releases and builds
    it lacks (marked unverified and learned), learned cuDNN pins and patches kept beside the
    shipped ones, every shipped value as it was; the table itself when the overlay has nothing for it.
    The merged table carries "overlay": {fetched, path, sources}."""
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
    if name == "torch_releases.json":
        rows = out.setdefault("releases", [])
        for new in part.get("releases", []):
            row = next((r for r in rows if r.get("torch") == new["torch"]), None)
            if row is None:
                row = {"torch": new["torch"], "python_min": None, "python_max": None, "python_experimental": None,
                       "torchvision": None, "torchaudio": None, "builds": []}
                rows.append(row)
                _fill(row, new)
                row.update(overlay="added", unverified=True, source=LEARNED_SOURCE, builds_complete=False)
            else:
                # a shipped release keeps every field (a gap it has is deliberate: a null torchvision,
                # no PyPI map): the overlay adds only builds it lacks, and learned cuDNN pins beside
                row.setdefault("overlay", "merged")
            builds = row.setdefault("builds", [])
            for nb in new.get("builds", []):
                b = next((x for x in builds if x.get("tag") == nb["tag"]), None)
                if b is None:
                    b = {"tag": nb["tag"], "cudnn": None, "arch_list": None}
                    builds.append(b)
                    _fill(b, nb)
                    b.update(overlay="added", unverified=True, source=LEARNED_SOURCE, arch_list=None)
                    b.pop("arch_list_linux_aarch64", None)
                elif nb.get("cudnn") and nb["cudnn"] != b.get("cudnn"):
                    # the shipped pin stays (it names images); the index's is shown beside it
                    b["cudnn_learned"] = {"cudnn": nb["cudnn"], "learned_from": nb.get("learned_from")}
    elif name == "docker_images.json":
        # learned patches never become image tags or pins: kept apart, as hints
        shipped = out.get("latest_patch", {})
        learned = out.setdefault("latest_patch_learned", {})
        for rel, patch in part.get("latest_patch", {}).items():
            if rel not in shipped or _key(patch) > _key(shipped[rel]):
                learned[rel] = patch
    elif name == "tensorflow_builds.json":
        rows = out.setdefault("builds", [])
        for new in part.get("builds", []):
            row = next((r for r in rows if r.get("tensorflow") == new["tensorflow"] and r.get("os") == new["os"]), None)
            if row is None:
                row = {"tensorflow": new["tensorflow"], "os": new["os"], "python_min": None, "python_max": None,
                       "compiler": None, "cuda": None, "cudnn": None}
                rows.append(row)
                _fill(row, new, skip=())
                row.update(overlay="added", unverified=True, source=LEARNED_SOURCE)
            # a shipped TensorFlow row keeps every field
    out["overlay"] = mark
    return out

