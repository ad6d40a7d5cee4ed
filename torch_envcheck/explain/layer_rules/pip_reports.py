"""Layer rules for pip's verbose reports: every wheel of a distribution skipped for its tags, and a package index pip
ignores because it is not trusted.

    wheels_all_skipped   "Skipping link: none of the wheel's tags match: cp36-none-macosx_10_9_x86_64: .../torch-1.4.0-..."
                         for every wheel of a distribution -> none is for this interpreter: the Pythons and platforms
                         they are for
    untrusted_index_ignored  "The repository located at X is not a trusted or secure host and is being ignored" -> the
                         index (a mirror) over HTTPS or --trusted-host, or the official one
    only_yanked_releases  "Ignored the following yanked versions: ..." then "(from versions: none)" for the same
                         requirement -> env: no release of it is installable here (the yanked ones only if pinned
                         exactly): the project's own install route, or a Python/platform it publishes wheels for
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_TAGS_DOC = {"url": "https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/",
             "what": "a wheel's file name carries its Python, ABI and platform tags"}
_SKIPPED = re.compile(r"Skipping link: none of the wheel's tags match: (?P<tags>[\w.,-]{3,120}): \S{0,400}?/"
                      r"(?P<dist>[A-Za-z][A-Za-z0-9_.]{0,60})-(?P<ver>\d[\w.+!]{0,30})-[\w.-]{0,120}?\.whl")
_LAYER = {"torch": "torch-build", "torchvision": "torch-build", "torchaudio": "torch-build", "tensorflow": "tensorflow",
          "tensorflow_gpu": "tensorflow", "tf_nightly": "tensorflow", "jax": "torch-build", "jaxlib": "torch-build"}


def _platform_word(plat: str) -> str:
    return ("macOS" if plat.startswith("macosx") else "Windows" if plat.startswith("win") else
            "Linux" if "linux" in plat else plat)


def wheels_all_skipped(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "none of the wheel's tags match" not in tail:
        return None
    rows = list(_SKIPPED.finditer(tail))
    if len(rows) < 2:
        return None
    dist = rows[-1].group("dist")
    same = [r for r in rows if r.group("dist").lower() == dist.lower()]
    if len(same) < 2 or re.search(r"Successfully installed|Using cached [^\n]{0,200}" + re.escape(dist), tail, re.I):
        return None
    pys, plats = set(), set()
    for r in same:
        tags = r.group("tags").split("-")
        if tags:
            pys.add(tags[0])
            plats.add(_platform_word(tags[-1]))
    key = dist.lower().replace("-", "_")
    sig = _sig("wheels-all-skipped", _LAYER.get(key, "env"),
               "pip skipped every {dist} wheel it saw: none is for this interpreter", 80,
               "pip lists each {dist} wheel it found and skips it because none of its tags match the interpreter "
               "running pip: the wheels seen are for {pys} on {plats}. The Python (its version, or a 32-bit build) or "
               "the platform is not one {dist} publishes wheels for, so pip ends with no candidate (or builds a "
               "placeholder source package that fails).",
               fix="Run pip with a Python {dist} has wheels for: a 64-bit CPython among {pys} (`python -VV` shows the "
                   "one in use; `python -m pip debug --verbose` the tags it accepts), in a fresh venv; for torch the "
                   "CUDA wheels come from PyTorch's own index (`--index-url https://download.pytorch.org/whl/cu12X`).",
               areas=("platform",), sources=(_TAGS_DOC,))
    return _match(sig, text, len(text) - len(tail) + same[0].start(),
                  {"dist": dist, "pys": ", ".join(sorted(pys)), "plats": ", ".join(sorted(plats))})


_UNTRUSTED = re.compile(r"The repository located at (?P<host>[\w.-]{1,120}) is not a trusted or secure host and is being "
                        r"ignored")


def untrusted_index_ignored(ent, text):
    m, at = last_in_tail(_UNTRUSTED, text, "is not a trusted or secure host")
    if m is None:
        return None
    host = m.group("host")
    torch = re.search(r"requirement torch\b|distribution found for torch\b|Collecting torch\b", text[-CONTEXT_TAIL:])
    sig = _sig("pip-index-untrusted", "torch-build" if torch else "env",
               "pip ignored the index {host} (plain HTTP, not trusted)", 86,
               "pip's configuration names {host} as its index (a mirror), over plain HTTP; pip does not use an HTTP index "
               "it is not told to trust, so it searched nothing there and found no version of the package.",
               fix="Point pip at the mirror's HTTPS URL (`pip config list` shows where index-url is set), or allow it "
                   "with `--trusted-host {host}`; or use the official index: pypi.org, and for torch's CUDA wheels "
                   "`--index-url https://download.pytorch.org/whl/cu12X` (a private mirror may not carry torch at all).",
               areas=("platform",),
               sources=({"url": "https://pip.pypa.io/en/stable/cli/pip_install/#cmdoption-trusted-host",
                         "what": "pip's --trusted-host: hosts allowed over plain HTTP"},))
    return _match(sig, text, at, {"host": host})


# pip (PEP 592): yanked releases are skipped unless the requirement pins one exactly; when they were all it found, it
# says so before "(from versions: none)"
_YANKED = re.compile(r"Ignored the following yanked versions: (?P<vers>[\w.+!, -]{1,300})")
_NONE_FOR = re.compile(r"Could not find a version that satisfies the requirement (?P<req>[A-Za-z0-9][\w.\[\]-]{0,80})"
                       r"[^\n(]{0,80}\(from versions: none\)")


def only_yanked_releases(ent, text):
    tail = text[-CONTEXT_TAIL:]
    y = last_in_tail(_YANKED, text, "yanked versions")[0]
    n, at = last_in_tail(_NONE_FOR, text, "from versions: none")
    if y is None or n is None or tail.find(y.group(0)) > tail.find(n.group(0)):
        return None
    req = n.group("req")
    name = re.match(r"[A-Za-z0-9][\w.-]{0,80}", req).group(0)
    if name.lower() in _LAYER:
        return None  # the frameworks' own: their builds and Python ranges are read elsewhere
    vers = [v.strip() for v in y.group("vers").split(",") if v.strip()][:6]
    sig = _sig("only-yanked-releases", "env", "pip finds no installable {name}: its only releases here are yanked ({vers})",
               78, "pip lists what the index offers this interpreter; it skips yanked releases (withdrawn by their "
               "project, PEP 592) unless a requirement pins one exactly, and the only releases of {name} it found were "
               "yanked. No release of {name} is published for this Python and platform on that index, or the project "
               "distributes it another way.",
               fix="Follow {name}'s own install route (its install guide: often a build from source, `git clone` and "
                   "its install script, or its own index), or use a Python version and platform it publishes wheels "
                   "for (`python -VV`); pinning a yanked release exactly (`pip install \"{name}==<version>\"`) "
                   "installs a version its project withdrew.",
               areas=("platform",),
               sources=({"url": "https://peps.python.org/pep-0592/",
                         "what": "PEP 592: yanked releases are ignored unless pinned with =="},))
    return _match(sig, text, at, {"name": name, "vers": ", ".join(vers)})
