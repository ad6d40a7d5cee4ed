"""`torch-envcheck advise`: the torch install command that fits this machine: its OS, the highest
CUDA its NVIDIA driver supports, its GPUs' compute capability and its Python.  The release, CUDA
and arch tables come from torch_envcheck.knowledge (data/*.json, each row with its source).
Prints the reasons as `#` lines, then the command (`--quiet`: the command alone)."""

from __future__ import annotations

import dataclasses
import os
import re
import sys

from torch_envcheck._util import escape, versions
from torch_envcheck._util.atomic_write import write_atomic
from torch_envcheck._util.escape import terminal
from torch_envcheck.advice import tensorflow as tf_advise
from torch_envcheck.advice.conda import conda_form
from torch_envcheck.advice.plan import PlanError
from torch_envcheck.advice.recommend import advise, recommend
from torch_envcheck.advice.sources import SourceError
from torch_envcheck.commands import _source as _args
from torch_envcheck.facts import core as F
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.facts.conda import in_conda_env
from torch_envcheck.commands.rebuild import add_plan_arguments, make_plan

PROBES = ("platform", "driver", "conda")


def add_arguments(parser) -> None:
    _args.add_source(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the command")
    # --framework (torch, tensorflow, both) comes with add_source: what to advise for (default: torch,
    # plus TensorFlow when it is installed), and what the doctor judges
    out = parser.add_argument_group("other forms of the advice")
    out.add_argument("--script", choices=("sh", "ps1", "bat"), default=None,
                     help="a re-runnable setup script: a fresh venv (or conda env with --conda), the advised "
                          "packages, then the self-test inside it")
    out.add_argument("--dest", metavar="DIR", default=None,
                     help="the environment folder the script builds (default .venv-torch; the script's first "
                          "argument overrides it)")
    out.add_argument("-o", "--output", metavar="FILE", default=None,
                     help="write the script to FILE (made executable) instead of printing it")
    out.add_argument("--docker", action="store_true",
                     help="the official pytorch/pytorch image that fits this machine, and its `docker run` line")
    out.add_argument("--devel", action="store_true",
                     help="with --docker: the devel image (nvcc and CUDA headers, to compile extensions)")
    forms = parser.add_argument_group("for installers and lockfiles (docs/advice.md)")
    forms.add_argument("--json", action="store_true",
                       help="the advice as one JSON document (docs/schemas/advise.schema.json): the build chosen, "
                            "why, and every other build with the reason it was not chosen")
    forms.add_argument("--uv", action="store_true",
                       help="uv's commands: `uv pip install` with the build's index, and the pyproject.toml "
                            "fragment that makes `uv lock` / `uv sync` install that build")
    forms.add_argument("--pixi", action="store_true",
                       help="the pixi.toml fragment: conda-forge's CUDA pytorch and the system requirements")
    forms.add_argument("--poetry", action="store_true",
                       help="the pyproject.toml fragment for Poetry: the build's index as an explicit source, "
                            "torch's entries by platform marker")
    forms.add_argument("--target", metavar="PLATFORMS", default=None,
                       help="with --uv/--pixi/--poetry: the platforms the project locks for, comma-separated from "
                            "linux, linux-aarch64, windows, macos (default: this machine's, plus macOS and the "
                            "other of Linux/Windows)")
    add_plan_arguments(parser)


def _wants_plan(args) -> bool:
    return bool(args.script or args.conda or args.index_url or args.mirror or args.find_links or args.no_index
                or args.torch or args.companions or args.tensorflow or args.requirements)


def _docker(args, snap: dict) -> int:
    from torch_envcheck.advice import docker  # noqa: PLC0415  (only with --docker)

    rec = recommend(snap)
    img = docker.image(rec, devel=bool(args.devel), machine=F.machine(snap))
    if not args.quiet:
        for line in rec["reasons"] + img["reasons"]:
            print(f"# {escape.terminal(line)}")
        if img["image"]:
            print("# GPU access needs the NVIDIA Container Toolkit on the host; --ipc=host gives DataLoader "
                  "workers enough shared memory")
    if img["image"] is None:
        return 1
    print(f"docker pull {escape.shell_quote(img['image'])}")
    if not args.quiet:
        print(docker.run_line(img["image"]))
    return 0


def _plan_output(args, snap: dict) -> int:
    try:
        plan = make_plan(args, snap)
    except (PlanError, SourceError) as exc:
        print(f"torch-envcheck advise: {exc}", file=sys.stderr)
        return 2
    if args.script:
        from torch_envcheck.advice import scripts  # noqa: PLC0415  (only with --script)
        from torch_envcheck.advice.conda import forge_env_specs  # noqa: PLC0415
        forge = forge_env_specs(snap, plan, args.torch) if plan.conda else None
        if forge is not None:  # the conda env is created with conda-forge's pytorch; pip adds the rest
            plan = dataclasses.replace(plan, reasons=plan.reasons + forge[0], conda_specs=tuple(forge[1]))
        from torch_envcheck.rebuild import selfwheel  # noqa: PLC0415
        text = scripts.render(plan, args.script, args.dest or ".venv-torch", selfwheel.install_spec())
        if args.output:
            return _write_script(args.output, text)
        sys.stdout.write(text)
        return 0
    # the user's shell where the plan is for this machine's OS (Windows: cmd.exe, PowerShell or both)
    shell = F.shell(snap) if plan.os_name == F.system(snap) else escape.shell_for(plan.os_name)
    if not args.quiet:
        for line in plan.describe():
            print(f"# {escape.terminal(line)}")
    py = F.python_exe(snap)
    if plan.conda:
        from torch_envcheck.advice.conda import new_env_form  # noqa: PLC0415
        forge = new_env_form(snap, plan, args.dest or "torch", shell, args.torch)
        if forge is not None:
            if not args.quiet:
                for line in forge[0]:
                    print(f"# {escape.terminal(line)}")
            for line in forge[1]:
                print(line)
            return 0
        env = args.dest or "torch"
        print(escape.shell_join(["conda", "create", "-y", "-n" if os.sep not in env else "-p", env,
                                 f"python={plan.python or '3'}", "pip"], shell))
        print(escape.shell_join(["conda", "activate", env], shell))
        py = "python"
    for step in plan.steps():
        print(escape.shell_join([py, "-m", "pip", "install", *step["pip"]], shell))
    return 0


def _write_script(path: str, text: str) -> int:
    try:
        write_atomic(path, text, 0o755)
    except OSError as exc:
        print(f"torch-envcheck advise: cannot write {escape.terminal(path)}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {escape.terminal(path)}", file=sys.stderr)
    return 0


def run(args) -> int:
    framework = getattr(args, "framework", None)
    args.no_tensorflow = True  # TensorFlow's metadata is enough here: no child process
    snap = _args.snapshot(args, only=PROBES + ("tensorflow",))
    if snap is None:
        return 2
    if args.docker:
        return _docker(args, snap)
    if any(getattr(args, f, False) for f in ("json", "uv", "pixi", "poetry")):
        from torch_envcheck.commands import advise_forms  # noqa: PLC0415  (only with these flags)
        return advise_forms.run(args, snap)
    if _wants_plan(args):
        return _plan_output(args, snap)
    why, cmd = advise(snap)
    kind = recommend(snap)["kind"]
    if kind == "keep" and framework not in ("tensorflow", "both"):
        # a ROCm, XPU or MPS build that already uses the GPU: nothing to install, and that is no failure
        for line in why:
            print(f"# {terminal(line)}", file=sys.stderr if args.quiet else sys.stdout)
        return 0
    if in_conda_env(snap) and kind not in ("native-python", "jetpack", "keep"):
        # the conda form (conda install ... -c pytorch -c nvidia), pip for newer torch
        why, cmd = conda_form(snap, why, cmd)
    if framework in ("tensorflow", "both") or (framework is None and T.tf_installed(snap)):
        why, cmds = tf_advise.extend(snap, why, cmd, _picked_cuda(cmd), framework or "both")
    else:
        cmds = [cmd] if cmd else []
        broken = tf_advise.breaks_installed(snap, cmd)
        if broken:
            # checked before it is printed: in this environment the command would break another package
            from torch_envcheck.advice.platform import Platform  # noqa: PLC0415
            from torch_envcheck.advice.venv_commands import in_new_venv  # noqa: PLC0415
            why = why + [f"in this environment it would break another package: {broken[0]}; it goes into a new one"]
            cmds = [in_new_venv(cmd, "torch", F.system(snap), Platform.of(snap))]
    if not args.quiet:
        for line in why:
            print(f"# {terminal(line)}")
    else:  # a downgrade is never silent, not even with -q (stdout keeps the command alone)
        from torch_envcheck.knowledge.freshness import DOWNGRADE_PREFIX  # noqa: PLC0415
        for line in why:
            if line.startswith(DOWNGRADE_PREFIX):
                print(f"torch-envcheck advise: note: {terminal(line)}", file=sys.stderr)
    if not cmds:
        if args.quiet:
            for line in why:
                print(f"torch-envcheck advise: {terminal(line)}", file=sys.stderr)
        return 1
    for c in cmds:  # the conda form can be two commands (conda remove cpuonly, conda install)
        for line in c.splitlines():
            print(terminal(line))
    return 0


def _picked_cuda(cmd: str | None) -> str | None:
    """The CUDA of the torch build advise picked (its command's index: .../whl/cu130 -> '13.0'), None for
    a CPU build."""
    m = re.search(r"/whl/(cu\d+)\b", cmd or "")
    return versions.cuda_from_tag(m.group(1)) if m else None
