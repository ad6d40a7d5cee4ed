"""Writing the fleet report: to stdout (or rank 0's saved stdout descriptor, while the job's own
output is redirected) in the format asked for, and to --save FILE as JSON."""

from __future__ import annotations

import os
import sys


def write(text: str, out_fd: int | None = None) -> None:
    if out_fd is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    data = text.encode("utf-8", "replace")
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


def emit(report: dict, args, out_fd: int | None = None) -> None:
    if getattr(args, "save", None):
        from torch_envcheck.fleet import render  # noqa: PLC0415
        try:
            with open(args.save, "w", encoding="utf-8") as fh:
                fh.write(render.to_json(report))
        except OSError as exc:
            print(f"torch-envcheck fleet: cannot write {args.save}: {exc.strerror or exc}", file=sys.stderr)
    try:
        write(render_text(report, args), out_fd)
    except BrokenPipeError:
        pass
