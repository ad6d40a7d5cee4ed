"""The snapshot's schema name, and loading a saved snapshot or report (`--from-json`) with a clear
error for anything else.  The data contract itself is documented in the README ("The doctor")."""

from __future__ import annotations

import json

SNAPSHOT_SCHEMA = "torch_envcheck.snapshot/1"
REPORT_SCHEMA = "torch_envcheck.report/1"
SCHEMA_FAMILY = {"torch_envcheck.snapshot": SNAPSHOT_SCHEMA, "torch_envcheck.report": REPORT_SCHEMA}

# Top-level sections: each an object (or null when its probe could not run).
SECTIONS = ("platform", "torch", "packages", "driver", "env", "libraries", "toolchain", "extension",
            "tensorflow", "file_owners")
MAPS = ("probe_errors", "probe_seconds")


class SnapshotError(ValueError):
    """A file that is not a torch_envcheck snapshot or report; the message names what was expected."""


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def validate(data, source: str = "snapshot") -> dict:
    """Return the snapshot inside `data` (a snapshot, or a report holding one); raise SnapshotError."""
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
    for key in SECTIONS:
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise SnapshotError(f"{source}: \"{key}\" is {_kind(data[key])}; expected an object or null")
    for key in MAPS:
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise SnapshotError(f"{source}: \"{key}\" is {_kind(data[key])}; expected an object")
    return data


def load(path: str) -> dict:
    """Read a saved snapshot or report from `path` ("-" = stdin); return the snapshot."""
    import sys  # noqa: PLC0415

    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise SnapshotError(f"{path}: not a text file; expected a torch_envcheck JSON report") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line}, column {exc.colno})" if line else ""
        raise SnapshotError(f"{path}: not valid JSON{where}: {getattr(exc, 'msg', exc)}; expected a "
                            "torch_envcheck report saved with `torch-envcheck --json`") from None
    return validate(data, path)


def jsonable(value):
    """A copy of value that json.dumps accepts (tuples -> lists, unknown objects -> str)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
