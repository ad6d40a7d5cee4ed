"""Layer rules for Python packaging: pip finding no torch (or no build of it) for this platform, Python or CUDA,
pip of another Python, CUDA packages on a Mac, a Jetson with a CPU-only torch, conda's virtual __cuda package.

    pip_no_matching  pip finds no torch (or TensorFlow): on a PyTorch index, the release's builds and Pythons (an index
                      of a CUDA no release was built for, a release not built for it, a Python the release lacks)
    torch_not_offered_on_mac  a resolver finds no torch on a Mac       -> the last x86_64 macOS release (2.2.2)
    torch_too_new_for_intel_mac, mps_inside_linux_container  Mac structure -> 2.2.2 / run natively
    pip_of_another_python  pip in an embedded Python's folder, installing elsewhere -> that folder's python -m pip
    conda_virtual_cuda  a conda solver's __cuda constraint (the driver's CUDA) -> a driver for that CUDA, or no driver
    cuda_unavailable_cpu_build  no CUDA, and how torch was installed (conda, Windows, ARM64) -> that installer's CUDA
                      build
    device_type_unknown  a device string of a type this torch does not list -> the backend package that provides it
    package_without_cuda  "X package was not compiled with CUDA support"  -> X's CUDA build
    env_var_path_not_found  "<ENV_VAR> <path> is not a valid file path" -> env: the variable as that process sees it
    conda_package_cache_corrupt  CondaVerificationError "appears to be corrupted" -> conda clean, then install again
    conda_channel_http_error  CondaHTTPError for a channel's file -> by status: the channel's outage, the retired
                      pytorch channel (conda-forge / pip), a proxy or the network    x64_dependency_on_windows_arm64  pip finding no version of torch's Windows requirement (mkl, intel-openmp, tbb) on
                         Windows ARM64 -> torch-build: those exist only for x86-64 (--no-deps, or a wheel without them)
"""

from __future__ import annotations

import re

from torch_envcheck._util.versions import major_minor, version_tuple
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge.releases import (index_url as torch_index_url, latest_release_for as
    torch_latest_release_for, python_range as torch_python_range, release as torch_release,
    releases as torch_releases)
from torch_envcheck.knowledge import compiled_modules, jetson
from torch_envcheck.knowledge.drivers import min_driver_for_cuda
from torch_envcheck.knowledge import tensorflow as tf_builds
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, SOURCES, _NOT_THE_PACKAGE, _match, _sig, last_in_tail
from torch_envcheck.explain.layer_rules.packages import _PKG_BINARY_DIR
from torch_envcheck.explain.layer_rules.containers import _LINUXKIT, _version_key


# torch releases whose last macOS x86_64 (Intel) wheels exist: none after 2.2.2 (torch's deprecation notice)
INTEL_MAC_LAST = "2.2.2"


_INTEL_MAC_SOURCE = {"url": "https://github.com/pytorch/pytorch/issues/114602",
                     "what": "torch deprecates macOS x86_64 builds: 2.2 is the last release with them"}


_FRAMEWORKS = ("torch", "torchvision", "torchaudio", "triton")


_TF_DISTS = ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tf-nightly")


def _tf_no_wheel(ent, text, p):
    """pip offers no TensorFlow at all: no wheel for this interpreter.  TensorFlow's tested configurations give
    each release's Python range per OS (knowledge/tensorflow.py): the newest release's range says which Pythons
    have wheels now."""
    os_name = "windows" if ent.platform.get("windows") and not ent.platform.get("wsl") else "linux"
    rows = [r for r in tf_builds.releases(os_name) if r.get("python_min") and r.get("python_max")]
    newest = rows[-1] if rows else None
    caps = {"requirement": p["requirement"], "python": ent.versions.get("python")}
    if newest:
        caps.update(tf=newest["tensorflow"], py_min=newest["python_min"], py_max=newest["python_max"], os=os_name)
    sig = _sig("tensorflow-no-wheel-for-python", "tensorflow",
               "pip finds no {requirement|TensorFlow} at all for this Python/platform", 82,
               "pip saw no TensorFlow release for this interpreter: TensorFlow publishes 64-bit wheels for a few Python "
               "versions per release" + (" (TensorFlow {tf} on {os}: Python {py_min} to {py_max})" if newest else "") +
               "; a newer or older Python, or a 32-bit one, gets none.",
               fix="Use a 64-bit Python in a supported Python version range" +
                   (" (Python {py_min} to {py_max} for TensorFlow {tf})" if newest else "") +
                   ": check `python -VV`, create an environment with that Python (`py -3.12 -m venv .venv` on Windows, "
                   "`conda create -n tf python=3.12`), then `pip install tensorflow` there; an older Python needs an "
                   "older TensorFlow.",
               causes=(), areas=("tensorflow", "platform"),
               sources=(tf_builds.build(newest["tensorflow"], os_name)["source_ref"] if newest and
                        (tf_builds.build(newest["tensorflow"], os_name) or {}).get("source_ref") else
                        {"url": "https://www.tensorflow.org/install/pip", "what": "TensorFlow's supported Pythons"},))
    return _match(sig, text, p["at"], caps)


# a pin's upper bound: ==X, <=X or <X (the release the requirement cannot go past)
_UPPER_PIN = re.compile(r"(?:==|<=|<)\s*(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)")


def _tf_older_than_offered(ent, text, p):
    """A TensorFlow pin below every version pip offers for this interpreter: pip lists what exists for this Python, so
    the pinned releases have no wheels for it (this Python is newer than they support)."""
    bound = _UPPER_PIN.search(p["requirement"])
    parsed = [(t, v) for v in p["versions"] if (t := version_tuple(v))]
    if bound is None or not parsed:
        return None
    first_t, first = min(parsed)
    if version_tuple(bound.group(1)) >= first_t:
        return None
    windows = bool(ent.platform.get("windows")) and not ent.platform.get("wsl")
    page = ("https://www.tensorflow.org/install/source_windows#gpu" if windows else
            "https://www.tensorflow.org/install/source#gpu")
    caps = {"requirement": p["requirement"], "first": first, "python": ent.versions.get("python")}
    sig = _sig("tensorflow-release-older-than-this-python", "tensorflow",
               "{requirement} has no wheels for this Python: pip offers {first} and newer only", 86,
               "pip lists the versions that have a wheel for this interpreter; every one is newer than {requirement} "
               "allows, so the releases pinned were built for older Pythons than this one{python|}. The package is not "
               "removed: those releases exist, for other Pythons.",
               fix="Run the pinned release with an older Python, one its row of TensorFlow's tested build "
                   "configurations lists (" + page + "; a new environment with that Python: `conda create -n tf "
                   "python=<that version>`), or move the pin to {first} or newer, which this Python has.",
               causes=(), areas=("tensorflow", "platform"),
               sources=({"url": page, "what": "TensorFlow's tested build configurations: each release's Python "
                                              "versions"},))
    return _match(sig, text, p["at"], caps)


def pip_no_matching(ent, text):
    old_tf = [p for p in ent.pip if p["name"] in _TF_DISTS + ("tensorflow-gpu",) and p["versions"]]
    if old_tf:
        found = _tf_older_than_offered(ent, text, old_tf[-1])
        if found is not None:
            return found
    tf = [p for p in ent.pip if p["name"] in _TF_DISTS and not p["versions"]]
    if tf and not any(p["name"] in _FRAMEWORKS and p["at"] > tf[-1]["at"] for p in ent.pip):
        return _tf_no_wheel(ent, text, tf[-1])
    rows = [p for p in ent.pip if p["name"] in _FRAMEWORKS]
    if not rows:
        return None
    p = rows[-1]
    local = _LOCAL_BUILD.search(p["requirement"])
    if local is not None and p["name"] != "triton" and not _on_build_index(text, p, local.group("tag")):
        # (a label the release was never built with is torch_build_variant's: it names the builds that exist)
        return None if _never_built(p, local.group("tag")) else _local_build_not_found(ent, text, p, local.group("tag"))
    versions = p["versions"]
    if versions is None:
        # on a Mac, torch_not_offered_on_mac reads the same line with what a Mac has
        return None if _requirement_not_found_mac(ent) else _requirement_not_found(ent, text, p)
    caps = {"requirement": p["requirement"], "offered": ", ".join(versions[-6:]) or None,
            "latest": versions[-1] if versions else None, "python": ent.versions.get("python")}
    if p["name"] == "triton" and (not versions or ent.platform.get("windows")):
        sig = _sig("triton-no-wheel-here", "toolchain", "pip finds no Triton for this platform (Windows has none)", 84,
                   "Triton, which torch.compile's inductor backend uses for GPU kernels, publishes Linux wheels only; "
                   "on Windows pip finds none ({requirement}).",
                   fix="On Windows install the community build (`pip install triton-windows`, the version matching torch) "
                       "or run without torch.compile (eager); on Linux use a Python and platform Triton supports.",
                   causes=(), areas=("torch",), sources=({"url": "https://github.com/woct0rdho/triton-windows",
                                                          "what": "triton-windows: Triton built for Windows"},))
        return _match(sig, text, p["at"], caps)
    if p["name"] == "triton":
        return None
    if p["name"] == "torch" and versions and versions[-1] == INTEL_MAC_LAST:
        sig = _sig("torch-intel-mac-last-release", "macos",
                   "no torch newer than 2.2.2 for this Python: an Intel (x86_64) Mac or an x86_64 Python", 88,
                   "pip offers torch up to 2.2.2 only: torch's last release with macOS x86_64 wheels. This Python runs as "
                   "x86_64 (an Intel Mac, or an x86_64 Python under Rosetta on Apple silicon), and {requirement} does not "
                   "exist for it.",
                   fix="On an Intel Mac: torch 2.2.2 is the last release (`pip install torch==2.2.2`; pin what needs a newer "
                       "one), or use conda-forge's pytorch builds; on Apple silicon: install an arm64 Python (python.org or "
                       "conda's osx-arm64) and pip install torch there.",
                   causes=(("rosetta", "an x86_64 Python runs under Rosetta on Apple silicon", ("TE105",)),),
                   areas=("platform",), sources=(_INTEL_MAC_SOURCE,))
        return _match(sig, text, p["at"], caps)
    if not versions and p["name"] == "torch":
        special = _torch_absent_here(ent, text, caps) or _index_without_release(ent, text, p, caps)
        if special is not None:
            return _match(special, text, p["at"], caps)
    if not versions:
        sig = _sig("torch-no-wheel-for-python", "torch-build",
                   "pip finds no {requirement|torch} at all for this Python/platform", 82,
                   "pip saw no release of {requirement|torch} for this interpreter: its Python version is newer or older "
                   "than the releases support, it is 32-bit, or the platform has no wheels (e.g. an unsupported OS/CPU).",
                   fix="Use a 64-bit Python that torch supports (check `python -VV`; torch's release notes list the "
                       "Python versions of each release, usually the last four), then `pip install torch` again; on "
                       "platforms without wheels use conda-forge.",
                   causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                   areas=("platform",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, p["at"], caps)
    older = _older_than_offered(p["requirement"], versions, ent.versions.get("python"))
    sig = _sig("torch-version-not-offered", "torch-build",
               "{requirement} does not exist for this Python/platform (pip offers up to {latest})", 80,
               "pip can install only the versions it lists for this interpreter and platform ({offered}); {requirement} is "
               "not among them: the Python is too new or too old for it, or the index (CPU/CUDA) has no such build." +
               (" Every version pip offers here is newer than the one asked for, so this Python is newer than that "
                "release has wheels for." if older else ""),
               fix=(older + " " if older else "") +
                   "Install one of the offered versions (`pip install torch=={latest}`), or use a Python version that "
                   "release supports, or the index that has the build (e.g. --index-url https://download.pytorch.org/whl/cu121).",
               causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
               areas=("platform",), sources=(SOURCES["torch_index"],))
    return _match(sig, text, p["at"], caps)


def _older_than_offered(requirement: str, offered: list, python: str | None) -> str | None:
    """When the pinned release is older than every version pip offers for this interpreter, the interpreter is newer
    than that release has wheels for (pip lists what exists for this Python): the fix sentence naming the Python to use,
    one minor below this one at most, or the first offered release; None otherwise."""
    m = re.search(r"==\s*(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)", requirement or "")
    parsed = [(t, v) for v in offered if (t := version_tuple(v))]
    if not m or not parsed:
        return None
    first_t, first = min(parsed)
    if version_tuple(m.group(1)) >= first_t:
        return None
    py = major_minor(python) if python else None
    use = f"Python 3.{py[1] - 1} or older" if py and py[0] == 3 else "an older Python"
    return (f"torch {m.group(1)} has no wheels for this Python{' (' + python + ')' if python else ''}: run it with "
            f"{use} (a venv made with that interpreter), or move the pin to torch>={first}, the first release pip "
            "offers for this Python.")


# pip replacing torch to install something else: the old torch it found and removed, and what it was installing
_UNINSTALLED_TORCH = re.compile(r"Found existing installation: (?P<dist>torch|torchvision|torchaudio) (?P<old>\d[\w.+]{0,40})")
_COLLECTED = re.compile(r"Installing collected packages: (?P<list>[^\n]{1,2000})")
_INSTALL_CMD = re.compile(r"(?:pip3?|python3? -m pip|uv pip) install (?P<args>[^\n]{1,400})")
_TORCH_FAMILY = frozenset({"torch", "torchvision", "torchaudio", "triton", "pytorch-triton", "sympy", "networkx",
                           "filelock", "fsspec", "jinja2", "typing-extensions", "mpmath", "markupsafe", "setuptools"})
# pip's resolver report after an install (pip >= 20.3): "X 1.0 requires Y==2, but you have Y 3 which is incompatible."
_RESOLVER_REPORT = re.compile(r"dependency resolver does not currently take into account all the packages")
_CONFLICT = re.compile(r"(?P<pkg>[A-Za-z0-9][\w.-]{0,60}) (?P<ver>\S{1,40}) requires (?P<req>[^\n,]{1,160}), but you have "
                       r"(?P<have>[A-Za-z0-9][\w.-]{0,60}) (?P<hv>\S{1,40}) which is incompatible")


def _requested(tail: str, collected: list) -> str | None:
    """What the user asked pip to install, besides torch: the install command's first requirement, else the first
    collected package outside torch's own dependencies."""
    cmd = last_match(_INSTALL_CMD, tail)
    if cmd is not None:
        for word in cmd.group("args").split():
            name = re.match(r"[A-Za-z][\w.-]{0,60}", word.strip("'\""))
            if word.startswith("-") or name is None or "://" in word:
                continue
            if name.group(0).lower() in ("install", "pip"):
                continue
            return name.group(0).lower()
    return next((c for c in collected if c not in _TORCH_FAMILY and not c.startswith("nvidia-")), None)


def pip_replaces_torch(ent, text):
    """pip uninstalling a working torch to install another package: that package's release requires another torch
    (each build of xformers, flash-attn's wheels, vllm pin one torch). Keeping torch means asking pip for the package
    with torch pinned in the same command."""
    tail = text[-CONTEXT_TAIL:]
    if "Found existing installation: torch" not in tail:
        return None
    old = last_match(_UNINSTALLED_TORCH, tail)
    if old is None or old.group("dist") != "torch" or not re.search(r"Uninstalling torch-|Attempting uninstall: torch\b",
                                                                    tail):
        return None
    coll = last_match(_COLLECTED, tail)
    collected = [c.strip().lower().replace("_", "-") for c in coll.group("list").split(",")] if coll else []
    pkg = _requested(tail, collected)
    if pkg is None or pkg in _TORCH_FAMILY:
        return None  # torch itself was asked for: replacing it is what the command said
    ver = old.group("old")
    local = _LOCAL_BUILD.search(ver)
    caps = {"pkg": pkg, "old": ver, "index": torch_index_url(local.group("tag")) if local else None}
    # (the index the command used, or the one of torch's +cuXYZ build, goes into the same command)
    given = re.search(r"--(?P<flag>(?:extra-)?index-url)[ =](?P<url>https?://[^\s'\"`]{1,200})", tail)
    sig = _sig("pip-replaced-torch-for-package", "torch-build",
               "installing {pkg} made pip replace torch {old}: that {pkg} release requires another torch", 72,
               "pip removed the installed torch {old} because the {pkg} release it chose requires a different torch "
               "(builds of compiled packages such as xformers pin the exact torch they were compiled against); pip "
               "then installs that torch, often another CUDA build or the CPU one, and other packages built for {old} "
               "break.",
               fix="Keep torch {old}: ask pip for {pkg} with torch pinned in the same command, so it picks the {pkg} "
                   "release made for that torch or reports that none exists: `pip install {pkg} torch=={old}"
                   + (" --{flag} {url}`" if given or local else "`") + ". If torch was already replaced, the same command "
                   "puts it back; `pip check` then lists anything still mismatched.",
               causes=(("companion-version", "a package pins another torch than the installed one", ()),),
               areas=("torch",), sources=({"url": "https://pip.pypa.io/en/stable/topics/dependency-resolution/",
                                           "what": "pip's resolver: pinning a requirement in the same command constrains the choice"},))
    if local:
        caps.update(flag="extra-index-url", url=caps["index"])
    elif given:
        caps.update(flag=given.group("flag"), url=given.group("url"))
    return _match(sig, text, len(text) - len(tail) + old.start(), caps)


def resolver_conflict_report(ent, text):
    """pip's report, after an install, of installed packages whose pins the new set no longer meets. With torch among
    the unmet pins, the package that pins it was built for another torch; without, and with no other error in the
    text, the install completed and nothing failed: not an environment problem to fix."""
    tail = text[-CONTEXT_TAIL:]
    rep = last_match(_RESOLVER_REPORT, tail) if "dependency resolver" in tail else None
    if rep is None:
        return None
    conflicts = list(_CONFLICT.finditer(tail[rep.start():]))
    on_torch = [c for c in conflicts if c.group("have").lower() in ("torch", "torchvision", "torchaudio")]
    at = len(text) - len(tail) + rep.start()
    if on_torch:
        c = on_torch[-1]
        sig = _sig("resolver-left-torch-pin-unmet", "toolchain",
                   "{pkg} {ver} requires {req}, but torch {hv} is installed", 60,
                   "pip finished the install and reports that {pkg} {ver} pins {req}; with {have} {hv} installed, a "
                   "compiled {pkg} built for the pinned torch can fail to import or crash.",
                   fix="Install the {pkg} release made for {have} {hv} (`pip install {pkg} {have}=={hv}` lets pip choose "
                       "it), or return to {req} if {pkg} has no release for {hv}; `pip check` lists what stays unmet.",
                   areas=("torch", "extension"),
                   sources=({"url": "https://pip.pypa.io/en/stable/topics/dependency-resolution/",
                             "what": "pip's resolver and its report of unmet requirements"},))
        return _match(sig, text, at, {k: c.group(k) for k in ("pkg", "ver", "req", "have", "hv")})
    rest = tail[:rep.start()] + "\n".join(ln for ln in tail[rep.start():].splitlines()[1:] if not _CONFLICT.search(ln))
    if re.search(r"Traceback|\w(?:Error|Exception):|error:|FAILED|fatal", rest):
        return None  # another failure in the text is the one to explain
    sig = _sig("resolver-report-only", "not-environment",
               "pip's resolver report: the install completed; other packages' pins are unmet", 38,
               "pip prints this after an install that succeeded: it lists packages already installed whose declared "
               "requirements the new set no longer meets. It is a warning, not a failure; nothing in the text failed.",
               look_at="Nothing needs reinstalling because of this message. If one of the packages it names fails when "
                       "used, give that package the version it asks for, or keep the two in separate environments; "
                       "`pip check` lists the unmet pins.",
               sources=({"url": "https://pip.pypa.io/en/stable/topics/dependency-resolution/",
                         "what": "pip's resolver and its report of unmet requirements"},))
    return _match(sig, text, at, {})


# a local version naming a build ("2.0.0+cu117"): PyPI holds plain versions only, PyTorch's index the +cuXYZ/+cpu/+rocm
_LOCAL_BUILD = re.compile(r"\+(?P<tag>cu\d{2,3}|cpu|rocm\d{1,2}(?:\.\d{1,2}){0,2}|xpu)\b")


def _on_build_index(text: str, p: dict, tag: str) -> bool:
    """pip did search the build's index: the versions it lists carry the +tag (or other builds' labels: it reads PyTorch's
    index or find-links page, where the build would be listed if it had a wheel for this Python), or it says it looks
    in that index."""
    if any(v.endswith("+" + tag) or _LOCAL_BUILD.search(v) for v in p["versions"] or ()):
        return True
    return f"download.pytorch.org/whl/{tag}" in text[-CONTEXT_TAIL:] and "Looking in indexes" in text[-CONTEXT_TAIL:]


def _never_built(p: dict, tag: str) -> bool:
    ver = re.search(r"==\s*(\d+\.\d+(?:\.\d+)?)", p["requirement"])
    rel = torch_release(ver.group(1)) if ver is not None and p["name"] == "torch" else None
    return rel is not None and tag not in {b.get("tag") for b in rel.get("builds", [])}


def _requirement_not_found_mac(ent) -> bool:
    return bool(ent.platform.get("macos")) and not ent.platform.get("windows")


def _local_build_not_found(ent, text: str, p: dict, tag: str):
    """A requirement pinned to a local version (+cu117) that pip did not find: the indexes it searched do not hold it
    (PyPI never does), so the index of that build is the fix; the release's Python range where the table knows it."""
    ver = re.search(r"==\s*(\d+\.\d+(?:\.\d+)?)", p["requirement"])
    rng = torch_python_range(ver.group(1)) if ver is not None and p["name"] == "torch" else None
    caps = {"requirement": p["requirement"], "index": torch_index_url(tag), "tag": tag,
            "range_note": f" (that release has wheels for Python {rng[0]} to {rng[1]})" if rng else None,
            "python": ent.versions.get("python")}
    if p["versions"] == []:
        # pip's "(from versions: none)": no version of torch at all has a file this interpreter can install, on any
        # index pip read (PyPI carries every release for each Python it supports): the interpreter is outside the
        # release's range (or 32-bit), whatever the index; the index comes second
        if rng:
            caps.update(py_min=rng[0], py_max=rng[1])
        sig = _sig("torch-release-not-for-this-python", "torch-build",
                   "pip lists no torch at all for this interpreter: {requirement} needs " +
                   ("Python {py_min} to {py_max}" if rng else "another Python"), 86,
                   "pip's \"(from versions: none)\" lists every version of torch with a file this interpreter can "
                   "install, from every index it read; none at all means no torch wheel fits this Python (its version "
                   "outside the releases', a 32-bit Python, or a platform without wheels), not only that the +{tag} "
                   "build lives on {index}." + (" The release pinned has wheels for 64-bit Python {py_min} to {py_max}." if rng else ""),
                   fix="Run it with a 64-bit Python " + ("{py_min} to {py_max} (`python -VV` shows this one; e.g. `conda create -n env "
                                                        "python={py_max}`)" if rng else
                                                        "within the release's range (`python -VV` shows this one; the "
                                                        "release notes list each release's Python versions)") +
                       ", then install from the build's index there: `pip install {requirement} --index-url {index}`. To "
                       "keep this Python, pin a torch release that supports it instead, from a CUDA index that release "
                       "has.",
                   causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                   areas=("platform",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, p["at"], caps)
    sig = _sig("torch-local-build-needs-its-index", "torch-build",
               "{requirement} is a build published on PyTorch's own index, not on PyPI", 85,
               "A version with a local part (+{tag}) names one build of the release; PyPI holds plain versions only, "
               "and the +{tag} wheels live on {index}. pip searched only the indexes it was given, so no distribution "
               "matched{range_note|}.",
               fix="Install it from its index: `pip install {requirement} --index-url {index}` (torchvision and "
                   "torchaudio of the same build come from the same index); in a requirements file add the line "
                   "`--extra-index-url {index}`. If pip still finds none, this Python is outside the release's range "
                   "(`python -VV`): use a Python that release supports, or a newer release of that CUDA.",
               causes=(("index", "pip searched PyPI (or another index) only", ()),
                       ("python", "this Python version is outside the torch release's supported range", ("TE103",))),
               areas=("platform",), sources=(SOURCES["torch_index"],
                                              {"url": "https://packaging.python.org/en/latest/specifications/version-specifiers/#local-version-identifiers",
                                               "what": "local version identifiers (+local): PyPI does not accept them"}))
    return _match(sig, text, p["at"], caps)


def _requirement_not_found(ent, text: str, p: dict):
    """pip found nothing for a torch requirement and the text does not show what it was offered (only pip's last
    line): a Python or platform outside the releases, or a version that does not exist; ARM32 and an old index's end
    are told apart as when nothing was offered."""
    caps = {"requirement": p["requirement"], "python": ent.versions.get("python")}
    if p["name"] == "torch":
        special = _torch_absent_here(ent, text, dict(caps, offered=None, latest=None))
        if special is not None:
            return _match(special, text, p["at"], caps)
    sig = _sig("torch-requirement-not-found", "torch-build",
               "pip finds no distribution for {requirement} on this Python/platform", 78,
               "pip saw no release matching {requirement} for this interpreter and platform: the version does not exist, "
               "or its wheels do not cover this Python (each release supports a few CPython versions, 64-bit only) or "
               "this OS/CPU, or the index given (a CUDA index) does not hold it.",
               fix="See what pip is offered: `python -VV` and `python -m pip index versions {name}` (or `pip install "
                   "{name}==` lists them); pin one of those, use a Python that release supports, or install from the index "
                   "that has the build (https://download.pytorch.org/whl/cuXXX for CUDA builds).",
               causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
               areas=("platform",), sources=(SOURCES["torch_index"],))
    return _match(sig, text, p["at"], dict(caps, name=p["name"]))


# pip's refusal of a wheel file whose tags the running interpreter does not accept (the file's name carries them)
_UNSUPPORTED_WHEEL = re.compile(r"(?P<file>[A-Za-z0-9_.+!-]{1,200}\.whl)\W{0,2} is not a supported wheel on this platform")


def _wheel_platform(plat: str) -> str:
    """A wheel's platform tag in words: win_amd64 -> 64-bit Windows, manylinux_2_28_aarch64 -> Linux aarch64."""
    if plat == "any":
        return "any platform"
    if plat.startswith("win"):
        return {"win32": "32-bit Windows", "win_arm64": "Windows on ARM"}.get(plat, "64-bit Windows")
    if plat.startswith("macosx"):
        return "macOS " + plat.rsplit("_", 1)[-1]
    arch = re.sub(r"^(?:many|musl)?linux(?:\d{1,4})?(?:_\d{1,3}_\d{1,3})?_", "", plat)
    return f"Linux {arch}"


# NVIDIA's stub packages on PyPI (nvidia-stub / wheel-stub build backends: cudf-cu12, cucim-cu12, isaacsim, ...) build
# nothing: they fetch the real wheel from pypi.nvidia.com for this interpreter and fail when none fits
_STUB_NO_WHEEL = re.compile(r"Didn't find wheel for (?P<dist>[A-Za-z0-9][\w.-]{0,80}) (?P<ver>\d[\w.+]{0,40})")
_STUB_TESTED = re.compile(r"Testing wheel (?P<whl>[A-Za-z0-9_.+!-]{1,200}\.whl)")


def nvidia_stub_no_wheel(ent, text):
    """NVIDIA's stub package finding no wheel on its index for this interpreter: the wheels it tested say which
    platforms exist (RAPIDS: Linux x86_64/aarch64 only, so Windows needs WSL 2), else the Python or glibc is outside
    what the release was built for."""
    m, at = last_in_tail(_STUB_NO_WHEEL, text, "find wheel for")
    if m is None:
        return None
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename  # noqa: PLC0415
    tail = text[-CONTEXT_TAIL:]
    plats, pys, glibc = set(), set(), set()
    for t in _STUB_TESTED.finditer(tail):
        try:
            tags = parse_wheel_filename(t.group("whl"))[3]
        except (InvalidWheelFilename, ValueError):
            continue
        for tag in tags:
            plats.add(_wheel_platform(tag.platform))
            pys.add(tag.interpreter)
            g = re.match(r"manylinux_(\d)_(\d{1,2})_", tag.platform)
            if g:
                glibc.add((int(g.group(1)), int(g.group(2))))
    windows = bool(ent.platform.get("windows")) or re.search(r"Operating System: Windows|win_amd64|\bWindows 1[01]\b",
                                                             tail) is not None
    mac = bool(ent.platform.get("macos")) and not windows
    linux_only = bool(plats) and all(p.startswith("Linux") for p in plats)
    caps = {"dist": m.group("dist"), "ver": m.group("ver"), "plats": ", ".join(sorted(plats)) or None,
            "pys": ", ".join(sorted(pys)) or None,
            "glibc": "glibc {}.{}".format(*max(glibc)) if glibc else None}
    if (windows or mac) and (linux_only or not plats):
        sig = _sig("nvidia-wheel-linux-only", "torch-build",
                   "{dist} {ver} has no wheel for this OS on NVIDIA's index (its wheels are Linux's)", 84,
                   "{dist} on PyPI is NVIDIA's stub: it downloads the real wheel from pypi.nvidia.com for this "
                   "interpreter, and " + ("the wheels it tried ({plats}) are all Linux builds" if plats else
                                          "it found none") + " for " + ("Windows" if windows else "macOS") +
                   ": NVIDIA's CUDA packages of this kind (RAPIDS and the like) are published for Linux.",
                   fix=("Run it under WSL 2 (an Ubuntu distribution with the Windows NVIDIA driver, which WSL passes "
                        "through): install Python there and `pip install {dist}` in WSL; native Windows has no build."
                        if windows else "macOS has no CUDA and no build of it: use a Linux machine with an NVIDIA GPU "
                                        "(or the package's CPU alternative)."),
                   causes=(), areas=("platform",),
                   sources=({"url": "https://pypi.org/project/nvidia-stub/",
                             "what": "NVIDIA's stub build backend: fetches the wheel from pypi.nvidia.com"},
                            {"url": "https://docs.rapids.ai/install/",
                             "what": "RAPIDS: Linux (and WSL 2) only"}))
        return _match(sig, text, at, caps)
    sig = _sig("nvidia-wheel-not-for-this-python", "torch-build",
               "{dist} {ver} has no wheel for this Python or system on NVIDIA's index", 80,
               "{dist} on PyPI is NVIDIA's stub: it downloads the real wheel from pypi.nvidia.com, and none of that "
               "release's wheels ({pys|its cpXY tags}, {plats|its platforms}) fits this interpreter: another Python "
               "version, another CPU, or a glibc older than the wheels need ({glibc|their manylinux tag}).",
               fix="Check `python -VV` and `ldd --version` against the release's wheels (`pip download --no-deps "
                   "--index-url https://pypi.nvidia.com {dist}=={ver}` lists them): use a Python it has wheels for, a "
                   "newer distribution for its glibc, or a {dist} release built for this Python.",
               causes=(("python", "this Python version is outside the versions the wheel was built for", ("TE103",)),),
               areas=("platform",),
               sources=({"url": "https://pypi.org/project/nvidia-stub/",
                         "what": "NVIDIA's stub build backend: fetches the wheel from pypi.nvidia.com"},))
    return _match(sig, text, at, caps)


def wheel_tags_not_here(ent, text):
    """pip's "X.whl is not a supported wheel on this platform": the file's own tags say which Python (cpXY) and which
    platform it was built for, so the fix is a wheel for this interpreter or an interpreter for this wheel."""
    m, at = last_in_tail(_UNSUPPORTED_WHEEL, text, "supported wheel")
    if m is None:
        return None
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename  # noqa: PLC0415
    try:
        name, _version, _build, tags = parse_wheel_filename(m.group("file"))
    except (InvalidWheelFilename, ValueError):
        return None
    cps = sorted({t.interpreter for t in tags if re.fullmatch(r"cp3\d{1,2}", t.interpreter)})
    plats = sorted({_wheel_platform(t.platform) for t in tags})
    py = f"3.{cps[0][3:]}" if len(cps) == 1 else None
    # (the Python the text names in words: the file's own cpXY tag is not this interpreter)
    said = re.findall(r"\b[Pp]ython(?: [Vv]ersion)?:? ?(3\.\d{1,2})\b|/python(3\.\d{1,2})/", text[-CONTEXT_TAIL:])
    said = [a or b for a, b in said]
    here = said[-1] if said else None
    caps = {"file": m.group("file"), "name": name, "py": py, "plat": ", ".join(plats),
            "built": (f"CPython {py}" if py else "the Python versions in its tags") + " on " + ", ".join(plats),
            "here_note": f"; the text shows Python {here}" if here and py and here != py else None}
    # the layer of the wheel's own distribution: TensorFlow's wheels are TensorFlow's build, not torch's
    layer = "tensorflow" if re.match(r"(?i)(?:tensorflow|tf[-_]nightly|keras)", str(name)) else "torch-build"
    sig = _sig("wheel-tags-not-this-interpreter", layer,
               "pip refuses {file}: it is built for {built}", 80,
               "pip installs a wheel only when one of the tags in its file name matches the interpreter running pip "
               "(its Python version, its ABI, its OS and CPU). {file} is built for {built}{here_note|}: another Python "
               "version, a 32-bit Python, another OS, or a file renamed after download.",
               fix="Check the interpreter pip runs in: `python -VV` and `python -m pip debug --verbose` (the tags it "
                   "accepts). Download the {name} wheel built for that Python and platform (its release page lists one "
                   "per cpXY and OS), or make an environment with the Python the wheel needs "
                   "(Python {py|3.X}: `py -{py|3.X} -m venv .venv` on Windows, `conda create -n env python={py|3.X}`) and "
                   "install it there.",
               causes=(("python", "this Python version is outside the versions the wheel was built for", ("TE103",)),),
               areas=("platform",),
               sources=({"url": "https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/",
                         "what": "a wheel's file name carries its Python, ABI and platform tags"},))
    return _match(sig, text, at, caps)


# 32-bit ARM by name: its kernels' machine names, Raspberry Pi OS's (Raspbian's) 32-bit releases, piwheels (the
# Raspberry Pi's own index, which pip names when it is configured), Debian's hard-float port
_ARM32 = re.compile(r"(?i)\barmv[67]l?\b|\braspbian\b|\bpiwheels\b|\barmhf\b|\blinux_armv[67]l\b|\b32[- ]bit\b")
_INDEX_TAG = re.compile(r"download\.pytorch\.org/whl/(?:nightly/)?(?P<tag>cu\d{3}|rocm\d\.\d{1,2}|cpu|xpu)\b")


def _pv(v: str | None) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", v or "")[:2])


# a musl libc system: Alpine's images and package manager, or pip's own platform tag for it. torch's wheels on PyPI
# and on the PyTorch index are manylinux (glibc) builds; none is tagged musllinux, so pip on musl sees no release
# (https://pypi.org/project/torch/#files; PEP 656 defines the musllinux tags)
_MUSL = re.compile(r"(?i)\bmusllinux_\d|\bmusl(?:-dev| libc)?\b|(?:python|node|nginx|alpine)[:\w.-]{0,30}-alpine\b|"
                   r"\bFROM alpine\b|\bapk (?:add|update)\b|\bAlpine Linux\b")
_MUSL_FIX = ("Use a glibc-based system or image (Debian/Ubuntu, `python:3.X-slim` instead of `python:3.X-alpine`): "
             "torch publishes no wheels for musl libc, so on Alpine pip finds no release it may install; building torch "
             "from source for musl is unsupported.")


def _musl_signature(sig_id: str):
    return _sig(sig_id, "torch-build", "pip finds no torch: torch has no wheels for musl libc (Alpine)", 87,
                "This system (or image) is Alpine Linux, whose C library is musl; torch's wheels are built for glibc "
                "(manylinux tags) and pip on musl accepts only musllinux wheels, so it sees no torch release it may "
                "install ({requirement|torch}).",
                fix=_MUSL_FIX,
                causes=(), areas=("platform",), sources=({"url": "https://peps.python.org/pep-0656/",
                                                          "what": "PEP 656: the musllinux platform tags"},))


def _torch_absent_here(ent, text: str, caps: dict):
    """Why pip sees no torch at all, when the text says more than "this Python": a 32-bit ARM system (torch
    publishes 64-bit ARM wheels only), or a PyTorch index whose releases end before this Python (cu121's last release
    has no wheel for a newer Python): the signature naming it, or None."""
    tail = text[-CONTEXT_TAIL:]
    if _MUSL.search(tail):
        return _musl_signature("torch-no-wheel-musl")
    if _ARM32.search(tail):
        return _sig("torch-no-wheel-arm32", "torch-build", "pip finds no torch: torch has no wheels for 32-bit ARM", 86,
                    "torch publishes Linux ARM wheels for aarch64 (64-bit) only; a 32-bit system (armv7l: Raspberry Pi OS "
                    "32-bit/Raspbian, armhf) or a 32-bit Python on it sees no torch release at all, whatever the "
                    "version asked ({requirement}).",
                    fix="Install a 64-bit OS (Raspberry Pi OS 64-bit or Ubuntu arm64, aarch64) with its 64-bit Python, "
                        "then `pip install torch`; on a 32-bit system torch must be built from source.",
                    causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                    areas=("platform",), sources=(SOURCES["torch_index"],))
    m = last_match(_INDEX_TAG, tail)
    if m is not None and m.group("tag").startswith("rocm") and (ent.platform.get("windows") or
                                                               re.search(r"\bWindows\b|\bwin(?:32|_amd64)\b", tail)):
        # the PyTorch index publishes its ROCm builds for Linux only (every rocm* page lists linux_x86_64 wheels)
        return _sig("torch-rocm-index-on-windows", "torch-build",
                    "pip finds no torch on the ROCm index: its ROCm builds are Linux-only", 86,
                    "download.pytorch.org's rocm indexes hold Linux wheels only (linux_x86_64); native Windows pip "
                    "sees no release at all there ({requirement|torch}).",
                    fix="On native Windows install AMD's own Windows wheels of torch for ROCm (repo.radeon.com, "
                        "for the Radeon and Ryzen GPUs AMD lists; its install page gives the pip lines), or run the "
                        "index's Linux build under WSL 2 with AMD's ROCm for WSL, or under Linux.",
                    causes=(), areas=("platform",),
                    sources=({"url": "https://rocm.docs.amd.com/projects/radeon-ryzen/en/latest/docs/install/"
                                     "installrad/windows/install-pytorch.html",
                              "what": "AMD: PyTorch for ROCm on Windows via pip (repo.radeon.com wheels)"},
                             {"url": "https://rocm.docs.amd.com/projects/radeon/en/docs-6.3/docs/install/wsl/"
                                     "install-pytorch.html",
                              "what": "AMD: install PyTorch for ROCm under WSL"}, SOURCES["torch_index"]))
    py = _pv(ent.versions.get("python"))
    if m is None or len(py) < 2:
        return None
    tag = m.group("tag")
    try:
        rels = [r for r in torch_releases() if any(b.get("tag") == tag for b in r.get("builds", ()))]
    except (OSError, ValueError, KeyError):
        return None
    if not rels or any(_pv(r.get("python_max")) >= py for r in rels):
        return None
    last = rels[-1]
    serving = [r for r in torch_releases() if _pv(r.get("python_max")) >= py >= _pv(r.get("python_min"))]
    if not serving:
        return None
    # the nearest newer build of the same kind (the smallest CUDA above the one asked: the least a driver must run),
    # from the newest release that has it for this Python
    kind = re.match(r"[a-z]+", tag).group(0)
    num = _pv(re.sub(r"^[a-z]+", "", tag).replace(".", " ")) if kind == "rocm" else (int(tag[2:]),)
    pairs = []
    for r in serving:
        for b in r.get("builds", ()):
            t = str(b.get("tag", ""))
            if not t.startswith(kind):
                continue
            n = _pv(t[4:].replace(".", " ")) if kind == "rocm" else ((int(t[2:]),) if t[2:].isdigit() else ())
            if n and n > num:
                pairs.append((n, _pv(r["torch"]), r["torch"], t))
    if not pairs:
        return None
    nearest = min(p[0] for p in pairs)
    _n, _v, newest, new_tag = max(p for p in pairs if p[0] == nearest)
    caps.update(tag=tag, python=".".join(map(str, py)), last=last["torch"], last_python=last.get("python_max"),
                newest=newest, new_tag=new_tag)
    return _sig("torch-index-older-than-python", "torch-build",
                "the {tag} index has no torch for Python {python}: its last release, torch {last}, stops at Python "
                "{last_python}", 88,
                "Each PyTorch index (cuXYZ) serves the releases built with that CUDA; the last release on the {tag} index "
                "is torch {last}, whose wheels stop at Python {last_python}. pip on Python {python} finds none there.",
                fix="Use an index of a newer CUDA build that has wheels for Python {python} (torch {newest}: `pip install "
                    "torch --index-url https://download.pytorch.org/whl/{new_tag|cu126}`, for a driver that runs it), or a "
                    "Python up to {last_python} for the {tag} builds.",
                causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                areas=("platform",), sources=(SOURCES["torch_index"],))


_REQ_VERSION = re.compile(r"==\s{0,2}v?(?P<ver>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)\b")


def _nearest_tag(tags: list, tag: str) -> str:
    want = _cuda_tag_key(tag)
    return min(tags, key=lambda t: (abs(_cuda_tag_key(t)[0] - want[0]), abs(_cuda_tag_key(t)[1] - want[1])))


def _index_without_release(ent, text: str, p: dict, caps: dict):
    """pip on one PyTorch CUDA index (`Looking in indexes: .../whl/cuXYZ`, or --index-url) sees no torch at all.
    The builds of each release are a table (knowledge/releases.py): a tag no release was built with is an index
    that holds no torch; a tag the asked release was not built with holds other releases only; a tag the release
    has leaves the interpreter, so the release's Pythons (and the last release on that index) say what to change.
    Where the Python is printed and the release serves it, the cause is elsewhere (the OS, a 32-bit Python): None."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_INDEX_TAG, tail)
    if m is None or not m.group("tag").startswith("cu") or not m.group("tag")[2:].isdigit():
        return None
    tag = m.group("tag")
    try:
        rels = [r for r in torch_releases() if any(str(b.get("tag", "")).startswith("cu") for b in r.get("builds", ()))]
    except (OSError, ValueError, KeyError):
        return None
    if not rels:
        return None
    v = _REQ_VERSION.search(p["requirement"])
    rel = torch_release(v.group("ver")) if v else None
    if v and rel is None:
        return None
    known = {b.get("tag") for r in rels for b in r.get("builds", ())}
    target = rel or rels[-1]
    tags = [b["tag"] for b in target.get("builds", ()) if str(b.get("tag", "")).startswith("cu")]
    if not tags:
        return None
    if tag not in known or (rel is not None and tag not in tags):
        near = _nearest_tag(tags, tag)
        caps.update(tag=tag, ver=v.group("ver") if v else target["torch"], tags="/".join(tags), near=near,
                    index=torch_index_url(near))
        return _sig("torch-index-without-release", "torch-build",
                    "the {tag} index holds no torch {ver}: torch {ver}'s CUDA builds are {tags}", 87,
                    "Each PyTorch index (download.pytorch.org/whl/cuXYZ) holds the releases built for that CUDA, and "
                    "each release is built for a few CUDA versions only: " +
                    ("no torch release was built for {tag}, so that index has no torch at all" if tag not in known else
                     "torch {ver} was not built for {tag}") + " ({requirement|torch}; pip: \"from versions: none\").",
                    fix="Install from an index torch {ver} was built for: `pip install torch=={ver} --index-url "
                        "{index}` ({near}, the nearest to {tag}; its builds: {tags}), for a driver that runs that CUDA "
                        "(nvidia-smi's CUDA Version at least it); torchvision and torchaudio from the same index.",
                    causes=(), areas=("torch",), sources=(SOURCES["torch_index"],))
    if rel is None:
        return None
    py_min, py_max = rel.get("python_min"), rel.get("python_max")
    py = _pv(ent.versions.get("python"))
    if not (py_min and py_max) or (len(py) == 2 and _pv(py_min) <= py <= _pv(py_max)):
        return None
    on_tag = [r for r in rels if any(b.get("tag") == tag for b in r.get("builds", ()))]
    last = on_tag[-1] if on_tag else rel
    newest = rels[-1]
    new_tags = [b["tag"] for b in newest.get("builds", ()) if str(b.get("tag", "")).startswith("cu")]
    caps.update(tag=tag, ver=v.group("ver"), py_min=py_min, py_max=py_max, last=last["torch"],
                last_max=last.get("python_max"), newest=newest["torch"], new_min=newest.get("python_min"),
                new_max=newest.get("python_max"), new_tags="/".join(new_tags),
                new_index=torch_index_url(new_tags[0]) if new_tags else None)
    return _sig("torch-index-release-not-for-python", "torch-build",
                "the {tag} index has torch {ver}, but no wheel of it for this Python (torch {ver}: Python {py_min} to "
                "{py_max})", 85,
                "torch {ver} is on the {tag} index, with wheels for Python {py_min} to {py_max} only; pip on another "
                "Python (or a 32-bit one) sees none of them (\"from versions: none\"). The last release on the {tag} "
                "index is torch {last} (Python up to {last_max}).",
                fix="Create the environment with a Python from {py_min} to {py_max} for torch {ver} (`python -VV` shows "
                    "this one; `py -3.12 -m venv .venv` on Windows, `uv venv --python 3.12`), or keep this Python and "
                    "install a newer torch built for it: torch {newest} (Python {new_min} to {new_max}) from "
                    "`--index-url {new_index}` ({new_tags}), for a driver that runs that CUDA.",
                causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                areas=("platform",), sources=(SOURCES["torch_index"],))


# a torch build asked for by its local version label ("torch==2.6.0+cu121", "torch-2.6.0+cu121"), and pip's failure or
# fallback around it; a torch wheel's file name for Windows or macOS without a label
_TORCH_LABELLED = re.compile(r"\btorch(?:==|-)(?P<ver>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)\+(?P<tag>cu\d{2,3}|rocm\d{1,2}\.\d{1,2})\b")


_PIP_FAILED = re.compile(r"No matching distribution found|Could not find a version that satisfies|\+cpu\b")


_TORCH_PLAIN_WHEEL = re.compile(r"(?<![\w.-])(?<!cu\d\d/)(?<!cu\d\d\d/)torch-(?P<ver>\d{1,2}\.\d{1,2}\.\d{1,2})-cp\d{2,3}-[\w]{3,8}-"
                                r"(?P<plat>win_amd64|macosx_[\w.]{3,30})\.whl")


def _cuda_tag_key(tag: str) -> tuple:
    digits = tag[2:]
    return (int(digits[:-1]), int(digits[-1])) if tag.startswith("cu") and digits.isdigit() else (0, 0)


def torch_build_variant(ent, text):
    """torch's builds per release are a table (knowledge/releases.py): a +cuXXX label the release was never built
    with cannot be installed (pip fails, and a setup script falls back to the CPU wheel), and a torch wheel for
    Windows or macOS without a +cuXXX label is the CPU build.  The fix names the builds that release has."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TORCH_LABELLED, tail)
    if m is not None and m.group("tag").startswith("cu") and _PIP_FAILED.search(tail):
        rel = torch_release(m.group("ver"))
        tags = [b["tag"] for b in (rel or {}).get("builds", []) if b.get("tag", "").startswith("cu")]
        if rel and tags and m.group("tag") not in tags:
            want = _cuda_tag_key(m.group("tag"))
            near = min(tags, key=lambda t: (abs(_cuda_tag_key(t)[0] - want[0]), -_cuda_tag_key(t)[1] if
                                            _cuda_tag_key(t)[0] == want[0] else 0))
            caps = {"ver": m.group("ver"), "tag": m.group("tag"), "tags": "/".join(tags), "near": near,
                    "index": torch_index_url(near)}
            sig = _sig("torch-build-not-published", "torch-build",
                       "torch {ver}+{tag} does not exist: torch {ver}'s CUDA builds are {tags}", 84,
                       "torch's CUDA builds are published per release for a few CUDA versions only; {tag} is not one "
                       "of torch {ver}'s ({tags}), so pip finds no such wheel (and a setup that falls back installs "
                       "the CPU build instead).",
                       fix="Install a CUDA build that exists for torch {ver}: `pip install torch=={ver} --index-url "
                           "{index}` ({near}; the others: {tags}), keeping torchvision/torchaudio of the same release "
                           "and index.", causes=(), areas=("torch",), sources=(SOURCES["torch_index"],))
            return _match(sig, text, len(text) - len(tail) + m.start(), caps)
    w = None
    for w in _TORCH_PLAIN_WHEEL.finditer(tail):
        pass
    if w is None or w.group("plat").startswith("macosx"):
        return None  # (macOS has no CUDA build at all: nothing to install instead)
    rel = torch_release(w.group("ver"))
    tags = [b["tag"] for b in (rel or {}).get("builds", []) if b.get("tag", "").startswith("cu")]
    caps = {"ver": w.group("ver"), "tags": "/".join(tags) or None,
            "index": torch_index_url(tags[-1]) if tags else None}
    sig = _sig("torch-windows-plain-wheel-is-cpu", "torch-build",
               "torch-{ver} for Windows without a +cuXXX label is the CPU build", 60,
               "On Windows the torch wheels without a local version label (PyPI's, and the plain ones of the PyTorch "
               "index) are CPU-only; the CUDA builds carry +cuXXX in their version and come from the PyTorch index.",
               fix="Install a CUDA build of torch {ver} from the PyTorch index: `pip install torch=={ver} --index-url "
                   "{index|https://download.pytorch.org/whl/cuXXX}` (its CUDA builds: {tags|see the release's "
                   "install page}); check with `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`.",
               causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=(SOURCES["torch_index"],), generic=True)
    return _match(sig, text, len(text) - len(tail) + w.start(), caps)


_RESOLVER_NO_TORCH = re.compile(r"No matching distribution found for torch\b|Unable to find installation candidates for "
                                r"torch\b|Could not find a version that satisfies the requirement torch\b|"
                                # uv: "torch>=2.4.0 has no wheels with a matching platform tag"
                                r"\btorch\b[^\n]{0,60} has no (?:usable )?wheels? with a matching (?:platform|Python ABI) tag")


# the Mac the resolver ran for is an arm64 one (Apple silicon): torch publishes arm64 macOS wheels on PyPI only
_MAC_ARM64 = re.compile(r"macosx_[0-9_.]{0,12}\.{0,3}_?arm64|macosx_\.\.\._arm64|\barm64\b|Apple [Ss]ilicon|\bM[1-4]\b")


def torch_not_offered_on_mac(ent, text):
    """A resolver that finds no torch on a Mac, without the list of versions pip_no_matching reads: the Intel Mac
    (x86_64) releases ended at 2.2.2, so a newer pin has no wheel there."""
    if not ent.platform.get("macos") or ent.platform.get("windows") or any(p["versions"] is not None for p in ent.pip):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_RESOLVER_NO_TORCH, tail)
    if m is None:
        return None
    if _MAC_ARM64.search(tail) and not ent.platform.get("intel_mac"):
        sig = _sig("torch-index-without-macos-wheels", "macos",
                   "the resolver finds no torch for an arm64 Mac: the index it uses has no macOS wheels", 85,
                   "torch publishes its macOS (arm64) wheels on PyPI only; the download.pytorch.org indexes for CUDA "
                   "(cuXXX) and ROCm have none for macOS, and a Mac has no CUDA. A project or command that pins such an "
                   "index for torch leaves the resolver nothing to install on a Mac.",
                   fix="Install torch from PyPI's default index on macOS (no --index-url / no CUDA index for torch there: in "
                       "uv, limit the CUDA index to Linux/Windows with a marker, e.g. `sys_platform != 'darwin'`); the Mac's "
                       "GPU is used through the 'mps' device.",
                   areas=("platform",), sources=({"url": "https://docs.astral.sh/uv/guides/integration/pytorch/",
                                                  "what": "uv: PyTorch indexes per platform with markers"},
                                                 SOURCES["torch_index"]))
        return _match(sig, text, len(text) - len(tail) + m.start(), {})
    sig = _sig("torch-intel-mac-last-release", "macos",
               "no torch for this Mac's Python: an Intel (x86_64) Mac or an x86_64 Python gets nothing newer than 2.2.2", 84,
               "torch's last release with macOS x86_64 wheels is 2.2.2; on an Intel Mac (or an x86_64 Python under "
               "Rosetta on Apple silicon) the resolver finds no newer torch, and none at all for Pythons 2.2.2 did not "
               "support (3.13 and newer).",
               fix="On an Intel Mac: torch 2.2.2 is the last release (`pip install torch==2.2.2` with Python <= 3.12; pin "
                   "what needs a newer one), or use conda-forge's pytorch builds; on Apple silicon: use an arm64 Python "
                   "(python.org or conda's osx-arm64).",
               causes=(("rosetta", "an x86_64 Python runs under Rosetta on Apple silicon", ("TE105",)),),
               areas=("platform",), sources=(_INTEL_MAC_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


def torch_too_new_for_intel_mac(ent, text):
    """An Intel (x86_64) Mac with a torch newer than 2.2.2 asked for: no such wheel exists for it (a version table:
    torch's macOS x86_64 builds ended with 2.2.2), whatever the tool says."""
    if not ent.platform.get("intel_mac"):
        return None
    wanted = [v for v in (ent.packages.get("torch"), ent.versions.get("torch")) if v]
    newer = [v for v in wanted if _version_key(v) > _version_key(INTEL_MAC_LAST)]
    if not newer:
        return None
    tail = text[-CONTEXT_TAIL:]
    at = len(text) - len(tail) + max(0, tail.rfind(newer[0]))
    sig = _sig("torch-intel-mac-last-release", "macos",
               "torch {wanted} does not exist for an Intel (x86_64) Mac: 2.2.2 is the last release there", 60,
               "torch's last release with macOS x86_64 wheels is 2.2.2; torch {wanted} has none for an Intel Mac (or an "
               "x86_64 Python under Rosetta on Apple silicon).",
               fix="On an Intel Mac: torch 2.2.2 is the last release (`pip install torch==2.2.2` with Python <= 3.12; pin "
                   "what needs a newer one), or use conda-forge's pytorch builds; on Apple silicon: use an arm64 Python "
                   "(python.org or conda's osx-arm64).",
               causes=(("rosetta", "an x86_64 Python runs under Rosetta on Apple silicon", ("TE105",)),),
               areas=("platform",), sources=(_INTEL_MAC_SOURCE,))
    return _match(sig, text, at, {"wanted": newer[0]})


# A package's CUDA part failing, in the words of each stage: its build finds no CUDA toolkit, its loader finds a
# binary of another format (dyld: "not a mach-o file") or a build without GPU support (bitsandbytes' CUDA SETUP)
_CUDA_PART_FAILS = re.compile(r"CUDA_HOME environment variable is not set|CUDA was not found on the system|"
                              r"[Nn]o CUDA runtime is found|nvcc[^\n]{0,40}(?:not found|No such file)|not a mach-o file|"
                              r"compiled without GPU support|CUDA SETUP: [^\n]{0,80}(?:not found|failed|Defaulting to "
                              r"libbitsandbytes_cpu)")


_COLLECTING = re.compile(r"(?m)^\s{0,8}Collecting (?P<pkg>[A-Za-z][A-Za-z0-9_.-]{0,60}?)(?:[=<>~!\[ ]|$)")


def cuda_package_on_mac(ent, text):
    """A package's CUDA part failing (its build, its binary) in a text from a Mac: macOS has no CUDA, so no build of
    that package's CUDA part can exist there; the answer is to run without it (or its macOS alternative), not a
    CUDA toolkit or a reinstall.  The package is the one whose binary failed, else the one being collected/built."""
    if not ent.platform.get("macos") or ent.platform.get("windows") or ent.platform.get("wsl"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDA_PART_FAILS, tail)
    if m is None or _LINUXKIT.search(tail):
        return None
    pkg = None
    for b in _PKG_BINARY_DIR.finditer(tail):
        if b.group("pkg") not in ("lib", "lib64", "torch", "site-packages"):
            pkg = b.group("pkg")
    if pkg is None:
        for c in _COLLECTING.finditer(tail):
            pkg = c.group("pkg")
    if pkg is None:
        pkg = next((b.get("package") for b in reversed(ent.builds) if b.get("package")), None)
    if pkg is None or pkg.lower() in _NOT_THE_PACKAGE:
        return None
    pkg = pkg.lower().replace("_", "-")
    sig = _sig("cuda-package-on-macos", "macos", "{package} needs CUDA, which macOS does not have", 88,
               "{package}'s compiled part is CUDA code (NVIDIA GPUs). macOS has no CUDA: Apple silicon's GPU is "
               "Metal, torch's 'mps' device; so {package} has no working macOS build, whatever CUDA setting or "
               "toolkit is tried.",
               fix="Run without {package} on macOS: leave it out of the requirements (a project's Apple-silicon "
                   "requirements file, if it has one), and turn off the option that needs it (8-bit / 4-bit loading, "
                   "a CUDA attention kernel); use the mps or cpu device. No CUDA toolkit can be installed on macOS.",
               causes=(("macos", "macOS has no CUDA; use the MPS backend on Apple silicon", ("TE102",)),),
               areas=("platform",), sources=({"url": "https://pytorch.org/docs/stable/notes/mps.html",
                                              "what": "MPS: torch's GPU backend on macOS (Metal); no CUDA on macOS"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"package": pkg})


# A Windows prompt whose folder is an embedded (portable) Python -- ComfyUI's python_embeded,
# python-3.11.7-embed-amd64 -- running a bare `pip`: that pip is the first one on PATH, and where it reports the
# packages to be ("Requirement already satisfied: ... in C:\...\site-packages") says which Python it serves.
_EMBED_PROMPT = re.compile(r"(?im)^(?P<cwd>[A-Z]:\\[^>\n]{0,260}?(?P<dir>python[\w.-]{0,30}?embed[\w-]{0,12}))>\s{0,4}"
                           r"pip3?(?:\.exe)?\s{1,4}install\b")


_PIP_SITE = re.compile(r"(?i)\b(?:Requirement already satisfied|already installed)[^\n]{0,300}? in "
                       r"(?P<site>[A-Z]:\\[^\s()]{1,260}?site-packages)")


def pip_of_another_python(ent, text):
    """`pip install` typed in an embedded Python's folder that installs into another Python's site-packages: the
    portable app's own interpreter never gets the package; `python.exe -m pip` of that folder does."""
    tail = text[-CONTEXT_TAIL:]
    prompt = None
    for prompt in _EMBED_PROMPT.finditer(tail):
        pass
    if prompt is None:
        return None
    site = _PIP_SITE.search(tail, prompt.end())
    if site is None or site.group("site").lower().startswith(prompt.group("cwd").lower()):
        return None
    sig = _sig("pip-of-another-python", "toolchain",
               "`pip` here installs into another Python ({site}), not the embedded one in {cwd}", 88,
               "The prompt is in a portable app's embedded Python folder, but the bare `pip` found first on PATH belongs "
               "to another Python: it reports the package in {site}. The embedded interpreter the app runs never sees "
               "what that pip installs, so the app still misses it.",
               fix="Install with the embedded interpreter itself: `.\\python.exe -m pip install <package>` run in {cwd} "
                   "(the embedded Python's own python -m pip), and check with `.\\python.exe -m pip show <package>`.",
               areas=("python",), sources=({"url": "https://docs.python.org/3/installing/index.html#work-with-multiple-"
                                                   "versions-of-python-installed-in-parallel",
                                            "what": "python -m pip installs into the interpreter that runs it"},))
    return _match(sig, text, len(text) - len(tail) + prompt.start(),
                  {"cwd": prompt.group("cwd"), "site": site.group("site")})


# A Jetson named in the text (the board, JetPack, L4T, Tegra) with torch that has no CUDA
# (/etc/nv_tegra_release's own line, "# R36 (release), REVISION: 4.3", names the L4T release)
_JETSON = re.compile(r"(?i)\bjetson\b|\bjetpack\b|\bL4T\b|\btegra\b|nv_tegra_release|\bR\d{2} \(release\), REVISION:")


_NO_CUDA_HERE = re.compile(r"(?i)is_available\(?\)?[^\n]{0,40}?(?:\n[ \t]{0,8})?\bfalse\b|Torch not compiled with CUDA enabled|"
                           r"CUDA available:?\s{0,3}False|version\.cuda[^\n]{0,20}None|"
                           # the user's words for the same: "CUDA unavailable", "does not support CUDA"
                           r"\bCUDA (?:is )?(?:unavailable|not available)\b|(?:does not|doesn't) support CUDA\b")


_L4T_TEXT = re.compile(r"(?i)\bL4T\s{0,2}R?(?P<ver>\d{2}\.\d{1,2}(?:\.\d{1,2})?)|\bR(?P<rel>\d{2}) \(release\), REVISION: "
                       r"(?P<rev>\d{1,2}\.\d{1,2})")


def jetson_without_cuda(ent, text):
    """torch without CUDA on a Jetson is a wheel that is not NVIDIA's: PyPI's (and most third-party) aarch64 torch
    wheels are CPU-only; a Jetson runs NVIDIA's JetPack build (or, from JetPack 7, the PyTorch index's aarch64 ones)."""
    tail = text[-CONTEXT_TAIL:]
    j, n = _JETSON.search(tail), None
    if j is None:
        return None
    for n in _NO_CUDA_HERE.finditer(tail):
        pass
    if n is None:
        return None
    l4t = None
    lm = _L4T_TEXT.search(tail)
    if lm:
        l4t = jetson.parse_l4t(lm.group("ver") if lm.group("ver") else f"{lm.group('rel')}.{lm.group('rev')}")
    row = jetson.row_for(l4t)
    which = (f"JetPack {row['jetpack']} (L4T {jetson.l4t_text(l4t)}): NVIDIA's torch {row['torch']} for Python "
             f"{row['python']}, {row['wheel']}" if row else
             "NVIDIA's torch wheel for the board's JetPack release (developer.download.nvidia.com/compute/redist/jp/, "
             "per JetPack; `cat /etc/nv_tegra_release` shows the L4T release)")
    sig = _sig("jetson-torch-without-cuda", "torch-build",
               "torch has no CUDA on this Jetson: the wheel is not NVIDIA's JetPack build", 90,
               "On a Jetson, torch's CUDA build is NVIDIA's wheel for the JetPack release (CUDA comes with JetPack, not "
               "from pip); the aarch64 wheels on PyPI and most third-party aarch64 builds are CPU-only, so CUDA is not "
               "available with them.",
               fix="Uninstall the CPU-only torch and install NVIDIA's JetPack build: " + which + ". From JetPack 7 "
                   "(L4T R38) the PyTorch index's aarch64 CUDA wheels run on Jetson too.",
               causes=(("cpu-wheel", "a CPU-only torch is installed on a machine with an NVIDIA GPU", ("TE202",)),),
               areas=("torch", "platform"), sources=(SOURCES["torch_index"],))
    return _match(sig, text, len(text) - len(tail) + n.start(), {})


# conda's virtual package __cuda is the CUDA version the installed driver supports (conda reads it from the driver;
# CONDA_OVERRIDE_CUDA sets it by hand).  A solver that reports a __cuda constraint names what a package needs and,
# where conda found a driver, the __cuda it has; "nothing provides __cuda" means conda found no driver at all.
_CONDA_CUDA_NEED = re.compile(r"__cuda\s{0,2}(?:>=|>)\s{0,2}(?P<need>\d{1,2}(?:\.\d{1,2})?)")
_CONDA_CUDA_HAVE = re.compile(r"__cuda(?:-|==|\s{1,4}|=)(?P<have>\d{1,2}\.\d{1,2})(?:[=-]\d{1,3})?\b(?!\s{0,2}[<>])")
_CONDA_VIRTUAL = {"url": "https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html",
                  "what": "conda's virtual packages: __cuda is the driver's CUDA, CONDA_OVERRIDE_CUDA"}
# words that put the solve on a host without a GPU by design: a cluster's login/head node, an HPC system
_GPU_LESS_HOST = re.compile(r"(?i)\blogin[- ]node|\bhead[- ]node|\bHPC\b|\bcompute[- ]nodes?\b|\bslurm\b|\bsbatch\b")
_CONDA_CUDA_NONE = re.compile(r"nothing provides (?:requested )?__cuda\b|__cuda\b[^\n]{0,80}(?:is missing on the system|"
                              r"does not exist \(perhaps a missing channel\))")


def conda_virtual_cuda(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "__cuda" not in tail:
        return None
    need, have, none = (last_match(_CONDA_CUDA_NEED, tail), last_match(_CONDA_CUDA_HAVE, tail),
                        last_match(_CONDA_CUDA_NONE, tail))
    if need is None and none is None:
        return None
    at = len(text) - len(tail) + min(m.start() for m in (need, have, none) if m is not None)
    caps = {"need": need.group("need") if need else None, "have": have.group("have") if have else None}
    if none is not None and have is None and _GPU_LESS_HOST.search(tail):
        # the text says where it solves: a cluster's login node or an image build, hosts without a GPU by design
        sig = _sig("conda-solve-on-gpu-less-host", "env", "conda solves on a host without a GPU (no __cuda there)", 83,
                   "conda's virtual package __cuda stands for the CUDA version of the driver on the host that solves; "
                   "a cluster's login node (or an image build) has no GPU and no driver, so conda offers no CUDA build "
                   "there, although the compute nodes the environment is for have one" + (
                       " (this one needs __cuda >= {need})" if caps["need"] else "") + ".",
                   fix="Tell conda the driver of the nodes the environment will run on: `CONDA_OVERRIDE_CUDA=" +
                       (caps["need"] or "12.4") + " conda install ...` (the CUDA version `nvidia-smi` prints on a "
                       "compute node; mamba and pixi read the same variable), or create the environment from a job on a "
                       "GPU node (`srun --gres=gpu:1 --pty bash`).",
                   areas=("platform", "conda"),
                   sources=(_CONDA_VIRTUAL,))
        return _match(sig, text, at, caps)
    if none is not None and have is None:
        sig = _sig("conda-no-cuda-driver", "driver", "conda finds no NVIDIA driver (no __cuda virtual package)", 82,
                   "conda's virtual package __cuda stands for the CUDA version the installed NVIDIA driver supports; "
                   "it is missing when conda finds no driver (a machine or container without the GPU, a build host), "
                   "so no CUDA build of a package can be installed" + (" (this one needs __cuda >= {need})"
                                                                       if caps["need"] else "") + ".",
                   fix="On a machine with an NVIDIA GPU, install or repair the driver (`nvidia-smi` must work), then "
                       "solve again; to create the environment on a host without a GPU (a Docker build, a login node), "
                       "tell conda the driver of the target: `CONDA_OVERRIDE_CUDA=" + (caps["need"] or "12.4") +
                       " conda install ...` (the CUDA version the target's driver supports; mamba and pixi read the same "
                       "variable).",
                   causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver",),
                   sources=(_CONDA_VIRTUAL,))
        return _match(sig, text, at, caps)
    if need is None or have is None or _version_key(have.group("have")) >= _version_key(need.group("need")):
        return None
    driver = min_driver_for_cuda(caps["need"])
    caps["driver"] = (driver or {}).get("toolkit_minimum") or (driver or {}).get("compat_floor")
    sig = _sig("conda-driver-too-old", "driver",
               "the driver supports CUDA {have}; the conda package needs a driver for CUDA {need}", 83,
               "conda's virtual package __cuda is the CUDA version the installed NVIDIA driver supports: {have} here. "
               "The package asked for (or one it depends on) is built for CUDA {need} and requires __cuda >= {need}, "
               "so the solver refuses it: the driver is older than that CUDA needs.",
               fix="Update the NVIDIA driver to one that supports CUDA {need} (" +
                   ("{driver} or newer" if caps["driver"] else "see NVIDIA's CUDA release notes") +
                   "; `nvidia-smi` shows the CUDA version a driver supports), or keep the environment on a CUDA the "
                   "driver runs: on conda-forge pin `cuda-version<={have}` so the solver picks the package's build for "
                   "that CUDA (from the pytorch channel, a pytorch-cuda no newer than {have}). "
                   "CONDA_OVERRIDE_CUDA only hides the check: the package would then fail at run time.",
               causes=(("driver-too-old", "the NVIDIA driver is older than the CUDA the build needs", ("TE302",)),),
               areas=("driver",),
               sources=(_CONDA_VIRTUAL,
                        {"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                         "what": "the minimum driver of each CUDA toolkit"}))
    return _match(sig, text, at, caps)


# torch says CUDA is not available: in a REPL (the answer on the next line), in words, or collect_env's line; or the
# user says the CPU build was installed
_CUDA_FALSE = re.compile(r"cuda\.is_available\(\)\)?[^\n]{0,40}?\bFalse\b|cuda\.is_available\(\)\)?[\"'`;)\s]{0,6}\n"
                         r"(?:\s{0,8}(?:Out\[\d{1,4}\]:|>>>)?\s{0,4})False\b|cuda\.is_available\(\)[^\n]{0,60}\n?[^\n]{0,20}"
                         r"(?i:returns? false|is false|gives false)|Is CUDA available: False|"
                         r"(?i:the (?:\[?cpu\]?[- ]only|\[?cpu\]?) (?:version|build|wheel) of (?:py)?torch|"
                         r"(?:py)?torch[^\n]{0,40}(?:defaults? to|resulted in|installs?|installed) the \[?cpu\]? "
                         r"(?:version|build|wheel))")
_CONDA_INSTALL = re.compile(r"\bconda(?:-forge)?\b[^\n]{0,80}\b(?:install|create)\b|\bconda-forge\b|\bmamba install\b|"
                            r"\bpixi add\b")
_ARM64_LINUX = re.compile(r"(?i)\baarch64\b|\barm64\b[^\n]{0,40}linux|\bGB200\b|\bGH200\b|Grace[ -]?(?:Hopper|Blackwell)|"
                          r"\bsbsa\b")


def cuda_unavailable_cpu_build(ent, text):
    """torch reports no CUDA and the text says how it was installed: conda's solver picked a CPU build, PyPI's torch
    for Windows (or Linux on ARM64) is the CPU build, uv/pip took the default index.  The fix is that installer's
    way to a CUDA build, for the CUDA the text's driver runs when nvidia-smi's header is in it."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDA_FALSE, tail)
    if m is None or ent.platform.get("macos"):
        return None
    tv = ent.versions.get("torch") or ent.packages.get("torch") or ""
    if "+cu" in tv or "+rocm" in tv:
        return None  # a CUDA (or ROCm) build that cannot start: the driver's or the device's question, not the build's
    driver_cuda = ent.versions.get("driver_cuda")
    if re.search(r"(?i)\bAMD\b|Radeon|\bROCm|\bgfx\d{3,4}|\bHIP\b", tail):
        return None  # an AMD GPU: the ROCm build's question (torch_build rules on the AMD machine)
    conda = _CONDA_INSTALL.search(tail) is not None
    windows = bool(ent.platform.get("windows")) or re.search(r"(?i)\bwindows\b|\bwin(?:10|11)\b", tail) is not None
    arm = _ARM64_LINUX.search(tail) is not None and not windows
    said_cpu = re.search(r"(?i)\bcpu\b[^\n]{0,12}(?:version|build|wheel)|\+cpu\b", tail) is not None
    # the newest build the release table has for a CUDA that driver runs (the PyTorch index has cu118, cu121, cu124,
    # cu126, ...: not every CUDA minor), for this OS and CPU
    best = torch_latest_release_for(driver_cuda=driver_cuda, os_name="Windows" if windows else "Linux",
                                    machine="aarch64" if arm else None) if driver_cuda else None
    tag = best["tag"] if best else None
    index = best["index_url"] if best else "https://download.pytorch.org/whl/cu126"
    if not (conda or windows or arm or said_cpu or tag):
        return None  # nothing says how torch was installed: the catalogue's sentence sends to the doctor
    if not (conda or said_cpu or tag) and re.search(r"(?i)\b(?:nvidia )?drivers?\b", tail):
        return None  # the text itself points at the driver (a bundled CUDA torch that cannot start): not the wheel
    if conda:
        where = ("conda's solver picked a CPU build of pytorch (conda-forge publishes CPU and CUDA builds of the same "
                 "version; without a CUDA on the machine or a pin it may take the CPU one)")
        fix = ("Ask conda for a CUDA build: `conda install -c conda-forge pytorch-gpu` (or pin the build string, "
               "`\"pytorch=*=cuda*\"`), with `cuda-version` at most the CUDA your driver runs (nvidia-smi); check that "
               "`python -c \"import torch; print(torch.version.cuda)\"` prints a version, not None.")
    else:
        where = ("PyPI's torch for Windows is the CPU build" if windows else
                 "PyPI's torch for Linux on ARM64 (aarch64) is the CPU build" if arm else
                 "the torch installed is a CPU build (torch.version.cuda is None), or the driver cannot run its CUDA")
        fix = ("Install a CUDA build from the PyTorch index, for a CUDA your driver runs ("
               + (f"{tag}, the newest build the driver's CUDA {driver_cuda} runs" if tag else
                  "nvidia-smi's CUDA Version says which: e.g. cu126 for a 12.x driver") + "): `pip install --force-reinstall torch "
               f"--index-url {index}` (torchvision/torchaudio from the same index; uv: `uv pip install torch "
               "--torch-backend=auto`). Check with `python -c \"import torch; print(torch.version.cuda)\"`: None is "
               "the CPU build; a version there with is_available() False is the driver (run `torch-envcheck`).")
    sig = _sig("cuda-unavailable-cpu-build", "torch-build", "torch sees no CUDA: " + where.split(" (")[0], 56,
               "torch.cuda.is_available() is False: " + where + ".",
               fix=fix, causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=(SOURCES["torch_index"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# torch's device-string parser lists the device types the installed build knows: a type outside that list comes from
# a backend package (an out-of-tree device) that is not installed or not imported, or from a newer torch
_DEVICE_TYPES = re.compile(r"Expected one of (?P<known>[a-z_0-9, ]{10,400}) device type at start of device string: "
                           r"(?P<dev>[A-Za-z_][\w]{0,30})")
_DEVICE_BACKENDS = {
    "dml": ("torch-directml", "`pip install torch-directml` (Windows or WSL) and use `torch_directml.device()` instead of "
            "the string 'dml' (the 'dml' string belonged to the old pytorch-directml 1.8 build, which replaced torch)"),
    "npu": ("torch-npu", "`pip install torch-npu` of the version paired with your torch (Ascend's table) and `import "
            "torch_npu` before creating the device"),
    "musa": ("torch_musa", "install torch_musa (Moore Threads) for your torch and `import torch_musa` first"),
    "mps": ("torch", "install torch 1.12 or newer on a Mac with Apple silicon (macOS 12.3+), the build that knows 'mps'"),
    "xpu": ("torch", "install torch's XPU build (`pip install torch --index-url https://download.pytorch.org/whl/xpu`, "
            "torch 2.5 or newer) or, before 2.5, intel-extension-for-pytorch imported first"),
}


def device_type_unknown(ent, text):
    m, at = last_in_tail(_DEVICE_TYPES, text, "device type at start of device string")
    if m is None:
        return None
    dev = m.group("dev")
    known = {k.strip() for k in m.group("known").split(",")}
    if dev in known:
        return None
    pkg, how = _DEVICE_BACKENDS.get(dev.lower(), (None, None))
    caps = {"dev": dev, "package": pkg}
    sig = _sig("device-type-not-in-this-torch", "torch-build",
               "the installed torch knows no device type '{dev}'", 70,
               "torch parses a device string against the device types its build knows (the list the message prints); "
               "'{dev}' is not among them: it is provided by a backend package" + (" ({package})" if pkg else "") +
               " that is not installed or not imported, or by another build of torch.",
               fix=("Install the backend that provides '{dev}': " + how + "." if how else
                    "Install and import the package that registers the '{dev}' device for this torch (its install page "
                    "names the torch versions it pairs with), or use one of the device types listed."),
               causes=(("wrong-build", "the installed build has no support for that device", ("TE203",)),),
               areas=("torch",),
               sources=({"url": "https://pytorch.org/docs/stable/tensor_attributes.html#torch.device",
                         "what": "torch.device: the device type names a build knows"},))
    return _match(sig, text, at, caps)


# a compiled package's own message that its binary has no CUDA ("This CTranslate2 package was not compiled with CUDA
# support"): the package's CPU build, whatever torch is
_PKG_WITHOUT_CUDA = re.compile(r"(?:This )?(?P<pkg>[A-Z][\w-]{1,40}) (?:package|library|build|installation) (?:was|is) "
                               r"not (?:compiled|built) with CUDA(?: support| enabled)?|"
                               # a package that says which build to install instead ("Device API gpu is not enabled.
                               # Please install the cuda version of dgl.")
                               r"[Pp]lease install the (?:cuda|CUDA|GPU|gpu) (?:version|build|variant) of (?P<pkg2>[A-Za-z][\w-]{1,40})")


def package_without_cuda(ent, text):
    m, at = last_in_tail(_PKG_WITHOUT_CUDA, text)
    if m is None or (m.group("pkg") or m.group("pkg2")).lower() in ("torch", "pytorch", "this"):
        return None
    pkg = (m.group("pkg") or m.group("pkg2")).lower()
    index = compiled_modules.prebuilt_index(pkg)
    sig = _sig("package-cpu-build", "torch-build", "the installed {package} is a build without CUDA", 72,
               "{package} says its own binary was compiled without CUDA: the wheel installed is its CPU build (on "
               "some platforms the only one its index offers).",
               fix="Install {package}'s CUDA build for your platform and CUDA (" + (
                   "`pip install " + pkg + " -f " + index["url"].format(torch="<TORCH>", torch_mm="<TORCH>",
                                                                      cu="<CUDA>") +
                   "` with torch's version for <TORCH> and its CUDA tag, e.g. cu121, for <CUDA>, as its install page "
                   "says" if index else "its install page names the wheel or index") + "; on Windows the CUDA DLLs it "
                   "loads must be on PATH), and check the platform is one it publishes CUDA builds for.",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=(({"url": index["source"], "what": f"{pkg}'s CUDA builds per torch and CUDA"},) if index else
                        ()) + (SOURCES["torch_index"],))
    return _match(sig, text, at, {"package": pkg})


# pip's own usage errors (pip/_internal/cli/req_command.py, cli/parser.py): the command line named nothing to install,
# an option pip does not have, or a requirement it cannot parse (a space inside it, a stray quote)
_PIP_USAGE = re.compile(r"You must give at least one requirement to (?P<verb>install|download|wheel)|"
                        r"(?:error: )?no such option: (?P<opt>-{1,2}[\w-]{1,40})|ERROR: Invalid requirement: ['\"]?(?P<req>[^\n'\"]{1,120})")


# conda's and mamba's own usage errors (argparse: "conda-script.py: error: unrecognized arguments: nvidia"): a
# channel name left without its -c is the commonest ("-c pytorch nvidia")
_CONDA_USAGE = re.compile(r"(?P<tool>conda(?:-script\.py)?|mamba|micromamba)(?:\.exe)?: error: (?:unrecognized arguments: "
                          r"(?P<args>[^\n]{1,120})|argument (?P<arg>[^\n:]{1,60}): (?P<why>[^\n]{1,120}))")
_CHANNEL_NAMES = frozenset({"nvidia", "pytorch", "conda-forge", "defaults", "pytorch-nightly", "bioconda", "anaconda"})


def conda_usage_error(ent, text):
    """conda (argparse) refusing its command line: the command's, not the environment's; an unrecognised word that
    is a channel's name is a channel given without its own -c."""
    m, at = last_in_tail(_CONDA_USAGE, text, ": error: ")
    if m is None:
        return None
    words = (m.group("args") or "").split()
    channels = [w for w in words if w.strip("'\"") in _CHANNEL_NAMES]
    what = ("{tool} did not recognise {args}: each channel needs its own -c (`-c pytorch -c nvidia`, not "
            "`-c pytorch nvidia`)" if channels else
            "{tool} refused its command line ({args}{arg}{why}): a mistyped or misplaced option")
    sig = _sig("conda-usage-error", "not-environment", "{tool} refused the command line, not the environment", 80,
               what + ". Nothing is wrong with the installation.",
               look_at="Correct the command and run it again (one `-c` before each channel name; the command's "
                       "`--help` lists its options); copy an install page's command whole.",
               sources=({"url": "https://docs.conda.io/projects/conda/en/stable/commands/install.html",
                         "what": "conda install: -c/--channel takes one channel per flag"},))
    return _match(sig, text, at, {"tool": m.group("tool").replace("-script.py", ""), "args": m.group("args"),
                                  "arg": m.group("arg"), "why": (": " + m.group("why")) if m.group("why") else None})


# TorchSharp's own check (dotnet/TorchSharp src/TorchSharp/Torch.cs): the .NET program references TorchSharp but no
# libtorch package for its backend and platform
_TORCHSHARP_NO_LIBTORCH = re.compile(r"uses TorchSharp but doesn't contain a reference to (?P<pkg>libtorch-[\w.-]{3,60}?)"
                                     r",? Version=(?P<ver>[\d.]{1,20}\d)")


def torchsharp_without_libtorch(ent, text):
    m, at = last_in_tail(_TORCHSHARP_NO_LIBTORCH, text, "TorchSharp")
    if m is None:
        return None
    pkg = m.group("pkg")
    cuda = "cuda" in pkg
    sig = _sig("torchsharp-without-libtorch-package", "torch-build",
               "the .NET project references TorchSharp but not {pkg} ({ver}), the native libtorch it needs", 86,
               "TorchSharp is the .NET binding; the native libtorch comes in separate NuGet packages per backend and "
               "platform, and the project references none for " + ("CUDA" if cuda else "the CPU") + " on this platform.",
               fix="Add the package to the project: `dotnet add package {pkg} --version {ver}` (or one of TorchSharp's "
                   "combination packages: TorchSharp-cpu, TorchSharp-cuda-windows, TorchSharp-cuda-linux, of the same "
                   "version as TorchSharp)" + ("; the CUDA package also needs an NVIDIA driver for its CUDA." if cuda
                                               else "."),
               areas=("torch",), sources=({"url": "https://github.com/dotnet/TorchSharp/blob/main/src/TorchSharp/Torch.cs",
                                           "what": "TorchSharp's check for a referenced libtorch package"},))
    return _match(sig, text, at, {"pkg": pkg, "ver": m.group("ver")})


# torch answering both ways in one text: one run where CUDA works, one where the same program's torch has none
_CUDA_YES = re.compile(r"is_available\(\)[^\n]{0,40}?\bTrue\b|is_available\(\)\s{0,8}(?:\n[ \t]{0,8}(?:Out\[\d+\]: )?)True\b|"
                       # a printed check whose output follows a few lines below ("print(torch.cuda.is_available())" ...
                       # "True")
                       r"print\(torch\.cuda\.is_available\(\)\)[^\n]{0,200}\n(?:[^\n]{0,120}\n){0,4}[ \t\"']{0,4}True\b|"
                       r"(?:Is )?CUDA(?: is)? available:? ?(?:True|Yes)\b")
_CUDA_NO = re.compile(r"User provided device_type of 'cuda', but CUDA is not available|Torch not compiled with CUDA enabled|"
                      r"GPU (?:is )?not (?:recognized|detected) by (?:torch|pytorch|PyTorch)|"
                      r"(?:Is )?CUDA(?: is)? available:? ?(?:False|No)\b|is_available\(\)\s{0,8}(?:\n[ \t]{0,8}(?:Out\[\d+\]: )?)False\b")


def cuda_available_in_another_run(ent, text):
    """One text where torch reports CUDA available and another run of the same work where it has none: two Python
    environments (a venv the program or its launcher uses, another interpreter on PATH), of which only the tested one
    has torch's CUDA build. The fix is in the environment the program runs, found by asking it."""
    tail = text[-CONTEXT_TAIL:]
    if "True" not in tail and "Yes" not in tail:
        return None
    yes, no = last_match(_CUDA_YES, tail), last_match(_CUDA_NO, tail)
    if yes is None or no is None:
        return None
    sig = _sig("cuda-available-in-another-environment", "env",
               "CUDA works in one run and not in the other: two Python environments", 74,
               "The text shows torch with CUDA available in one run and without it in another. One machine cannot "
               "do both with one torch: the program (or the tool that launches it: its venv, its embedded Python, "
               "its settings) runs another interpreter than the one tested, and that one has a torch without CUDA.",
               fix="From the program's own environment print which Python and torch it runs: add `import sys, torch; "
                   "print(sys.executable, torch.__version__, torch.version.cuda)` at its start (or run its venv's python: "
                   "`venv/bin/python` / `venv\\Scripts\\python.exe`). Point the tool at the environment that works "
                   "(its venv setting), or install torch's CUDA build into the one it uses with that python's own pip "
                   "(`<that python> -m pip install torch --index-url https://download.pytorch.org/whl/cuXYZ`).",
               causes=(("two-envs", "the program runs another Python environment than the one tested", ()),),
               areas=("python", "torch"), sources=({"url": "https://docs.python.org/3/library/venv.html",
                                                     "what": "each virtual environment has its own interpreter and packages"},))
    return _match(sig, text, len(text) - len(tail) + no.start(), {})


# Python's own words for a module it cannot find, for torch itself (not torch.something)
_NO_TORCH = re.compile(r"No module named ['\"`]?torch['\"`]?(?![\w.])")


def torch_not_in_this_python(ent, text):
    """"No module named 'torch'" outside a build: the interpreter that runs the code has no torch (it was installed
    into another Python, or not at all); the fix is that interpreter's own pip. Inside pip's isolated build stage it is
    build isolation (toolchain.build_isolation_without_torch)."""
    m, at = last_in_tail(_NO_TORCH, text, "No module named")
    if m is None:
        return None
    sig = _sig("torch-not-installed-in-this-python", "torch-build",
               "this Python has no torch: it was installed into another interpreter, or not at all", 66,
               "The interpreter that ran the code cannot import torch. Either torch was never installed for it, or "
               "pip installed it into another Python (another venv or conda environment, the system Python, a tool's "
               "embedded Python): `pip` and `python` on PATH are not always the same installation.",
               fix="Install torch with that interpreter's own pip: `python -m pip install torch --index-url "
                   "https://download.pytorch.org/whl/cu128` (the cuXYZ your driver supports; `whl/cpu` without an NVIDIA "
                   "GPU), run with the same `python` that runs the program (check `python -c \"import sys; "
                   "print(sys.executable)\"`), or activate the environment where torch is installed.",
               causes=(("two-envs", "pip installs into another Python than the one that runs the code", ()),),
               areas=("python", "torch"), sources=(SOURCES["torch_index"],))
    return _match(sig, text, at, {})


def pip_usage_error(ent, text):
    """pip refusing its command line is the command's, not the environment's: say what pip read, install nothing."""
    m, at = last_in_tail(_PIP_USAGE, text)
    if m is None or (m.group("opt") and not re.search(r"\bpip3?\b", text[-CONTEXT_TAIL:])):
        return None  # optparse's words: pip's only when the text is pip's
    if m.group("verb"):
        what = ("pip was given no requirement: the command ends before the package (or the path, `.` / `./` when "
                "installing the folder you are in, as a project's install instructions write it)")
    elif m.group("opt"):
        what = "pip has no option {opt}: a mistyped flag, or one another tool (conda, uv) or a newer/older pip has"
    else:
        what = ("pip cannot parse the requirement {req}: a space inside it, a stray quote, or a version written the "
                "way conda writes it (pip wants `name==1.2`, an index with --index-url, a build tag like +cu121 "
                "glued to the version)")
    sig = _sig("pip-usage-error", "not-environment", "pip refused the command line, not the environment", 80,
               what + ". Nothing is wrong with the installation.",
               look_at="Correct the command and run it again (`pip help install` lists the options); copy the "
                       "project's install command whole, including a trailing `.` or `./`.",
               causes=(), areas=(), sources=({"url": "https://pip.pypa.io/en/stable/cli/pip_install/",
                                              "what": "pip install: its arguments and options"},))
    return _match(sig, text, at, {"opt": m.group("opt"), "req": m.group("req")})


# torch's own assertion for a backend its build lacks (torch/xpu/__init__.py, torch/mtia/__init__.py): the CUDA one
# is the catalogue's; Intel GPUs (XPU) have their own wheels on the PyTorch index since torch 2.5
_NOT_COMPILED_WITH = re.compile(r"Torch not compiled with (?P<backend>XPU|MTIA) enabled")


def torch_without_backend(ent, text):
    m, at = last_in_tail(_NOT_COMPILED_WITH, text, "Torch not compiled with")
    if m is None:
        return None
    if m.group("backend") == "MTIA":
        return None  # Meta's in-house accelerator: no public build to name
    sig = _sig("torch-not-compiled-with-xpu", "torch-build", "the installed torch has no XPU (Intel GPU) support", 86,
               "The program asked for the 'xpu' device (an Intel Arc / Data Center GPU), and the installed torch is a "
               "build without XPU: the CPU or CUDA wheel. Intel GPUs are served by torch's XPU builds (torch 2.5 and "
               "newer, Linux and Windows) from their own index, or by Intel's extension (IPEX) on older torch.",
               fix="Replace torch with its XPU build: `pip uninstall -y torch torchvision torchaudio` then `pip install "
                   "torch torchvision torchaudio --index-url https://download.pytorch.org/whl/xpu` (with Intel's GPU "
                   "driver installed; check `python -c \"import torch; print(torch.xpu.is_available())\"`); an "
                   "application with its own installer (e.g. --use-ipex / --use-xpu with --reinstall) must be told to "
                   "install that build.",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=({"url": "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html",
                         "what": "torch on Intel GPUs: the XPU wheels and their index"},))
    return _match(sig, text, at, {})


# PyPI's torch 0.1.2 (2017) is an sdist whose setup.py only fails: pip picks it where no wheel of any later release
# fits (a 32-bit or unsupported Python, an OS or CPU without wheels, --no-binary torch)
_TORCH_PLACEHOLDER = re.compile(r"torch-0\.1\.2(?:\.post\d)?\.tar\.gz|torch==0\.1\.2(?:\.post\d)?\b|"
                                # the placeholder's own setup.py failing, its frame quoted
                                r"name=[\"']torch[\"'], version=[\"']0\.1\.2(?:\.post\d)?[\"']")


def torch_placeholder_sdist(ent, text):
    m, at = last_in_tail(_TORCH_PLACEHOLDER, text, "0.1.2")
    if m is None:
        return None
    if _MUSL.search(text[-CONTEXT_TAIL:]):
        return _match(_musl_signature("torch-placeholder-sdist-musl"), text, at, {"requirement": "torch"})
    sig = _sig("torch-placeholder-sdist", "torch-build", "pip chose torch 0.1.2, PyPI's placeholder source package", 87,
               "torch 0.1.2 on PyPI is a source package from 2017 that cannot build; pip falls back to it when no wheel "
               "of a real release fits this interpreter and platform (a 32-bit Python, a Python newer or older than "
               "the releases support, an OS or CPU without wheels) or when --no-binary forbids wheels.",
               fix="Drop --no-binary for torch and use a 64-bit Python that a torch release supports on a platform with "
                   "wheels (Linux x86_64/aarch64, Windows x86_64, macOS arm64): check `python -VV`; on other platforms "
                   "(32-bit ARM, FPGA boards) torch must be built from source.",
               causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
               areas=("platform",), sources=({"url": "https://pypi.org/project/torch/0.1.2.post2/",
                                              "what": "torch 0.1.2.post2: a 2017 source-only release"},))
    return _match(sig, text, at, {})


# PyPI's project "pytorch" (1.0.2, 2019) is a source package whose setup.py only raises an Exception naming the real
# project, "torch" (https://pypi.org/project/pytorch/): pip's own lines for it, or that message
_PYTORCH_NAME = re.compile(r"Collecting pytorch(?![\w-])|pytorch-1\.0\.2\.tar\.gz|(?:Building wheel|Running setup\.py "
                           r"install|Failed to build|Running setup\.py clean) for pytorch\b|Failed to build pytorch\b|"
                           r"You tried to install \W?pytorch\W?\. The package named for PyTorch is \W?torch")


def pytorch_name_on_pypi(ent, text):
    m, at = last_in_tail(_PYTORCH_NAME, text, "pytorch")
    if m is None:
        return None
    sig = _sig("pytorch-name-on-pypi", "torch-build", "pip was asked for 'pytorch', PyPI's placeholder: the package is torch",
               88,
               "On PyPI, PyTorch is the project named torch; the project named pytorch is a 2019 placeholder (1.0.2, a "
               "source package of under a kilobyte) whose setup only fails, telling to install torch. An IDE's package "
               "search or a requirements line asked for the wrong name.",
               fix="Install the package named torch: `python -m pip uninstall -y pytorch` (if anything was left), then "
                   "`python -m pip install torch` (the command for your CUDA from pytorch.org/get-started); in a "
                   "requirements file write torch, not pytorch.",
               causes=(), areas=("torch",), sources=({"url": "https://pypi.org/project/pytorch/",
                                                      "what": "pytorch 1.0.2 on PyPI: a placeholder that names torch"},))
    return _match(sig, text, at, {})


# conda's solver not finding PyTorch's package: its name on conda is pytorch (torch is pip's), and it comes from a
# channel the default ones are not: PyTorch's own channel until torch 2.5, conda-forge since
# (pytorch/pytorch#138506). conda 4.3 wrote "Package missing in current <subdir> channels:", later conda
# "PackagesNotFoundError: The following packages are not available from current channels:"
_CONDA_NOT_FOUND = re.compile(r"(?:Package missing in current [\w-]{2,20} channels|The following packages are not "
                              r"available from current channels|ResolvePackageNotFound):?\s{0,4}(?:\n\s{0,8})?-\s{0,2}"
                              r"(?P<pkg>pytorch|torch)(?P<spec>[=<>!~][^\s]{0,60})?(?![\w-])")


def conda_finds_no_pytorch(ent, text):
    m, at = last_in_tail(_CONDA_NOT_FOUND, text, "channels")
    if m is None:
        m, at = last_in_tail(_CONDA_NOT_FOUND, text, "ResolvePackageNotFound")
    if m is None:
        return None
    pkg = m.group("pkg")
    name = ("conda's package is named pytorch (torch is the pip name); " if pkg == "torch" else "")
    sig = _sig("conda-finds-no-pytorch", "torch-build", "conda finds no {pkg} in the channels it searches", 83,
               "conda searched only the channels it was given (the defaults) and none has " + "{pkg}" + ": " + name +
               "PyTorch's conda builds came from PyTorch's own channel (-c pytorch) up to torch 2.5 and come from "
               "conda-forge since; a pinned build string from another channel (or a personal one) cannot be found "
               "either.",
               fix="Name the channel that has it: `conda install -c conda-forge pytorch` (with `cuda-version` for a CUDA "
                   "build), or for torch 2.5 and older `conda install pytorch -c pytorch`; or install with pip from "
                   "PyTorch's index. For an environment file that pins an old build string, drop the pin.",
               causes=(), areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/issues/138506",
                         "what": "PyTorch's conda channel deprecated after 2.5; conda-forge carries pytorch"},))
    return _match(sig, text, at, {"pkg": pkg})


# conda's EnvironmentNameNotFound ("Could not find conda environment: <name>"): a script that activates a named
# environment which does not exist here, so what follows ran in another environment (base, or none)
_CONDA_ENV_MISSING = re.compile(r"Could not find conda environment: (?P<env>[\w.+-]{1,80})")


def conda_environment_missing(ent, text):
    m, at = last_in_tail(_CONDA_ENV_MISSING, text, "Could not find conda environment")
    if m is None:
        return None
    sig = _sig("conda-environment-missing", "env", "the conda environment {env} does not exist here", 76,
               "conda could not activate {env}: no environment of that name exists for this conda, so the commands "
               "after it ran in whatever environment was active (base, or the system Python), with other packages "
               "than the project expects; errors that follow come from there.",
               fix="`conda env list` shows the environments that exist: create the one the script names (`conda create "
                   "-n {env} python=3.X` or `conda env create -f environment.yml`, then install the project's "
                   "requirements into it) or change the script to `conda activate <your environment>`, and run again.",
               causes=(), areas=("platform",), sources=({"url": "https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html",
                                                         "what": "conda: creating and activating environments"},))
    return _match(sig, text, at, {"env": m.group("env")})


# Python's own words for an import from a namespace package: a folder of that name without __init__.py found on
# sys.path before (or instead of) the installed package, usually the current directory or a project folder
_UNKNOWN_LOCATION = re.compile(r"cannot import name '(?P<name>[\w.]{1,80})' from '(?P<mod>[\w.]{1,80})' \(unknown location\)")


def namespace_package_shadow(ent, text):
    m, at = last_in_tail(_UNKNOWN_LOCATION, text, "(unknown location)")
    if m is None:
        return None
    caps = {"name": m.group("name"), "mod": m.group("mod"), "top": m.group("mod").split(".")[0]}
    sig = _sig("namespace-package-shadow", "env", "'{mod}' is a bare folder on sys.path, not the installed package", 80,
               "\"(unknown location)\" is Python's word for a namespace package: a folder named {top} without "
               "__init__.py was found on sys.path (the current directory, the project's folder, an unpacked source) "
               "instead of the installed {top}, or {top} is not installed in this interpreter at all.",
               fix="Check `python -c \"import {top}; print({top}.__path__)\"`: it shows the folder that is imported. Rename "
                   "or move that folder (or run from another directory); if it is the only {top}, install the package in "
                   "this interpreter (`python -m pip install` its distribution, e.g. `pip show` names it) or reinstall it.",
               causes=(), areas=("platform",), sources=({"url": "https://peps.python.org/pep-0420/",
                                                         "what": "PEP 420: namespace packages (folders without __init__.py)"},))
    return _match(sig, text, at, caps)


# A library refusing the path an environment variable gives it ("NUMBA_CUDA_DRIVER /usr/lib/x86_64-linux-gnu/libcuda.so
# is not a valid file path", numba/cuda/cudadrv/libs.py): the file does not exist for the process that reads it
_ENV_PATH_INVALID = re.compile(r"\b(?P<var>[A-Z][A-Z0-9]{1,20}(?:_[A-Z0-9]{1,20}){1,5})\s{0,2}(?:=\s{0,2})?['\"]?"
                               r"(?P<path>(?:/|~/|[A-Za-z]:\\)[^\s'\"]{1,300})['\"]? is not a valid (?:file ?)?path")


def env_var_path_not_found(ent, text):
    m, at = last_in_tail(_ENV_PATH_INVALID, text, "is not a valid")
    if m is None:
        return None
    caps = {"var": m.group("var"), "path": m.group("path")}
    sig = _sig("env-var-path-not-found", "env", "{var} names a file this process cannot find ({path})", 82,
               "The library reads the file named by {var} and, in the process that ran, there is no such file: the "
               "variable holds a path of another machine or environment, a typo, or the process sees another file "
               "system (an IDE or notebook started with its own environment, a snap/flatpak sandbox, a container) than "
               "the shell where the file exists.",
               fix="Check the path from the same process that fails (`python -c \"import os; print(os.environ.get('{var}'), "
                   "os.path.exists(os.environ.get('{var}', '')))\"` run the way the program runs: the IDE's run "
                   "configuration, the notebook's kernel); point {var} at a file that exists there, or unset it so the "
                   "library searches on its own. In PyCharm or VS Code set it in the run configuration, not only in a "
                   "shell profile.",
               causes=(), areas=("environment",),
               sources=({"url": "https://numba.readthedocs.io/en/stable/reference/envvars.html",
                         "what": "numba's environment variables: NUMBA_CUDA_DRIVER names the driver library to load"},
                        {"url": "https://github.com/numba/numba/issues/6909",
                         "what": "NUMBA_CUDA_DRIVER 'is not a valid file path' where the IDE's process did not see the file"}))
    return _match(sig, text, at, caps)


# conda verifying a package it extracted into its cache (pkgs/): a file of the package's manifest is missing
_CONDA_CORRUPT = re.compile(r"CondaVerificationError: The package for (?P<pkg>[\w.-]{1,80}) located at (?P<path>\S{1,400})"
                            r"\s{1,4}appears to be corrupted")


def conda_package_cache_corrupt(ent, text):
    m, at = last_in_tail(_CONDA_CORRUPT, text, "CondaVerificationError")
    if m is None:
        return None
    sig = _sig("conda-package-cache-corrupt", "torch-build", "conda's cached {pkg} package is incomplete", 84,
               "conda extracts each package into its cache (pkgs/) and verifies it against the package's manifest before "
               "linking it into an environment; files of {pkg} are missing there (a download or extraction that was "
               "interrupted, a cache shared between users, or files removed by hand), so every install that needs it "
               "fails the same way.",
               fix="Remove the broken copy from conda's cache and install again: `conda clean --packages --tarballs` "
                   "(or delete that folder under pkgs/), then rerun the install; conda downloads the package anew.",
               causes=(), areas=("torch",),
               sources=({"url": "https://docs.conda.io/projects/conda/en/latest/commands/clean.html",
                         "what": "conda clean: remove unused packages and tarballs from the package cache"},))
    return _match(sig, text, at, {"pkg": m.group("pkg")})


# conda failing to download a channel's file: "CondaHTTPError: HTTP 403 FORBIDDEN for url <https://conda.anaconda.org/
# pytorch/...>"; the status says whose the failure is
_CONDA_HTTP = re.compile(r"CondaHTTPError: HTTP (?P<code>\d{3})(?: [A-Z ]{2,40})? for url <?(?P<url>https?://[^\s>]{4,400})")


def conda_channel_http_error(ent, text):
    m, at = last_in_tail(_CONDA_HTTP, text, "CondaHTTPError")
    if m is None:
        return None
    code, url = m.group("code"), m.group("url")
    pytorch = re.search(r"conda\.anaconda\.org/pytorch(?:-nightly)?/", url) is not None
    if code == "000":
        why = ("no HTTP answer at all: the network, a proxy or an SSL inspection in between (conda's proxy_servers and "
               "ssl_verify settings)")
        fix = ("Check the network path from this machine: `conda config --show proxy_servers ssl_verify`, set the proxy "
               "your network needs (or HTTPS_PROXY), and retry.")
    elif pytorch:
        why = ("a file of PyTorch's own Anaconda channel, which stopped publishing with torch 2.5 and whose files may be "
               "unavailable (a 403/404 there is the channel, not this machine)")
        fix = ("Install torch without PyTorch's channel: from conda-forge (`conda install -c conda-forge pytorch` "
               "with the cuda-version you need) or with pip from PyTorch's index (`pip install torch --index-url "
               "https://download.pytorch.org/whl/cu126`, the CUDA tag for your driver); retry later if a file was "
               "only briefly unavailable.")
    else:
        why = "the channel's server refusing or missing the file (status " + code + "): an outage, a moved or removed file"
        fix = ("Retry later; if the file is gone, use another channel that has the package (conda-forge), or install "
               "it with pip.")
    sig = _sig("conda-channel-http-error", "torch-build", "conda could not download from the channel (HTTP {code})", 82,
               "conda's download of a package file failed with HTTP {code}: " + why + ".", fix=fix,
               causes=(), areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/issues/138506",
                         "what": "PyTorch's announcement: its official Anaconda channel is deprecated (no builds after "
                                 "2.5); conda-forge and pip are the ways to install"},))
    return _match(sig, text, at, {"code": code})


# torch's Windows wheels of some releases require MKL and Intel OpenMP (platform_system == "Windows"), which Intel
# publishes for x86-64 only: on Windows ARM64 pip finds no version of them ("from versions: none") and stops
_X64_DEP = re.compile(r"Could not find a version that satisfies the requirement (?P<dep>mkl|intel-openmp|tbb|intel-cmplr-lib-\w{2,10})"
                      r"[^\n]{0,80}?platform_system\s{0,2}==\s{0,2}\W{0,2}Windows\W{0,2}\s{0,2}\(from (?P<from>torch|torchvision|torchaudio)\)")
_WIN_ARM64_ISSUE = {"url": "https://github.com/pytorch/pytorch/issues/160898",
                    "what": "torch's win_arm64 nightly requiring intel-openmp, which has no ARM64 build"}


def x64_dependency_on_windows_arm64(ent, text):
    m, at = last_in_tail(_X64_DEP, text, "platform_system")
    if m is None:
        return None
    sig = _sig("x64-dependency-on-windows-arm64", "torch-build",
               "{from}'s Windows requirement {dep} has no build for this machine (Windows on ARM64)", 82,
               "{from}'s wheel lists {dep} as a requirement on Windows, and {dep} is published for x86-64 only: on Windows "
               "ARM64 pip finds no version of it and stops before installing anything (on an x86-64 machine this is an "
               "emulated or 32-bit Python instead).",
               fix="Install {from} without its dependencies and add the others yourself: `pip install --no-deps {from}` "
                   "(the win_arm64 wheel), then `pip install filelock typing-extensions sympy networkx jinja2 fsspec`; or "
                   "use a release whose win_arm64 wheel no longer requires {dep}. Check `python -c \"import platform; "
                   "print(platform.machine())\"` says ARM64 (a native ARM64 Python).",
               areas=("torch",), sources=(_WIN_ARM64_ISSUE,))
    return _match(sig, text, at, {"dep": m.group("dep"), "from": m.group("from")})
