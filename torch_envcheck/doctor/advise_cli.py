"""`torch-envcheck advise`: the torch install command that fits this machine: its OS, the highest
CUDA its NVIDIA driver supports, its GPUs' compute capability and its Python.  The release, CUDA
and arch tables come from torch_envcheck.doctor.knowledge (data/*.json, each row with its source).
Prints the reasons as `#` lines, then the command (`--quiet`: the command alone)."""

from __future__ import annotations

import sys

from . import _args
from .escape import terminal
from . import facts as F

PROBES = ("platform", "driver")


def add_arguments(parser) -> None:
    _args.add_source(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the command")


def advise(snap: dict) -> tuple[list[str], str | None]:
    """(reasons, command); command None when nothing fits (the reasons say why).  The build comes
    from F.recommend_build(), the function the doctor's fix lines use, so the two cannot disagree."""
    system, mach = F.system(snap), F.machine(snap)
    cpu = F.pip_command(snap, "install", "torch", "torchvision", "--index-url", F.index_url("cpu"))
    if F.is_macos(snap):
        plain = F.pip_command(snap, "install", "torch", "torchvision")
        if F.dig(snap, "platform", "apple_silicon") is True or mach == "arm64":
            return ["macOS on Apple silicon: no CUDA; PyPI's torch uses the GPU through MPS "
                    "(torch.backends.mps)"], plain
        return ["macOS on an Intel CPU: no CUDA and no MPS; the CPU build is the only choice"], plain
    if F.wsl(snap) == 1:
        return ["WSL 1 cannot reach the GPU (CUDA on WSL needs WSL 2: `wsl --set-version <distro> 2` in "
                "Windows); until then only the CPU build works"], cpu
    if F.driver_present(snap) is not True:
        pci = F.pci_gpus(snap)  # None under WSL 2: its GPU is never on the Linux PCI bus
        if pci is not None:
            if not pci:
                return ["no NVIDIA GPU on this machine's PCI bus and no NVIDIA driver: the CPU build is the one "
                        "that fits (a CUDA build would only add several GB of unused libraries)"], cpu
            return [f"an NVIDIA GPU is on the PCI bus ({', '.join(str(F.text(g.get('bus_id')) or '?') for g in pci)}) "
                    "but no NVIDIA driver is loaded: install the driver (in a container: start it with GPU access, e.g. "
                    "`docker run --gpus all`) and run `torch-envcheck advise` again for a CUDA build; until then "
                    "only the CPU build works"], cpu
        return ["no NVIDIA driver found: install the NVIDIA driver and run `torch-envcheck advise` again for a "
                "CUDA build; without a driver only the CPU build works"], cpu
    cap = F.build_capability(snap)
    windows_driver = F.wsl(snap) == 2  # WSL 2 runs Linux wheels on the Windows driver
    why = [f"NVIDIA driver {F.driver_version(snap) or '?'}"
           + (" (the Windows driver, used by WSL 2)" if windows_driver else "")
           + (f" supports CUDA up to {F.driver_cuda(snap)}" if F.driver_cuda(snap) else ""),
           (f"GPU compute capability {cap}" + (" (the lowest of this machine's GPUs)" if len(set(F.capabilities(snap))) > 1
                                               else "")) if cap else "GPU compute capability unknown",
           f"Python {F.python_mm(snap) or '?'} on {system or '?'}" + (f" {mach}" if mach else "")]
    try:
        from . import knowledge  # noqa: PLC0415
        knowledge.releases()
    except Exception as exc:  # missing or malformed tables: say so rather than guess
        return [f"the release tables could not be read ({type(exc).__name__}: {exc})"], None
    pick = F.recommend_build(snap, capability=cap)
    if pick is None:
        why.append("no known torch release has a CUDA build for this driver, GPU, CPU architecture and Python: "
                   "update the NVIDIA driver (or Python), or use the CPU build")
        return why, None
    why.append(f"newest fit: torch {pick['torch']} built with CUDA {pick['cuda']} ({pick['tag']})"
               + (", through PTX JIT (first use compiles kernels)" if pick.get("via") == "ptx" else "")
               + (" [table row marked unverified]" if pick.get("unverified") else ""))
    companions = F.companions_installed(snap) if F.section_known(snap, "packages") else ["torchvision"]
    return why, F.install_command(snap, pick, companions=companions)


def run(args) -> int:
    snap = _args.snapshot(args, only=PROBES)
    if snap is None:
        return 2
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
