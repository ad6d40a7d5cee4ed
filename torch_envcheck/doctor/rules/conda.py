"""Rules for conda environments (area "conda", TE900-TE939; TE990-TE991 when the conda probe could
not read its facts).  Fixes are written in conda's own words (`conda install ... -c pytorch -c
nvidia`, `conda install --force-reinstall cudatoolkit=11.2`, `conda remove cpuonly`), with the
program that manages the env (conda, mamba or micromamba), by advice/conda_commands.py: the rules
name the packages and channels.  They stay silent outside a conda env.

What the rules compare against: torch_envcheck/knowledge/data/conda_cuda.json (TensorFlow's tested CUDA and
cuDNN, the pytorch-cuda versions of each conda pytorch release, and the last release the pytorch
channel published: 2.5, pytorch/pytorch#138506), each row with its source.
"""

from __future__ import annotations

import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck._util.escape import path_remove, terminal
from torch_envcheck.advice import conda_commands as CC
from torch_envcheck.advice import recommend as A
from torch_envcheck.advice import conda as AC
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.knowledge import windows_dlls as WD

DATA_FILE = "conda_cuda.json"
_CONDA_VERSION = re.compile(r"^[A-Za-z0-9_.+!]{1,64}$")


# ---------------------------------------------------------------- helpers

def _table() -> dict:
    try:
        return kb.load_table(DATA_FILE)
    except Exception:  # a missing table must not take the rules down: they then stay silent
        return {}


def _safe_version(v) -> str | None:
    return v if isinstance(v, str) and _CONDA_VERSION.match(v) else None


def _env_label(s) -> str:
    name = C.env_name(s)
    return f"conda env '{terminal(name)}'" if name else "this conda env"


def _pkg_label(name: str, rec) -> str:
    ch = C.channel(rec)
    return f"{name} {terminal(C.version(rec))} ({terminal(C.build(rec))}" + (f", channel {terminal(ch)})" if ch else ")")


def _gpu_label(s) -> str:
    gpus = F.machine_gpus(s)
    if gpus:
        return terminal(F.gpu_label(gpus[0])) + (f" and {len(gpus) - 1} more" if len(gpus) > 1 else "")
    pci = F.pci_gpus(s)
    return F.pci_label(pci) if pci else "an NVIDIA GPU"


def _pytorch_cuda_options(release: str | None) -> dict | None:
    for row in _table().get("pytorch_cuda", []):
        if isinstance(row, dict) and row.get("pytorch") == release:
            return row
    return None


def _pick_pytorch_cuda(s, options) -> str | None:
    """The newest pytorch-cuda of `options` that the driver runs (its newest CUDA, as nvidia-smi
    reports it), else None; the newest when the driver's CUDA is unknown."""
    opts = sorted((o for o in options if C.mm(o)), key=C.mm)
    if not opts:
        return None
    if C.mm(F.driver_cuda(s)) is None:
        return opts[-1]
    # conda's CUDA runtime comes with pytorch-cuda: the driver's own CUDA must reach it
    fit = [o for o in opts if kb.driver_runs(o, driver_cuda=F.driver_cuda(s)) == kb.TOOLKIT]
    return fit[-1] if fit else None


def _serves_gpu(s, release: str | None, cuda: str) -> bool:
    """Whether the pytorch channel's build of `release` with `cuda` has code for this machine's GPUs
    (the arch list of the same release's wheel of that CUDA); True when either is unknown."""
    cap = F.build_capability(s)
    try:
        arch = kb.wheel_arch_list(release, kb.tag_from_cuda(cuda), F.system(s), F.machine(s))
    except kb.KnowledgeError:
        return True
    if not cap or not arch:
        return True
    return kb.capability_match(cap, arch, cuda)["ok"] is not False


def _last_conda_release() -> str:
    return str(_table().get("last_pytorch_channel_release") or "2.5")


def _pip_route(s, remove: list[str]) -> list[str]:
    """The pip route inside the conda env: take conda's torch packages out, then the wheel that fits."""
    build = A.recommend_build(s)
    if not build:
        return []
    lines = []
    if remove:
        lines.append(CC.remove(s, *remove, force=True))
    lines.append(A.install_command(s, build))
    return lines


def _installed(s, *names) -> list[str]:
    return [n for n in names if C.package(s, n)]


def _cuda_install_lines(s, rec, flavour_note: str) -> tuple[list[str], str]:
    """(fix lines, explanation tail) that give conda's pytorch its CUDA build for this driver."""
    release = kb.release_key(C.version(rec))
    channel = C.channel(rec) or ""
    lines: list[str] = []
    why = ""
    row = _pytorch_cuda_options(release) if channel == "pytorch" else None
    pick = _pick_pytorch_cuda(s, row.get("pytorch_cuda", [])) if row else None
    if pick and not _serves_gpu(s, release, pick):
        pick = None  # the channel's build of that CUDA has no kernels for this GPU: never advised
    companions = _installed(s, "torchvision", "torchaudio")
    if pick:
        if C.package(s, "cpuonly"):
            lines.append(CC.remove(s, "cpuonly"))
        ver = _safe_version(C.version(rec))
        lines.append(CC.install(s, f"pytorch=={ver}" if ver else f"pytorch={release}", *companions,
                                f"pytorch-cuda={pick}", channels=("pytorch", "nvidia")))
        why = (f" pytorch {release} was published on the pytorch channel with pytorch-cuda "
               f"{', '.join(row['pytorch_cuda'])}; {pick} is the newest this driver runs"
               + (" (table row marked unverified)" if row.get("unverified") else "") + ".")
    else:
        # conda-forge: the installed release when conda-forge builds it for this machine, else its newest
        # build that does (never older than the installed torch); the pytorch channel's packages go first
        forge = (AC.forge_pick(s, torch_release=release) if channel == "conda-forge" else None) or AC.forge_pick(s)
        if forge:
            gone = AC.channel_packages(s)
            if gone:
                lines.append(CC.remove(s, *gone, force=True))
            lines.append(CC.install_forge(s, forge, companions))
            why = ((f" No pytorch-cuda of the pytorch channel for pytorch {release} fits this driver"
                    f" (driver CUDA {F.driver_cuda(s) or 'unknown'}); the pytorch channel published nothing after "
                    f"{_last_conda_release()} (pytorch/pytorch#138506)." if channel == "pytorch" else "")
                   + " " + AC.forge_reason(forge) + ".")
        else:
            why = (f" Neither the pytorch channel (pytorch-cuda for pytorch {release}) nor conda-forge's CUDA builds"
                   f" fit this driver (CUDA {F.driver_cuda(s) or 'unknown'}), GPU, Python and platform without"
                   " downgrading the installed torch.")
    route = _pip_route(s, [n for n in ("pytorch", "torchvision", "torchaudio", "pytorch-cuda", "cpuonly")
                           if C.package(s, n)])
    if route:
        newest = A.recommend_build(s) or {}
        lines.append(f"# or with pip inside the env (the pytorch channel's last release is {_last_conda_release()}; "
                     f"pip takes any release): torch {newest.get('torch')} from download.pytorch.org")
        lines += route
    return lines, why + flavour_note


def _problem(*args, **kw) -> dict:
    """A conda problem: it hides TE900 ("the env is consistent")."""
    return finding(*args, hides=["TE900"], **kw)


# ---------------------------------------------------------------- rules

def cpu_pytorch_with_gpu(s) -> list[dict]:
    """TE901: conda's pytorch is a CPU build (build string, or cpuonly / pytorch-mutex cpu) while an
    NVIDIA GPU is there."""
    if not C.has_conda_facts(s):
        return []
    rec = C.package(s, "pytorch")
    flav = C.pytorch_flavour(s)
    if rec is None or flav is None or not F.has_nvidia_gpu(s):
        return []
    cpuonly = C.package(s, "cpuonly")
    if flav.kind != "cpu" and not cpuonly:
        return []
    reasons = [flav.why] if flav.kind == "cpu" else []
    if cpuonly:
        reasons.append(f"the cpuonly package {terminal(C.version(cpuonly))} is installed")
    if C.channel(rec) == "pytorch" and not C.package(s, "pytorch-cuda"):
        reasons.append("no pytorch-cuda package")
    lines, why = _cuda_install_lines(s, rec, "")
    return [_problem(
        "TE901", "failure",
        f"conda's pytorch {terminal(C.version(rec))} in {_env_label(s)} is a CPU build ({'; '.join(reasons)}), "
        f"but this machine has {_gpu_label(s)}",
        "conda picked the CPU variant of pytorch (the pytorch channel selects it with the cpuonly package and "
        "pytorch-mutex; without pytorch-cuda in the install command it falls back to CPU), so torch never "
        "uses the GPU." + (" cpuonly must be removed first: it forbids every CUDA build." if cpuonly else "") + why,
        "\n".join(lines) or None,
        {"pytorch": rec.to_dict(), "cpuonly": bool(cpuonly), "flavour": flav.to_dict()}, explains=("TE202",))]


def pytorch_cuda_missing(s) -> list[dict]:
    """TE902: a pytorch-channel pytorch (1.13 or later: the pytorch-cuda era) without pytorch-cuda on a
    GPU machine, when the build string does not already say CPU (TE901 covers that)."""
    if not C.has_conda_facts(s):
        return []
    rec = C.package(s, "pytorch")
    flav = C.pytorch_flavour(s)
    if rec is None or C.channel(rec) != "pytorch" or C.package(s, "pytorch-cuda") or C.package(s, "cpuonly"):
        return []
    if not F.has_nvidia_gpu(s) or (flav and flav.kind == "cpu"):
        return []
    rel = kb.version_tuple(C.version(rec))
    if not rel or rel[:2] < (1, 13):
        return []  # before 1.13 the pytorch channel used cudatoolkit, not pytorch-cuda
    lines, why = _cuda_install_lines(s, rec, "")
    return [_problem(
        "TE902", "failure",
        f"conda's pytorch {terminal(C.version(rec))} in {_env_label(s)} comes from the pytorch channel without "
        f"pytorch-cuda ({flav.why if flav else 'build unknown'})",
        "Since pytorch 1.13 the pytorch channel brings the CUDA libraries through the pytorch-cuda package "
        "(`-c pytorch -c nvidia`); without it a CUDA build has no CUDA runtime in the env and the solver "
        "falls back to the CPU build on the next change." + why,
        "\n".join(lines) or None, {"pytorch": rec.to_dict(), "flavour": F.as_details(flav)},
        explains=("TE201", "TE202"))]


def _imported(s, conda_rec, pip_item) -> str | None:
    """'pip' / 'conda' / None: which of the two copies Python imports (the torch probe's facts)."""
    tv = F.torch_version(s)
    inst = (F.torch_installer(s) or "").lower()
    if F.torch_importable(s) is False or not tv:
        return None
    if tv == pip_item.version or inst in ("pip", "uv"):
        return "pip"
    if versions.public(tv) == C.version(conda_rec):
        return "conda"
    return "pip" if versions.public(tv) == versions.public(str(pip_item.version)) else None


def torch_installed_twice(s) -> list[dict]:
    """TE903: conda's pytorch record and a pip-installed torch distribution in one prefix."""
    if not C.has_conda_facts(s):
        return []
    rec = C.package(s, "pytorch")
    pip_torch = C.pip_dist(s, "torch")
    if rec is None or pip_torch is None:
        return []
    who = _imported(s, rec, pip_torch)
    pv = terminal(pip_torch.version)
    imports = {"pip": f"Python imports pip's torch {pv} (its files replaced conda's; conda-meta still lists "
                      f"pytorch {terminal(C.version(rec))})",
               "conda": f"Python imports conda's pytorch {terminal(C.version(rec))}",
               None: "torch does not import" if F.torch_importable(s) is False
               else "which copy Python imports is unknown (no torch facts)"}[who]
    nvidia = [d for d in C.pip_dists(s) if d.name.startswith("nvidia-")]
    companions = [n for n in ("torchvision", "torchaudio", "triton") if C.pip_dist(s, n)]
    ver = _safe_version(C.version(rec))
    pinned = [f"{n}=={_safe_version(C.version(C.package(s, n)))}" if _safe_version(C.version(C.package(s, n))) else n
              for n in _installed(s, "torchvision", "torchaudio", "pytorch-cuda")]
    channels = ("pytorch", "nvidia") if C.channel(rec) == "pytorch" else \
        (C.channel(rec),) if C.channel(rec) and C.channel(rec) != "pkgs/main" else ()
    fix = [CC.pip_uninstall(s, "torch", *companions, *[d.name for d in nvidia][:40]),
           CC.install(s, f"pytorch=={ver}" if ver else "pytorch", *pinned, channels=channels, force_reinstall=True),
           "# or keep pip's torch: a new env without conda's pytorch (torch-envcheck pin --conda writes its environment.yml)"]
    return [_problem(
        "TE903", "failure" if who is None and F.torch_importable(s) is False else "warning",
        f"torch is installed twice in {_env_label(s)}: conda's {_pkg_label('pytorch', rec)} and pip's torch {pv}; "
        f"{imports}",
        "pip installed torch over conda's pytorch in the same site-packages: the files on disk are pip's, conda "
        "still records its own, and the next `conda update` or `conda install` can remove or overwrite pip's files "
        "and leave a torch that is half one build and half the other. Keep one installer per package: uninstall "
        "the pip copy and restore conda's, or start a new env.",
        "\n".join(fix), {"conda": rec.to_dict(), "pip": pip_torch.to_dict(), "imported": who},
        explains=("TE905",) if nvidia else ())]


def runtime_replaced_by_pip(s) -> list[dict]:
    """TE904: a pip distribution wrote a C++/OpenMP runtime library (libstdc++, libgomp, libiomp5,
    libomp) into the env over the copy a conda package owns."""
    if not C.has_conda_facts(s):
        return []
    owners = {}
    for name, rec in C.packages(s).items():
        for f in C.runtime_files(rec):
            owners[f] = name
    hits = []
    for d in C.pip_dists(s):
        for f in C.runtime_files(d):
            if f in owners:
                hits.append((d, f, owners[f]))
    if not hits:
        return []
    d, f, owner = hits[0]
    more = f" and {len(hits) - 1} more" if len(hits) > 1 else ""
    return [_problem(
        "TE904", "warning",
        f"pip's {terminal(d.name)} {terminal(d.version)} overwrote {terminal(f)}, which conda's {owner} owns, "
        f"in {_env_label(s)}{more}",
        "conda links every package of the env against its own C++ and OpenMP runtimes (libstdcxx-ng, libgcc-ng/"
        "libgomp, _openmp_mutex/llvm-openmp/intel-openmp); a pip wheel that replaces one of those files changes them "
        "for every conda package, which shows up as 'GLIBCXX_... not found', two OpenMP runtimes in one process "
        "(OMP: Error #15) or crashes. Neither conda nor pip can undo it cleanly: the guides' advice is a new env, "
        "with conda's packages first and pip's last, leaving out the pip package that brings its own runtime.",
        "\n".join(CC.new_env_lines(s)),
        {"files": [{"pip": h[0].name, "file": h[1], "conda_package": h[2]} for h in hits[:20]]})]


_CONDA_CUDA = ("cudatoolkit", "cudnn", "cuda-runtime", "cuda-cudart", "cuda-libraries", "cuda-toolkit", "pytorch-cuda",
               "nccl")


def pip_nvidia_wheels(s) -> list[dict]:
    """TE905: pip's nvidia-* wheels beside conda's CUDA packages (two copies of the CUDA libraries)."""
    if not C.has_conda_facts(s):
        return []
    wheels = [d for d in C.pip_dists(s) if d.name.startswith("nvidia-")]
    conda_cuda = [(n, C.package(s, n)) for n in _CONDA_CUDA if C.package(s, n)]
    if not wheels or not conda_cuda:
        return []
    w = ", ".join(f"{terminal(d.name)} {terminal(d.version)}" for d in wheels[:3])
    c = ", ".join(f"{n} {terminal(C.version(r))}" for n, r in conda_cuda[:3])
    return [_problem(
        "TE905", "warning",
        f"pip's CUDA wheels ({w}{f' and {len(wheels) - 3} more' if len(wheels) > 3 else ''}) sit beside conda's "
        f"CUDA packages ({c}) in {_env_label(s)}",
        "Two copies of the CUDA libraries in one env: which one a process loads depends on import order and on "
        "the loader's search path, and a conda update of one half leaves the other behind (the usual cause: pip "
        "installing torch or tensorflow[and-cuda] into a conda env). The guides' advice is a new env where one "
        "installer provides CUDA.",
        "\n".join(CC.new_env_lines(s)),
        {"pip": [d.name for d in wheels][:50], "conda": [n for n, _ in conda_cuda]})]


def _tf_row(version) -> dict | None:
    key = C.mm(version)
    for row in _table().get("tensorflow", []):
        if isinstance(row, dict) and C.mm(row.get("tensorflow")) == key:
            return row
    return None


def tensorflow_cuda_mismatch(s) -> list[dict]:
    """TE906: the env's cudatoolkit / cudnn against the CUDA and cuDNN its TensorFlow was built and
    tested with (TensorFlow's 'Tested build configurations')."""
    if not C.has_conda_facts(s):
        return []
    tf = C.tensorflow(s)
    if not tf or not tf[1]:
        return []
    row = _tf_row(tf[1])
    if row is None:
        return []
    problems, severity, pins = [], "warning", []
    toolkit = C.cuda_toolkit(s)
    need_cuda, need_cudnn = row["cuda"], row["cudnn"]
    # A conda-built TensorFlow says in its depends which cudatoolkit/cudnn its packager built it with:
    # that wins over the upstream table (Anaconda's tensorflow-gpu builds differ from the pip wheels).
    tf_rec = next((C.package(s, n) for n in ("tensorflow-base", "tensorflow-gpu", "tensorflow") if C.package(s, n)), None)
    if tf_rec is not None:
        need_cuda = C.depends_range(tf_rec, "cudatoolkit") or need_cuda
        if any(d.split()[0] == "cudnn" for d in C.depends(tf_rec) if d.split()):
            need_cudnn = None  # the solver already holds cudnn to the build's range
    if toolkit:
        have = C.mm(toolkit[1])
        want = C.mm(need_cuda)
        if have != want:
            bad = have[0] != want[0] or have < want
            severity = "failure" if bad else severity
            problems.append(f"{toolkit[0]} {toolkit[1]} ({'TensorFlow cannot load it' if bad else 'newer than tested'})")
            pins.append(f"cudatoolkit={need_cuda}")
    cudnn = C.package(s, "cudnn")
    if cudnn and need_cudnn and C.mm(C.version(cudnn)):
        have, want = C.mm(C.version(cudnn)), C.mm(need_cudnn)
        if have[0] != want[0] or have < want:
            severity = "failure"
            problems.append(f"cudnn {terminal(C.version(cudnn))}")
            pins.append(f"cudnn={need_cudnn}")
    if not problems:
        return []
    return [_problem(
        "TE906", severity,
        f"{tf[0]} {terminal(tf[1])} was built with CUDA {need_cuda}" + (f" and cuDNN {need_cudnn}" if need_cudnn else "")
        + f", but {_env_label(s)} "
        f"has {' and '.join(problems)}",
        f"TensorFlow {C.mm(tf[1])[0]}.{C.mm(tf[1])[1]} loads the CUDA and cuDNN libraries it was built with "
        f"(TensorFlow's 'Tested build configurations': CUDA {row['cuda']}, cuDNN {row['cudnn']}; a conda build's "
        f"depends can pin another); from a conda env it "
        "takes them from cudatoolkit and cudnn. An older or other-major toolkit fails with \"Could not load dynamic "
        "library\" and TensorFlow runs on the CPU only.",
        CC.install(s, *pins, channels=("conda-forge",), force_reinstall=True, channels_first=True),
        {"tensorflow": tf[1], "needs": {"cuda": need_cuda, "cudnn": need_cudnn}, "source": row.get("source")})]


def pytorch_cuda_mismatch(s) -> list[dict]:
    """TE907: conda's pytorch CUDA build against the env's pytorch-cuda / cudatoolkit."""
    if not C.has_conda_facts(s):
        return []
    rec = C.package(s, "pytorch")
    flav = C.pytorch_flavour(s)
    if rec is None or not flav or flav.kind != "cuda":
        return []
    for pkg in ("pytorch-cuda", "cudatoolkit"):
        inst = C.package(s, pkg)
        want = C.depends_range(rec, pkg) or (flav.cuda if inst else None)
        if not inst or not want or not C.mm(C.version(inst)):
            continue
        have = C.mm(C.version(inst))
        if have == C.mm(want):
            continue
        channels = ("pytorch", "nvidia") if pkg == "pytorch-cuda" else \
            ("pytorch",) + (("conda-forge",) if C.mm(want) >= (11, 1) else ())
        return [_problem(
            "TE907", "failure",
            f"conda's pytorch {terminal(C.version(rec))} was built for CUDA {want} ({flav.why}), but "
            f"{_env_label(s)} has {pkg} {terminal(C.version(inst))}",
            f"conda's pytorch loads the CUDA libraries of the env; they come from {pkg}, which must be the CUDA "
            f"version the build was compiled for (its depends pin {pkg} {want}). Another version fails at import "
            "(missing libcudart/libcublas symbols) or leaves CUDA unavailable.",
            CC.install(s, f"{pkg}={want}", channels=channels, force_reinstall=True),
            {"pytorch": rec.to_dict(), pkg: F.as_details(inst), "wanted": want}, explains=("TE201", "TE303"))]
    return []


def system_cuda_first_on_path(s) -> list[dict]:
    """TE908 (Windows): a CUDA toolkit's bin directory outside the env comes before the env's
    Library\\bin on PATH, so its DLLs shadow conda's cudatoolkit."""
    if not C.has_conda_facts(s):
        return []
    if F.system(s) != "Windows":
        return []
    toolkit = C.cuda_toolkit(s)
    if toolkit is None:
        return []
    # Only a framework that finds its CUDA DLLs through PATH is affected by PATH's order
    # (data/windows_dll_search.json): TensorFlow <= 2.10 is; torch (conda's pytorch included, whose
    # DLLs are in the env's Library\bin) loads them through os.add_dll_directory and never searches PATH.
    readers = _path_readers(s)
    if not readers:
        return []
    entries = C.search_path(s)
    env_idx = next((e.index for e in entries if e.kind == "env-library-bin"), None)
    first = [e for e in entries if e.kind == "cuda" and (env_idx is None or e.index < env_idx)]
    if not first:
        return []
    e = first[0]
    other = C.mm(e.cuda_version) != C.mm(toolkit[1])
    d = e.dir
    session = path_remove(d, F.shell(s))
    return [_problem(
        "TE908", "failure" if other else "warning",
        f"PATH puts the CUDA {terminal(e.cuda_version or '?')} toolkit in {terminal(d)} before the "
        f"Library\\bin of {_env_label(s)}" + ("" if env_idx is not None else " (which is not on PATH at all)")
        + f": its DLLs shadow conda's {toolkit[0]} {toolkit[1]}",
        f"{' and '.join(readers)} find{'s' if len(readers) == 1 else ''} CUDA DLLs by name through PATH, in order "
        f"({WD.source_text('tensorflow', '2.10')}), so the system toolkit's cudart64_*.dll, cublas and cuDNN "
        "are loaded instead of the env's" + (" — another CUDA version than conda installed, which TensorFlow then "
        "fails to load or loads only in part" if other else "") + " (torch is not affected: it loads its DLLs through "
        "os.add_dll_directory and never searches PATH). The guides' fix: remove the NVIDIA "
        "GPU Computing Toolkit entry from PATH (System Properties > Environment Variables), or leave CUDA to conda. "
        "The command below drops it for the current terminal session.",
        "\n".join([session, "# permanently: remove that entry from Path in System Properties > Environment Variables, "
                            "then open a new terminal and `conda activate` the env"]),
        {"entry": e.to_dict(), "env_library_bin_index": env_idx, "conda_toolkit": list(toolkit)},
        explains=("TE501", "TE502"))]


def _path_readers(s) -> list[str]:
    """The frameworks in the env that find CUDA DLLs through PATH: 'tensorflow 2.6.0' (<= 2.10)."""
    out = []
    tf = C.tensorflow(s)
    version = tf[1] if tf else (T.tf_version(s) if T.tf_installed(s) else None)
    name = tf[0] if tf else "tensorflow"
    try:
        if version and WD.path_searched("tensorflow", version):
            out.append(f"{terminal(name)} {terminal(version)}")
    except kb.KnowledgeError:
        pass
    return out


def records_unreadable(s) -> list[dict]:
    """TE991: conda-meta records (or other files) the probe could not read."""
    errs = C.errors(s)
    if not errs or not C.has_conda_facts(s):
        return []
    return [finding(
        "TE991", "warning",
        f"{len(errs)} problem{'s' if len(errs) != 1 else ''} reading {_env_label(s)}'s conda-meta: "
        f"{terminal(errs[0])[:240]}",
        "conda keeps one JSON record per installed package in <env>/conda-meta; an unreadable or malformed "
        "record means the package list checked here is incomplete, and conda itself may fail on this env. "
        "`conda list` shows what conda makes of it; reinstalling the package named rewrites its record.",
        None, {"errors": errs[:50]})]


def conda_ok(s) -> list[dict]:
    """TE900: the env's CUDA packages fit each other, the driver and pip's packages (every conda
    problem hides it: _problem)."""
    if not C.has_conda_facts(s):
        return []
    pkgs = C.packages(s)
    parts = [_pkg_label(n, pkgs[n]) for n in ("pytorch", "pytorch-cuda", "cudatoolkit", "cudnn", "tensorflow")
             if n in pkgs]
    return [finding(
        "TE900", "ok",
        f"{_env_label(s)}: " + ("; ".join(parts) if parts else f"{C.records(s) or 0} conda packages, none CUDA-related"),
        "conda's CUDA packages fit each other, the driver and the packages pip added.", None,
        {"records": C.records(s)})]


# conda_ok first: the area's summary line comes before its problems.  Every rule is silent outside
# a conda env (no conda facts).
RULES = [conda_ok, cpu_pytorch_with_gpu, pytorch_cuda_missing, torch_installed_twice, runtime_replaced_by_pip,
         pip_nvidia_wheels, tensorflow_cuda_mismatch, pytorch_cuda_mismatch, system_cuda_first_on_path,
         records_unreadable]
