"""Layer rules for the graph-learning libraries built on torch (DGL, PyG's compiled extensions), read from their own
messages; the indexes their builds come from are knowledge.compiled_modules'.

    dgl_library_for_torch  "Cannot find DGL C++ graphbolt library at .../libgraphbolt_pytorch_2.4.1.so", tensoradapter's
                         dlopen of libtensoradapter_pytorch_<v>.so failing -> DGL ships these per torch release: the DGL
                         build for this torch (its wheel index), a torch the release ships one for, or a torch whose
                         version is a plain release (conda-forge's ".post300")
    index_only_distribution  pip finding no version of a package PyPI does not carry (pyg-lib) -> its project's index
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _cu_tag, _match, _sig, last_in_tail
from torch_envcheck.knowledge import compiled_modules

_DGL_LOADER = {"url": "https://github.com/dmlc/dgl/blob/9e6602f698aeb6adad85d63567af0073585fdcff/python/dgl/graphbolt/"
                      "__init__.py",
               "what": "load_graphbolt(): graphbolt_pytorch_<torch version> by platform, 'Cannot find DGL C++ graphbolt "
                       "library at ...'"}
_DGL_START = {"url": "https://www.dgl.ai/pages/start.html",
              "what": "DGL's install selector: wheels per torch and CUDA from data.dgl.ai"}

# the library DGL looks for, named by the torch version it reads from torch.__version__
_DGL_LIB = re.compile(r"(?:lib)?(?P<kind>graphbolt|tensoradapter)_pytorch_(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3}[\w.]{0,20}?)"
                      r"\.(?:so|dylib|dll)\b")
_DGL_FAILED = re.compile(r"Cannot find DGL C\+\+ (?P<kind>graphbolt|tensoradapter) library|TensorDispatcher: dlopen "
                         r"failed|Cannot load Graphbolt C\+\+ library|cannot open shared object file|No such file or "
                         r"directory|Failed to (?:import|load) (?:graphbolt|tensoradapter)")


def dgl_library_for_torch(ent, text):
    tail = text[-CONTEXT_TAIL:]
    failed = _DGL_FAILED.search(tail)
    if failed is None:
        return None
    m, at = last_in_tail(_DGL_LIB, text, "_pytorch_")
    if m is not None:
        v, kind = m.group("v"), m.group("kind")
    elif failed.group("kind") and re.match(r"\d{1,2}\.\d{1,2}\.\d", ent.versions.get("torch") or ""):
        # DGL's message without the file's name: the library is named by the torch the text shows
        v, kind = ent.versions["torch"].partition("+")[0], failed.group("kind")
        at = len(text) - len(tail) + failed.start()
    else:
        return None
    release = re.match(r"\d{1,2}\.\d{1,2}\.\d{1,3}", v).group(0)
    suffix = v[len(release):]
    mm = ".".join(release.split(".")[:2])
    cu = _cu_tag(ent.versions.get("torch_cuda") or ent.versions.get("cuda")) or "cu121"
    index = compiled_modules.prebuilt_index("dgl")
    url = index["url"].format(torch_mm=mm, cu=cu) if index else None
    caps = {"v": v, "kind": kind, "release": release}
    if suffix:
        sig = _sig("dgl-torch-version-suffix", "toolchain",
                   "DGL looks for its {kind} library under torch's version string {v}, which is not a release number",
                   84,
                   "DGL loads one {kind} library per torch release, named by torch.__version__ ({v} here). A torch whose "
                   "version carries a build suffix (conda-forge's .postNNN, a nightly's .dev) matches none of the names "
                   "DGL ships, though the release ({release}) may be one it supports.",
                   fix="Install torch from an index whose version is the plain release (pip's download.pytorch.org wheels, "
                       "or the pytorch channel rather than conda-forge) at a version the DGL release ships a library for, "
                       "or a DGL package built for the conda-forge torch (conda-forge's own dgl).",
                   areas=("extension", "torch"), sources=(_DGL_LOADER, _DGL_START))
        return _match(sig, text, at, caps)
    sig = _sig("dgl-library-for-torch-missing", "toolchain",
               "this DGL ships no {kind} library for torch {release}", 84,
               "DGL ships its {kind} library once per torch release it supports (lib{kind}_pytorch_<version>.so next "
               "to the one it wants); none is there for torch {release}: the installed DGL release predates it, or "
               "was built for other torch versions (PyPI's dgl wheels stop at 2.1; DGL's own index carries a build per "
               "torch and CUDA, for Linux only after 2.2.1).",
               fix="Install the DGL build made for torch " + mm + (f" from DGL's index: `pip install dgl -f {url}`" if url
                                                                    else " from DGL's index") +
                   " (use torch's CUDA tag, or cpu), or a supported torch version for the installed DGL (`ls` the folder "
                   "named in the error: the lib{kind}_pytorch_<version> files are the torch versions it supports).",
               areas=("extension", "torch"), sources=(_DGL_LOADER, _DGL_START))
    return _match(sig, text, at, caps)


def index_only_distribution(ent, text):
    rows = [p for p in ent.pip if not p.get("versions") and
            compiled_modules.only_on_own_index(p.get("name"))]
    if not rows:
        return None
    p = rows[-1]
    name = p["name"].lower().replace("_", "-")
    index = compiled_modules.prebuilt_index(name)
    torch_v = (ent.versions.get("torch") or "").partition("+")[0] or None
    cu = _cu_tag(ent.versions.get("torch_cuda")) or None
    url = index["url"].format(torch=torch_v or "<torch version>", torch_mm=torch_v or "<torch version>",
                              cu=cu or "<cuXYZ or cpu>")
    caps = {"name": name}
    sig = _sig("index-only-distribution", "toolchain", "{name} is not on PyPI: it comes from its project's index", 83,
               "pip searched PyPI, which has no {name} at all: its project publishes it only on its own index, one "
               "page per torch and CUDA build, and only for the platforms it builds for.",
               fix=f"Install it from that index: `pip install {name} -f {url}` (torch's version and CUDA tag: `python -c "
                   "\"import torch; print(torch.__version__)\"`); if the page has no wheel for your platform or Python, "
                   "it is not built there (use Linux or WSL, or go without it: it is optional where the project says so).",
               areas=("extension",), sources=({"url": index["source"], "what": f"{name}'s install page: its own index"},))
    return _match(sig, text, p["at"], caps)
