"""The TensorFlow half of `torch-envcheck advise`: the pip command for TensorFlow that fits this
machine (OS, NVIDIA driver, Python), from TensorFlow's tested build configurations
(data/tensorflow_builds.json).  When torch and TensorFlow need different CUDA generations, one
environment cannot serve both: then it says so and gives one environment per framework, as the
install guides do."""

from __future__ import annotations

from torch_envcheck.advice.recommend import pip_command
from torch_envcheck.facts import core as F
from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.knowledge import tensorflow as tk
from torch_envcheck._util.escape import requirement_version, shell_quote
from torch_envcheck.knowledge.distributions import TF_PROVIDERS
from torch_envcheck.facts.core import python_mm
from torch_envcheck.facts import tensorflow as T


def _python_ok(row: dict, py: str | None) -> bool:
    v, lo, hi = kb.major_minor(py), kb.major_minor(row.get("python_min")), kb.major_minor(row.get("python_max"))
    return v is None or lo is None or hi is None or lo <= v <= hi


def pick_release(snap: dict, os_name: str) -> dict | None:
    """The installed TF release when the table knows it, else the newest one for this Python."""
    if T.tf_installed(snap):
        row = tk.build(T.tf_release(snap), os_name)
        if row:
            return row
    py = python_mm(snap)
    fits = [r for r in tk.releases(os_name) if _python_ok(r, py)]
    return fits[-1] if fits else None


def advise(snap: dict, torch_cuda: str | None = None) -> tuple[list[str], str | None, str | None]:
    """(reasons, command, cuda): TensorFlow's install command for this machine; cuda is the CUDA
    version of the build it installs (None for a CPU build)."""
    system, wsl = F.system(snap), F.wsl(snap)

    def pip(*words):
        return pip_command(snap, "install", *words)

    os_name = tk.os_column(system, wsl)
    row = pick_release(snap, os_name)
    if row is None:
        return [f"no TensorFlow release in the tested-build tables supports Python {python_mm(snap) or '?'}"], None, None
    rel = row["tensorflow"]
    spec = f"{rel}.*"
    why = [f"TensorFlow {rel}: tested with Python {row['python_min']}-{row['python_max']}"
           + (f", CUDA {row['cuda']}, cuDNN {row['cudnn']}" if row.get("cuda") else "")
           + (" [table row marked unverified]" if row.get("unverified") else "")]
    if system == "Darwin":
        words = [f"tensorflow=={spec}"] + (["tensorflow-metal"] if F.apple_silicon(snap) or F.machine(snap) == "arm64" else [])
        why.append("macOS: no CUDA; tensorflow-metal adds the Apple-silicon GPU")
        return why, pip(*words), None
    if system == "Windows" and not wsl:
        last = tk.windows_last_gpu_release()
        if F.driver_present(snap) is True:
            why.append(f"native Windows: TensorFlow {last} was the last release with GPU support; for the GPU use "
                       "WSL 2 (`wsl --install`, then `torch-envcheck advise` inside it), or tensorflow<2.11 with "
                       "CUDA 11.2 and cuDNN 8.1 on a Python it supports")
        else:
            why.append("native Windows without an NVIDIA driver: the CPU build")
        return why, pip(f"tensorflow=={spec}"), None
    if wsl == 1:
        why.append("WSL 1 cannot reach the GPU: the CPU build")
        return why, pip(f"tensorflow-cpu=={spec}"), None
    arm = (F.machine(snap) or "").lower() in ("aarch64", "arm64")
    present, dv = F.driver_present(snap) is True, F.driver_version(snap)
    if not present or not row.get("cuda"):
        why.append("no NVIDIA driver: the CPU build" if not present else "no tested GPU build")
        return why, pip(f"tensorflow=={spec}" if arm else f"tensorflow-cpu=={spec}"), None
    # the one answer (WSL 2 runs on the Windows driver: F.driver_os picks its table)
    verdict = F.driver_runs(snap, row["cuda"]) if dv else None
    if verdict == "no":
        why.append(f"NVIDIA driver {dv} is too old for TensorFlow {rel}'s CUDA {row['cuda']}: "
                   "update the driver for the GPU; until then the CPU build")
        return why, pip(f"tensorflow-cpu=={spec}"), None
    if kb.major_minor(rel) >= kb.major_minor(tk.and_cuda_since()):
        why.append(f"NVIDIA driver {dv or '?'}"
                   + (" (the Windows driver, used by WSL 2)" if wsl == 2 else "")
                   + f": TensorFlow's CUDA {row['cuda']} libraries come from pip with the `and-cuda` extra")
        cmd = pip(f"tensorflow[and-cuda]=={spec}")
    else:
        why.append(f"TensorFlow {rel} has no `and-cuda` extra: install CUDA {row['cuda']} and cuDNN {row['cudnn']} "
                   "yourself and put them on LD_LIBRARY_PATH")
        cmd = pip(f"tensorflow=={spec}")
    return why, cmd, row["cuda"]


def two_environments(torch_cmd: str, tf_cmd: str, system: str | None, platform=None) -> list[str]:
    """The two commands, each in its own new environment (the platform's manager and layout)."""
    from torch_envcheck.advice.venv_commands import in_new_venv  # noqa: PLC0415
    return [in_new_venv(torch_cmd, "torch", system, platform), in_new_venv(tf_cmd, "tf", system, platform)]


def breaks_installed(snap: dict, cmd) -> list[str]:
    """What `cmd`, run in the snapshot's environment, would break: the requirements of installed
    distributions it leaves unmet (the fix checker, check.py)."""
    from torch_envcheck.advice import check  # noqa: PLC0415
    if not cmd:
        return []
    return [p.detail for p in check.problems(snap, str(cmd)) if p.kind == "requires"]


def extend(snap: dict, why: list[str], cmd: str | None, torch_cuda: str | None, framework: str) -> tuple[list[str], list[str]]:
    """advise's output with TensorFlow: (reason lines, command lines).  framework 'tensorflow' gives
    TensorFlow alone; 'both' (or TF installed) gives both, in two environments when their CUDA
    generations differ."""
    tf_why, tf_cmd, tf_cuda = advise(snap, torch_cuda)
    if framework == "tensorflow":
        return tf_why, [tf_cmd] if tf_cmd else []
    reasons = [f"torch: {w}" for w in why] + [f"tensorflow: {w}" for w in tf_why]
    cmds = [c for c in (cmd, tf_cmd) if c]
    if not (cmd and tf_cmd):
        return reasons, cmds
    from torch_envcheck.advice.platform import Platform  # noqa: PLC0415
    platform = Platform.of(snap)
    if torch_cuda and tf_cuda and versions.major(torch_cuda) != versions.major(tf_cuda) and not platform.windows:
        reasons.append(f"one environment cannot serve both: torch's CUDA {torch_cuda} wheels and TensorFlow's CUDA "
                       f"{tf_cuda} wheels install the same files (nvidia/cudnn/lib/libcudnn.so.9, ...) in different "
                       "builds; use two environments")
        return reasons, two_environments(cmd, tf_cmd, F.system(snap), platform)
    broken = breaks_installed(snap, cmd) + breaks_installed(snap, tf_cmd)
    if broken:
        # the fix checker: one framework's command would break the other's pins in this environment
        reasons.append("one environment cannot serve both: " + broken[0]
                       + (f" (and {len(broken) - 1} more)" if len(broken) > 1 else "") + "; use two environments")
        return reasons, two_environments(cmd, tf_cmd, F.system(snap), platform)
    return reasons, cmds


def _dist_name(snap: dict) -> str:
    """The installed TensorFlow distribution's name, only when it is one of the known ones (a saved
    snapshot is input from a stranger: this name goes into requirements lines)."""
    name = T.tf_distribution(snap)
    return name if name in TF_PROVIDERS else "tensorflow"


def _build_text(snap: dict) -> str | None:
    cuda = T.recorded_cuda_build(snap)
    if cuda is True:
        v = T.build_cuda(snap)
        return f"CUDA {v}" if v else "CUDA"
    if cuda is False:
        return "CPU"
    return None


def tf_line(snap: dict) -> str:
    """readme-line's TensorFlow part: 'tensorflow 2.21.0 (CUDA 12.5.1)', 'tensorflow-cpu 2.21.0'."""
    dist = _dist_name(snap)
    text = f"{dist} {requirement_version(T.tf_version(snap)) or '?'}"
    build = _build_text(snap)
    if build and not (build == "CPU" and dist.endswith("-cpu")):
        text += f" ({build})"
    if T.importable(snap) is False:
        text += " (not importable)"
    return text


def pin_lines(snap: dict) -> list[str]:
    """pin's TensorFlow lines: the installed distribution pinned, with its `and-cuda` extra when all of
    that extra's nvidia wheels are installed, and Keras."""
    dist, version = _dist_name(snap), requirement_version(T.tf_version(snap))
    if not version:
        return [f"# {dist}: installed version unreadable; not pinned"]
    and_cuda = T.and_cuda(snap)
    # the extra is pinned only when its wheels are installed in the versions it pins: else `pip install -r`
    # would change them (another framework's pins may hold them: advice/frameworks.py, TE852)
    full = bool(and_cuda) and all(r.installed and r.satisfied is not False for r in and_cuda)
    name = f"{dist}[and-cuda]" if full and dist == "tensorflow" else dist
    out = [f"# {dist} {version}" + (" with its CUDA libraries (the and-cuda extra)" if name.endswith("]") else "")
           + "; from `torch-envcheck pin`"]
    from torch_envcheck.advice.frameworks import pin_clash  # noqa: PLC0415
    clash = pin_clash(snap)
    if clash:
        out.append(f"# torch and {dist}[and-cuda] pin {len(clash['clashes'])} nvidia-* wheels differently (TE852): "
                   "these lines reproduce this environment, where the installed wheels follow "
                   + {"torch": "torch's pins", "tensorflow": f"{dist}'s pins"}.get(clash["follows"], "neither")
                   + "; `torch-envcheck advise` gives one environment per framework")
    out.append(f"{name}=={version}")
    for extra in ("keras", "tf-keras"):
        v = requirement_version(T.tf_distributions(snap).get(extra))
        if v:
            out.append(f"{extra}=={v}")
    return out


__all__ = ["advise", "extend", "pick_release", "two_environments", "tf_line", "pin_lines", "shell_quote"]
