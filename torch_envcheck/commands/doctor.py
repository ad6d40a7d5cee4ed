"""`torch-envcheck` / `torch-envcheck doctor`: probe this environment, diagnose it and print the
report (terminal, --json or --markdown).  Exit status 0 healthy, 1 a failure finding, 2 bad input."""

from __future__ import annotations

import sys

from torch_envcheck.commands import _source as _args
from torch_envcheck.commands import all_envs


def add_arguments(parser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the report as JSON (snapshot, findings, summary)")
    fmt.add_argument("--markdown", action="store_true", help="print the report as Markdown for a GitHub issue")
    _args.add_source(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="show every fact the probes gathered")
    parser.add_argument("--no-color", action="store_true", help="no colour (also: NO_COLOR=1, or when piped)")
    all_envs.add_arguments(parser)


def _render(rep, args) -> None:
    if getattr(args, "json", False):
        from torch_envcheck.doctor.render import json_render  # noqa: PLC0415
        sys.stdout.write(json_render.render(rep))
    elif getattr(args, "markdown", False):
        from torch_envcheck.doctor.render import markdown  # noqa: PLC0415
        from torch_envcheck._util import textout  # noqa: PLC0415
        textout.write(markdown.render(rep))  # ✅ ⚠️ ❌ as [ok] [!] [x] where stdout is cp1252 or ASCII
    else:
        from torch_envcheck.doctor.render import terminal  # noqa: PLC0415
        terminal.print_report(rep, color=terminal.wants_color(sys.stdout, getattr(args, "no_color", False)),
                              verbose=getattr(args, "verbose", False))


def _fallback(rep) -> None:
    """The report when its renderer failed: JSON, which cannot fail on what report() returns."""
    from torch_envcheck.doctor.render import json_render  # noqa: PLC0415
    sys.stdout.write(json_render.render(rep))


REPORT_S = 120.0


def run(args) -> int:
    if all_envs.wanted(args):
        if getattr(args, "from_json", None) is not None:
            _args.error("--all-envs / --env diagnose environments of this machine; they cannot be combined with --from-json")
            return 2
        return all_envs.run(args)
    from torch_envcheck._util import watchdog  # noqa: PLC0415
    watchdog.stacks_on_request()
    # From here to the report, some deadline is always armed: loading the probes and rules first.
    watchdog.arm(REPORT_S, "loading the doctor's probes and rules")
    snap = _args.snapshot(args)
    if snap is None:
        return 2
    from torch_envcheck.doctor import report  # noqa: PLC0415
    # Pure functions over a bounded snapshot: seconds; the exit gets its own deadline after this.
    watchdog.arm(REPORT_S, "building and writing the report")

    rep = report(snap)
    try:
        _render(rep, args)
        sys.stdout.flush()
    except BrokenPipeError:  # `torch-envcheck | head`
        pass
    except Exception as exc:  # noqa: BLE001  (a renderer bug must not hide the diagnosis)
        _args.error(f"the report could not be rendered ({type(exc).__name__}: {exc}); printing it as JSON")
        try:
            _fallback(rep)
            sys.stdout.flush()
        except Exception:  # noqa: BLE001
            pass
        return 1
    return rep.exit_status

