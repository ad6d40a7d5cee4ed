"""Writing the fleet report: to stdout (or rank 0's saved stdout descriptor, while the job's own
output is redirected) in the format asked for, and to --save FILE as JSON."""

from __future__ import annotations

import os
import sys


def write(text: str, out_fd: int | None = None) -> None:
    from torch_envcheck._util import textout  # noqa: PLC0415

    if out_fd is None:
        # a cp1252 or ASCII stdout gets the ASCII marks, never a UnicodeEncodeError (_util/textout)
        textout.write(text, sys.stdout)
        sys.stdout.flush()
        return
    # rank 0's saved stdout descriptor: in the encoding sys.stdout had (the job's locale)
    data = textout.for_stream(text, sys.stdout).encode(textout.encoding_of(sys.stdout), "replace")
    while data:
        n = os.write(out_fd, data)
        data = data[n:]


def render_text(report: dict, args) -> str:
    from torch_envcheck.fleet import render  # noqa: PLC0415
    if args.json:
        return render.to_json(report)
    if args.markdown:
        return render.to_markdown(report)
    from torch_envcheck.doctor.render.terminal import can_encode  # noqa: PLC0415
    return render.to_terminal(report, unicode=can_encode(sys.stdout), verbose=args.verbose)


def write_exclude(report: dict, path: str) -> None:
    """The nodes to exclude, one per line (a hostfile; empty when none): written atomically."""
    from torch_envcheck._util.atomic_write import write_atomic  # noqa: PLC0415
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    hosts = (report.get("exclude") or {}).get("hosts") or []
    try:
        write_atomic(path, "".join(f"{h}\n" for h in hosts if isinstance(h, str) and "\n" not in h),
                     prefix=".torch-envcheck-exclude.")
    except OSError as exc:
        print(f"torch-envcheck fleet: cannot write {terminal(path)}: {exc.strerror or exc}", file=sys.stderr)


def emit(report: dict, args, out_fd: int | None = None) -> None:
    if getattr(args, "exclude_file", None):
        write_exclude(report, args.exclude_file)
    if getattr(args, "save", None):
        from torch_envcheck.fleet import render  # noqa: PLC0415
        from torch_envcheck._util.atomic_write import write_atomic  # noqa: PLC0415
        from torch_envcheck._util.escape import terminal  # noqa: PLC0415
        try:
            # a new file renamed into place: a symlink planted at FILE is replaced, never written through
            write_atomic(args.save, render.to_json(report), prefix=".torch-envcheck-fleet.")
        except OSError as exc:
            print(f"torch-envcheck fleet: cannot write {terminal(args.save)}: {exc.strerror or exc}", file=sys.stderr)
    try:
        write(render_text(report, args), out_fd)
    except BrokenPipeError:
        pass
