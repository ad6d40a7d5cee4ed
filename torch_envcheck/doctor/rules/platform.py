"""Platform rules: WSL 1, macOS, the Python version against the torch release's range."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.advice import recommend as A
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F
from torch_envcheck.facts import frameworks as H
from torch_envcheck.facts.records import Mps


def wsl1(s) -> list[dict]:
    if F.wsl(s) != 1:
        return []
    wants_gpu = F.is_cuda_torch(s)
    return [finding(
        "TE101", "failure" if wants_gpu else "warning",
        "this Linux runs under WSL 1, which cannot reach the GPU: CUDA needs WSL 2"
        + (f" ({F.torch_label(s)} is a CUDA build)" if wants_gpu else ""),
        "WSL 1 translates Linux system calls and has no GPU paravirtualisation (/dev/dxg); only WSL 2 "
        "exposes the Windows NVIDIA driver to Linux (libcuda in /usr/lib/wsl/lib). Convert the "
        "distribution in Windows PowerShell (`wsl -l -v` lists the names), then reopen it. Do not "
        "install a Linux NVIDIA driver inside WSL.",
        "wsl --set-version <distro> 2",
        {"wsl": 1, "run_fix_in": "Windows PowerShell"})]


def rosetta(s) -> list[dict]:
    """An x86_64 Python translated by Rosetta 2 on an Apple silicon Mac: it gets x86_64 macOS wheels,
    which have no MPS backend (and no torch release after 2.2), so the GPU is unreachable."""
    if not F.is_macos(s):
        return []
    translated = F.rosetta(s)
    if translated is not True:
        return []
    exe = F.python_exe(s)
    return [finding(
        "TE105", "failure",
        f"this Python ({exe}) is an x86_64 build running under Rosetta 2 on an Apple silicon Mac: torch cannot use "
        "the GPU (MPS) from it",
        "Rosetta translates x86_64 programs, so pip installs torch's x86_64 macOS wheels: they have no MPS backend "
        "(torch.backends.mps.is_available() is False) and torch stopped publishing them after 2.2. Use a native "
        "arm64 Python (a new venv from it) and install torch there; `python -c \"import platform; "
        "print(platform.machine())\"` must print arm64.",
        A.advise(s)[1],  # the one recommendation: `advise` prints the same steps
        {"rosetta": True, "machine": F.machine(s), "executable": exe},
        explains=["TE102"])]


def macos(s) -> list[dict]:
    if not F.is_macos(s):
        return []
    where = f"macOS {F.mac_ver(s) or ''}".strip()
    silicon = F.apple_silicon(s)
    recorded = F.mps(s)
    mps = recorded or Mps()  # unknown: neither built nor available is known
    details = {"mac_ver": F.mac_ver(s), "apple_silicon": silicon, "mps": F.as_details(recorded)}
    base = "CUDA does not exist on macOS (NVIDIA's last macOS CUDA was 10.2)"
    if mps.available is True:
        return [finding("TE102", "ok", f"{where} on Apple silicon: {base}; torch's MPS backend is available",
                        "Use the GPU through MPS: tensor.to('mps') / torch.device('mps'). CUDA code paths "
                        "(.cuda(), device='cuda') cannot work here.", None, details)]
    if F.rosetta(s) is True:
        return [finding("TE102", "warning", f"{where} on Apple silicon: {base}; MPS is unavailable to this x86_64 Python",
                        "See TE105: the Python runs under Rosetta 2.", None, details)]
    if silicon is False:
        return [finding("TE102", "warning", f"{where} on an Intel Mac: {base} and MPS is not available: torch runs on the CPU",
                        "Intel Macs have no CUDA and no MPS support in torch; only the CPU is used.", None, details)]
    if F.torch_importable(s) is not True:
        return [finding("TE102", "warning", f"{where}: {base}; torch is not importable, so MPS was not checked",
                        "On Apple silicon the standard PyPI torch wheel includes MPS.", None, details)]
    if mps.built is False:
        return [finding("TE102", "warning", f"{where}: {base}, and this {F.torch_label(s)} was built without MPS",
                        "The standard PyPI torch wheel for macOS arm64 includes MPS; reinstall it.",
                        A.pip_command(s, "install", "--force-reinstall", "torch"), details)]
    return [finding("TE102", "warning", f"{where}: {base}; MPS is built into {F.torch_label(s)} but not available",
                    "MPS needs Apple silicon and macOS 12.3 or newer (torch's own docs recommend 14+); "
                    "torch.backends.mps.is_available() returned False.", None, details)]


def python_range(s) -> list[dict]:
    py = F.python_version(s)
    if not py:
        return []
    try:
        req = F.torch_requires_python(s)
        if F.torch_importable(s) is not False and F.torch_release(s) and kb.release(F.torch_release(s)) is None and req:
            # A release newer than the tables: its own metadata (Requires-Python) is the reference.
            if versions.satisfies(py, req) is False:
                return [finding("TE103", "warning", f"Python {py} does not satisfy torch {F.torch_version(s)}'s Requires-Python {req}",
                                "torch's own package metadata excludes this Python: an untested combination.",
                                None, {"python": py, "torch": F.torch_version(s), "requires_python": req},
                                hides=["TE100"])]
            return []
        if F.torch_importable(s) is not False and F.torch_release(s):
            ok = kb.python_supported(F.torch_release(s), py)
            if ok is False:
                lo, hi = kb.python_range(F.torch_release(s))
                return [finding(
                    "TE103", "warning",
                    f"Python {py} is outside torch {F.torch_release(s)}'s supported range {lo}-{hi}",
                    "torch imports here, but this release publishes no wheels for this Python, so it is an "
                    "untested combination (a source build, or metadata that disagrees with the wheel).",
                    None, {"python": py, "torch": F.torch_version(s), "supported": [lo, hi]}, hides=["TE100"])]
            return []
        if F.torch_importable(s) is False and H.judges(s, "torch"):
            latest = kb.latest_known_release()
            if kb.python_supported(latest, py) is not False:
                return []
            lo, hi = kb.python_range(latest)
            fits = [r["torch"] for r in reversed(kb.releases()) if kb.python_supported(r["torch"], py)]
            too_old = kb.major_minor(py) < kb.major_minor(lo)
            msg = (f"Python {py} is {'older' if too_old else 'newer'} than current torch supports "
                   f"(torch {latest}: Python {lo}-{hi})")
            expl = (f"The newest torch with wheels for Python {py} is {fits[0]}." if fits else
                    f"No torch release in the doctor's tables ({kb.releases()[0]['torch']}-{latest}) has wheels for Python {py}.")
            return [finding("TE103", "failure" if too_old else "warning", msg,
                            expl + " Use a Python in the supported range (a new venv or conda env).",
                            None, {"python": py, "latest_torch": latest, "supported": [lo, hi],
                                   "newest_release_for_this_python": fits[0] if fits else None},
                            hides=["TE100"])]
    except kb.KnowledgeError:
        return []
    return []


def platform_ok(s) -> list[dict]:
    if F.wsl(s) == 1 or F.is_macos(s) or not F.system(s):
        return []  # (a Python outside torch's range, TE103, hides it)
    where = " ".join(x for x in (F.system(s), F.machine(s)) if x)
    extra = [x for x in (F.os_pretty(s), "WSL 2" if F.wsl(s) == 2 else None,
                         f"container: {F.container(s)}" if F.container(s) else None) if x]
    msg = f"{where}" + (f" ({', '.join(extra)})" if extra else "") + \
        f", {F.python_implementation(s) or 'Python'} {F.python_version(s) or '?'} ({F.env_kind(s)}: {F.python_exe(s)})"
    return [finding("TE100", "ok", msg, "", None,
                    {"system": F.system(s), "machine": F.machine(s), "python": F.python_version(s),
                     "executable": F.python_executable(s)})]


RULES = [wsl1, rosetta, macos, python_range, platform_ok]


# Docker gives a container a 64 MiB /dev/shm unless told otherwise (docker run --shm-size); PyTorch's
# README: "PyTorch uses shared memory to share data between processes, so if torch multiprocessing is
# used (e.g. for multi-threaded data loaders) the default shared memory segment size that container
# runs with is not enough, and you should increase shared memory size either with --ipc=host or
# --shm-size" (https://github.com/pytorch/pytorch#using-pre-built-images).  NCCL keeps its intra-node
# buffers there too.  Below this, a DataLoader with workers or a multi-GPU job on one node outgrows it.
SHM_MIN_BYTES = 1 << 30
SHM_PER_GPU_BYTES = 1 << 30


def shm_size(s) -> list[dict]:
    """A container's /dev/shm too small for DataLoader workers and NCCL: 'bus error' / 'unable to write
    to file </torch_...>' / NCCL's 'unhandled system error' come long after the job started."""
    shm = F.shm(s)
    container = F.container(s)
    if shm is None or container is None or F.is_macos(s):
        return []
    n = len(F.machine_gpus(s))
    need = max(SHM_MIN_BYTES, SHM_PER_GPU_BYTES * n)
    total = shm.total_bytes
    if total >= need:
        return []
    mib = total // (1 << 20)
    msg = (f"/dev/shm in this {container} container is {mib} MiB: DataLoader workers and NCCL need more"
           + (f" (at least {need >> 30} GiB for {n} GPU{'s' if n != 1 else ''})" if n else f" (at least {need >> 30} GiB)"))
    expl = ("DataLoader workers (num_workers > 0) pass every batch through shared memory, and NCCL keeps its "
            "intra-node buffers there; a small /dev/shm ends a run with \"Bus error\", \"unable to write to file "
            "</torch_...>\" or NCCL's \"unhandled system error\" long after it started. "
            + ("Docker gives containers 64 MiB unless started with --shm-size or --ipc=host (PyTorch's README, "
               "'Using pre-built images')." if container != "kubernetes" else
               "In Kubernetes, mount an emptyDir with medium: Memory at /dev/shm."))
    if container == "kubernetes":
        fix = ("# in the pod spec: a memory-backed volume at /dev/shm\n"
               "#   volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]\n"
               "#   containers[].volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n"
               "df -h /dev/shm")
    else:
        fix = ("# start the container again with the host's IPC namespace, or a larger /dev/shm:\n"
               f"#   {'podman' if container == 'podman' else 'docker'} run --ipc=host ...   "
               f"or   --shm-size={max(16, 2 * (need >> 30))}g\n"
               "df -h /dev/shm")
    return [finding("TE106", "warning", msg, expl, fix,
                    {"shm_bytes": total, "needed_bytes": need, "gpus": n, "container": container})]


RULES += [shm_size]
