"""The dependency half of the fix checker: what an environment has installed and requires, and what
a pip command would leave, judged with `packaging` against the Requires-Dist of every installed
distribution the snapshot records.

    Env.of(snapshot)            the snapshot's environment: installed versions, Requires-Dist lines
                                (packages.requires; TensorFlow's and-cuda pins and numpy/protobuf
                                requirements from its own facts for older snapshots), extras in use
    Env.fresh(snapshot)         an empty environment on the same machine (a new venv)
    env.pip(argv)               the environment after `pip ARGV` (install / uninstall), as pip does it:
                                the named distributions at the versions asked for, and, unless
                                --no-deps, their requirements pulled to a version that satisfies them
                                (pip's resolver does not look at the requirements of what is already
                                installed, which is how one framework's pins replace the other's)
    env.unsatisfied()           {(dist, requirement line)} that the installed versions do not meet
    regressions(before, after)  what the command broke: satisfied before, unsatisfied after

What a command installs is known from its own words (torch==2.5.1, the index's local label), from
the knowledge tables (a torch build's cuDNN pin, TensorFlow's and-cuda pins per release) and, for a
reinstall of the installed version, from the recorded metadata.  A version pip would choose without
an exact pin is unknown, and a requirement on an unknown version is not judged: the checker reports
only what it can show.  Markers are evaluated for the snapshot's platform and Python.
"""

from __future__ import annotations

import functools
import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.facts import core as F
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.knowledge import tensorflow as tk

UNKNOWN = "?"  # a version pip picks that the command does not name
_WHEEL = re.compile(r"(?:^|/)([A-Za-z0-9_.]+)-([0-9][^-/]*)-[^/]*\.whl$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", str(name)).lower()


def available() -> bool:
    """Whether `packaging` can be imported: without it (a broken environment, a source checkout) the
    requirements are not judged, and nothing is claimed about them."""
    try:
        import packaging.requirements  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _req(line: str):
    from packaging.requirements import InvalidRequirement, Requirement  # noqa: PLC0415
    try:
        return Requirement(line)
    except InvalidRequirement:
        return None


def _satisfies(version: str, spec) -> bool | None:
    from packaging.version import InvalidVersion, Version  # noqa: PLC0415
    try:
        return spec.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return None


def marker_env(s) -> dict:
    """The marker environment of the snapshot's interpreter (PEP 508), as far as it is recorded."""
    system = F.system(s) or "Linux"
    py = F.python_version(s) or ""
    mm = F.python_mm(s) or ""
    return {"python_version": mm, "python_full_version": py, "platform_system": system,
            "platform_machine": F.machine(s) or "", "sys_platform": {"Windows": "win32", "Darwin": "darwin"}.get(system, "linux"),
            "os_name": "nt" if system == "Windows" else "posix",
            "implementation_name": (F.python_implementation(s) or "CPython").lower(),
            "platform_python_implementation": F.python_implementation(s) or "CPython",
            "platform_release": "", "platform_version": "", "implementation_version": py, "extra": ""}


class Env:
    def __init__(self, s, versions_: dict, requires: dict, extras: dict):
        self.snapshot = s
        self.versions = dict(versions_)        # name -> version, None (absent), UNKNOWN
        self.requires = {k: list(v) for k, v in requires.items()}   # name -> Requires-Dist lines
        self.extras = {k: set(v) for k, v in extras.items()}        # name -> extras in use
        self.env = marker_env(s)

    # ------------------------------------------------------------------ building

    @classmethod
    def fresh(cls, s) -> "Env":
        return cls(s, {}, {}, {})

    @classmethod
    def of(cls, s) -> "Env":
        vers: dict = {}
        for name, v in F.installed_versions(s).items():
            vers[canonical(name)] = v
        tv = F.torch_version(s)
        if tv and F.torch_installed(s) is not False:
            vers.setdefault("torch", tv)
        for name in ("torchvision", "torchaudio", "triton"):
            v = F.package_version(s, name)
            if v:
                vers.setdefault(name, v)
        for name, v in F.nvidia_packages(s).items():
            vers.setdefault(canonical(name), v)
        for name, v in T.tf_distributions(s).items():
            vers.setdefault(canonical(name), v)
        for dep in ("numpy", "protobuf"):
            v = T.dependency_version(s, dep)
            if v:
                vers.setdefault(dep, v)
        requires = {canonical(r.name): list(r.requires) for r in F.requires_dist(s)}
        extras: dict = {}
        if T.tf_installed(s):
            dist = canonical(T.tf_distribution(s))
            if dist not in requires:
                # an older snapshot: TensorFlow's requirements as its own facts recorded them
                lines = [r["requirement"] for r in _tf_and_cuda_lines(s)]
                lines += [f"{dep}{r.specifier}" for dep in ("numpy", "protobuf") for r in T.requires(s, dep)
                          if r.distribution == T.tf_distribution(s) and r.applies is not False]
                requires[dist] = lines
            if T.uses_and_cuda(s):
                extras[dist] = {"and-cuda"}
        return cls(s, vers, requires, extras)

    def copy(self) -> "Env":
        return Env(self.snapshot, self.versions, self.requires, self.extras)

    # ------------------------------------------------------------------ judging

    def _applies(self, req, dist: str) -> bool:
        if req.marker is None:
            return True
        for extra in [""] + sorted(self.extras.get(dist, ())):
            try:
                if req.marker.evaluate(dict(self.env, extra=extra)):
                    return True
            except Exception:  # an undefined marker variable: not judged
                return False
        return False

    def _applies_with(self, req, extras) -> bool:
        if req.marker is None:
            return True
        try:
            return any(req.marker.evaluate(dict(self.env, extra=x)) for x in [""] + sorted(extras))
        except Exception:
            return False

    def unsatisfied(self) -> set:
        """{(dist, line, installed)} for every requirement of an installed distribution that the
        installed versions do not meet (a requirement on an UNKNOWN version is not judged)."""
        out = set()
        for dist, lines in self.requires.items():
            if self.versions.get(dist) in (None, UNKNOWN):
                continue  # not installed (any more), or not recorded: its requirements do not apply
            for line in lines:
                req = _req(line)
                if req is None or not self._applies(req, dist):
                    continue
                target = canonical(req.name)
                if target not in self.versions:
                    continue  # not recorded: unknown
                have = self.versions[target]
                if have == UNKNOWN:
                    continue
                if have is None:
                    out.add((dist, line, None))
                elif req.specifier and _satisfies(have, req.specifier) is False:
                    out.add((dist, line, have))
        return out

    # ------------------------------------------------------------------ pip

    def pip(self, argv) -> "Env":
        """The environment after `pip ARGV` (the words after `-m pip`)."""
        out = self.copy()
        argv = [str(a) for a in argv]
        if not argv:
            return out
        if argv[0] == "uninstall":
            for word in argv[1:]:
                if not word.startswith("-"):
                    out.versions[canonical(word)] = None
                    out.requires.pop(canonical(word), None)
            return out
        if argv[0] != "install":
            return out
        no_deps = "--no-deps" in argv
        force = "--force-reinstall" in argv or "--upgrade" in argv or "-U" in argv
        index = None
        specs, skip = [], False
        for i, word in enumerate(argv[1:], 1):
            if skip:
                skip = False
                continue
            if word in ("--index-url", "-i", "--extra-index-url", "--find-links", "-f", "-c", "--constraint"):
                if word in ("--index-url", "-i") and i + 1 < len(argv):
                    index = argv[i + 1]
                skip = True
                continue
            if word in ("-r", "--requirement"):
                skip = True  # a file's contents are not known here
                continue
            if word.startswith("-"):
                continue
            specs.append(word)
        label = _index_label(index)
        for spec in specs:
            out._install(spec, label, no_deps, force)
        return out

    def _install(self, spec: str, label: str | None, no_deps: bool, force: bool) -> None:
        wheel = _WHEEL.search(spec)
        if wheel:  # a wheel by URL or path: name-version from its file name
            name, version, extras, specifier = canonical(wheel.group(1)), wheel.group(2), set(), None
        else:
            req = _req(spec)
            if req is None:
                return
            name, extras, specifier = canonical(req.name), set(req.extras), req.specifier
            version = _exact(req.specifier)
        release = _wildcard_release(specifier) if not wheel else None
        if version and label and name in ("torch", "torchvision", "torchaudio") and "+" not in version:
            version = f"{version}+{label}"
        old = self.versions.get(name)
        if version is None:
            if old not in (None, UNKNOWN) and specifier is not None and _satisfies(old, specifier) and not force:
                version = old  # already satisfies the request: pip keeps it
            else:
                version = UNKNOWN
        same = old not in (None, UNKNOWN) and version not in (None, UNKNOWN) and \
            versions.public(old) == versions.public(version) and versions.local_label(old) == versions.local_label(version)
        reqs = self.requires.get(name) if same else _known_requires(
            self.snapshot, name, version if version != UNKNOWN else release, label)
        self.versions[name] = version
        if reqs is not None:
            self.requires[name] = list(reqs)
        else:
            self.requires.pop(name, None)  # what the new version requires is unknown
        if extras:
            self.extras.setdefault(name, set()).update(extras)
        if no_deps or not reqs:
            return
        for line in reqs:
            req = _req(line)
            # pip resolves the extras this command asks for (it records none: the environment's own
            # notion of an extra in use, self.extras, only judges what is installed)
            if req is None or not self._applies_with(req, extras):
                continue
            target = canonical(req.name)
            have = self.versions.get(target)
            if have not in (None, UNKNOWN) and not force and (not req.specifier or _satisfies(have, req.specifier)):
                continue
            pin = _exact(req.specifier)
            if have not in (None, UNKNOWN) and force and pin is None and _satisfies(have, req.specifier):
                self.versions[target] = UNKNOWN  # reinstalled at the newest version the range allows
                continue
            self.versions[target] = pin or UNKNOWN
            if target in self.requires and self.versions[target] != have:
                self.requires.pop(target)  # another version: its own requirements are unknown


def _tf_and_cuda_lines(s) -> list[dict]:
    out = []
    for r in T.and_cuda(s):
        text = f"{r.name}{r.specifier}; extra == \"and-cuda\""
        out.append({"requirement": text})
    return out


def _exact(specifier) -> str | None:
    """The version an `==X` specifier names exactly (no wildcard), else None."""
    specs = list(specifier or ())
    if len(specs) == 1 and specs[0].operator in ("==", "===") and not specs[0].version.endswith(".*"):
        return specs[0].version
    return None


def _wildcard_release(specifier) -> str | None:
    """The release an `==X.Y.*` specifier names ('2.18'), else None: its pins are the release's."""
    specs = list(specifier or ())
    if len(specs) == 1 and specs[0].operator == "==" and specs[0].version.endswith(".*"):
        return versions.release_key(specs[0].version[:-2])
    return None


def _index_label(url) -> str | None:
    """The PyTorch index a URL names (.../whl/cu130 -> 'cu130'), else None."""
    if not isinstance(url, str):
        return None
    m = re.search(r"/whl/([A-Za-z0-9.]+)/?$", url)
    return m.group(1).lower() if m and versions.is_index_label(m.group(1)) else None


def _known_requires(s, name: str, version, label) -> list[str] | None:
    """What a distribution about to be installed requires, as far as the tables know: a torch CUDA
    build's cuDNN wheel pin (Linux; rows read from the wheels), TensorFlow's and-cuda pins; else None."""
    if version in (None, UNKNOWN):
        return None
    system = F.system(s)
    if name == "torch" and system == "Linux":
        tag = versions.index_label(version) or label
        rel = kb.release(version)
        build = next((b for b in (rel or {}).get("builds", []) if b.get("tag") == tag), None) if tag else None
        cuda = versions.major(versions.cuda_from_tag(tag)) if tag else None
        if build and cuda and build.get("cudnn") and build.get("cudnn_source") == "pypi_wheels":
            return [f"nvidia-cudnn-cu{cuda}=={build['cudnn']}; platform_system == \"Linux\""]
        return None
    if name in ("tensorflow", "tf-nightly") and system == "Linux":
        pins = tk.and_cuda_pins(version)
        return [f"{p}; extra == \"and-cuda\"" for p in pins] if pins else None
    return None


def regressions(before: Env, after: Env) -> list[tuple]:
    """The requirements a command broke: unmet after it, met before it (or newly required)."""
    was = {(d, line) for d, line, _ in before.unsatisfied()}
    return sorted((d, line, have) for d, line, have in after.unsatisfied() if (d, line) not in was)


def satisfiable_together(reqs_a: list[str], reqs_b: list[str], env: dict) -> list[tuple]:
    """The distributions two requirement sets pin to versions no single one satisfies (both exact
    pins that differ, or an exact pin outside the other's range): [(name, line_a, line_b)]."""
    out = []
    by_name: dict = {}

    def applies(req) -> bool:
        if req.marker is None:
            return True
        try:
            return any(req.marker.evaluate(dict(env, extra=x)) for x in ("", "and-cuda"))
        except Exception:
            return False

    for line in reqs_a:
        req = _req(line)
        if req is not None and applies(req):
            by_name.setdefault(canonical(req.name), []).append(req)
    for line in reqs_b:
        req = _req(line)
        if req is None or not applies(req):
            continue
        for other in by_name.get(canonical(req.name), []):
            pa, pb = _exact(other.specifier), _exact(req.specifier)
            clash = (pa and pb and pa != pb) or (pa and req.specifier and _satisfies(pa, req.specifier) is False) \
                or (pb and other.specifier and _satisfies(pb, other.specifier) is False)
            if clash:
                out.append((canonical(req.name), str(other), str(req)))
    return out
