"""The advice in pixi's words: the pixi.toml fragment that installs conda-forge's pytorch build for
this machine (the pytorch channel published its last release with 2.5: pytorch/pytorch#138506).

    fragment(rec, targets) -> str     [workspace] channels/platforms, [system-requirements] cuda,
                                      per-platform pytorch (build string `*cuda*` or `*cpu*`) and
                                      cuda-version
    render(s, targets) -> dict        what `advise --pixi` prints

pixi solves against the `__cuda` virtual package: `[system-requirements] cuda = "X.Y"` promises that
every machine of the workspace has a driver for CUDA X.Y, and `cuda-version = "X.Y.*"` pins the CUDA
runtime conda-forge's pytorch is built against.  X.Y is the CUDA of the build `advise` picks from the
driver and the GPU's compute capability: a GTX 10-series card on driver 580 gets 12.6, not the 13.x a
driver-only choice would take.  conda-forge's own arch lists are not in the knowledge tables: the
reasons say so.  The fields are those of pixi's manifest schema (prefix-dev/pixi schema/model.py at
commit 2b25fc76dd3b5cc50a235387d948474975c40d73: Workspace.channels/platforms,
SystemRequirements.cuda, MatchspecTable.version/build, Target.dependencies).
"""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck.advice import check
from torch_envcheck.advice.targets import Target, default_for
from torch_envcheck.facts import core as F


def _q(value: str) -> str:
    return '"' + "".join(c if c not in '"\\' and 0x20 <= ord(c) != 0x7f else f"\\u{ord(c):04x}" for c in value) + '"'


def picks(rec: dict, targets: list[Target]) -> dict:
    """{target name: 'cuda' | 'cpu' | None (no build string: macOS, conda-forge's own)}."""
    out = {}
    for t in targets:
        if t.os == "Darwin":
            out[t.name] = None
        elif rec.get("kind") == "cuda" and rec.get("cuda"):
            out[t.name] = "cuda"
        else:
            out[t.name] = "cpu"
    return out


def fragment(rec: dict, targets: list[Target], chosen: dict) -> str:
    rel = rec.get("torch")
    cuda = kb.major_minor(rec.get("cuda")) if rec.get("kind") == "cuda" else None
    lines = ["# pixi.toml: conda-forge's pytorch for the platforms below",
             "[workspace]",
             'channels = ["conda-forge"]',
             "platforms = [" + ", ".join(_q(t.conda) for t in targets) + "]", ""]
    if cuda and any(v == "cuda" for v in chosen.values()):
        lines += ["[system-requirements]",
                  f"cuda = {_q(f'{cuda[0]}.{cuda[1]}')}", ""]
    for t in targets:
        spec = {"version": f"{rel}.*"} if rel else {}
        if chosen[t.name]:
            spec["build"] = f"*{chosen[t.name]}*"
        body = ", ".join(f"{k} = {_q(v)}" for k, v in spec.items())
        lines += [f"[target.{t.conda}.dependencies]", f"pytorch = {{ {body} }}" if body else 'pytorch = "*"']
        if chosen[t.name] == "cuda" and cuda:
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
    chosen = picks(rec, tgs)
    if rec["kind"] == "cuda":
        why.append(f"conda-forge's pytorch with CUDA {rec['cuda']} (`cuda-version`), the CUDA of the build advised for "
                   "this driver and GPU; conda-forge's arch lists are not in the tables: check "
                   "`torch.cuda.get_arch_list()` in the environment")
        if any(t.os == "Windows" for t in tgs):
            why.append("win-64: conda-forge's Windows CUDA builds are not in the tables; the fragment asks for one "
                       "(`*cuda*`) and pixi says if none solves")
    elif any(t.os != "Darwin" for t in tgs):
        why.append("linux/windows: the CPU build, as for this machine (no CUDA build fits here; run `torch-envcheck "
                   "advise --pixi` on a GPU machine for its CUDA build)")
    if any(t.os == "Darwin" for t in tgs):
        why.append("osx-arm64: conda-forge's own pytorch (no CUDA on macOS; MPS on Apple silicon)")
    text = fragment(rec, tgs, chosen)
    problems = [p.text() for p in check.fragment_problems(text, "pixi", tgs, chosen, [f"torch=={rec['torch']}.*"]
                                                          if rec.get("torch") else [])]
    return {"reasons": why, "text": text, "problems": problems}
