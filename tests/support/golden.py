"""The golden record of the doctor's behaviour: for every recorded snapshot, the findings of its
report (code, severity, area, the fix, what explains it), the exit status, and the install
commands `advise -q`, `pin` and `readme-line` print.  tests/unit/render/test_golden.py compares the
package against tests/data/golden_findings.json; a behaviour change shows up there as a diff, and
the commit that makes it on purpose rewrites the file (`python tests/support/golden.py --write`)
and names each difference.

Only the command line is used (torch_envcheck.cli.main), so the record is independent of where
modules live."""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SNAP_DIR = os.path.join(os.path.dirname(HERE), "snapshots")
GOLDEN = os.path.join(os.path.dirname(HERE), "data", "golden_findings.json")
COMMANDS = (("advise", "-q"), ("pin",), ("readme-line",))
FIELDS = ("code", "severity", "area", "fix", "explained_by")


def _run(argv: list[str]) -> tuple[int, str]:
    from torch_envcheck import cli  # noqa: PLC0415

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue()


def capture_one(path: str) -> dict:
    rc, out = _run(["--from-json", path, "--json"])
    rep = json.loads(out)
    entry = {"exit_status": rc,
             "findings": [{k: f.get(k) for k in FIELDS} for f in rep["findings"]]}
    for cmd in COMMANDS:
        code, text = _run([cmd[0], "--from-json", path, *cmd[1:]])
        entry[" ".join(cmd)] = {"rc": code, "out": text}
    return entry


def capture(snap_dir: str = SNAP_DIR) -> dict:
    os.environ.setdefault("NO_COLOR", "1")
    with shipped_tables_only():
        return {os.path.basename(p)[:-5]: capture_one(p)
                for p in sorted(glob.glob(os.path.join(snap_dir, "*.json")))}


@contextlib.contextmanager
def shipped_tables_only():
    """The record is of the shipped knowledge tables: a `knowledge update` overlay in the user's
    cache must not change it (TORCH_ENVCHECK_KNOWLEDGE_DIR points at an empty folder)."""
    import tempfile  # noqa: PLC0415

    from torch_envcheck import knowledge as kb  # noqa: PLC0415
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415

    old = os.environ.get(overlay.ENV_DIR)
    with tempfile.TemporaryDirectory(prefix="te-golden-") as empty:
        os.environ[overlay.ENV_DIR] = empty
        kb.clear_caches()
        try:
            yield
        finally:
            if old is None:
                os.environ.pop(overlay.ENV_DIR, None)
            else:
                os.environ[overlay.ENV_DIR] = old
            kb.clear_caches()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    record = capture()
    if argv[:1] == ["--write"]:
        with open(GOLDEN, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"wrote {len(record)} scenarios to {GOLDEN}")
    else:
        print(json.dumps(record, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
