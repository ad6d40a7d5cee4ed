"""`torch-envcheck rebuild DEST`: build a fresh environment in DEST from the plan that fits this
machine (or from a pinned requirements file), install torch_envcheck into it, run the self-test
there, and print the one line that switches to it.  The current environment is never touched.

Exit status: 0 built and verified; 1 a step failed (DEST removed unless --keep-failed); 2 bad usage.
"""

from __future__ import annotations

import argparse
import os
import sys

from torch_envcheck._util import escape
from torch_envcheck.advice.plan import COMPANIONS, PlanError
from torch_envcheck.advice.sources import SourceError, Sources

PROBES = ("platform", "driver")


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that shape a plan, shared by `advise` and `rebuild`."""
    g = parser.add_argument_group("what to install")
    g.add_argument("--torch", metavar="VERSION", default=None,
                   help="this torch version (e.g. 2.13.0 or 2.13) on the index that fits the machine, instead of "
                        "the newest that fits")
    g.add_argument("--with", dest="companions", action="append", choices=COMPANIONS + ("none",), default=None,
                   help="a companion package at the version paired with torch (default: torchvision; `none` for "
                        "torch alone); repeatable")
    g.add_argument("--tensorflow", action="store_true", help="install TensorFlow too")
    g.add_argument("-r", "--requirements", metavar="FILE", default=None,
                   help="the project's requirements file, installed after torch (its torch pin, if any, wins)")
    g.add_argument("--conda", action="store_true",
                   help="a conda environment (conda, mamba or micromamba) instead of a venv; packages still come "
                        "from pip, as PyTorch publishes no conda packages after 2.5")
    s = parser.add_argument_group("where packages come from (passed to every pip step)")
    s.add_argument("--index-url", metavar="URL", default=None,
                   help="a package index for every step (e.g. a PyPI mirror)")
    s.add_argument("--mirror", metavar="BASE", default=None,
                   help="a mirror of https://download.pytorch.org/whl/: torch comes from BASE/<cu130|cpu|...>")
    s.add_argument("--find-links", metavar="DIR", action="append", default=[],
                   help="a folder (or page) of wheels; repeatable")
    s.add_argument("--no-index", action="store_true", help="use no index at all: only --find-links (offline)")


def sources_from(args) -> Sources:
    return Sources(index_url=args.index_url, mirror=args.mirror, find_links=tuple(args.find_links or ()),
                   no_index=bool(args.no_index))


def make_plan(args, snap: dict):
    from torch_envcheck.advice import plan as planmod  # noqa: PLC0415

    sources = sources_from(args)
    if getattr(args, "from_requirements", None) is not None:  # '' is a mistake to report, not "no file"
        return planmod.from_requirements(args.from_requirements, snap, sources=sources, conda=args.conda)
    return planmod.from_advice(snap, torch=args.torch, companions=tuple(args.companions or ("torchvision",)),
                               tensorflow=args.tensorflow, requirements=args.requirements, sources=sources,
                               conda=args.conda)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dest", metavar="DEST", help="the folder of the new environment (must not exist)")
    add_plan_arguments(parser)
    parser.add_argument("--from-requirements", metavar="FILE", default=None,
                        help="reproduce a pinned environment (`torch-envcheck pin > requirements.txt`) and verify it")
    parser.add_argument("--python", metavar="EXE", default=None,
                        help="the interpreter to create the venv with (default: this one, or pythonX.Y for the plan)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and the commands; run nothing")
    parser.add_argument("--from-json", metavar="FILE", default=None,
                        help="with --dry-run: plan for the machine a saved report or snapshot describes (its OS, "
                             "shell and layout) instead of this one ('-' reads stdin)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show pip's own output")
    parser.add_argument("--keep-failed", action="store_true",
                        help="leave DEST in place when a step fails (it is never marked verified)")
    from torch_envcheck._util.args import seconds  # noqa: PLC0415
    parser.add_argument("--timeout", type=seconds, default=5.0, metavar="SECONDS",
                        help="time limit for each probe of this machine (nvidia-smi, ...)")


def _dry_run(plan, dest: str, target=None) -> None:
    """The plan and its commands.  `target` (a Platform, for a plan made from a saved snapshot): the
    commands are written for that machine (its layout, its shell) and DEST is taken as that machine's
    path; without it, for this one."""
    from torch_envcheck.rebuild import runner  # noqa: PLC0415

    print(f"# plan for {escape.terminal(dest)} (dry run: nothing is run)"
          + (f"; commands for the recorded {target.os} machine ({target.shell})" if target is not None else ""))
    for line in plan.describe():
        print(f"# {escape.terminal(line)}")
    for path, lines in ((plan.pinned_file, plan.pinned), (plan.requirements, plan.requirement_lines)):
        if path and lines is not None:
            print(f"# -r {escape.terminal(path)}: its {len(lines)} requirement lines, checked; pip gets exactly "
                  "these, through a private copy")
    if target is None:
        folder, shell = os.path.abspath(dest), "posix" if os.name != "nt" else "powershell"
        py = runner.env_python(folder, plan.conda)
    else:
        folder, shell = dest, target.shell
        py = target.venv_python(folder, plan.conda)

    def line(words):
        print(escape.shell_join(words, shell))

    if plan.conda:
        line(["conda", "create", "-y", "-p", folder, f"python={plan.python or '3'}", "pip"])
    elif target is not None and target.windows:
        line(["py", f"-{plan.python or '3'}", "-m", "venv", folder])
    else:
        line([plan.base_python or ("python" + (plan.python or "3")), "-m", "venv", folder])
    for s in plan.steps():
        line([py, "-m", "pip", "install", *s["pip"]])
    line([py, "-m", "pip", "install", "<this torch_envcheck, as a wheel>", "pytest", *plan.sources.pip_args()])
    line([py, "-m", "torch_envcheck", "selftest"])


def run(args) -> int:
    from torch_envcheck._util import args as _args  # noqa: PLC0415
    from torch_envcheck.rebuild import runner  # noqa: PLC0415

    if args.from_requirements is not None and (args.torch or args.requirements or args.tensorflow or args.companions):
        print("torch-envcheck rebuild: --from-requirements reproduces that file exactly; it takes no --torch, -r, "
              "--tensorflow or --with", file=sys.stderr)
        return 2
    target = None
    if getattr(args, "from_json", None) is not None:
        if not args.dry_run:
            print("torch-envcheck rebuild: --from-json plans for another machine: it needs --dry-run (a rebuild "
                  "runs on the machine it builds for)", file=sys.stderr)
            return 2
        from torch_envcheck.advice.platform import Platform  # noqa: PLC0415
        from torch_envcheck.facts.snapshot import SnapshotError, load  # noqa: PLC0415
        try:
            snap = load(args.from_json)
        except SnapshotError as exc:
            print(f"torch-envcheck rebuild: {exc}", file=sys.stderr)
            return 2
        target = Platform.of(snap)
    else:
        with _args.stdout_to_stderr():
            from torch_envcheck import doctor  # noqa: PLC0415
            snap = doctor.collect(timeout=args.timeout, only=PROBES)
    try:
        plan = make_plan(args, snap)
    except (PlanError, SourceError) as exc:
        print(f"torch-envcheck rebuild: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        _dry_run(plan, args.dest, target)
        return 0
    for line in plan.describe():
        print(f"# {escape.terminal(line)}")
    # an x86_64 Python under Rosetta: the environment is made from a native arm64 one (the plan says which)
    return runner.Runner(plan, args.dest, verbose=args.verbose, keep_failed=args.keep_failed,
                         python=args.python or plan.base_python).run()
