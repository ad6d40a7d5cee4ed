"""The conda form of `torch-envcheck advise`, used when the snapshot was taken in a conda env.

The pytorch channel published its last release with 2.5 (pytorch/pytorch#138506), so the conda
form is `conda install pytorch=2.5 torchvision pytorch-cuda=X.Y -c pytorch -c nvidia` with the
newest pytorch-cuda of 2.5 that this driver runs (`cpuonly` instead without an NVIDIA driver), as
long as 2.5 has kernels for the GPU and wheels for this Python.  Newer torch goes into a conda env
only with pip: that route is printed as a `#` line, or as the command when 2.5 does not fit (a GPU
newer than 2.5 knows, Python 3.13).
"""

from __future__ import annotations

from torch_envcheck import knowledge
from torch_envcheck._util.escape import shell_for, shell_quote
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F


# The options these fixes use: written as they are (PowerShell would otherwise get '-c'); every
# other word, and any data from the snapshot, is quoted for the shell.
_FLAGS = frozenset(("-c", "-n", "-f", "-m", "-y", "--force", "--force-reinstall", "--conda"))


def command_line(s, *words) -> str:
    """A command line for this snapshot's OS (shell_join's quoting, known options left bare)."""
    shell = shell_for(F.system(s))
    out = [w if w in _FLAGS else shell_quote(w, shell) for w in words if w]
    if shell == "powershell" and out and out[0].startswith("'"):
        out.insert(0, "&")  # a quoted program path needs the call operator
    return " ".join(out)


def _releases() -> tuple[str, dict]:
    """(the pytorch channel's last release, {release: [pytorch-cuda versions]})."""
    table = knowledge.load_table("conda_cuda.json")
    last = str(table.get("last_pytorch_channel_release") or "2.5")
    rows = {str(r.get("pytorch")): [str(v) for v in r.get("pytorch_cuda", [])]
            for r in table.get("pytorch_cuda", []) if isinstance(r, dict)}
    return last, rows


def _fit(snap: dict, release: str, options: list[str]) -> dict | None:
    """The CUDA build of `release` this driver, GPU and Python run, when the pytorch channel had it."""
    try:
        pick = knowledge.latest_release_for(
            driver_cuda=F.driver_cuda(snap), capability=F.build_capability(snap), os_name=F.system(snap),
            python_version=F.python_version(snap), driver_version=F.driver_version(snap),
            torch_release=release, machine=F.machine(snap),
            driver_os_name=F.driver_os(snap))
    except knowledge.KnowledgeError:
        return None
    return pick if pick and pick["cuda"] in options else None


def conda_form(snap: dict, why: list[str], cmd: str | None) -> tuple[list[str], str | None]:
    """(reasons, command) for a conda env, from advise()'s pip answer (`why`, `cmd`)."""
    mgr = C.manager(snap)
    try:
        last, rows = _releases()
    except knowledge.KnowledgeError as exc:
        return why + [f"the conda tables could not be read ({exc}); the pip route follows"], cmd
    env = C.env_name(snap)
    out = list(why) + [f"conda env {env or C.prefix(snap) or '?'}: the pytorch channel's last release is {last} "
                       "(pytorch/pytorch#138506); newer torch goes into a conda env only with pip"]
    pre = [command_line(snap, mgr, "remove", "cpuonly")] if C.package(snap, "cpuonly") else []
    system = F.system(snap)
    # advise keeps the installed release: conda's pytorch release when the channel has a build of it
    # for this machine, else the channel's last one
    installed = knowledge.release_key(C.version(C.package(snap, "pytorch")))
    if system == "Darwin" or F.driver_present(snap) is not True:
        release = installed if installed in rows else last
        conda_cmd = command_line(snap, mgr, "install", f"pytorch={release}", "torchvision",
                                 *([] if system == "Darwin" else ["cpuonly"]), "-c", "pytorch")
        pre = []
    else:
        release = installed if installed in rows and _fit(snap, installed, rows[installed]) else last
        pick = _fit(snap, release, rows.get(release, []))
        if not pick:
            out.append(f"pytorch {last} from the pytorch channel does not fit this driver, GPU or Python: "
                       "the pip route inside the env")
            if C.package(snap, "pytorch"):
                remove = [n for n in ("pytorch", "torchvision", "torchaudio", "pytorch-cuda", "cpuonly")
                          if C.package(snap, n)]
                return out, "\n".join([command_line(snap, mgr, "remove", "--force", *remove)] + ([cmd] if cmd else []))
            return out, cmd
        conda_cmd = command_line(snap, mgr, "install", f"pytorch={release}", "torchvision", f"pytorch-cuda={pick['cuda']}",
                                 "-c", "pytorch", "-c", "nvidia")
        out.append(f"conda form: pytorch {release}" + (" (the installed release)" if release == installed else "")
                   + f" with pytorch-cuda {pick['cuda']}, the newest of {', '.join(rows[release])} this driver runs")
    if cmd:
        out.append(f"or with pip inside the env (the route to any torch newer than {last}): {cmd.splitlines()[-1]}")
    return out, "\n".join(pre + [conda_cmd])
