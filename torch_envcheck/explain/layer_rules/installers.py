"""Layer rules for the installers' own words, beside pip's (packaging.py): uv's resolution report, Poetry's chooser,
the conda solvers' (pixi/rattler, libmamba) leaf requirement, an index option handed over as a requirement, and the
hash checks of pip, Pipenv and the wheel format.

    uv_resolution_report  uv's "No solution found ... Because ..." clauses -> the index (a find-links page given as
                     an index, an old uv without local versions), no wheel for this Python/platform, a pin of the
                     user's against torch's own (cuda-toolkit, nvidia-*), the first-index strategy; a lock's
                     distribution without a wheel for this platform -> required-environments and a source per platform
    poetry_no_candidates  Poetry's "Unable to find installation candidates for X (V)" -> the Python (or the version)
                     the locked release has wheels for, a regenerated lock
    conda_arm_variant  a conda solver's leaf "arm-variant * sbsa/tegra, for which no candidates were found" -> the
                     aarch64 GPU family the channel's CUDA builds are for (servers vs Jetson)
    index_option_as_requirement  "Invalid requirement: '--extra-index-url ...'" -> where the index option belongs
                     for that tool (pipenv run pip, a Pipfile [[source]], its own line in a requirements file)
    hash_mismatch    "THESE PACKAGES DO NOT MATCH THE HASHES" -> a download cut short, or hashes of another file (a
                     lock made from another index)
    wheel_record_mismatch  the wheel format's "Bad hash for file" / "Hash mismatch for file" -> that wheel's RECORD
                     does not match its contents: a re-download, else another release"""

from __future__ import annotations

import importlib
import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, SOURCES, _match, _sig, last_in_tail

_UV_DOCS = {"url": "https://docs.astral.sh/uv/guides/integration/pytorch/",
            "what": "uv: installing PyTorch (its indexes, explicit sources, the backend per platform)"}
_UV_COMPAT = {"url": "https://github.com/astral-sh/uv/blob/main/PIP_COMPATIBILITY.md",
              "what": "uv's differences from pip: local version identifiers, the first-index strategy"}

# uv's report: "× No solution found when resolving dependencies[ for split (...)]:" then "╰─▶ Because ..." (its
# box-drawing arrows, or ASCII "`->" on terminals without Unicode), wrapped over indented lines
_UV_NO_SOLUTION = re.compile(r"No solution found when resolving(?: dependencies)?(?: for split \([^)\n]{0,200}\))?:")
_UV_NO_VERSION = re.compile(r"there is no version of (?P<req>(?P<name>[A-Za-z0-9][\w.-]{0,60})==(?P<ver>[\w.!+-]{1,40}))")
_UV_UNUSABLE = re.compile(r"(?P<req>(?P<name>[A-Za-z0-9][\w.-]{0,60})(?:==|>=|<=|~=|>|<)?(?P<ver>[\w.!+*-]{0,40})) "
                          r"(?:is unusable because no wheels are available|has no (?:usable )?wheels?) with a matching "
                          r"(?P<what>Python implementation|Python version|Python ABI|platform)")
_UV_PIN_CONFLICT = re.compile(r"(?P<a>(?P<aname>[A-Za-z0-9][\w.-]{0,60})==(?P<aver>[\w.!+-]{1,40})) depends on "
                              r"(?P<b>(?P<bname>[A-Za-z0-9][\w.-]{0,60})(?:\[[\w,.-]{1,120}\])?)==(?P<bver>[\w.!+-]{1,40}) "
                              r"and (?:you require|your project depends on) (?P<cname>[A-Za-z0-9][\w.-]{0,60})"
                              r"(?:\[[\w,.-]{1,120}\])?==(?P<cver>[\w.!+-]{1,40})")
_UV_FIRST_INDEX = re.compile(r"`(?P<pkg>[A-Za-z0-9][\w.-]{0,60})` was found on (?P<index>\S{1,200}), but not at the "
                             r"requested version")
_UV_NO_PLATFORM_DIST = re.compile(r"(?:Distribution `(?P<req>[^`@\n]{1,120}) )?@ [^`\n]{1,200}` can't be installed because it "
                                  r"doesn't have a source distribution or wheel for the current platform")
_UV_VERSION = re.compile(r"\buv(?: version)?:? v?(?P<ver>0\.\d{1,3}\.\d{1,3})\b")
# a find-links page (a flat HTML list of wheels) given where an index is expected
_FLAT_PAGE_AS_INDEX = re.compile(r"(?:--(?:index|index-url|default-index|extra-index-url)[ =]|\burl\s*=\s*[\"'])"
                                 r"\S{0,120}torch_stable\.html")
_TORCH_FAMILY = ("torch", "torchvision", "torchaudio")


def _box_free(s: str) -> str:
    """uv's report with its tree drawing and line wrapping removed: one line of clauses."""
    return re.sub(r"\s+", " ", re.sub(r"`->|[│├╰─▶×]+(?=\s)|(?<=\s)[│├╰─▶]+|\|(?=\s)", " ", s))


def _python_range_of(ver: str | None) -> str | None:
    rng = importlib.import_module("torch_envcheck.knowledge.releases").python_range(ver) if ver else None
    return f"Python {rng[0]} to {rng[1]}" if rng else None


# uv's hint after a distribution without a wheel here: "You're on macOS (`macosx_26_0_arm64`), but `torch`
# (v2.13.0+cpu) only has wheels for the following platforms: ..."
_UV_PLATFORM_HINT = re.compile(r"You're on (?P<os>[\w ]{2,20}) \(`(?P<plat>[\w.-]{2,60})`\)")
_UV_REQUIRED_ENVS = {"url": "https://docs.astral.sh/uv/concepts/resolution/#required-environments",
                     "what": "uv: required-environments, the platforms a lock must have wheels for"}


def uv_resolution_report(ent, text):
    """uv's resolver explains a failure clause by clause; each clause is a fact about where it looked and what it
    found, and the fix follows from the clause, not from the package."""
    m, at = last_in_tail(_UV_NO_SOLUTION, text, "No solution found")
    dist = None
    if m is None:
        dist, at = last_in_tail(_UV_NO_PLATFORM_DIST, text, "can't be installed because")
        if dist is None:
            return None
    tail = text[-CONTEXT_TAIL:]
    report = _box_free(tail[tail.find("No solution found"):] if m is not None else tail)
    uv_ver = last_match(_UV_VERSION, tail)
    conflict = _UV_PIN_CONFLICT.search(report)
    if conflict is not None and conflict.group("bname").lower() == conflict.group("cname").lower():
        caps = {k: conflict.group(k) for k in ("a", "b", "bname", "bver", "cver")}
        sig = _sig("uv-pin-against-torch", "torch-build",
                   "{a} pins {bname}=={bver}; the requirements pin {cver}", 84,
                   "{a} declares {b}=={bver} as a dependency (the build's own CUDA libraries, through the cuda-toolkit "
                   "metapackage or nvidia-* wheels), and the requirements ask for {bname}=={cver}: no resolution can "
                   "hold both.",
                   fix="Drop the requirements' own pin of {bname} (torch installs the one it was built with, {bver}), or "
                       "align it to {bver}; if that other version is what you need, choose the torch build made for it "
                       "(the index whose CUDA matches) instead.",
                   areas=("torch",), sources=(_UV_DOCS, SOURCES["torch_index"]))
        return _match(sig, text, at, caps)
    unusable = _UV_UNUSABLE.search(report) if dist is None else None
    hint = last_match(_UV_PLATFORM_HINT, tail)
    if dist is not None and hint is not None and hint.group("os").strip() == "macOS" and "+" in (dist.group("req") or ""):
        caps = {"req": dist.group("req"), "plat": hint.group("plat")}
        sig = _sig("uv-local-build-on-macos", "macos", "{req} is a build torch does not publish for macOS", 85,
                   "The lock asks for {req}, a local-version build (+cpu, +cuXXX) from a PyTorch index; those indexes "
                   "hold Linux and Windows wheels, and macOS ({plat}) has only the plain version on PyPI, so nothing "
                   "there installs on this Mac.",
                   fix="Select the index per platform in pyproject.toml: keep the PyTorch index for Linux/Windows with a "
                       "marker (`[tool.uv.sources] torch = [{ index = \"pytorch-cpu\", marker = \"sys_platform != "
                       "'darwin'\" }]`) so that macOS takes the plain torch from PyPI, then `uv lock` and `uv sync`.",
                   causes=(), areas=("platform",), sources=(_UV_DOCS,))
        return _match(sig, text, at, caps)
    if unusable is not None or dist is not None:
        req = unusable.group("req") if unusable is not None else (dist.group("req") or "")
        name = (unusable.group("name") if unusable is not None else re.split(r"[=<>~ ]", req)[0]).lower()
        ver = unusable.group("ver") if unusable is not None else req.partition("==")[2]
        what = unusable.group("what") if unusable is not None else "platform"
        rng = _python_range_of(ver.split("+")[0]) if name == "torch" else None
        caps = {"req": req or None, "what": what, "range": rng}
        sig = _sig("uv-no-wheel-for-this-python", "torch-build",
                   "{req|the distribution} has no wheel for this interpreter ({what} tag)", 83,
                   "uv found {req|the distribution} on the index, but none of its wheels carries a {what} tag this "
                   "interpreter and platform accept (the Python version, a free-threaded or 32-bit Python, the OS or "
                   "CPU)" + ("; that release has wheels for " + rng + "." if rng else "."),
                   fix="Use a Python that release ships wheels for (" + (rng or "check its files on the index: cp3XX "
                                                                         "in the names") +
                       "; `uv venv --python 3.X`, or `requires-python` in pyproject.toml for `uv add`), or a "
                       "release of it built for this Python (a newer torch for a new Python). When the Python is one it supports, the platform is "
                       "what lacks a wheel (another OS or CPU than the lock was made for, e.g. Linux aarch64: DGX Spark, "
                       "Grace, Jetson): declare it in `[tool.uv] required-environments = [\"sys_platform == 'linux' and "
                       "platform_machine == 'aarch64'\"]`, map torch to an index with a build for it in "
                       "[tool.uv.sources] under the same markers, then `uv lock`; to keep a lock off platforms without "
                       "wheels, restrict it with `[tool.uv] environments`.",
                   causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                   areas=("platform",), sources=(_UV_DOCS, _UV_REQUIRED_ENVS, SOURCES["torch_index"]))
        return _match(sig, text, at, caps)
    first = _UV_FIRST_INDEX.search(report)
    if first is not None:
        caps = {"pkg": first.group("pkg"), "index": first.group("index").rstrip(",.")}
        sig = _sig("uv-first-index-only", "torch-build",
                   "uv took {pkg} from the first index that has it ({index}), without the version asked", 82,
                   "uv considers only the first index on which a package appears (to avoid dependency confusion); the "
                   "PyTorch index also hosts {pkg}, in other versions, so the one the project needs (on PyPI) is never "
                   "seen.",
                   fix="Make the PyTorch index serve torch only: declare it `explicit = true` in [[tool.uv.index]] and "
                       "map torch/torchvision/torchaudio to it in [tool.uv.sources]; or allow every index's versions "
                       "with `--index-strategy unsafe-best-match` (UV_INDEX_STRATEGY).",
                   areas=("torch",), sources=(_UV_DOCS, _UV_COMPAT))
        return _match(sig, text, at, caps)
    nov = _UV_NO_VERSION.search(report)
    if nov is None:
        return None
    caps = {"req": nov.group("req"), "name": nov.group("name"), "uv": uv_ver.group("ver") if uv_ver else None}
    local = "+" in nov.group("ver")
    if _FLAT_PAGE_AS_INDEX.search(tail):
        sig = _sig("uv-find-links-page-as-index", "torch-build",
                   "torch_stable.html was given as an index: it is a find-links page", 86,
                   "https://download.pytorch.org/whl/torch_stable.html is a flat page of links to wheel files, not a "
                   "package index (PEP 503); given as --index / --index-url (or as an index URL in a project), uv finds no "
                   "{name} there, so no {req}.",
                   fix="Pass the page as find-links: `-f https://download.pytorch.org/whl/torch_stable.html` "
                       "(`--find-links`; in a project `[tool.uv] find-links = [...]`), or use the index of the build: "
                       "`--index-url https://download.pytorch.org/whl/cuXXX` (cpu, cu118, cu121, ...).",
                   areas=("torch",), sources=(_UV_COMPAT, SOURCES["torch_index"]))
        return _match(sig, text, at, caps)
    old_uv = uv_ver is not None and tuple(int(x) for x in uv_ver.group("ver").split(".")[:2]) < (0, 2)
    if local and old_uv:
        sig = _sig("uv-old-without-local-versions", "torch-build",
                   "uv {uv} does not match the local version label of {req}", 85,
                   "PyTorch's builds differ only by a local version label (+cpu, +cu121); uv's first releases (0.1.x, "
                   "early 2024) did not match local versions, so {req} was reported missing although the index has it.",
                   fix="Upgrade uv (`uv self update`, or `pip install -U uv`), then install again from the build's index "
                       "(`uv pip install {req} --index-url https://download.pytorch.org/whl/cpu` for +cpu); uv matches a "
                       "local label only when the requirement spells it.",
                   areas=("torch",), sources=(_UV_COMPAT,))
        return _match(sig, text, at, caps)
    sig = _sig("uv-no-such-version-on-index", "torch-build",
               "uv finds no {req} on the indexes it was given", 80,
               "uv looked for {req} on the indexes of the command or project and none lists it for this platform: "
               "the index of another build (cpu vs cuXXX) or none of the PyTorch indexes, a version that build never "
               "had, or a local label (+cuXXX) the requirement must spell for uv to match it.",
               fix="Give the index of the build that has the version: `--index-url https://download.pytorch.org/whl/cuXXX` "
                   "(open it in a browser: it lists torch-<version>+cuXXX files per Python), or in a project an explicit "
                   "[[tool.uv.index]] mapped to torch in [tool.uv.sources]; `uv pip install torch --torch-backend=auto` "
                   "(uv >= 0.7.14; a preview before) picks the build for this machine's driver.",
               areas=("torch",), sources=(_UV_DOCS, _UV_COMPAT,
                                          {"url": "https://newreleases.io/project/pypi/uv/release/0.7.14",
                                           "what": "uv 0.7.14: --torch-backend out of preview"}))
    return _match(sig, text, at, caps)


# Poetry's chooser (poetry/installation/chooser.py): no link of the locked release fits this environment
_POETRY_NO_CANDIDATES = re.compile(r"Unable to find installation candidates for (?P<name>[A-Za-z0-9][\w.-]{0,60}) "
                                   r"\((?P<ver>[\w.!+-]{1,40})\)")
_POETRY_SKIPPED = re.compile(r"(?P<n>\d{1,4}) wheel\(s\) were skipped as your project's environment does not support the "
                             r"identified abi tags")
_POETRY_PYTHON = re.compile(r"/python(?P<py>3\.\d{1,2})/site-packages/poetry/|[Pp]ython (?P<py2>3\.\d{1,2})(?:\.\d{1,2})?\b")


def poetry_no_candidates(ent, text):
    """Poetry found the locked release but no file of it that this environment can install: the environment's Python
    (or platform) is outside what the release has wheels for, or the lock was made for another source."""
    m, at = last_in_tail(_POETRY_NO_CANDIDATES, text, "installation candidates")
    if m is None:
        return None
    name, ver = m.group("name"), m.group("ver")
    tail = text[-CONTEXT_TAIL:]
    py = last_match(_POETRY_PYTHON, tail)
    rng = _python_range_of(ver.split("+")[0]) if name.lower() == "torch" else None
    caps = {"name": name, "ver": ver, "range": rng, "python": (py.group("py") or py.group("py2")) if py else None}
    skipped = _POETRY_SKIPPED.search(tail)
    sig = _sig("poetry-no-installation-candidates", "torch-build",
               "Poetry finds no file of {name} {ver} that this environment can install", 82,
               "Poetry's lock names {name} {ver}, and none of its files fits the project's environment"
               + (" (every wheel it found has tags this environment does not support)" if skipped else "")
               + ": the environment's Python{python| (here }{python}{python|)} is outside what the release has wheels "
               "for" + ("; {name} {ver} has wheels for {range}" if rng else "")
               + ", it is another platform, or a +cpu/+cuXXX build was locked from a source this install does not use.",
               fix="Point the project at a Python the release supports (`poetry env use 3.X`"
               + (", {range}" if rng else "") + ") and keep `python = ...` in pyproject.toml within it, or pick a "
               "release of {name} with wheels for this Python; then regenerate the lock (`poetry lock`). For a "
               "+cpu/+cuXXX build, declare the PyTorch index as a [[tool.poetry.source]] (priority = \"explicit\") and "
               "set `source` on {name}.",
               causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
               areas=("platform",),
               sources=({"url": "https://github.com/python-poetry/poetry/blob/main/src/poetry/installation/chooser.py",
                         "what": "Poetry's chooser: 'Unable to find installation candidates' when no link fits"},
                        SOURCES["torch_index"]))
    return _match(sig, text, at, caps)


# conda-forge's CUDA builds for linux-aarch64 come in two arm variants (the arm-variant metapackage): sbsa, server ARM
# (the default, and Jetson Thor from JetPack 7), and tegra, Jetson Orin on JetPack 6 with CUDA 12.9 only
_ARM_VARIANT = re.compile(r"arm-variant \* (?P<variant>sbsa|tegra), for which no candidates were found")


def conda_arm_variant(ent, text):
    m, at = last_in_tail(_ARM_VARIANT, text, "arm-variant")
    if m is None:
        return None
    want = m.group("variant")
    caps = {"variant": want}
    sig = _sig("conda-arm-variant-unavailable", "torch-build",
               "the channel's CUDA build needs arm-variant '{variant}', which this environment cannot have", 83,
               "On linux-aarch64 conda-forge splits its CUDA builds by arm-variant: 'sbsa' for server ARM machines "
               "with discrete GPUs (Grace, Ampere Altra), 'tegra' for Jetson modules. The solver reached builds that "
               "need '{variant}' and none fits the environment's platform.",
               fix=("The environment selects the tegra variant (arm-variant=*=tegra, a Jetson), and the builds reached "
                    "exist for sbsa only. On Orin with JetPack 6 conda-forge builds a tegra variant for CUDA 12.9 only: "
                    "pin a pytorch built with CUDA 12.9 (if the channel has its tegra build), or install NVIDIA's torch "
                    "wheels for JetPack with pip (https://developer.nvidia.com/embedded/jetpack). On JetPack 7 (Thor) and "
                    "later the Jetson is SBSA-compliant: drop the tegra selection and take the sbsa builds."
                    if want == "sbsa" else
                    "The tegra variant is for Jetson modules (Orin, JetPack 6, CUDA 12.9 builds only); on a server ARM "
                    "machine, or a Jetson on JetPack 7 and later, select sbsa (the default; `arm-variant=*=sbsa`) and "
                    "the builds made for it."),
               areas=("platform",),
               sources=({"url": "https://conda-forge.org/docs/how-to/advanced/cuda/tegra/",
                         "what": "conda-forge: the tegra variant (Orin / JetPack 6, CUDA 12.9 only; SBSA from CUDA 13 "
                                 "and JetPack 7)"},
                        {"url": "https://anaconda.org/conda-forge/arm-variant",
                         "what": "arm-variant: selects SBSA (the default) or Tegra CUDA packages"}))
    return _match(sig, text, at, caps)


# an index option handed to a tool, or written in a file, where a requirement is expected (pipenv install's
# arguments, a requirement line that also holds the option, install_requires / project dependencies)
_OPTION_AS_REQ = re.compile(r"[Ii]nvalid requirement: ['\"]?(?P<opt>--(?:extra-index-url|index-url|find-links|index)\b"
                            r"[^'\"\n]{0,200})")


def index_option_as_requirement(ent, text):
    m, at = last_in_tail(_OPTION_AS_REQ, text, "requirement")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    opt = m.group("opt").strip()
    caps = {"opt": opt}
    if re.search(r"\bpipenv\b|Pipfile", tail, re.I):
        fix = ("pipenv install takes requirements only: run pip inside the environment "
               "(`pipenv run pip install torch torchvision torchaudio {opt}`), or declare the index as a Pipfile "
               "[[source]] and give torch `index = \"<that source's name>\"`.")
    elif re.search(r"install_requires|setup\.py|pyproject\.toml|dependencies\s*=", tail):
        fix = ("Package metadata (install_requires, [project] dependencies) cannot carry index options: take {opt} out "
               "of it and give the index to the installer (`pip install . {opt}`, or the tool's index configuration).")
    else:
        fix = ("In a requirements file an index option stands on its own line ({opt}, then `torch==...` on the next); "
               "on a command line it follows the requirements as an option, never inside a quoted requirement.")
    sig = _sig("index-option-as-requirement", "torch-build",
               "an index option ({opt}) was read as a requirement", 81,
               "The installer was handed {opt} where it expects a package requirement, so it refused it; the index that "
               "serves torch's build was never used.",
               fix=fix, areas=("torch",),
               sources=({"url": "https://pip.pypa.io/en/stable/reference/requirements-file-format/",
                         "what": "pip's requirements file format: global options on their own lines"},
                        {"url": "https://pipenv.pypa.io/en/latest/indexes.html",
                         "what": "Pipenv: package indexes as [[source]] in the Pipfile"}))
    return _match(sig, text, at, caps)


# pip's (and Pipenv's) hash check of a downloaded file
_HASHES = re.compile(r"THESE PACKAGES DO NOT MATCH THE HASHES FROM (?P<src>THE REQUIREMENTS FILE|Pipfile\.lock)")
_PARTIAL = re.compile(r"(?P<got>\d{1,5}(?:\.\d{1,3})?)/(?P<total>\d{1,5}(?:\.\d{1,3})?) (?P<unit>[kMG]B)\b")
_HASH_FILE = re.compile(r"(?P<name>[A-Za-z0-9][\w.-]{0,60})(?:==[\w.+!-]{1,40})? from (?P<url>https?://\S{1,300})")


def hash_mismatch(ent, text):
    """The file pip downloaded is not the one whose hash it was told: a download cut short (the progress bar stopped
    below the size), or a hash taken from another file (a lock made from another index or build)."""
    m, at = last_in_tail(_HASHES, text, "DO NOT MATCH THE HASHES")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    before = tail[:at - (len(text) - len(tail))]
    bars = list(_PARTIAL.finditer(before))
    cut = bool(bars) and float(bars[-1].group("got")) < float(bars[-1].group("total"))
    f = _HASH_FILE.search(tail[at - (len(text) - len(tail)):])
    caps = {"name": f.group("name") if f else None, "url": f.group("url").split("#")[0] if f else None}
    if cut or (m.group("src") != "Pipfile.lock" and not re.search(r"--hash[= ]|--require-hashes", tail)):
        sig = _sig("download-cut-short", "torch-build", "the {name|package} download stopped before its end", 80,
                   "pip compares the downloaded file with the hash the index published for it; "
                   + ("the progress bar stopped below the file's size, so " if cut else "")
                   + "the file is incomplete or damaged in transit (a dropped connection, a proxy or a full disk), not "
                   "a different release: torch's CUDA wheels are 2-3 GB, which makes this common.",
                   fix="Download again without the cache: `pip install --no-cache-dir ...` (pip >= 25.1: "
                       "`--resume-retries 5`), on a stable connection with free disk space; or fetch the wheel with a "
                       "resumable tool (`curl -C - -O {url|<wheel URL>}`, `wget -c`) and `pip install ./<file>.whl`.",
                   areas=("torch",), sources=({"url": "https://pip.pypa.io/en/stable/topics/secure-installs/",
                                               "what": "pip's hash checking"},))
        return _match(sig, text, at, caps)
    sig = _sig("hashes-of-another-file", "torch-build",
               "the lock's hashes are for other files than the ones being installed", 80,
               "The hashes recorded for {name|the package} ("
               + ("Pipfile.lock" if m.group("src") == "Pipfile.lock" else "the requirements file")
               + ") were taken from other files than the one downloaded now: a lock made against PyPI's torch while the "
               "install takes a +cpu/+cuXXX wheel from download.pytorch.org (or the reverse), or a wheel the index "
               "replaced since.",
               fix=("Re-lock with the index torch is installed from: declare it as a Pipfile [[source]], give torch "
                    "`index = \"<its name>\"`, then `pipenv lock`."
                    if m.group("src") == "Pipfile.lock" else
                    "Regenerate the hashes from the index you install from (`pip-compile --generate-hashes "
                    "--index-url https://download.pytorch.org/whl/cuXXX ...`, `uv pip compile --generate-hashes`), or "
                    "install torch in a separate step without --require-hashes."),
               areas=("torch",), sources=({"url": "https://pip.pypa.io/en/stable/topics/secure-installs/",
                                           "what": "pip's hash-checking mode"},))
    return _match(sig, text, at, caps)


# the wheel format's own check (RECORD lists a hash for every file): wheel's BadWheelFile, `wheel unpack`
_RECORD = re.compile(r"(?:Bad hash for file|Hash mismatch for file) '(?P<file>[^'\n]{1,200})'")


def wheel_record_mismatch(ent, text):
    m, at = last_in_tail(_RECORD, text, "for file '")
    if m is None:
        return None
    path = m.group("file")
    pkg = re.split(r"[/\\-]", path)[0]
    caps = {"file": path, "package": pkg}
    sig = _sig("wheel-record-mismatch", "torch-build", "{file} does not match the hash in its wheel's RECORD", 80,
               "Every wheel lists, in its .dist-info/RECORD, a hash for each file it contains; installers that check "
               "them refuse a wheel where {file} differs from its entry. Either the download is damaged, or that "
               "published wheel was packaged inconsistently (pip itself does not check RECORD).",
               fix="Download the wheel again (`pip download --no-cache-dir {package}==<version>`) and check its sha256 "
                   "against the index's; if the published wheel itself is inconsistent, use another release of "
                   "{package} (or its maintainers' republished wheel) and report it to them.",
               areas=("torch",), sources=({"url": "https://packaging.python.org/en/latest/specifications/recording-installed-packages/",
                                           "what": "the RECORD file: a hash for every file of a wheel"},))
    return _match(sig, text, at, caps)
