"""The snapshot's schema name, and loading a saved snapshot or report (`--from-json`) with a clear
error for anything else.  The data contract is declared in facts/contract.py; validate() normalises
every snapshot it accepts against it (once, on load), so wrong types and missing fields are unknown."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

SNAPSHOT_SCHEMA = "torch_envcheck.snapshot/1"
REPORT_SCHEMA = "torch_envcheck.report/1"
SCHEMA_FAMILY = {"torch_envcheck.snapshot": SNAPSHOT_SCHEMA, "torch_envcheck.report": REPORT_SCHEMA}

from torch_envcheck.facts import contract


class SnapshotError(ValueError):
    """A file that is not a torch_envcheck snapshot or report; the message names what was expected."""


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def validate(data, source: str = "snapshot") -> dict:
    """Return the snapshot inside `data` (a snapshot, or a report holding one), normalised against
    the contract (contract.normalise: every declared field present, a wrong type read as unknown);
    raise SnapshotError when `data` is not a torch_envcheck snapshot or report at all."""
    expected = f"a torch_envcheck snapshot or report (schema {SNAPSHOT_SCHEMA} or {REPORT_SCHEMA})"
    if not isinstance(data, dict):
        raise SnapshotError(f"{source}: expected {expected}, got {_kind(data)}")
    schema = data.get("schema")
    if schema is None:
        raise SnapshotError(f"{source}: no \"schema\" field; expected {expected} "
                            "(save one with `torch-envcheck --json > report.json`)")
    if not isinstance(schema, str):
        raise SnapshotError(f"{source}: \"schema\" is {_kind(schema)}; expected {expected}")
    family, _, version = schema.partition("/")
    if family not in SCHEMA_FAMILY:
        raise SnapshotError(f"{source}: schema {schema!r} is not a torch_envcheck schema; expected {expected}")
    if schema != SCHEMA_FAMILY[family]:
        raise SnapshotError(f"{source}: schema {schema!r} is from another version of torch_envcheck; "
                            f"this one reads {SCHEMA_FAMILY[family]}")
    if schema == REPORT_SCHEMA:
        snap = data.get("snapshot")
        if not isinstance(snap, dict):
            raise SnapshotError(f"{source}: the report's \"snapshot\" is {_kind(snap)}; expected an object")
        return validate(snap, f"{source} (its \"snapshot\")")
    return contract.normalise(data)


# Bounds for a report read from a stranger (`--from-json`): the same numbers collect() cuts a live
# snapshot to (_util/bounds.py), so that every report this tool writes, it reads back.
from torch_envcheck._util.bounds import MAX_BYTES, MAX_DEPTH, MAX_ITEMS, MAX_NODES  # noqa: E402

_SURROGATE = re.compile("[\ud800-\udfff]")


def read_bounded(path: str, limit: int, error=None, what: str = "a torch_envcheck JSON report file",
                 pipe: str = "a report") -> bytes:
    """At most limit + 1 bytes of `path` ("-" = stdin); `error` (default SnapshotError) with one line
    naming the problem when it cannot be read.  `what` is the file expected, `pipe` what stdin takes.
    Also read by fleet reports (fleet/load.py)."""
    import os  # noqa: PLC0415
    import sys  # noqa: PLC0415

    error = error or SnapshotError
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if sys.stdin is None or stream is None:
            raise error(f"-: standard input is closed; pipe {pipe} into it or give a file name")
        try:
            return stream.read(limit + 1)
        except (OSError, ValueError) as exc:  # ValueError: a closed file object
            raise error(f"-: cannot read standard input: {getattr(exc, 'strerror', None) or exc}") from None
    if os.path.isdir(path):
        raise error(f"{path}: is a directory; expected {what}")
    from torch_envcheck._util import safe_open  # noqa: PLC0415

    try:
        # a regular file only: a FIFO or a device is refused, never waited on
        return safe_open.read_bytes(path, limit + 1, overflow="head")
    except safe_open.NotRegularFile as exc:
        raise error(f"{path}: {exc}; expected {what}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read it: {exc.strerror or exc}") from None


def _decode(raw: bytes, path: str) -> str:
    """UTF-8 (with or without a BOM), UTF-16 and UTF-32 (a BOM, or the NUL pattern of ASCII JSON):
    PowerShell 5.1's `>` writes UTF-16 LE with a BOM."""
    codecs_by_bom = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                     (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
    encoding = next((enc for bom, enc in codecs_by_bom if raw.startswith(bom)), None)
    if encoding is None and len(raw) >= 4:
        head = raw[:4]
        if head[1:4] == b"\x00\x00\x00" and head[0]:
            encoding = "utf-32-le"
        elif head[:3] == b"\x00\x00\x00" and head[3]:
            encoding = "utf-32-be"
        elif head[0] and not head[1] and head[2] and not head[3]:
            encoding = "utf-16-le"
        elif not head[0] and head[1] and not head[2] and head[3]:
            encoding = "utf-16-be"
    try:
        return raw.decode(encoding or "utf-8")
    except UnicodeDecodeError:
        raise SnapshotError(f"{path}: not UTF-8 or UTF-16 text; expected a torch_envcheck JSON report "
                            "(saved with `torch-envcheck --json > report.json`)") from None


def _depth(text: str) -> int:
    """How deep the brackets of JSON `text` nest (brackets inside strings do not count)."""
    from torch_envcheck._util.bounds import depth  # noqa: PLC0415  (one implementation, shared with collect)
    return depth(text)


def _clean(value, path: str, budget: list) -> object:
    """`value` with lone surrogates replaced (U+FFFD) in every string and key; raises SnapshotError
    when a list or object is larger than a report can be.  Depth is bounded before this runs."""
    budget[0] -= 1
    if budget[0] < 0:
        raise SnapshotError(f"{path}: more than {MAX_NODES} values; expected a torch_envcheck report (a few thousand)")
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise SnapshotError(f"{path}: an object with {len(value)} entries (at most {MAX_ITEMS} expected)")
        return {_SURROGATE.sub("\ufffd", k): _clean(v, path, budget) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise SnapshotError(f"{path}: a list with {len(value)} entries (at most {MAX_ITEMS} expected)")
        return [_clean(v, path, budget) for v in value]
    return value


def _constant(name: str):
    return None  # NaN / Infinity are not JSON: read them as unknown


def load(path: str) -> dict:
    """Read a saved snapshot or report from `path` ("-" = stdin); return the snapshot.  The file is
    input from a stranger: its size, nesting, list lengths and encoding are checked before use, and
    every problem is a SnapshotError whose one-line message names it."""
    if not isinstance(path, str) or not path:
        raise SnapshotError("--from-json needs a file name (or '-' for standard input); got an empty name")
    raw = read_bounded(path, MAX_BYTES)
    if len(raw) > MAX_BYTES:
        raise SnapshotError(f"{path}: larger than {MAX_BYTES // 2**20} MiB; a torch_envcheck report is well under "
                            "1 MiB")
    if not raw.strip():
        raise SnapshotError(f"{path}: empty; expected a torch_envcheck report saved with `torch-envcheck --json`")
    text = _decode(raw, path).lstrip("\ufeff")
    if "\x00" in text:
        raise SnapshotError(f"{path}: contains NUL characters; expected a torch_envcheck JSON report")
    if _depth(text) > MAX_DEPTH:
        raise SnapshotError(f"{path}: JSON nested more than {MAX_DEPTH} levels deep; a torch_envcheck report "
                            "nests a few levels")
    try:
        data = json.loads(text, parse_constant=_constant)
    except RecursionError:  # the depth check above should make this unreachable
        raise SnapshotError(f"{path}: JSON nested too deep") from None
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line}, column {exc.colno})" if line else ""
        msg = str(getattr(exc, "msg", exc)).splitlines()[0][:200]
        raise SnapshotError(f"{path}: not valid JSON{where}: {msg}; expected a "
                            "torch_envcheck report saved with `torch-envcheck --json`") from None
    return validate(_clean(data, path, [MAX_NODES]), path)


def jsonable(value):
    """A copy of value that json.dumps accepts (mappings -> dicts, tuples -> lists, unknown objects -> str)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
