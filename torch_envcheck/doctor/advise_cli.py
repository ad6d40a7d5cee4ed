"""`torch-envcheck advise`: the torch install command that fits this machine: its OS, the highest
CUDA its NVIDIA driver supports, its GPUs' compute capability and its Python.  The release, CUDA
and arch tables come from torch_envcheck.doctor.knowledge (data/*.json, each row with its source).
Prints the reasons as `#` lines, then the command (`--quiet`: the command alone)."""

from __future__ import annotations

import sys

from . import _args
from .facts import d, gpus, index_url, python_mm

PROBES = ("platform", "driver")


def add_arguments(parser) -> None:
    _args.add_source(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the command")
    parser.add_argument("--framework", choices=("torch", "tensorflow", "both"), default=None,
                        help="what to advise for: torch (default; plus TensorFlow when it is installed), "
                             "tensorflow, or both")


def _python(snap: dict) -> str:
    exe = d(d(snap.get("platform")).get("python")).get("executable")
    return exe or "python"


def _pip(python: str) -> str:
    return f'"{python}" -m pip' if " " in python else f"{python} -m pip"


def _lowest_capability(snap: dict) -> str | None:
    caps = []
    for g in gpus(snap):
        cap = str(g.get("capability") or "")
        try:
            caps.append((tuple(int(x) for x in cap.split(".")), cap))
        except ValueError:
            continue
    return min(caps)[1] if caps else None


def advise(snap: dict) -> tuple[list[str], str | None]:
    """(reasons, command); command None when nothing fits (the reasons say why)."""
    plat, drv = d(snap.get("platform")), d(snap.get("driver"))
    system = plat.get("system")
    py = _python(snap)
    cpu = f"{_pip(py)} install torch torchvision --index-url {index_url('cpu')}"
    if system == "Darwin":
        if plat.get("apple_silicon") or plat.get("machine") == "arm64":
            return ["macOS on Apple silicon: no CUDA; PyPI's torch uses the GPU through MPS "
                    "(torch.backends.mps)"], f"{_pip(py)} install torch torchvision"
        return ["macOS on an Intel CPU: no CUDA and no MPS; the CPU build is the only choice"], \
            f"{_pip(py)} install torch torchvision"
    if plat.get("wsl") == 1:
        return ["WSL 1 cannot reach the GPU (CUDA on WSL needs WSL 2: `wsl --set-version <distro> 2` in "
                "Windows); until then only the CPU build works"], cpu
    if not drv.get("present"):
        pci = drv.get("pci_gpus")
        if isinstance(pci, list) and plat.get("wsl") != 2:  # WSL 2's GPU is never on the Linux PCI bus
            if not pci:
                return ["no NVIDIA GPU on this machine's PCI bus and no NVIDIA driver: the CPU build is the one "
                        "that fits (a CUDA build would only add several GB of unused libraries)"], cpu
            return [f"an NVIDIA GPU is on the PCI bus ({', '.join(str(d(g).get('bus_id')) for g in pci)}) but no "
                    "NVIDIA driver is loaded: install the driver (in a container: start it with GPU access, e.g. "
                    "`docker run --gpus all`) and run `torch-envcheck advise` again for a CUDA build; until then "
                    "only the CPU build works"], cpu
        return ["no NVIDIA driver found: install the NVIDIA driver and run `torch-envcheck advise` again for a "
                "CUDA build; without a driver only the CPU build works"], cpu
    cap = _lowest_capability(snap)
    machine = plat.get("machine") if isinstance(plat.get("machine"), str) else None
    # WSL 2 installs Linux wheels but runs them on the Windows driver, whose version numbers and
    # minimums are the Windows column of the driver table.
    driver_os = "Windows" if plat.get("wsl") == 2 else None
    try:
        from . import knowledge  # noqa: PLC0415
        pick = knowledge.latest_release_for(driver_cuda=drv.get("cuda_version"), capability=cap,
                                            os_name=system, python_version=python_mm(snap),
                                            driver_version=drv.get("version"), machine=machine,
                                            driver_os_name=driver_os)
    except Exception as exc:  # missing or malformed tables: say so rather than guess
        return [f"the release tables could not be read ({type(exc).__name__}: {exc})"], None
    why = [f"NVIDIA driver {drv.get('version') or '?'}"
           + (" (the Windows driver, used by WSL 2)" if driver_os else "")
           + (f" supports CUDA up to {drv['cuda_version']}" if drv.get("cuda_version") else ""),
           f"GPU compute capability {cap}" if cap else "GPU compute capability unknown",
           f"Python {python_mm(snap) or '?'} on {system or '?'}" + (f" {machine}" if machine else "")]
    if pick is None:
        why.append("no known torch release has a CUDA build for this driver, GPU, CPU architecture and Python: "
                   "update the NVIDIA driver (or Python), or use the CPU build")
        return why, None
    why.append(f"newest fit: torch {pick['torch']} built with CUDA {pick['cuda']} ({pick['tag']})"
               + (", through PTX JIT (first use compiles kernels)" if pick.get("via") == "ptx" else "")
               + (" [table row marked unverified]" if pick.get("unverified") else ""))
    cmd = knowledge.pip_install_command(py, pick["torch"], pick["tag"], companions=("torchvision",))
    return why, cmd


def run(args) -> int:
    framework = getattr(args, "framework", None)
    args.no_tensorflow = True  # TensorFlow's metadata is enough here: no child process
    snap = _args.snapshot(args, only=PROBES + ("tensorflow",))
    if snap is None:
        return 2
    why, cmd = advise(snap)
    if framework in ("tensorflow", "both") or (framework is None and d(snap.get("tensorflow")).get("installed")):
        from . import tf_advise  # noqa: PLC0415
        why, cmds = tf_advise.extend(snap, why, cmd, _picked_cuda(cmd), framework or "both")
    else:
        cmds = [cmd] if cmd else []
    if not args.quiet:
        for line in why:
            print(f"# {line}")
    if not cmds:
        if args.quiet:
            for line in why:
                print(f"torch-envcheck advise: {line}", file=sys.stderr)
        return 1
    print("\n".join(cmds))
    return 0


def _picked_cuda(cmd: str | None) -> str | None:
    """The CUDA of the torch build advise picked (its command's index: .../whl/cu130 -> '13.0'), None for
    a CPU build."""
    import re  # noqa: PLC0415
    from . import knowledge  # noqa: PLC0415
    m = re.search(r"/whl/(cu\d+)\b", cmd or "")
    return knowledge.cuda_from_tag(m.group(1)) if m else None
