"""The conda form of `torch-envcheck advise`, used when the snapshot was taken in a conda env.

The pytorch channel published its last release with 2.5 (pytorch/pytorch#138506), so the conda
form is `conda install pytorch=2.5 torchvision pytorch-cuda=X.Y -c pytorch -c nvidia` with the
newest pytorch-cuda of 2.5 that this driver runs (`cpuonly` instead without an NVIDIA driver), as
long as 2.5 has kernels for the GPU and wheels for this Python.  Newer torch goes into a conda env
only with pip: that route is printed as a `#` line, or as the command when 2.5 does not fit (a GPU
newer than 2.5 knows, Python 3.13).
"""

from __future__ import annotations

from . import knowledge
from .rules import _conda_facts as C
from .rules import _facts as F
from .rules.conda import command_line


def _last_release() -> tuple[str, list[str]]:
    table = knowledge.load_table("conda_cuda.json")
    last = str(table.get("last_pytorch_channel_release") or "2.5")
    row = next((r for r in table.get("pytorch_cuda", []) if isinstance(r, dict) and r.get("pytorch") == last), {})
    return last, [str(v) for v in row.get("pytorch_cuda", [])]


def conda_form(snap: dict, why: list[str], cmd: str | None) -> tuple[list[str], str | None]:
    """(reasons, command) for a conda env, from advise()'s pip answer (`why`, `cmd`)."""
    mgr = C.manager(snap)
    try:
        last, options = _last_release()
    except knowledge.KnowledgeError as exc:
        return why + [f"the conda tables could not be read ({exc}); the pip route follows"], cmd
    env = C.env_name(snap)
    out = list(why) + [f"conda env {env or C.prefix(snap) or '?'}: the pytorch channel's last release is {last} "
                       "(pytorch/pytorch#138506); newer torch goes into a conda env only with pip"]
    pre = [command_line(snap, mgr, "remove", "cpuonly")] if C.package(snap, "cpuonly") else []
    system = F.system(snap)
    if system == "Darwin":
        conda_cmd = command_line(snap, mgr, "install", f"pytorch={last}", "torchvision", "-c", "pytorch")
    elif F.driver_present(snap) is not True:
        conda_cmd = command_line(snap, mgr, "install", f"pytorch={last}", "torchvision", "cpuonly", "-c", "pytorch")
        pre = []
    else:
        caps = [g.get("capability") for g in F.gpus(snap) if isinstance(g.get("capability"), str)]
        cap = min(caps, key=lambda c: knowledge.version_tuple(c) or (0,)) if caps else None
        try:
            pick = knowledge.latest_release_for(
                driver_cuda=F.driver_cuda(snap), capability=cap, os_name=system,
                python_version=F.python_version(snap), driver_version=F.driver_version(snap),
                torch_release=last, machine=F.text(F.dig(snap, "platform", "machine")),
                driver_os_name=F.driver_os(snap))
        except knowledge.KnowledgeError:
            pick = None
        if not pick or pick["cuda"] not in options:
            out.append(f"pytorch {last} from the pytorch channel does not fit this driver, GPU or Python: "
                       "the pip route inside the env")
            if C.package(snap, "pytorch"):
                remove = [n for n in ("pytorch", "torchvision", "torchaudio", "pytorch-cuda", "cpuonly")
                          if C.package(snap, n)]
                return out, "\n".join([command_line(snap, mgr, "remove", "--force", *remove)] + ([cmd] if cmd else []))
            return out, cmd
        conda_cmd = command_line(snap, mgr, "install", f"pytorch={last}", "torchvision", f"pytorch-cuda={pick['cuda']}",
                                "-c", "pytorch", "-c", "nvidia")
        out.append(f"conda form: pytorch {last} with pytorch-cuda {pick['cuda']}, the newest of "
                   f"{', '.join(options)} this driver runs")
    if cmd:
        out.append(f"or the newest torch, with pip inside the env: {cmd.splitlines()[-1]}")
    return out, "\n".join(pre + [conda_cmd])
