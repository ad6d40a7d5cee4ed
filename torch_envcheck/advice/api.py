"""The advice as data for installers: torch_envcheck.advise(snapshot) and `advise --json`.

    advice_for(s) -> Advice     the build chosen for the machine of snapshot `s` (recommend(), the
                                one decision the doctor's fixes and `advise` print), why, and every
                                other build the tables know with the reasons it was not chosen
    Advice.to_dict()            the JSON document of docs/schemas/advise.schema.json (SCHEMA_VERSION)

The document is a promise to scripts: its fields change only with SCHEMA_VERSION (a new optional
field keeps the version; a renamed or removed one, or a changed meaning, raises it).  Every command
in it went through the fix checker (check.py) for this machine; what the checker found is in
'problems' (none is expected).
"""

from __future__ import annotations

import dataclasses

from torch_envcheck import knowledge as kb
from torch_envcheck._version import __version__
from torch_envcheck.advice import alternatives as alt
from torch_envcheck.advice import check, pins
from torch_envcheck.advice import conda as AC
from torch_envcheck.advice.recommend import advise, companions_installed, install_command, recommend
from torch_envcheck.advice.tensorflow import breaks_installed
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F

SCHEMA_VERSION = 1
SCHEMA_ID = "https://torch-envcheck.invalid/schemas/advise/1"   # the schema file's $id (docs/schemas/)
KINDS = ("cuda", "cpu", "pypi", "keep", "native-python", "jetpack")
MAX_PROBLEMS = 20


@dataclasses.dataclass(frozen=True)
class Rejection:
    check: str    # alternatives.CHECKS: platform, python, driver, capability, requirements, preference
    detail: str

    def to_dict(self) -> dict:
        return {"check": self.check, "detail": self.detail}


@dataclasses.dataclass(frozen=True)
class Alternative:
    torch: str            # the release, "2.14"
    tag: str              # the download.pytorch.org index, "cu130"
    cuda: str | None
    index_url: str
    rejected: tuple       # of Rejection; never empty

    def to_dict(self) -> dict:
        return {"torch": self.torch, "tag": self.tag, "cuda": self.cuda, "index_url": self.index_url,
                "rejected": [r.to_dict() for r in self.rejected]}


@dataclasses.dataclass(frozen=True)
class Advice:
    """What torch_envcheck.advise() returns.  `kind` None: nothing fits (`reasons` say why)."""
    kind: str | None
    build: dict | None        # {'torch', 'version', 'tag', 'cuda', 'cudnn', 'index_url', 'via', 'wheel', 'requirements'}
    reasons: tuple
    alternatives: tuple       # of Alternative
    machine: dict
    installed: dict | None
    commands: dict            # {'pip': str | None}; forms added by their modules (uv, pixi) when asked;
                              # 'conda' in a conda env (the conda form `advise` prints there)
    problems: tuple = ()      # the fix checker's findings on `commands` (none expected)
    conda_forge: dict | None = None   # conda-forge's build for a new conda env on this machine (None: none fits)
    tensorflow: dict | None = None    # TensorFlow's plan, where the env holds TensorFlow or it was asked for

    @property
    def ok(self) -> bool:
        return self.kind is not None

    def to_dict(self) -> dict:
        return {"schema": SCHEMA_ID, "schema_version": SCHEMA_VERSION, "tool": "torch-envcheck",
                "tool_version": __version__, "kind": self.kind, "build": self.build,
                "reasons": list(self.reasons), "alternatives": [a.to_dict() for a in self.alternatives],
                "machine": self.machine, "installed": self.installed, "commands": dict(self.commands),
                "problems": list(self.problems), "conda_forge": self.conda_forge, "tensorflow": self.tensorflow}


def _machine(s) -> dict:
    return {"os": F.system(s), "machine": F.machine(s), "python": F.python_mm(s),
            "python_executable": F.python_exe(s), "driver_version": F.driver_version(s),
            "driver_cuda": F.driver_cuda(s), "driver_os": F.driver_os(s) or F.system(s),
            "compute_capabilities": list(F.capabilities(s)), "build_capability": F.build_capability(s),
            "wsl": F.wsl(s), "jetson": bool(F.is_tegra(s))}


def _installed(s) -> dict | None:
    tv = F.torch_version(s)
    if not tv:
        return None
    return {"torch": tv, "cuda": F.torch_cuda(s), "tag": F.torch_local(s) or kb.tag_from_cuda(F.torch_cuda(s)),
            "companions": {n: F.package_version(s, n) for n in companions_installed(s)}}


def _build(s, rec: dict, pip: str | None) -> dict | None:
    if rec["kind"] is None:
        return None
    pick = rec.get("build") or {}
    tag = rec.get("tag")
    return {"torch": rec.get("torch"), "version": pins.exact_version(s, rec), "tag": tag, "cuda": rec.get("cuda"),
            "cudnn": rec.get("cudnn"), "index_url": kb.index_url(tag) if tag else None,
            "via": pick.get("via"), "driver_support": pick.get("driver_support"),
            "kept_installed": bool(pick.get("kept")), "unverified": bool(pick.get("unverified")),
            "wheel": rec.get("wheel"), "requirements": pins.requirements(s, rec)}


def _alternatives(s, rec: dict) -> list[Alternative]:
    try:
        cands = alt.candidates(s)
    except kb.KnowledgeError:
        return []
    chosen = None
    if rec["kind"] == "cuda":
        b = rec.get("build") or {}
        chosen = {"torch": rec["torch"], "tag": rec["tag"], "cuda": rec["cuda"], "via": b.get("via"),
                  "driver_support": b.get("driver_support")}
    # a machine the CUDA builds do not serve for a reason of its own (WSL 1, a Jetson, Rosetta, no driver)
    why_not = None if rec["kind"] == "cuda" else next(iter(rec["reasons"]), "the machine takes no CUDA build")
    out = []
    for c in cands:
        if chosen and (c["torch"], c["tag"]) == (chosen["torch"], chosen["tag"]):
            continue
        hard = [Rejection(k, d) for k, d in c["hard"]]
        if not hard and why_not:
            hard.append(Rejection("platform", why_not))
        if not hard and chosen:
            broken = [p for p in check.problems(s, install_command(s, {"torch": c["torch"], "tag": c["tag"]}))
                      if p.kind == "requires"]
            hard = [Rejection("requirements", p.detail) for p in broken[:3]]
            if not hard:
                hard.append(Rejection("preference", alt.preference(c, chosen, F.torch_version(s))))
        out.append(Alternative(c["torch"], c["tag"], c["cuda"], c["index_url"], tuple(hard)))
    if rec["kind"] == "cuda":
        out.append(Alternative(rec["torch"], "cpu", None, kb.index_url("cpu"), (Rejection(
            "preference", "a CUDA build fits this machine's GPU; the CPU build would leave it unused"),)))
    return out


def _conda_forge(s) -> dict | None:
    """conda-forge's pytorch for a new conda env on this machine: the CUDA build advise --conda
    names (the GPU's arch in its list, a CUDA this driver runs, this Python and platform), with the
    match specs that install it; None when none fits (or the advice is not a CUDA build)."""
    pick = AC.forge_pick(s, keep_installed=False)
    if pick is None:
        return None
    words = AC.forge_words(pick)
    return {"pytorch": pick["pytorch"], "version": pick["version"], "cuda": pick["cuda"], "platform": pick["platform"],
            "arch_list": pick["arch_list"], "via": pick["via"], "entry": pick["entry"],
            "driver_support": pick["driver_support"], "channel": "conda-forge", "specs": words[2:],
            "source": AC.source_text(pick.get("source"))}


def _tensorflow(s, pip: str | None, rec: dict, framework: str | None) -> dict | None:
    """TensorFlow's plan as `advise` prints it (advice/tensorflow.py): for an env that holds TensorFlow,
    or when --framework asks for it; None otherwise."""
    from torch_envcheck.advice import tensorflow as tf_advise  # noqa: PLC0415
    from torch_envcheck.facts import tensorflow as T  # noqa: PLC0415
    if framework not in ("tensorflow", "both") and not (framework is None and T.tf_installed(s)):
        return None
    torch_cuda = rec.get("cuda") if rec["kind"] == "cuda" else None
    why, cmd, cuda = tf_advise.advise(s, torch_cuda)
    reasons, cmds = tf_advise.extend(s, [], pip, torch_cuda, framework or "both")
    return {"installed": T.tf_version(s) if T.tf_installed(s) else None, "reasons": list(why), "command": cmd,
            "cuda": cuda, "commands": [str(c) for c in cmds],
            "two_environments": any(r.startswith("one environment cannot serve both") for r in reasons)}


def advice_for(s, forms=(), framework: str | None = None) -> Advice:
    """The advice for the machine of snapshot `s`.  forms: extra command forms to add ('uv'),
    each made by its own module and checked like the pip command.  framework ('torch',
    'tensorflow', 'both'; None: TensorFlow where the env holds it) adds TensorFlow's plan."""
    rec = recommend(s)
    reasons = list(rec["reasons"])
    _why, pip = advise(s)
    raw_pip = pip  # as `advise` starts from it: the conda form and TensorFlow's plan are made from this one
    broken = breaks_installed(s, pip)
    new_env = None
    if broken:  # as `advise` answers: the command would break another package here, so a new venv
        from torch_envcheck.advice.platform import Platform  # noqa: PLC0415
        from torch_envcheck.advice.venv_commands import in_new_venv  # noqa: PLC0415
        reasons.append(f"in this environment it would break another package: {broken[0]}; it goes into a new one")
        pip, new_env = in_new_venv(pip, "torch", F.system(s), Platform.of(s)), "torch"
    commands = {"pip": pip}
    problems = [p.text() for p in check.problems(s, pip)] if pip else []
    for form in forms:
        if form == "uv":
            from torch_envcheck.advice import uv  # noqa: PLC0415
            text = uv.install_command(s, rec, new_env=new_env)
            commands["uv"] = text
            commands["uv_driver_only"] = uv.driver_only(s, rec)
            problems += [p.text() for p in check.problems(s, text)] if text else []
    if C.in_conda_env(s) and rec["kind"] not in ("native-python", "jetpack", "keep"):
        commands["conda"] = AC.conda_form(s, list(rec["reasons"]), raw_pip)[1]
    try:
        forge = _conda_forge(s) if rec["kind"] == "cuda" else None
    except kb.KnowledgeError:
        forge = None
    # TensorFlow beside the torch command `advise` prints here (in a conda env, its conda form)
    torch_cmd = commands.get("conda") or raw_pip
    tf = _tensorflow(s, torch_cmd, rec, framework)
    if tf and tf["command"] and not tf["two_environments"]:  # (in two new environments it breaks nothing here)
        problems += [p.text() for p in check.problems(s, tf["command"])]
    return Advice(kind=rec["kind"], build=_build(s, rec, pip), reasons=tuple(reasons),
                  alternatives=tuple(_alternatives(s, rec)), machine=_machine(s), installed=_installed(s),
                  commands=commands, problems=tuple(problems[:MAX_PROBLEMS]), conda_forge=forge, tensorflow=tf)
