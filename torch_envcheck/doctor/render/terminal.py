"""The human report, in the style of `flutter doctor`: one line per area with a mark ([✓] ok,
[!] warning, [✗] failure), the findings under it, then "To fix:" with the commands.

Colour on a terminal (through rich when it is installed, plain ANSI otherwise); no colour when
piped, with NO_COLOR set or --no-color.  ASCII marks when the output encoding has no ✓/✗.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap

from torch_envcheck.doctor.areas import areas_for, title
from torch_envcheck._util.escape import terminal as _safe
from torch_envcheck.facts import core as F
from torch_envcheck.doctor.render import areas
from torch_envcheck.doctor.report import Report, as_report

UNICODE_MARKS = {"ok": "✓", "warning": "!", "failure": "✗", "bullet": "•", "arrow": "→"}
ASCII_MARKS = {"ok": "+", "warning": "!", "failure": "x", "bullet": "-", "arrow": "->"}
ANSI = {"ok": "32", "warning": "33", "failure": "31", "bold": "1", "dim": "2", "cmd": "36"}
RICH = {"ok": "green", "warning": "yellow", "failure": "red", "bold": "bold", "dim": "dim", "cmd": "cyan"}


def can_encode(stream, text: str = "✓✗•→") -> bool:
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def wants_color(stream, no_color_flag: bool = False) -> bool:
    if no_color_flag or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _width() -> int:
    return max(60, min(110, shutil.get_terminal_size((100, 24)).columns))


def build(report: Report, verbose: bool = False, unicode: bool = True, width: int | None = None) -> list[list]:
    """The report as lines of (text, style) segments; style None means plain."""
    rep = as_report(report)
    marks = UNICODE_MARKS if unicode else ASCII_MARKS
    width = width or _width()
    snap = rep.snapshot
    # causes before symptoms: an explained finding is printed under its cause, and only causes
    # count in the fixes and the verdict
    findings = rep.causes
    lines: list[list] = [[(f"torch-envcheck {rep.tool_version}", "bold"),
                          (f"  (report of {F.created(snap) or 'an unknown time'})", "dim")], []]

    def wrap(text: str, indent: int, style=None):
        for piece in textwrap.wrap(_safe(text), width=width - indent) or [""]:
            lines.append([(" " * indent + piece, style)])

    shown = areas_for(snap, findings)
    area_list = list(shown) + sorted({f.area for f in findings} - set(shown))
    for area in area_list:
        sev = rep.status(area)
        lines.append([(f"[{marks[sev]}] ", sev), (title(area), "bold"), (": " + rep.headline(area), None)])
        for f in (f for f in findings if f.area == area):
            mark = marks["bullet"] if f.severity == "ok" else marks[f.severity]
            lines.append([(f"    {mark} ", f.severity), (f"{f.code} ", "dim"), (f.message, None)]
                         + ([(f" (the table's {f.table_severity} is outranked by {f.outranked_by})", "dim")]
                            if f.outranked_by else []))
            if f.explanation and (verbose or f.severity != "ok"):
                wrap(f.explanation, 8, "dim")
            for e in rep.symptoms_of(f):
                lines.append([(f"        {marks['arrow']} explains ", "dim"), (f"{e.code} ", "dim"),
                              (f"({title(e.area)}) {e.message}", None)])
        if verbose:
            for section in areas.sections(area):
                for key, value in areas.flatten(F.section(snap, section), section):
                    lines.append([(f"        {key}: ", "dim"), (value, None)])
    errors = list(rep.errors)
    if verbose:
        errors += [f"probe {k}: {v}" for k, v in F.probe_errors(snap).items()]
        seconds = F.probe_seconds(snap)
        if seconds:
            lines.append([])
            lines.append([("Probe seconds: ", "dim"),
                          (", ".join(f"{k} {v:.2f}" for k, v in seconds.items()
                                     if isinstance(v, (int, float))), None)])
    if errors:
        lines.append([])
        lines.append([("Doctor errors (the report may be incomplete):", "failure")])
        for e in errors:
            wrap(f"{marks['bullet']} {e}", 4)
    fixes = [f for f in rep.problems if f.fix]
    fixes.sort(key=lambda f: (f.severity != "failure", area_list.index(f.area) if f.area in area_list else 99))
    lines.append([])
    if fixes:
        lines.append([("To fix:", "bold")])
        first_with: dict = {}
        for i, f in enumerate(fixes, 1):
            lines.append([(f"  {i}. ", None), (f"{f.code} ", "dim"), (f.message, None)])
            fix = f.fix.strip()
            if fix in first_with:  # two findings, one remedy: print the command once
                lines.append([("       ", None), (f"(the command of {first_with[fix]}. fixes this too)", "dim")])
                continue
            first_with[fix] = i
            for cmd in fix.splitlines():
                lines.append([("       ", None), (cmd, "cmd")])
        lines.append([])
    n_fail, n_warn = rep.count("failure"), rep.count("warning")
    if n_fail or errors:
        # Name the failing areas rather than guess a cause: a failure may be a missing torch, a mismatched
        # companion or a stale extension just as well as an unusable GPU.
        failing = [title(a) for a in area_list if any(f.area == a and f.severity == "failure" for f in findings)]
        verdict = (f"{n_fail} failure{'s' if n_fail != 1 else ''}, {n_warn} warning{'s' if n_warn != 1 else ''}: "
                   f"this environment needs fixing ({', '.join(failing)})" if n_fail else "the doctor hit errors")
        lines.append([(f"{marks['failure']} ", "failure"), (verdict, "bold")])
    elif n_warn:
        lines.append([(f"{marks['warning']} ", "warning"),
                      (f"No failures; {n_warn} warning{'s' if n_warn != 1 else ''}.", "bold")])
    else:
        lines.append([(f"{marks['ok']} ", "ok"), ("No issues found.", "bold")])
    if not verbose:
        lines.append([("Run with --verbose for every fact, --markdown to paste into an issue.", "dim")])
    # Every value came from a snapshot, which may be a stranger's: no segment reaches the terminal
    # with a control character in it (an escape sequence could retitle the window, clear the
    # screen or hide text); they are shown as \xNN instead.  The segments written above are plain.
    return [[(_safe(text), style) for text, style in line] for line in lines]


def to_plain(lines: list[list]) -> str:
    return "\n".join("".join(text for text, _ in line).rstrip() for line in lines) + "\n"


def to_ansi(lines: list[list]) -> str:
    out = []
    for line in lines:
        out.append("".join(f"\x1b[{ANSI[s]}m{t}\x1b[0m" if s in ANSI else t for t, s in line))
    return "\n".join(out) + "\n"


def _encodable(text: str, stream) -> str:
    """`text` as `stream` can encode it: a character its encoding lacks is written as an escape
    rather than raising UnicodeEncodeError halfway through the report."""
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(enc)
        return text
    except UnicodeEncodeError:
        return text.encode(enc, "backslashreplace").decode(enc)
    except LookupError:
        return text.encode("ascii", "backslashreplace").decode("ascii")


def render(report: Report, color: bool = False, verbose: bool = False, unicode: bool = True) -> str:
    lines = build(report, verbose=verbose, unicode=unicode)
    return to_ansi(lines) if color else to_plain(lines)


def print_report(report: Report, stream=None, color: bool | None = None, verbose: bool = False) -> None:
    """Write the report to stream (stdout): through rich when colour is on and rich is installed."""
    stream = stream or sys.stdout
    color = wants_color(stream) if color is None else color
    unicode = can_encode(stream)
    lines = build(report, verbose=verbose, unicode=unicode)
    if color:
        try:
            from rich.console import Console  # noqa: PLC0415  (optional extra)
            from rich.text import Text  # noqa: PLC0415
        except ImportError:
            stream.write(_encodable(to_ansi(lines), stream))
            return
        # Text.append takes its string literally: no rich markup ("[link=...]", "[/]") and no
        # emoji codes are read from a value; markup=False and emoji=False say so for the console.
        console = Console(file=stream, force_terminal=True, highlight=False, soft_wrap=True,
                          markup=False, emoji=False)
        for line in lines:
            text = Text()
            for t, s in line:
                text.append(_encodable(t, stream), style=RICH.get(s))
            console.print(text)
        return
    stream.write(_encodable(to_plain(lines), stream))
