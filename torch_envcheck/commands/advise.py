"""`torch-envcheck advise`: the torch install command that fits this machine: its OS, the highest
CUDA its NVIDIA driver supports, its GPUs' compute capability and its Python.  The release, CUDA
and arch tables come from torch_envcheck.knowledge (data/*.json, each row with its source).
Prints the reasons as `#` lines, then the command (`--quiet`: the command alone)."""

from __future__ import annotations

import os
import sys

from torch_envcheck.commands import _source as _args
from torch_envcheck._util import escape
from torch_envcheck._util.escape import terminal
from torch_envcheck.doctor.facts import core as F

PROBES = ("platform", "driver", "conda")


def add_arguments(parser) -> None:
    from torch_envcheck.rebuild.cli import add_plan_arguments  # noqa: PLC0415

    _args.add_source(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the command")
    parser.add_argument("--framework", choices=("torch", "tensorflow", "both"), default=None,
                        help="what to advise for: torch (default; plus TensorFlow when it is installed), "
                             "tensorflow, or both")
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
    add_plan_arguments(parser)


def recommend(snap: dict) -> dict:
    """The build that fits the machine of `snap`, as data, for advise() and for rebuild plans and
    scripts: {'kind': 'cuda' | 'cpu' | 'pypi' (macOS: PyPI's own torch) | None (nothing fits),
    'torch': release or None, 'tag': index tag or None, 'cuda', 'cudnn', 'python': 'X.Y',
    'reasons': [...]}.  The CUDA build is F.recommend_build(), the function the doctor's fix lines
    use, so none of them can disagree."""
    system, mach = F.system(snap), F.machine(snap)
    out = {"kind": "cpu", "torch": None, "tag": "cpu", "cuda": None, "cudnn": None, "python": F.python_mm(snap),
           "reasons": []}
    why = out["reasons"]
    if F.is_macos(snap):
        out.update(kind="pypi", tag=None)
        if F.dig(snap, "platform", "apple_silicon") is True or mach == "arm64":
            why.append("macOS on Apple silicon: no CUDA; PyPI's torch uses the GPU through MPS (torch.backends.mps)")
        else:
            why.append("macOS on an Intel CPU: no CUDA and no MPS; the CPU build is the only choice")
        return out
    if F.wsl(snap) == 1:
        why.append("WSL 1 cannot reach the GPU (CUDA on WSL needs WSL 2: `wsl --set-version <distro> 2` in "
                   "Windows); until then only the CPU build works")
        return out
    if F.driver_present(snap) is not True:
        pci = F.pci_gpus(snap)  # None under WSL 2: its GPU is never on the Linux PCI bus
        if pci is not None:
            if not pci:
                why.append("no NVIDIA GPU on this machine's PCI bus and no NVIDIA driver: the CPU build is the one "
                           "that fits (a CUDA build would only add several GB of unused libraries)")
                return out
            why.append(f"an NVIDIA GPU is on the PCI bus ({', '.join(str(F.text(g.get('bus_id')) or '?') for g in pci)}) "
                       "but no NVIDIA driver is loaded: install the driver (in a container: start it with GPU access, "
                       "e.g. `docker run --gpus all`) and run `torch-envcheck advise` again for a CUDA build; until "
                       "then only the CPU build works")
            return out
        why.append("no NVIDIA driver found: install the NVIDIA driver and run `torch-envcheck advise` again for a "
                   "CUDA build; without a driver only the CPU build works")
        return out
    cap = F.build_capability(snap)
    windows_driver = F.wsl(snap) == 2  # WSL 2 runs Linux wheels on the Windows driver
    why += [f"NVIDIA driver {F.driver_version(snap) or '?'}"
            + (" (the Windows driver, used by WSL 2)" if windows_driver else "")
            + (f" supports CUDA up to {F.driver_cuda(snap)}" if F.driver_cuda(snap) else ""),
            (f"GPU compute capability {cap}" + (" (the lowest of this machine's GPUs)"
                                                if len(set(F.capabilities(snap))) > 1 else "")) if cap
            else "GPU compute capability unknown",
            f"Python {F.python_mm(snap) or '?'} on {system or '?'}" + (f" {mach}" if mach else "")]
    out.update(kind=None, tag=None)
    try:
        from torch_envcheck import knowledge  # noqa: PLC0415
        knowledge.releases()
    except Exception as exc:  # missing or malformed tables: say so rather than guess
        why[:] = [f"the release tables could not be read ({type(exc).__name__}: {exc})"]
        return out
    pick = F.recommend_build(snap, capability=cap)
    if pick is None:
        why.append("no known torch release has a CUDA build for this driver, GPU, CPU architecture and Python: "
                   "update the NVIDIA driver (or Python), or use the CPU build")
        return out
    why.append(f"newest fit: torch {pick['torch']} built with CUDA {pick['cuda']} ({pick['tag']})"
               + (", through PTX JIT (first use compiles kernels)" if pick.get("via") == "ptx" else "")
               + (" [table row marked unverified]" if pick.get("unverified") else ""))
    why[:] = why[:-1] + _freshness_reasons(snap, pick, why[-1])  # issue 17
    out.update(kind="cuda", torch=pick["torch"], tag=pick["tag"], cuda=pick["cuda"], cudnn=pick.get("cudnn"),
               build=pick)
    return out


def _freshness_reasons(snap: dict, pick: dict, newest_fit: str) -> list[str]:
    """issue 17: the installed torch kept when the tables cannot describe it (judged from live
    facts), and a pick that is an older release than the installed torch said in so many words,
    with the driver upgrade that keeps it where the driver is what rules it out."""
    from torch_envcheck import knowledge  # noqa: PLC0415
    from torch_envcheck.knowledge import freshness  # noqa: PLC0415
    if pick.get("kept"):
        return [freshness.kept_line(pick)]
    tv = F.torch_version(snap)
    note = freshness.downgrade_note(tv, pick, "the newest build the tables know that fits this machine",
                                    driver=(F.driver_version(snap), F.driver_os(snap)))
    if not note:
        newer = freshness.newer_unpicked(pick)
        return [newest_fit] + ([newer] if newer else [])
    if freshness.tables_incomplete_for(tv):
        newest_fit = newest_fit.replace("newest fit:", "newest fit that the tables know:", 1)
    out = [newest_fit, freshness.DOWNGRADE_PREFIX + note]
    verdict = knowledge.driver_supports(F.driver_version(snap), F.torch_cuda(snap), F.driver_os(snap))
    if verdict == "no":
        need = knowledge.min_driver_for_cuda(F.torch_cuda(snap), F.driver_os(snap)) or {}
        want = need.get("compat_floor") or need.get("toolkit_minimum")
        out.append(f"or keep torch {tv}: upgrade the NVIDIA driver to one for CUDA {F.torch_cuda(snap)}"
                   + (f" (>= {want} on {F.driver_os(snap)})" if want else "") + " and it runs as it is")
    return out


def advise(snap: dict) -> tuple[list[str], str | None]:
    """(reasons, command); command None when nothing fits (the reasons say why)."""
    rec = recommend(snap)
    if rec["kind"] is None:
        return rec["reasons"], None
    if rec["kind"] == "pypi":
        return rec["reasons"], F.pip_command(snap, "install", "torch", "torchvision")
    if rec["kind"] == "cpu":
        return rec["reasons"], F.pip_command(snap, "install", "torch", "torchvision", "--index-url", F.index_url("cpu"))
    companions = F.companions_installed(snap) if F.section_known(snap, "packages") else ["torchvision"]
    return rec["reasons"], F.install_command(snap, rec["build"], companions=companions)


def _wants_plan(args) -> bool:
    return bool(args.script or args.conda or args.index_url or args.mirror or args.find_links or args.no_index
                or args.torch or args.companions or args.tensorflow or args.requirements)


def _docker(args, snap: dict) -> int:
    from torch_envcheck.advice import docker  # noqa: PLC0415

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
    from torch_envcheck.rebuild import cli as rebuild_cli
    from torch_envcheck.advice import scripts
    from torch_envcheck.rebuild import selfwheel  # noqa: PLC0415
    from torch_envcheck.advice.plan import PlanError  # noqa: PLC0415
    from torch_envcheck.advice.sources import SourceError  # noqa: PLC0415

    try:
        plan = rebuild_cli.make_plan(args, snap)
    except (PlanError, SourceError) as exc:
        print(f"torch-envcheck advise: {exc}", file=sys.stderr)
        return 2
    if args.script:
        text = scripts.render(plan, args.script, args.dest or ".venv-torch", selfwheel.install_spec())
        if args.output:
            return _write_script(args.output, text)
        sys.stdout.write(text)
        return 0
    shell = escape.shell_for(plan.os_name)
    if not args.quiet:
        for line in plan.describe():
            print(f"# {escape.terminal(line)}")
    py = F.python_exe(snap)
    if plan.conda:
        env = args.dest or "torch"
        print(escape.shell_join(["conda", "create", "-y", "-n" if os.sep not in env else "-p", env,
                                 f"python={plan.python or '3'}", "pip"], shell))
        print(escape.shell_join(["conda", "activate", env], shell))
        py = "python"
    for step in plan.steps():
        print(escape.shell_join([py, "-m", "pip", "install", *step["pip"]], shell))
    return 0


def _write_script(path: str, text: str) -> int:
    from torch_envcheck._util.atomic_write import write_atomic  # noqa: PLC0415

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
    if _wants_plan(args):
        return _plan_output(args, snap)
    why, cmd = advise(snap)
    from torch_envcheck.doctor.facts.conda import in_conda_env  # noqa: PLC0415
    if in_conda_env(snap):  # the conda form (conda install ... -c pytorch -c nvidia), pip for newer torch
        from torch_envcheck.advice.conda import conda_form  # noqa: PLC0415
        why, cmd = conda_form(snap, why, cmd)
    from torch_envcheck.doctor.facts import tensorflow as T  # noqa: PLC0415
    if framework in ("tensorflow", "both") or (framework is None and T.tf_installed(snap)):
        from torch_envcheck.advice import tensorflow as tf_advise  # noqa: PLC0415
        why, cmds = tf_advise.extend(snap, why, cmd, _picked_cuda(cmd), framework or "both")
    else:
        cmds = [cmd] if cmd else []
    if not args.quiet:
        for line in why:
            print(f"# {terminal(line)}")
    else:  # issue 17: a downgrade is never silent, not even with -q (stdout keeps the command alone)
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
    import re  # noqa: PLC0415
    from torch_envcheck import knowledge  # noqa: PLC0415
    m = re.search(r"/whl/(cu\d+)\b", cmd or "")
    return knowledge.cuda_from_tag(m.group(1)) if m else None
