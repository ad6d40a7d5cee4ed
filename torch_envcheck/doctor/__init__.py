"""The doctor: probes gather facts into a snapshot, rules (torch_envcheck.doctor.rules) turn the
snapshot into findings, the report (doctor/report.py) assembles them, renderers print it.  A saved
snapshot or report can be diagnosed again anywhere (`torch-envcheck --from-json FILE`).

    collect(timeout=5.0)    -> snapshot dict  (schema torch_envcheck.snapshot/1, contract.normalise()d)
    report(snapshot)        -> Report         (doctor/report.py, called: build; schema torch_envcheck.report/1)
    diagnose(snapshot=None) -> Report         (collects first when no snapshot is given)

This module is the entry point only: every reader of the facts layer imports this package, and
pays for none of the probes, rules, report or renderers (each is imported when it runs).
"""

from __future__ import annotations

import datetime as _dt

from torch_envcheck._util import bounds
from torch_envcheck._version import __version__
from torch_envcheck.doctor.areas import AREAS, OPTIONAL_AREAS, areas_for
from torch_envcheck.facts.contract import normalise
from torch_envcheck.doctor.finding import SEVERITIES
from torch_envcheck.facts.snapshot import REPORT_SCHEMA, SNAPSHOT_SCHEMA, jsonable

__all__ = ["AREAS", "OPTIONAL_AREAS", "SEVERITIES", "areas_for", "collect", "report", "diagnose", "SNAPSHOT_SCHEMA", "REPORT_SCHEMA"]


def _tool_version() -> str:
    return __version__


def collect(timeout: float = 5.0, only=None, torch_timeout: float | None = None, tensorflow: bool = True) -> dict:
    """Run the probes (all, or those named in `only`) and return the snapshot.  Never raises
    because of what it finds: failures are facts in probe_errors / driver.errors.
    tensorflow=False: TensorFlow's metadata only, without importing it in a child process."""
    # The probes, rules and renderers are imported when they run: every reader of the facts layer
    # imports this package, and must not pay for them.
    from torch_envcheck.doctor import probes  # noqa: PLC0415

    res = probes.run(timeout=timeout, only=only, torch_timeout=torch_timeout, tensorflow=tensorflow)
    snap = {
        "schema": SNAPSHOT_SCHEMA,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "tool_version": _tool_version(),
        "probe_errors": res["probe_errors"],
        "probe_seconds": res["probe_seconds"],
    }
    snap.update(res["sections"])
    # The bounds a saved report is read with (--from-json) apply here too: what this run collects,
    # its own --json can always be read back; a cut is named in probe_errors.
    snap, cut = bounds.fit_snapshot(jsonable(snap))
    bounds.note_into(snap, cut)
    return normalise(snap)


def diagnose(snapshot: dict | None = None, timeout: float = 5.0):
    """The Report (doctor/report.py) for `snapshot`, or for this environment when none is given."""
    from torch_envcheck.doctor.report import build  # noqa: PLC0415  (the rules load when a report is built)
    return build(collect(timeout=timeout) if snapshot is None else snapshot)


def __getattr__(name: str):
    # `doctor.report(snapshot)`: the report module, which builds a report when called
    if name == "report":
        import importlib  # noqa: PLC0415
        return importlib.import_module("torch_envcheck.doctor.report")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
