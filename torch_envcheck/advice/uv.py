"""The advice in uv's words: `uv pip install` with the build's PyTorch index, and the pyproject.toml
fragment that makes `uv lock` / `uv sync` install that build on every platform a project targets.

    install_command(s, rec)          `uv pip install --python EXE ... --torch-backend cu126`
    project_fragment(reqs, picks, targets)  [tool.uv] environments, [tool.uv.sources], [[tool.uv.index]]
    driver_only(s, rec)              what `--torch-backend=auto` would take (the driver alone), and
                                     whether that build has kernels for this GPU
    render(s, targets) / pin(s, targets)    what `advise --uv` / `pin --uv` print

uv's `--torch-backend=auto` picks an index from the driver version alone (the newest CUDA whose
minimum driver the driver meets; knowledge/data/uv_torch_backends.json cites uv's table): it never
reads the GPU's compute capability (astral-sh/uv#14742), and its choice is not written to a lockfile
(astral-sh/uv#12994).  The build here is recommend()'s, the one `advise` prints; uv only carries it.
The fragment follows uv's PyTorch guide (docs/guides/integration/pytorch.md): one explicit index per
build, sources gated by platform markers, PyPI for the rest (macOS's torch is PyPI's own).
"""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import escape, versions
from torch_envcheck.advice import check
from torch_envcheck.advice.pins import requirements
from torch_envcheck.advice.recommend import index_url
from torch_envcheck.advice.targets import Target, default_for, own
from torch_envcheck.facts import core as F

TABLE = "uv_torch_backends.json"
FAMILY = ("torch", "torchvision", "torchaudio")


def _table() -> dict:
    return kb.load_table(TABLE)


def backend_since(tag: str | None) -> str | None:
    """The first uv release whose --torch-backend knows `tag` ('cu126' -> '0.6.9'); None: uv does not."""
    try:
        return _table()["since"].get(tag) if tag else None
    except kb.KnowledgeError:
        return None


def _quote(s, words) -> str:
    return escape.shell_join(list(words), F.shell(s))


def install_command(s, rec: dict, reqs: list[str] | None = None, new_env: str | None = None,
                    reinstall: bool = True) -> str | None:
    """`uv pip install` of the recommendation into the snapshot's interpreter (--python), with the
    build's PyTorch index: `--torch-backend TAG` where uv knows the tag, else `--index-url URL`.
    None where the advice is not one install (a native Python under Rosetta first).  new_env NAME:
    into a new venv ~/venvs/NAME made by `uv venv` (the command would break an installed package
    here: advise's two-environment answer)."""
    kind = rec.get("kind")
    if kind is None or kind in ("native-python", "keep"):
        return None  # (keep: the installed build already uses the GPU: nothing to install)
    reqs = reqs if reqs is not None else requirements(s, rec)
    if new_env:
        return _in_new_venv(s, rec, reqs, new_env)
    head = ["uv", "pip", "install", "--python", F.python_exe(s) or "python"]
    if kind == "jetpack":
        return _quote(s, head + [rec["wheel"]])
    if kind == "pypi":
        return _quote(s, head + reqs)
    tag = rec.get("tag") or "cpu"
    flags = ["--torch-backend", tag] if backend_since(tag) else ["--index-url", index_url(tag)]
    # pip's --force-reinstall: an installed 2.14.1+cu130 satisfies torch==2.14.1, and uv would keep it
    again = [w for n in _names(reqs) if reinstall and (F.torch_version(s) if n == "torch" else F.package_version(s, n))
             for w in ("--reinstall-package", n)]
    return _quote(s, head + reqs + flags + again)


def _in_new_venv(s, rec: dict, reqs: list[str], name: str) -> str:
    from torch_envcheck.advice.platform import _HOME_VENV, Platform  # noqa: PLC0415
    p = Platform.of(s)
    folder = _HOME_VENV.get(p.shell, _HOME_VENV["posix"]).format(name=name)
    py = ["--python", p.python] if p.python else []
    tag = rec.get("tag")
    flags = [] if not tag else (["--torch-backend", tag] if backend_since(tag) else ["--index-url", index_url(tag)])
    sep = "; " if p.shell == "powershell" else " && "
    return (f"uv venv {_quote(s, py)} {folder}".replace("  ", " ") + sep
            + f"uv pip install --python {p.venv_python(folder)} " + _quote(s, reqs + flags))


# ---------------------------------------------------------------- what uv alone would take

def auto_backend(driver_version, os_name: str | None) -> list[str]:
    """The PyTorch indexes `--torch-backend=auto` consults for this driver, in uv's order (uv takes a
    package from the first that has it), the CPU index last; [] when the driver is unknown."""
    key = versions.version_tuple(driver_version)
    if not key:
        return []
    col = "windows" if (os_name or "").startswith("Win") else "linux"
    rows = _table()["auto"][col]
    return [tag for tag, need in rows if key >= versions.version_tuple(need)] + ["cpu"]


def driver_only(s, rec: dict) -> dict | None:
    """What `uv pip install torch --torch-backend=auto` would install for the release advised:
    {'tag', 'torch', 'has_kernels', 'detail'}; None where uv's auto mode does not apply (no
    driver, macOS) or the tables cannot say."""
    if F.driver_present(s) is not True or F.is_macos(s) or not rec.get("torch"):
        return None
    try:
        order = auto_backend(F.driver_version(s), F.driver_os(s) or F.system(s))
        rel = kb.release(rec["torch"])
    except (kb.KnowledgeError, KeyError):
        return None
    if not order or rel is None:
        return None
    tags = {b["tag"]: b for b in rel.get("builds", [])
            if kb.build_on_platform(b, F.system(s), F.machine(s))}
    tag = next((t for t in order if t in tags or t == "cpu"), "cpu")
    out = {"tag": tag, "torch": rec["torch"], "has_kernels": None, "detail": ""}
    cap = F.build_capability(s)
    if tag == "cpu":
        out.update(has_kernels=False, detail=f"uv's --torch-backend=auto finds no CUDA index of torch {rec['torch']} "
                                             "for this driver and installs the CPU build")
        return out
    arch = kb.build_arch_list(tags[tag], F.system(s), F.machine(s))
    if cap and arch:
        m = kb.capability_match(cap, arch, kb.cuda_from_tag(tag))
        out["has_kernels"] = bool(m["ok"]) and kb.cudnn_supports(tags[tag].get("cudnn"), cap) is not False
    same = tag == rec.get("tag")
    out["detail"] = (f"uv's --torch-backend=auto reads only the driver ({F.driver_version(s)}) and takes {tag}"
                     + (": the same build" if same else "")
                     + ("" if same or out["has_kernels"] is not False else
                        f", whose torch {rec['torch']} has no kernels for this GPU's compute capability {cap}"))
    return out


# ---------------------------------------------------------------- the project's pyproject.toml

def picks(rec: dict, targets: list[Target], machine_target: str | None) -> tuple[dict, list[str]]:
    """{target name: PyTorch index tag, or None (PyPI's torch)} and the reasons: the machine's own
    platform takes the advised build; the other targets the same build where it is published for
    them (their GPUs were not seen), else the CPU index; macOS always PyPI's torch."""
    out, why = {}, []
    tag, rel = rec.get("tag"), kb.release(rec.get("torch")) if rec.get("torch") else None
    for t in targets:
        if t.os == "Darwin" or rec.get("kind") in ("pypi", "native-python") and t.name == machine_target:
            out[t.name] = None
            continue
        if t.name == machine_target and tag:
            out[t.name] = tag  # this machine's own build (advised, or kept: a ROCm/XPU build the tables do not list)
            continue
        if tag is None:
            out[t.name] = "cpu"
            continue
        build = next((b for b in (rel or {}).get("builds", []) if b.get("tag") == tag), None)
        if tag == "cpu" or build is None and (rel is None or not rel.get("builds_complete", True)):
            out[t.name] = tag  # (a build the tables do not list: the installed one, kept from live facts)
        elif build is not None and kb.build_on_platform(build, t.os, t.machine):
            out[t.name] = tag
        else:
            out[t.name] = "cpu"
            why.append(f"torch {rec.get('torch')} {tag} is not published for {t.name}: it gets the CPU build")
    others = [t.name for t in targets if t.name != machine_target and t.os != "Darwin"]
    if others and rec.get("kind") == "cuda":
        why.append(f"{', '.join(others)}: the same build as this machine where it is published (their GPUs and "
                   "drivers were not seen: run `torch-envcheck advise` there)")
    if any(t.os == "Darwin" for t in targets):
        why.append("macos: PyPI's torch (download.pytorch.org has no CUDA builds for macOS; MPS on Apple silicon)")
    return out, why


def _toml_str(value: str) -> str:
    """A TOML basic string (escape.py quotes for shells, not TOML)."""
    return '"' + "".join(c if c not in '"\\' and 0x20 <= ord(c) != 0x7f else f"\\u{ord(c):04x}" for c in value) + '"'


def _names(reqs: list[str]) -> list[str]:
    out = []
    for r in reqs:
        name = r.split("=", 1)[0].split("[", 1)[0].split("@", 1)[0].strip().lower()
        if name in FAMILY and name not in out:
            out.append(name)
    return out


def project_fragment(reqs: list[str], chosen: dict, targets: list[Target]) -> str:
    """The pyproject.toml lines: the targets as uv's resolution environments, one explicit index
    per PyTorch build used, and each torch package's source gated by the targets' markers."""
    lines = ["# pyproject.toml (uv): add to [project] dependencies: " + ", ".join(_toml_str(r) for r in reqs),
             "[tool.uv]",
             "environments = [" + ", ".join(_toml_str(t.marker) for t in targets) + "]",
             "", "[tool.uv.sources]"]
    used = [tag for tag in dict.fromkeys(chosen[t.name] for t in targets) if tag]
    for name in _names(reqs):
        lines.append(f"{name} = [")
        for tag in used:
            mine = [t.marker for t in targets if chosen[t.name] == tag]
            marker = " or ".join(f"({m})" if len(mine) > 1 and " and " in m else m for m in mine)
            lines.append(f"  {{ index = {_toml_str('pytorch-' + tag)}, marker = {_toml_str(marker)} }},")
        lines.append("]")
    for tag in used:
        lines += ["", "[[tool.uv.index]]", f"name = {_toml_str('pytorch-' + tag)}", f"url = {_toml_str(index_url(tag))}",
                  "explicit = true"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- advise --uv, pin --uv

def _targets(s, targets):
    return targets or default_for(F.system(s), F.machine(s))


def render(s, targets: list[Target] | None = None) -> dict:
    """What `advise --uv` prints: {'reasons', 'text' (None: nothing to install), 'problems'}."""
    from torch_envcheck.advice.recommend import recommend  # noqa: PLC0415
    rec = recommend(s)
    why = list(rec["reasons"])
    cmd = install_command(s, rec)
    if cmd is None and rec["kind"] == "keep" and rec.get("tag"):
        # nothing to install here; a uv project still needs the kept build's index to lock it
        tgs = _targets(s, targets)
        chosen, more = picks(rec, tgs, own(F.system(s), F.machine(s)))
        reqs = requirements(s, rec)
        frag = project_fragment(reqs, chosen, tgs)
        problems = [p.text() for p in check.fragment_problems(frag, "uv", tgs, chosen, reqs)]
        return {"reasons": why + ["no uv command: nothing to install here"] + more, "text": frag, "problems": problems}
    if cmd is None:
        why.append("no uv command: " + ("nothing fits this machine" if rec["kind"] is None else
                                         "nothing to install: keep the installed build" if rec["kind"] == "keep" else
                                         "make a native arm64 Python first (`torch-envcheck advise`)"))
        return {"reasons": why, "text": None, "problems": []}
    auto = driver_only(s, rec)
    if auto and auto["detail"]:
        why.append(auto["detail"])
    tag = rec.get("tag")
    if tag and not backend_since(tag):
        why.append(f"uv's --torch-backend does not know {tag}: the command names its index instead")
    elif tag and rec["kind"] in ("cuda", "cpu"):
        why.append(f"--torch-backend {tag} needs uv >= {backend_since(tag)}; with an older uv use "
                   f"--index-url {index_url(tag)}")
    broken = [p.detail for p in check.problems(s, cmd) if p.kind == "requires"]
    if broken:  # as `advise` answers: it would break another package here, so a new venv
        why.append(f"in this environment it would break another package: {broken[0]}; it goes into a new one")
        cmd = install_command(s, rec, new_env="torch")
    reqs = requirements(s, rec)
    text = [cmd]
    problems = [p.text() for p in check.problems(s, cmd)]
    if rec["kind"] in ("cuda", "cpu", "pypi"):
        tgs = _targets(s, targets)
        chosen, more = picks(rec, tgs, own(F.system(s), F.machine(s)))
        why += more
        frag = project_fragment(reqs, chosen, tgs)
        problems += [p.text() for p in check.fragment_problems(frag, "uv", tgs, chosen, reqs)]
        text += ["", frag.rstrip("\n")]
    return {"reasons": why, "text": "\n".join(text) + "\n", "problems": problems}


def pin(s, targets: list[Target] | None = None) -> dict:
    """What `pin --uv` prints: the installed torch (and companions) exactly, from the index of their
    build: the `uv pip install` line and the pyproject.toml fragment.  Raises ValueError when there
    is nothing safe to pin."""
    tv = F.torch_version(s)
    version = escape.requirement_version(tv) if tv else None
    if not version:
        raise ValueError("torch is not installed in this environment (or its version is not PEP 440): nothing to pin")
    tag = versions.local_tag(version) if "+" in version else None
    tag = tag if tag and kb.index_url(tag) and (tag == "cpu" or tag.startswith(("cu", "rocm", "xpu"))) else None
    reqs = [f"torch=={versions.public(version)}"]
    for name in FAMILY[1:]:
        v = escape.requirement_version(F.package_version(s, name) or "")
        if v:
            reqs.append(f"{name}=={versions.public(v)}")
    rec = {"kind": "cuda" if tag and tag.startswith("cu") else ("cpu" if tag else "pypi"),
           "torch": kb.release_key(version), "tag": tag}
    why = [f"the installed torch {version}" + (f" from the {tag} index" if tag else " (PyPI's build)")]
    # the command pins the local labels too (2.14.1+cu130): uv keeps what matches, replaces what does not
    exact = [f"torch=={version}"] + [f"{n}=={escape.requirement_version(F.package_version(s, n) or '')}"
                                     for n in FAMILY[1:] if escape.requirement_version(F.package_version(s, n) or "")]
    cmd = install_command(s, rec, exact, reinstall=False)
    tgs = _targets(s, targets)
    chosen, more = picks(rec, tgs, own(F.system(s), F.machine(s)))
    frag = project_fragment(reqs, chosen, tgs)
    problems = [p.text() for p in check.problems(s, cmd)] if cmd else []
    problems += [p.text() for p in check.fragment_problems(frag, "uv", tgs, chosen, reqs)]
    return {"reasons": why + more, "text": (cmd + "\n\n" if cmd else "") + frag, "problems": problems}
