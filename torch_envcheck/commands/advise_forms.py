"""`advise --json`, `advise --uv`, `advise --pixi`, `advise --poetry`: the advice in the forms installers and lockfiles
take (advice/api.py, advice/uv.py, advice/pixi.py make them; this module only prints).  Each form
carries the same build as `advise`; what the fix checker found is printed as a `# caution:` line
(JSON: in 'problems') and makes the exit status 1."""

from __future__ import annotations

import json
import sys

from torch_envcheck._util.escape import terminal
from torch_envcheck.advice import api


def targets(args, prog: str = "advise"):
    """(ok, the --target platforms or None for the default)."""
    from torch_envcheck.advice import targets as tg  # noqa: PLC0415
    try:
        return True, tg.parse(getattr(args, "target", None))
    except ValueError as exc:
        print(f"torch-envcheck {prog}: {terminal(exc)}", file=sys.stderr)
        return False, None


def run(args, snap: dict) -> int:
    if args.json:
        forms = tuple(f for f in ("uv",) if getattr(args, f, False))
        adv = api.advice_for(snap, forms=forms, framework=getattr(args, "framework", None))
        json.dump(adv.to_dict(), sys.stdout, indent=1, sort_keys=False)
        sys.stdout.write("\n")
        return 0 if adv.ok and not adv.problems else 1
    ok, tgs = targets(args)
    if not ok:
        return 2
    if args.uv:
        from torch_envcheck.advice import uv  # noqa: PLC0415
        out = uv.render(snap, tgs)
    elif getattr(args, "poetry", False):
        from torch_envcheck.advice import poetry  # noqa: PLC0415
        out = poetry.render(snap, tgs)
    else:
        from torch_envcheck.advice import pixi  # noqa: PLC0415
        out = pixi.render(snap, tgs)
    return emit(args, out)


def emit(args, out: dict) -> int:
    """Print a form: its reasons as `#` lines (not with --quiet), the checker's findings, the text."""
    text, problems = out["text"], out["problems"]
    if not getattr(args, "quiet", False):
        for line in out["reasons"]:
            print(f"# {terminal(line)}")
    for p in problems:
        print(f"# caution: torch-envcheck's fix checker found: {terminal(p)}")
    if text is None:
        if getattr(args, "quiet", False):  # -q: stdout stays empty, so say why on stderr
            print(f"torch-envcheck: {terminal(out['reasons'][-1] if out['reasons'] else 'nothing to print')}",
                  file=sys.stderr)
        return 1
    for line in text.rstrip("\n").split("\n"):  # as advise prints its commands: nothing raw reaches the terminal
        print(terminal(line) if line else "")
    return 1 if problems else 0
