"""`torch-envcheck advise`: the torch install command that fits this machine: its OS, the highest
CUDA its NVIDIA driver supports, its GPUs' compute capability and its Python.  The release, CUDA
and arch tables come from torch_envcheck.doctor.knowledge (data/*.json, each row with its source).
Prints the reasons as `#` lines, then the command (`--quiet`: the command alone)."""

from __future__ import annotations

import os
import sys

from . import _args
from . import escape
from .escape import terminal
from . import facts as F

PROBES = ("platform", "driver")


def add_arguments(parser) -> None:
    from ..rebuild.cli import add_plan_arguments  # noqa: PLC0415

    _args.add_source(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the command")
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
        from . import knowledge  # noqa: PLC0415
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
    out.update(kind="cuda", torch=pick["torch"], tag=pick["tag"], cuda=pick["cuda"], cudnn=pick.get("cudnn"),
               build=pick)
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
    from ..rebuild import docker  # noqa: PLC0415

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
    from ..rebuild import cli as rebuild_cli, scripts, selfwheel  # noqa: PLC0415
    from ..rebuild.plan import PlanError  # noqa: PLC0415
    from ..rebuild.sources import SourceError  # noqa: PLC0415

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
    """Write exclusively through a new temporary file in the target folder, then rename, so an
    existing file or symlink named like the temporary is never written through."""
    import tempfile  # noqa: PLC0415

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".torch-envcheck-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except OSError as exc:
        print(f"torch-envcheck advise: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {escape.terminal(path)}", file=sys.stderr)
    return 0


def run(args) -> int:
    snap = _args.snapshot(args, only=PROBES)
    if snap is None:
        return 2
    if args.docker:
        return _docker(args, snap)
    if _wants_plan(args):
        return _plan_output(args, snap)
    why, cmd = advise(snap)
    if not args.quiet:
        for line in why:
            print(f"# {terminal(line)}")
    if cmd is None:
        if args.quiet:
            for line in why:
                print(f"torch-envcheck advise: {terminal(line)}", file=sys.stderr)
        return 1
    print(terminal(cmd))
    return 0
