"""The fix checker's part for project files (check.fragment_problems): a uv pyproject.toml or pixi
pixi.toml fragment is valid TOML (tomllib), has the fields the tool's own schema defines, its PEP 508
markers parse (packaging), every index a package is sent to is declared, and the build each
targeted platform gets exists there (knowledge tables: the release has that build, published for
that OS and CPU)."""

from __future__ import annotations

import re

from torch_envcheck import knowledge as kb


def _toml(text: str) -> tuple[dict | None, list[str]]:
    """The parsed fragment and no problems, or None and what to report: that it is not valid TOML,
    or nothing when no TOML reader is installed (the fragment cannot be judged)."""
    try:
        import tomllib  # noqa: PLC0415  (Python 3.11+)
    except ImportError:  # pragma: no cover - older Pythons: tomli when installed
        try:
            import tomli as tomllib  # noqa: PLC0415
        except ImportError:
            return None, []
    try:
        return tomllib.loads(text), []
    except tomllib.TOMLDecodeError as exc:
        return None, [f"not valid TOML: {exc}"]


def _marker(text) -> tuple[object | None, str | None]:
    try:
        from packaging.markers import InvalidMarker, Marker  # noqa: PLC0415
    except ImportError:
        return None, None
    if not isinstance(text, str):
        return None, f"marker {text!r} is not a string"
    try:
        return Marker(text), None
    except InvalidMarker as exc:
        return None, f"marker {text!r} does not parse: {exc}"


def _whl_tag(url: str | None) -> str | None:
    """The build tag of a PyTorch index URL (.../whl/cu128 -> cu128), or None for any other index."""
    m = re.search(r"/whl/([A-Za-z0-9.]+)/?$", url or "")
    return m.group(1) if m else None


def _release_of(reqs) -> str | None:
    for r in reqs or ():
        m = re.match(r"\s*torch\s*==\s*(\d+\.\d+)", r)
        if m:
            return m.group(1)
    return None


def _build_problem(release: str | None, tag: str, target) -> str | None:
    """Why `tag`'s torch `release` does not exist for `target`, or None."""
    if not tag.startswith("cu") or release is None:
        return None  # the tables list CUDA builds; a ROCm/XPU/CPU index is not judged here
    rel = kb.release(release)
    if rel is None:
        return None  # a release the tables do not know: nothing to judge it by
    build = next((b for b in rel.get("builds", []) if b.get("tag") == tag), None)
    if build is None:
        if not rel.get("builds_complete", True):
            return None  # the tables say they do not list every build of it
        return f"torch {release} has no {tag} build in the tables (target {target.name})"
    if not kb.build_on_platform(build, target.os, target.machine):
        return f"torch {release} {tag} is not published for {target.name}"
    return None


def uv_problems(text: str, targets, chosen: dict, reqs) -> list[str]:
    """What is wrong with a uv pyproject.toml fragment (uv's settings: docs/reference/settings.md of
    astral-sh/uv: tool.uv.index entries name/url/explicit, tool.uv.sources entries index/marker)."""
    doc, problems = _toml(text)
    if doc is None:
        return problems
    out = []
    uv = doc.get("tool", {}).get("uv", {})
    indexes = {}
    for ix in uv.get("index", []):
        if not isinstance(ix, dict) or not isinstance(ix.get("name"), str) or not isinstance(ix.get("url"), str):
            out.append("a [[tool.uv.index]] entry without a name and url")
            continue
        if ix.get("explicit") is not True:
            out.append(f"index {ix['name']!r} is not explicit: uv would take other packages from it too")
        unknown = set(ix) - {"name", "url", "explicit", "default", "format", "authenticate", "ignore-error-codes",
                             "cache-control", "publish-url"}
        if unknown:
            out.append(f"index {ix['name']!r} has fields uv does not define: {', '.join(sorted(unknown))}")
        indexes[ix["name"]] = ix["url"]
    for m in uv.get("environments", []):
        _, e = _marker(m)
        if e:
            out.append(f"tool.uv.environments: {e}")
    release = _release_of(reqs)
    for pkg, entries in uv.get("sources", {}).items():
        for ent in entries if isinstance(entries, list) else [entries]:
            if not isinstance(ent, dict) or set(ent) - {"index", "marker", "extra", "group"}:
                out.append(f"tool.uv.sources.{pkg}: an entry uv's index sources do not define: {ent!r}")
                continue
            url = indexes.get(ent.get("index"))
            if url is None:
                out.append(f"tool.uv.sources.{pkg}: index {ent.get('index')!r} is not declared in [[tool.uv.index]]")
                continue
            marker, e = _marker(ent.get("marker", "python_version >= '0'"))
            if e:
                out.append(f"tool.uv.sources.{pkg}: {e}")
                continue
            tag = _whl_tag(url)
            for t in targets:
                if marker is not None and marker.evaluate(t.env()):
                    if tag and chosen.get(t.name) != tag:
                        out.append(f"{pkg} on {t.name} would come from {tag}, not the advised {chosen.get(t.name)}")
                    if pkg == "torch" and tag:
                        p = _build_problem(release, tag, t)
                        if p:
                            out.append(p)
    # every target that must take a PyTorch index is sent to one
    torch_src = uv.get("sources", {}).get("torch", [])
    for t in targets:
        want = chosen.get(t.name)
        if want is None:
            continue
        hit = [e for e in torch_src if isinstance(e, dict) and _marker(e.get("marker", "python_version >= '0'"))[0]
               is not None and _marker(e.get("marker", "python_version >= '0'"))[0].evaluate(t.env())]
        if len(hit) != 1:
            out.append(f"torch on {t.name}: {len(hit)} sources match (one expected, the {want} index)")
    return out


# pixi's manifest fields (prefix-dev/pixi schema/model.py, commit 2b25fc76dd3b5cc50a235387d948474975c40d73)
PIXI_WORKSPACE = {"name", "version", "description", "authors", "channels", "channel-priority", "solve-strategy",
                  "exclude-newer", "platforms", "license", "license-file", "readme", "homepage", "repository",
                  "documentation", "conda-pypi-map", "pypi-options", "s3-options", "preview", "build-variants",
                  "requires-pixi", "target"}
PIXI_SYSTEM_REQUIREMENTS = {"linux", "unix", "libc", "cuda", "archspec", "macos"}
PIXI_MATCHSPEC = {"version", "build", "build-number", "file-name", "channel", "subdir", "extras", "flags", "license",
                  "license-family", "when", "track-features"}
PIXI_TARGET = {"dependencies", "host-dependencies", "build-dependencies", "constraints", "pypi-dependencies", "dev",
               "tasks", "activation"}
PIXI_PLATFORMS = {"emscripten-wasm32", "linux-32", "linux-64", "linux-aarch64", "linux-armv6l", "linux-armv7l",
                  "linux-ppc64", "linux-ppc64le", "linux-riscv32", "linux-riscv64", "linux-s390x", "noarch", "osx-64",
                  "osx-arm64", "unknown", "wasi-wasm32", "win-32", "win-64", "win-arm64", "zos-z"}


def pixi_problems(text: str, targets, chosen: dict, reqs) -> list[str]:
    """What is wrong with a pixi.toml fragment: TOML, the fields of pixi's schema, the platforms,
    and each targeted platform's pytorch asking for the build kind advised (`*cuda*` / `*cpu*`)."""
    doc, problems = _toml(text)
    if doc is None:
        return problems
    out = []
    ws = doc.get("workspace", {})
    out += [f"[workspace] has no field {k!r} in pixi's schema" for k in sorted(set(ws) - PIXI_WORKSPACE)]
    plats = ws.get("platforms", [])
    out += [f"[workspace] platforms: {p!r} is not a conda platform" for p in plats if p not in PIXI_PLATFORMS]
    sysreq = doc.get("system-requirements", {})
    out += [f"[system-requirements] has no field {k!r} in pixi's schema"
            for k in sorted(set(sysreq) - PIXI_SYSTEM_REQUIREMENTS)]
    if "cuda" in sysreq and (not isinstance(sysreq["cuda"], str) or not re.fullmatch(r"\d+(\.\d+)?", sysreq["cuda"])):
        out.append(f"[system-requirements] cuda {sysreq['cuda']!r} is not a CUDA version")
    out += [f"top-level field {k!r} is not one this fragment should set" for k in sorted(
        set(doc) - {"workspace", "system-requirements", "target", "dependencies"})]
    for t in targets:
        if t.conda not in plats:
            out.append(f"{t.name}: {t.conda} is not among [workspace] platforms")
        tgt = doc.get("target", {}).get(t.conda, {})
        out += [f"[target.{t.conda}] has no field {k!r} in pixi's schema" for k in sorted(set(tgt) - PIXI_TARGET)]
        spec = tgt.get("dependencies", {}).get("pytorch")
        if spec is None:
            out.append(f"{t.name}: no pytorch dependency")
            continue
        if isinstance(spec, dict):
            out += [f"{t.name}: pytorch spec has no field {k!r} in pixi's schema"
                    for k in sorted(set(spec) - PIXI_MATCHSPEC)]
        build = spec.get("build") if isinstance(spec, dict) else None
        want = chosen.get(t.name)
        cv = tgt.get("dependencies", {}).get("cuda-version")
        cv_mm = re.fullmatch(r"(\d+)\.(\d+)\.\*", cv) if isinstance(cv, str) else None
        # conda-forge's CUDA builds: `*cuda*`, or the build string of one CUDA (`cuda129*`), which must be
        # the CUDA cuda-version pins
        ok_build = (build or None) == (f"*{want}*" if want else None) or (
            want == "cuda" and isinstance(build, str) and cv_mm is not None
            and build == f"cuda{cv_mm.group(1)}{cv_mm.group(2)}*")
        if not ok_build:
            out.append(f"{t.name}: pytorch build {build!r}, not the advised {want or 'any'}")
        if want == "cuda":
            req = re.fullmatch(r"(\d+)\.(\d+)", str(sysreq.get("cuda", "")))
            # the driver promise: cuda-version of the same major, no newer than [system-requirements] cuda
            if not (cv_mm and req and cv_mm.group(1) == req.group(1) and int(cv_mm.group(2)) <= int(req.group(2))):
                out.append(f"{t.name}: cuda-version {cv!r} does not match [system-requirements] cuda "
                           f"{sysreq.get('cuda')!r}")
        elif cv is not None:
            out.append(f"{t.name}: cuda-version set for a build without CUDA")
    return out


POETRY_PRIORITIES = {"primary", "supplemental", "explicit", "default", "secondary"}
POETRY_DEP = {"version", "source", "markers", "python", "platform", "extras", "optional", "allow-prereleases",
              "develop", "git", "branch", "tag", "rev", "path", "url", "subdirectory"}


def poetry_problems(text: str, targets, chosen: dict, reqs) -> list[str]:
    """What is wrong with a Poetry fragment: TOML, source fields and priorities, each dependency
    entry's source declared and its marker parsing, exactly one entry per targeted platform, sending
    it to the advised index, and the build existing there."""
    doc, problems = _toml(text)
    if doc is None:
        return problems
    out = []
    poetry = doc.get("tool", {}).get("poetry", {})
    sources = {}
    for src in poetry.get("source", []):
        if not isinstance(src, dict) or not isinstance(src.get("name"), str) or not isinstance(src.get("url"), str):
            out.append("a [[tool.poetry.source]] without a name and url")
            continue
        if src.get("priority") not in POETRY_PRIORITIES:
            out.append(f"source {src['name']!r}: priority {src.get('priority')!r} is not one of Poetry's")
        elif src["priority"] != "explicit":
            out.append(f"source {src['name']!r} is not explicit: Poetry would look up other packages there")
        sources[src["name"]] = src["url"]
    release = _release_of(reqs)
    for pkg, entries in poetry.get("dependencies", {}).items():
        entries = entries if isinstance(entries, list) else [entries]
        parsed = []
        for ent in entries:
            if not isinstance(ent, dict) or set(ent) - POETRY_DEP:
                out.append(f"{pkg}: an entry with fields Poetry does not define: {ent!r}")
                continue
            if "source" in ent and ent["source"] not in sources:
                out.append(f"{pkg}: source {ent['source']!r} is not declared")
                continue
            marker, e = _marker(ent.get("markers", "python_version >= '0'"))
            if e:
                out.append(f"{pkg}: {e}")
                continue
            parsed.append((marker, ent))
        for t in targets:
            hit = [ent for m, ent in parsed if m is not None and m.evaluate(t.env())]
            if len(hit) != 1:
                out.append(f"{pkg} on {t.name}: {len(hit)} entries match (one expected)")
                continue
            url = sources.get(hit[0].get("source"))
            tag = _whl_tag(url)
            if tag != chosen.get(t.name):
                out.append(f"{pkg} on {t.name} would come from {tag or 'PyPI'}, not the advised "
                           f"{chosen.get(t.name) or 'PyPI'}")
            elif pkg == "torch" and tag:
                p = _build_problem(release, tag, t)
                if p:
                    out.append(p)
    return out
