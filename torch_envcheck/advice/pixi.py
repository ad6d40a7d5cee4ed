"""The advice in pixi's words: the pixi.toml fragment that installs conda-forge's pytorch build for
this machine (the pytorch channel published its last release with 2.5: pytorch/pytorch#138506).

    choose(s, targets) -> Choice      conda-forge's release and, per target platform, its build: the
                                      CUDA build conda_cuda.json (conda_forge_pytorch, the pytorch-cpu
                                      feedstock's recipe) lists for that platform, carrying this GPU's
                                      arch, with a CUDA this driver runs; the CPU build elsewhere
    fragment(choice, targets) -> str  [workspace] channels/platforms, [system-requirements] cuda,
                                      per-platform pytorch (build string `cudaXY*` or `*cpu*`) and
                                      cuda-version
    render(s, targets) -> dict        what `advise --pixi` prints

pixi solves against the `__cuda` virtual package: `[system-requirements] cuda = "X.Y"` promises that
every machine of the workspace has a driver for CUDA X.Y, and `cuda-version = "X.Y.*"` pins the CUDA
runtime conda-forge's pytorch is built against (cuda-version X.Y asks only `__cuda >=X` of the driver).
X.Y is the CUDA of the conda-forge build picked from this machine's driver and GPU: a GTX 10-series
card on driver 580 gets 12.9 (sm_60 in its arch list), not the 13.0 build, whose list starts at 7.5.
Another platform of the workspace gets the same release's build for it with a CUDA no newer than X.Y
(win-64 has 12.8 and 13.0, never 12.9).  The fields are those of pixi's manifest schema
(prefix-dev/pixi schema/model.py at commit 2b25fc76dd3b5cc50a235387d948474975c40d73: Workspace.channels/
platforms, SystemRequirements.cuda, MatchspecTable.version/build, Target.dependencies).
"""

from __future__ import annotations

import dataclasses

from torch_envcheck import knowledge as kb
from torch_envcheck.advice import check
from torch_envcheck.advice import conda as AC
from torch_envcheck.advice.targets import Target, default_for
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import conda_forge as CF


def _q(value: str) -> str:
    return '"' + "".join(c if c not in '"\\' and 0x20 <= ord(c) != 0x7f else f"\\u{ord(c):04x}" for c in value) + '"'


@dataclasses.dataclass
class Choice:
    release: str | None                 # conda-forge's pytorch release, "2.13" (None: any)
    chosen: dict                        # {target name: 'cuda' | 'cpu' | None (conda-forge's own, macOS)}
    cudas: dict                         # {target name: "12.9"} for the CUDA ones
    sysreq: str | None                  # [system-requirements] cuda: the CUDA of this machine's build
    reasons: list


def _platform_build(row: dict, target: Target, sysreq: str, capability) -> dict | None:
    """The release's CUDA build for another platform: the same CUDA major, no newer than `sysreq` (what
    the workspace's drivers promise), with this GPU's arch where one has it; the newest CUDA of those."""
    top = kb.major_minor(sysreq)
    fits = [b for b in row.get("builds") or [] if target.conda in (b.get("platforms") or [])
            and kb.major_minor(b.get("cuda")) and kb.major_minor(b["cuda"])[0] == top[0]
            and kb.major_minor(b["cuda"]) <= top]
    if not fits:
        return None
    if capability is not None:
        with_arch = [b for b in fits if kb.capability_match(capability, CF.forge_arch_list(b, target.os),
                                                            b["cuda"])["ok"]]
        fits = with_arch or fits
    return max(fits, key=lambda b: kb.major_minor(b["cuda"]))


def choose(s, rec: dict, targets: list[Target]) -> Choice | None:
    """conda-forge's builds for the workspace, or None when conda-forge has no CUDA build this machine runs
    (the advice is a CUDA build) or nothing at all for it (the reasons' last line says why)."""
    why: list[str] = []
    if rec.get("kind") == "cuda":
        pick = AC.forge_pick(s, keep_installed=False)
        if pick is None:
            return None
        row = CF.forge_release(pick["pytorch"]) or {}
        sysreq = pick["cuda"]
        why.append(f"{pick['platform']}: " + AC.forge_reason(pick))
        chosen, cudas = {}, {}
        for t in targets:
            if t.os == "Darwin":
                chosen[t.name] = None
            elif t.conda == pick["platform"]:
                chosen[t.name], cudas[t.name] = "cuda", pick["cuda"]
            else:
                b = _platform_build(row, t, sysreq, F.build_capability(s))
                if b:
                    chosen[t.name], cudas[t.name] = "cuda", b["cuda"]
                    why.append(f"{t.conda}: conda-forge's pytorch {row.get('version')} with CUDA {b['cuda']} (arch list "
                               f"{b['arch_list']}), the newest for {t.conda} not above CUDA {sysreq}")
                else:
                    chosen[t.name] = "cpu"
                    why.append(f"{t.conda}: conda-forge's pytorch {row.get('version')} has no CUDA {sysreq.split('.')[0]}.x "
                               f"build for {t.conda} up to CUDA {sysreq} in the tables: the CPU build")
        return Choice(pick["pytorch"], chosen, cudas, sysreq, why)
    own = CF.cpu_release(os_name=F.system(s), machine=F.machine(s), python_version=F.python_version(s))
    release = own["pytorch"] if own else None
    chosen = {t.name: (None if t.os == "Darwin" else "cpu") for t in targets}
    if release:
        why.append(f"conda-forge's pytorch {own['version']}, its CPU build"
                   + ("" if F.is_macos(s) else " (build string cpu*)"))
    return Choice(release, chosen, {}, None, why)


def fragment(choice: Choice, targets: list[Target]) -> str:
    lines = ["# pixi.toml: conda-forge's pytorch for the platforms below",
             "[workspace]",
             'channels = ["conda-forge"]',
             "platforms = [" + ", ".join(_q(t.conda) for t in targets) + "]", ""]
    if choice.sysreq and any(v == "cuda" for v in choice.chosen.values()):
        mm = kb.major_minor(choice.sysreq)
        lines += ["[system-requirements]", f"cuda = {_q(f'{mm[0]}.{mm[1]}')}", ""]
    for t in targets:
        spec = {"version": f"{choice.release}.*"} if choice.release else {}
        kind = choice.chosen.get(t.name)
        cuda = kb.major_minor(choice.cudas.get(t.name)) if kind == "cuda" else None
        if kind == "cuda" and cuda:
            spec["build"] = f"cuda{cuda[0]}{cuda[1]}*"   # the recipe's build string: cuda129_mkl_py312_h..._302
        elif kind:
            spec["build"] = f"*{kind}*"
        body = ", ".join(f"{k} = {_q(v)}" for k, v in spec.items())
        lines += [f"[target.{t.conda}.dependencies]", f"pytorch = {{ {body} }}" if body else 'pytorch = "*"']
        if cuda:
            lines.append(f"cuda-version = {_q(f'{cuda[0]}.{cuda[1]}.*')}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def render(s, targets: list[Target] | None = None) -> dict:
    """What `advise --pixi` prints: {'reasons', 'text' (None: nothing to install), 'problems'}."""
    from torch_envcheck.advice.recommend import recommend  # noqa: PLC0415
    rec = recommend(s)
    why = list(rec["reasons"])
    if rec["kind"] == "keep" and not rec.get("tag") and F.is_macos(s):
        rec = dict(rec, kind="pypi")  # a working MPS build: conda-forge's own osx-arm64 pytorch
    if rec["kind"] in (None, "native-python", "jetpack", "keep"):
        why.append("no pixi fragment: " + {None: "nothing fits this machine",
                                            "native-python": "make a native arm64 Python first (`torch-envcheck advise`)",
                                            "jetpack": "NVIDIA's JetPack wheel is on no conda channel",
                                            "keep": "the installed ROCm/XPU build has no conda-forge counterpart in the "
                                                    "tables"}[rec["kind"]])
        return {"reasons": why, "text": None, "problems": []}
    tgs = targets or default_for(F.system(s), F.machine(s))
    try:
        choice = choose(s, rec, tgs)
    except kb.KnowledgeError as exc:
        why.append(f"no pixi fragment: the conda-forge table could not be read ({exc})")
        return {"reasons": why, "text": None, "problems": []}
    if choice is None:
        why.append("no pixi fragment: no conda-forge CUDA build of pytorch in the tables has this GPU's arch, a CUDA "
                   "this driver runs and this Python (`torch-envcheck advise --uv` gives the wheel that does)")
        return {"reasons": why, "text": None, "problems": []}
    why += choice.reasons
    if any(t.os == "Darwin" for t in tgs):
        why.append("osx-arm64: conda-forge's own pytorch (no CUDA on macOS; MPS on Apple silicon)")
    text = fragment(choice, tgs)
    problems = [p.text() for p in check.fragment_problems(text, "pixi", tgs, choice.chosen, [])]
    return {"reasons": why, "text": text, "problems": problems}
