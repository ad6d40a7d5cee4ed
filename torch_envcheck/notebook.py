"""Jupyter/IPython extension: `%load_ext torch_envcheck`.

* An exception handler for the exception types environment errors arrive as (RuntimeError,
  ImportError, OSError, AssertionError, ValueError, subprocess errors): it shows IPython's normal
  traceback first, then, only when the exception's message (with its chained causes) matches an
  environment error of the catalogue, the explanation below it (text/html and text/plain).  Any
  other exception is shown exactly as IPython shows it.  The machine is not probed there (a cell
  must not stall): `%envcheck` checks it.
* `%envcheck [--from-json FILE] [--timeout SECONDS]`: the doctor's report as an HTML table (every
  value escaped with html.escape).

Loaded only inside IPython; importing torch_envcheck does not import this module."""

from __future__ import annotations

import argparse
import html
import shlex
import subprocess

HANDLED = (RuntimeError, ImportError, OSError, AssertionError, ValueError, subprocess.SubprocessError)
UNCHECKED = "run %envcheck in a cell to see which cause this machine shows"


def explanation_for(value: BaseException):
    """The diagnosis of an exception when it is an environment error of the catalogue, else None."""
    from torch_envcheck.explain import diagnose  # noqa: PLC0415
    from torch_envcheck.explain.excinfo import exception_text  # noqa: PLC0415

    result = diagnose.diagnose(exception_text(value))
    if not result.get("recognised") or not result.get("environment_problem"):
        return None
    return result


def _display(result: dict) -> None:
    from IPython.display import display  # noqa: PLC0415

    from torch_envcheck.explain import render  # noqa: PLC0415
    display({"text/plain": render.text(result, prog="torch-envcheck", unchecked=UNCHECKED),
             "text/html": render.html_block(result, unchecked=UNCHECKED)}, raw=True)


def _handler(shell, etype, value, tb, tb_offset=None):
    # IPython unregisters a handler that raises anything ("Custom TB Handler failed, unregistering"),
    # and an exception's own __str__ may raise anything, SystemExit included: nothing leaves here, so
    # later environment errors are still explained.
    try:
        # IPython's own traceback first, exactly as without the extension (run_code's default path).
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    except BaseException:  # noqa: BLE001
        _plain(etype)
    try:
        result = explanation_for(value)
        if result is not None:
            _display(result)
    except BaseException:  # noqa: BLE001  (the explanation is an extra: never a second traceback)
        pass
    return None


def _plain(etype) -> None:
    import sys  # noqa: PLC0415
    try:
        print(f"{getattr(etype, '__name__', 'Exception')}: (its message could not be shown: str() failed)",
              file=sys.stderr)
    except BaseException:  # noqa: BLE001
        pass


class Report:
    """The doctor's report, shown as HTML by Jupyter and as text elsewhere."""

    def __init__(self, report: dict):
        self.report = report

    def __repr__(self) -> str:
        from torch_envcheck.doctor.render import terminal  # noqa: PLC0415
        import io  # noqa: PLC0415
        import contextlib  # noqa: PLC0415
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            terminal.print_report(self.report, color=False, verbose=False)
        return buf.getvalue()

    def _repr_html_(self) -> str:
        return report_html(self.report)


_COLOURS = {"ok": "#2e7d32", "warning": "#b26a00", "failure": "#c62828"}


def report_html(report: dict) -> str:
    """The report as an HTML table: one row per area, then the findings that are not ok."""
    e = html.escape
    rows = []
    areas = report.get("areas") if isinstance(report.get("areas"), dict) else {}
    for name, info in areas.items():
        if not isinstance(info, dict):
            continue
        status = str(info.get("status") or "?")
        rows.append(f'<tr><td>{e(str(info.get("title") or name))}</td>'
                    f'<td style="color:{_COLOURS.get(status, "inherit")}">{e(status)}</td>'
                    f'<td>{e(str(info.get("headline") or ""))}</td></tr>')
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict) and f.get("severity") != "ok"]
    frows = []
    for f in findings:
        fix = f.get("fix")
        frows.append(f'<tr><td><code>{e(str(f.get("code")))}</code></td>'
                     f'<td style="color:{_COLOURS.get(str(f.get("severity")), "inherit")}">{e(str(f.get("severity")))}</td>'
                     f'<td>{e(str(f.get("message") or ""))}'
                     + (f'<br><i>explained by {e(str(f["explained_by"]))}</i>' if f.get("explained_by") else "")
                     + "</td>"
                     f'<td>{"<pre>" + e(str(fix)) + "</pre>" if fix else ""}</td></tr>')
    verdict = "problems found" if report.get("exit_status") else "no failures"
    out = [f'<div class="torch-envcheck-report"><b>torch-envcheck</b>: {e(verdict)}',
           '<table><tr><th>area</th><th>status</th><th>what the doctor sees</th></tr>', *rows, "</table>"]
    if frows:
        out += ['<table><tr><th>code</th><th>severity</th><th>finding</th><th>fix</th></tr>', *frows, "</table>"]
    out.append("</div>")
    return "\n".join(out)


def _magic_parser() -> argparse.ArgumentParser:
    from torch_envcheck.commands._source import seconds  # noqa: PLC0415
    p = argparse.ArgumentParser(prog="%envcheck", add_help=False, exit_on_error=False)
    p.add_argument("--from-json", metavar="FILE", default=None)
    p.add_argument("--timeout", type=seconds, default=None)
    p.add_argument("--no-tensorflow", action="store_true")
    return p


def envcheck(line: str = ""):
    """%envcheck [--from-json FILE] [--timeout SECONDS] [--no-tensorflow]: the doctor's report."""
    from torch_envcheck import doctor  # noqa: PLC0415
    usage = "usage: %envcheck [--from-json FILE] [--timeout SECONDS] [--no-tensorflow]"
    try:
        args, extra = _magic_parser().parse_known_args(shlex.split(line or ""))
    except (argparse.ArgumentError, ValueError, SystemExit) as exc:
        print(f"%envcheck: {exc}; {usage}")
        return None
    if extra:
        print(f"%envcheck: unknown arguments {' '.join(extra)}; {usage}")
        return None
    if args.from_json is not None:
        from torch_envcheck.doctor.snapshot import SnapshotError, load  # noqa: PLC0415
        try:
            snap = load(args.from_json)
        except SnapshotError as exc:
            print(f"%envcheck: {exc}")
            return None
    else:
        snap = doctor.collect(timeout=args.timeout or 5.0, torch_timeout=args.timeout, tensorflow=not args.no_tensorflow)
    return Report(doctor.report(snap))


def load_ipython_extension(ipython) -> None:
    ipython.set_custom_exc(HANDLED, _handler)
    ipython.register_magic_function(envcheck, magic_kind="line", magic_name="envcheck")


def unload_ipython_extension(ipython) -> None:
    # No exception types: IPython's default handling for everything again.
    ipython.set_custom_exc((), None)
