"""Jupyter/IPython extension: `%load_ext torch_envcheck`.

* An exception handler for the exception types environment errors arrive as (RuntimeError,
  ImportError, OSError, AssertionError, ValueError, subprocess errors): it shows IPython's normal
  traceback first, then, only when the exception's message (with its chained causes) matches an
  environment error of the catalogue, the explanation below it (text/html and text/plain).  Any
  other exception is shown exactly as IPython shows it.  The machine is not probed there (a cell
  must not stall): `%envcheck` checks it.
* `%envcheck [--from-json FILE] [--timeout SECONDS]`: the doctor's report as an HTML table
  (doctor/render/html.py; every value escaped with html.escape).

Loaded only inside IPython; importing torch_envcheck does not import this module."""

from __future__ import annotations

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
    # IPython's own traceback first, exactly as without the extension (run_code's default path).
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    try:
        result = explanation_for(value)
        if result is not None:
            _display(result)
    except Exception:  # noqa: BLE001  (the explanation is an extra: never a second traceback)
        pass
    return None


class Report:
    """The doctor's report, shown as HTML by Jupyter (doctor/render/html.py) and as text elsewhere."""

    def __init__(self, report):
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


def report_html(report) -> str:
    """The report as an HTML table (doctor/render/html.py)."""
    from torch_envcheck.doctor.render import html as html_render  # noqa: PLC0415
    return html_render.render(report)


# The doctor's flags that shape a printed report; in a notebook the report is the cell's HTML.
_PRINT_ONLY = ("json", "markdown", "verbose", "no_color")


def envcheck(line: str = ""):
    """%envcheck [--from-json FILE] [--timeout SECONDS] [--no-tensorflow]: the doctor's report.
    The line is read by the command line's own parser of the doctor's flags (cli.doctor_flags)."""
    from torch_envcheck import cli, doctor  # noqa: PLC0415
    usage = "usage: %envcheck [--from-json FILE] [--timeout SECONDS] [--no-tensorflow]"
    try:
        args = cli.doctor_flags().parse_args(shlex.split(line or ""))
    except (cli.UsageError, cli.CommandUnavailable, ValueError) as exc:
        print(f"%envcheck: {exc}; {usage}")
        return None
    printed = [name for name in _PRINT_ONLY if getattr(args, name, False)]
    if printed:
        print(f"%envcheck: --{printed[0].replace('_', '-')} does not apply in a notebook (the report is the cell's "
              f"output); {usage}")
        return None
    if args.from_json is not None:
        from torch_envcheck.facts.snapshot import SnapshotError, load  # noqa: PLC0415
        try:
            snap = load(args.from_json)
        except SnapshotError as exc:
            print(f"%envcheck: {exc}")
            return None
    else:
        snap = doctor.collect(timeout=args.timeout or 5.0, torch_timeout=args.timeout, tensorflow=not args.no_tensorflow)
    return Report(doctor.diagnose(snap))


def load_ipython_extension(ipython) -> None:
    ipython.set_custom_exc(HANDLED, _handler)
    ipython.register_magic_function(envcheck, magic_kind="line", magic_name="envcheck")


def unload_ipython_extension(ipython) -> None:
    # No exception types: IPython's default handling for everything again.
    ipython.set_custom_exc((), None)
