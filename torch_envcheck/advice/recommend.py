"""THE recommendation: which torch build fits a machine, and the commands that install it.

    recommend_build(s, capability=None) -> build dict | None   the build (the doctor's fix lines)
    recommend(s) -> dict                                        the same as data with its reasons
                                                                (`advise`, rebuild plans, scripts)
    advise(s) -> (reasons, command)                             what `torch-envcheck advise` prints
    install_command(s, build), pip_command(s, *args), python_cmd(s), pinned(name, version)

The rules' fix lines, `advise`, `advise --script/--docker` and `rebuild` all take their build from
recommend_build(), so none of them can disagree; every command is quoted for the snapshot's shell
(its OS), and every value from the snapshot is quoted or checked against PEP 440.  Facts are read
through the facts layer; the tables through knowledge.
"""

from __future__ import annotations

import os
import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util import escape, versions
from torch_envcheck.advice import pip_commands as P
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import freshness

# download.pytorch.org serves one index per build variant: /whl/cu130, /whl/cpu, /whl/rocm6.4, /whl/xpu.
INDEX_BASE = "https://download.pytorch.org/whl/"
_TAG_RE = re.compile(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$")


def index_tag(local) -> str | None:
    """The download.pytorch.org index of a local version label ('cu130' -> 'cu130'), else None."""
    return local if isinstance(local, str) and _TAG_RE.match(local) else None


def index_url(tag: str) -> str:
    try:
        return kb.index_url(tag)
    except Exception:  # knowledge tables unavailable: the URL scheme is stable
        return INDEX_BASE + tag


# ---------------------------------------------------------------- commands for the snapshot's machine

def pip_command(s, *args: str) -> str:
    """`<python> -m pip ARGS...` with every word quoted for the snapshot's shell; in an environment uv
    manages without pip, the same through uv (uv_words)."""
    return escape.shell_join(uv_words(s, [F.python_exe(s), "-m", "pip", *args]), F.shell(s))


def uv_words(s, words: list[str]) -> list[str]:
    """pip's words (`<python> -m pip CMD ...`) for this environment's manager.  A uv venv has no pip
    (`python -m pip` fails: "No module named pip"); uv installs into it with `uv pip CMD --python
    <interp>` (https://docs.astral.sh/uv/pip/environments/).  In a uv project (its .venv beside
    pyproject.toml and uv.lock) an install is `uv add --project DIR`, recorded in pyproject.toml and
    uv.lock so the next `uv sync` keeps it instead of undoing it; the index of a torch build is added
    by name (`--index pytorch-cu130=URL`).  Any other environment: the words unchanged."""
    if len(words) < 4 or words[1:3] != ["-m", "pip"] or not F.uses_uv(s):
        return list(words)
    exe, cmd, rest = words[0], words[3], list(words[4:])
    project = F.uv_project(s)
    if cmd == "install" and project:
        out, i = ["uv", "add", "--project", project], 0
        while i < len(rest):
            w = rest[i]
            if w in ("--index-url", "-i") and i + 1 < len(rest):
                url = rest[i + 1]
                out += ["--index", f"pytorch-{url.rstrip('/').rsplit('/', 1)[-1]}={url}"]
                i += 2
                continue
            if w not in ("--force-reinstall", "--no-deps"):
                out.append(w)
            i += 1
        return out
    if cmd == "uninstall":
        rest = [w for w in rest if w not in ("-y", "--yes")]
    return ["uv", "pip", cmd, "--python", exe, *rest]


def command(s, *words) -> str:
    """Any program's command line, every word quoted for the snapshot's shell."""
    return escape.shell_join(words, F.shell(s))


def python_cmd(s) -> str:
    """This interpreter as one word quoted for the snapshot's shell (`&` prefix not included)."""
    return escape.shell_quote(F.python_exe(s), F.shell(s))


def pinned(name: str, version) -> str:
    """'tensorflow[and-cuda]==2.21.0', or the bare name when the version is not a clean PEP 440 one."""
    v = escape.requirement_version(version)
    return f"{name}=={v}" if v else name


def posix_word(word: str) -> str:
    """One word quoted for a POSIX shell (the WSL 2 / Linux lines of a fix)."""
    return escape.shell_quote(word, "posix")


def companions_installed(s) -> list[str]:
    return [n for n in ("torchvision", "torchaudio") if F.package_version(s, n)]


def install_command(s, build: dict, companions=True) -> str:
    """The pip command installing `build` (from recommend_build) into this interpreter, quoted for
    the snapshot's shell.  companions: True = the torchvision/torchaudio installed now, or a list."""
    rel = build["torch"]
    tv = F.torch_version(s)
    spec = rel
    if tv and versions.release_key(tv) == rel:
        # keep the installed release exactly, change only its flavour (a valid PEP 440 version only)
        spec = escape.requirement_version(versions.public(tv)) or rel
    names = companions_installed(s) if companions is True else list(companions or ())
    words = P.pip_install_words(F.python_exe(s), spec, build["tag"], names)
    return escape.shell_join(uv_words(s, words), F.shell(s))


def drop_from_library_path(s, var: str, dirs) -> str | None:
    """The POSIX command that sets LD_LIBRARY_PATH to the snapshot's value without `dirs` (quoted:
    the folders come from the snapshot), or unsets it; None where it cannot be written (another
    variable, Windows' PATH, the value unknown)."""
    current = F.env(s, var) if var == "LD_LIBRARY_PATH" else None
    if current is None or F.system(s) == "Windows":
        return None
    drop = {os.path.normpath(x) for x in dirs}
    keep = [p for p in current.split(os.pathsep) if p and os.path.normpath(p) not in drop]
    return escape.env_assign("LD_LIBRARY_PATH", ":".join(keep) if keep else None, "posix")


def search_path_fix(s, broken) -> str:
    """The fix for F.import_broken_by_search_path(): drop its folders from the search path (for
    LD_LIBRARY_PATH, the command that sets it without them), then check that torch imports."""
    var, dirs = broken.var, list(broken.dirs)
    fix = drop_from_library_path(s, var, dirs)
    if fix is None:  # one comment line: a newline in a folder's name cannot end it
        fix = escape.terminal(f"# remove {', '.join(dirs)} from {var} (where your shell or job script sets it), then:")
    return fix + f"\n{python_cmd(s)} -c \"import torch; print(torch.__version__)\""


# ---------------------------------------------------------------- the build

def recommend_build(s, capability=None) -> dict | None:
    """THE recommendation (the fix lines of the rules and `advise` both call it): the build to
    install: the installed release if one of its builds fits this driver, GPU and Python, else the
    newest release that does.  `capability` defaults to F.build_capability(s).  None when nothing
    fits or the tables cannot be read."""
    if capability is None:
        capability = F.build_capability(s)
    args = dict(driver_cuda=F.driver_cuda(s), capability=capability, os_name=F.system(s),
                driver_os_name=F.driver_os(s), python_version=F.python_version(s),
                driver_version=F.driver_version(s), machine=F.machine(s))
    try:
        kept = keep_installed(s, capability)  # never trade a working torch that the tables lack
        if kept:
            return kept
        rel = F.torch_release(s)
        if rel and kb.release(rel):
            same = kb.latest_release_for(torch_release=rel, **args)
            if same:
                return same
        return kb.latest_release_for(**args)
    except kb.KnowledgeError:
        return None


def keep_installed(s, capability=None) -> dict | None:
    """The installed CUDA torch as the build to recommend when the tables cannot describe it (a
    newer release, a build they do not list) and the live facts do not rule it out
    (knowledge/freshness.py decides)."""
    tv = F.torch_version(s)
    if not tv or (not F.is_cuda_torch(s) and F.torch_importable(s) is not False):
        return None  # only a CUDA torch, or one that does not import (its version says which build)
    tag = F.torch_local(s) or versions.tag_from_cuda(F.torch_cuda(s))
    return freshness.keep_installed(tv, tag, F.torch_cuda(s), F.installed_fits(s, capability), capability,
                                    F.binary_arch_list(s))


# ---------------------------------------------------------------- Apple silicon under Rosetta

# Homebrew on Apple silicon installs to /opt/homebrew (arm64 only), so its python3 is a native one.
NATIVE_PYTHON = "/opt/homebrew/bin/python3"
NATIVE_VENV = "~/venvs/torch-arm64"


def native_python_steps(companions=()) -> str:
    """What an x86_64 Python under Rosetta is told (TE105's fix and `advise`, one text): make a venv
    from a native arm64 Python, check that it is one, install torch there.  Its own text: no value
    from the snapshot goes into it."""
    words = escape.shell_join(["-m", "pip", "install", "torch", *companions], "posix")
    return ("# install an arm64 (native) Python: the python.org macOS installer (universal2), or Homebrew in /opt/homebrew\n"
            f"{NATIVE_PYTHON} -m venv {NATIVE_VENV}\n"
            f"{NATIVE_VENV}/bin/python -c \"import platform; print(platform.machine())\"   # must print arm64\n"
            f"{NATIVE_VENV}/bin/python {words}")


# ---------------------------------------------------------------- Jetson

JETSON_FORUM = "https://forums.developer.nvidia.com/t/pytorch-for-jetson/72048"

def jetson_pick(s) -> dict | None:
    """On a Jetson board (F.is_tegra): the wheel it takes (knowledge/jetson.py): {'kind': 'jetpack',
    'row', 'why'}, {'kind': 'sbsa', ...} (JetPack 7: the ordinary recommendation), {'kind': None,
    'why'}; None elsewhere."""
    if not F.is_tegra(s) or F.is_macos(s):
        return None
    from torch_envcheck.knowledge import jetson as kj  # noqa: PLC0415
    try:
        return kj.wheel_for(F.jetson_l4t(s), F.python_version(s))
    except kb.KnowledgeError as exc:
        return {"kind": None, "why": f"the JetPack wheel table could not be read ({exc})"}


def jetpack_command(s, row: dict) -> str:
    """The install line of NVIDIA's page (`python3 -m pip install --no-cache $TORCH_INSTALL`) for this
    interpreter and the JetPack row's wheel URL (the table's own text, quoted anyway), under a comment
    naming the page."""
    from torch_envcheck.knowledge import jetson as kj  # noqa: PLC0415
    return (escape.terminal(f"# NVIDIA's torch {row['torch']} for JetPack {row['jetpack']}: "
                            f"{kj.source(row).get('url', kj.table().get('redist_base', ''))}") + "\n"
            + pip_command(s, "install", "--no-cache", row["wheel"]))


# NVIDIA's page listing its torch wheels for each JetPack release.
JETPACK_PAGE = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"


def jetpack_fix(s) -> str:
    """The JetPack wheel for this board's L4T release and Python (`advise` prints the same); without
    one in the table, NVIDIA's page to pick it from, and the lines to run with the wheel it names."""
    rec = recommend(s)
    if rec["kind"] == "jetpack":
        return jetpack_command(s, rec["jetpack"])
    # the wheel's name is the user's to fill in: a placeholder, not a word to quote
    return (f"# NVIDIA publishes torch wheels built for Jetson with each JetPack release ({JETPACK_PAGE});\n"
            "# check the JetPack version (cat /etc/nv_tegra_release), then install the matching wheel:\n"
            f"{python_cmd(s)} -m pip uninstall -y torch\n"
            f"{python_cmd(s)} -m pip install <the torch wheel for your JetPack from NVIDIA's page above>")


def torchvision_from_source(s, release: str) -> str:
    """torchvision built against the installed torch (a JetPack torch, for which no wheel is published),
    as NVIDIA's forum describes it: the release's source tag, compiled without build isolation so that
    it links the torch that is installed."""
    tag = f"v{release}.0"
    return "\n".join([f"# NVIDIA publishes no torchvision for JetPack: build torchvision {release} against this torch "
                      f"({JETSON_FORUM})",
                      pip_command(s, "uninstall", "-y", "torchvision"),
                      command(s, "git", "clone", "--branch", tag, "https://github.com/pytorch/vision", "torchvision"),
                      pip_command(s, "install", "--no-build-isolation", "--no-deps", "./torchvision")])


# ---------------------------------------------------------------- the recommendation as data

def recommend(snap: dict) -> dict:
    """The build that fits the machine of `snap`, as data, for advise() and for rebuild plans and
    scripts: {'kind': 'cuda' | 'cpu' | 'pypi' (macOS: PyPI's own torch) | 'keep' (a ROCm, XPU or MPS
    build that already uses this machine's GPU: nothing to install) | 'native-python' (an x86_64
    Python under Rosetta: a native one first) | 'jetpack' (NVIDIA's wheel for a Jetson's JetPack) |
    None (nothing fits), 'torch': release or None, 'tag': index tag or None, 'cuda', 'cudnn',
    'python': 'X.Y', 'wheel': a wheel URL (jetpack), 'reasons': [...]}.  The CUDA build is
    recommend_build(), the function the doctor's fix lines use, so none of them can disagree."""
    system, mach = F.system(snap), F.machine(snap)
    out = {"kind": "cpu", "torch": None, "tag": "cpu", "cuda": None, "cudnn": None, "python": F.python_mm(snap),
           "reasons": []}
    why = out["reasons"]
    # A ROCm build sees devices only when they are AMD GPUs (HIP cannot drive NVIDIA's), an XPU build
    # only Intel's, MPS only Apple's: a working one is never traded for a CPU or CUDA wheel.
    working = F.accelerator_build_works(snap)
    if working:
        # a rebuild of this environment makes the same build again (its index: /whl/rocm6.4, /whl/xpu)
        out.update(kind="keep", tag=index_tag(F.torch_local(snap)), torch=versions.public(F.torch_version(snap)))
        what = {"rocm": f"a ROCm build (HIP {F.torch_hip(snap) or '?'}) that sees {F.device_count(snap)} AMD GPU(s)",
                "xpu": "an Intel XPU build that sees its Intel GPU(s)",
                "mps": "a build whose MPS backend works on this Apple silicon GPU"}[working]
        why.append(f"torch {F.torch_version(snap)} is {what}: it already uses this machine's GPU; a CPU or CUDA wheel "
                   "would not, so keep it (nothing to install)")
        return out
    shadow = F.torch_shadowed(snap)
    if shadow:
        # the torch imported is not this environment's: installing into it would change a copy never used
        out.update(kind=None, tag=None)
        why.append(f"torch is imported from {shadow.imported_from} ({shadow.by}), not from this environment's own "
                   "copy: remove that copy first (`torch-envcheck` shows the command), then run `torch-envcheck advise` "
                   "again; anything installed now would land on a torch that is never imported")
        return out
    unseen = F.accelerator_build_unseen_device(snap)
    if unseen:
        # the build is the right kind for this machine's GPU, which it does not see yet: the doctor's
        # finding (TE211: HSA_OVERRIDE_GFX_VERSION, the render group) is the fix, not another wheel
        out.update(kind="keep", tag=index_tag(F.torch_local(snap)), torch=versions.public(F.torch_version(snap)))
        why.append(f"torch {F.torch_version(snap)} is {unseen}; it does not see the GPU yet (run `torch-envcheck` "
                   "for the reason): keep it, a CPU or CUDA wheel would not use this GPU either")
        return out
    if F.is_macos(snap) and F.rosetta(snap) is True:
        out.update(kind="native-python", tag=None)
        why.append("this Python is an x86_64 build running under Rosetta 2 on Apple silicon: pip would give it torch's "
                   "x86_64 macOS wheels, which have no MPS (and none exists after torch 2.2); make a venv from a native "
                   "arm64 Python and install torch there")
        return out
    if F.is_macos(snap):
        out.update(kind="pypi", tag=None)
        if F.apple_silicon(snap) is True or mach == "arm64":
            why.append("macOS on Apple silicon: no CUDA; PyPI's torch uses the GPU through MPS (torch.backends.mps)")
        else:
            why.append("macOS on an Intel CPU: no CUDA and no MPS; the CPU build is the only choice")
        return out
    if F.wsl(snap) == 1:
        why.append("WSL 1 cannot reach the GPU (CUDA on WSL needs WSL 2: `wsl --set-version <distro> 2` in "
                   "Windows); until then only the CPU build works")
        return out
    if F.driver_present(snap) is not True:
        pci = F.pci_gpus(snap)  # None under WSL 2: its GPU is never on the Linux PCI bus
        if pci is not None:
            if not pci:
                why.append("no NVIDIA GPU on this machine's PCI bus and no NVIDIA driver: the CPU build is the one "
                           "that fits (a CUDA build would only add several GB of unused libraries)")
                return out
            why.append(f"an NVIDIA GPU is on the PCI bus ({', '.join(str(F.text(g.bus_id) or '?') for g in pci)}) "
                       "but no NVIDIA driver is loaded: install the driver (in a container: start it with GPU access, "
                       "e.g. `docker run --gpus all`) and run `torch-envcheck advise` again for a CUDA build; until "
                       "then only the CPU build works")
            return out
        why.append("no NVIDIA driver found: install the NVIDIA driver and run `torch-envcheck advise` again for a "
                   "CUDA build; without a driver only the CPU build works")
        return out
    jet = jetson_pick(snap)
    if jet is not None and jet["kind"] != "sbsa":
        out.update(kind=None, tag=None)
        board = F.jetson_model(snap)
        why.append(f"a Jetson board{f' ({board})' if board else ''}: the PyTorch index's aarch64 wheels are built for "
                   "server GPUs, whose code does not run on a Jetson GPU before CUDA 13.2 (torch's own device table); "
                   "NVIDIA builds torch for each JetPack release")
        why.append(jet["why"])
        if jet["kind"] == "jetpack":
            row = jet["row"]
            out.update(kind="jetpack", torch=row["torch"], cuda=row.get("cuda"), wheel=row["wheel"], jetpack=row)
            why.append(f"torchvision {row.get('torchvision') or ''}".rstrip() + " for it is built from source (NVIDIA's "
                       f"forum: {JETSON_FORUM}); the torchvision wheels of PyPI and the PyTorch index pin another torch")
        return out
    cap = F.build_capability(snap)
    windows_driver = F.wsl(snap) == 2  # WSL 2 runs Linux wheels on the Windows driver
    why += [f"NVIDIA driver {F.driver_version(snap) or '?'}"
            + (" (the Windows driver, used by WSL 2)" if windows_driver else "")
            + (f" supports CUDA up to {F.driver_cuda(snap)}" if F.driver_cuda(snap) else ""),
            (f"GPU compute capability {cap}" + (" (the lowest of this machine's GPUs)"
                                                if len(set(F.capabilities(snap))) > 1 else "")) if cap
            else "GPU compute capability unknown",
            f"Python {F.python_mm(snap) or '?'} on {system or '?'}" + (f" {mach}" if mach else "")]
    out.update(kind=None, tag=None)
    try:
        kb.releases()
    except Exception as exc:  # missing or malformed tables: say so rather than guess
        why[:] = [f"the release tables could not be read ({type(exc).__name__}: {exc})"]
        return out
    pick = recommend_build(snap, capability=cap)
    if pick is None:
        why.append("no known torch release has a CUDA build for this driver, GPU, CPU architecture and Python: "
                   "update the NVIDIA driver (or Python), or use the CPU build")
        return out
    why.append(f"newest fit: torch {pick['torch']} built with CUDA {pick['cuda']} ({pick['tag']})"
               + (", through PTX JIT (first use compiles kernels)" if pick.get("via") == "ptx" else "")
               + (" [table row marked unverified]" if pick.get("unverified") else ""))
    why[:] = why[:-1] + _freshness_reasons(snap, pick, why[-1])
    out.update(kind="cuda", torch=pick["torch"], tag=pick["tag"], cuda=pick["cuda"], cudnn=pick.get("cudnn"),
               build=pick)
    return out


def _freshness_reasons(snap: dict, pick: dict, newest_fit: str) -> list[str]:
    """The installed torch kept when the tables cannot describe it (judged from live facts), and a
    pick that is an older release than the installed torch said in so many words, with the driver
    upgrade that keeps it where the driver is what rules it out."""
    if pick.get("kept"):
        return [freshness.kept_line(pick)]
    tv = F.torch_version(snap)
    note = freshness.downgrade_note(tv, pick, "the newest build the tables know that fits this machine",
                                    driver=(F.driver_version(snap), F.driver_os(snap)))
    if not note:
        newer = freshness.newer_unpicked(pick)
        return [newest_fit] + ([newer] if newer else [])
    if freshness.tables_incomplete_for(tv):
        newest_fit = newest_fit.replace("newest fit:", "newest fit that the tables know:", 1)
    out = [newest_fit, freshness.DOWNGRADE_PREFIX + note]
    if kb.driver_runs(F.torch_cuda(snap), F.driver_version(snap), F.driver_cuda(snap), F.driver_os(snap)) == kb.NO:
        need = kb.min_driver_for_cuda(F.torch_cuda(snap), F.driver_os(snap)) or {}
        want = need.get("compat_floor") or need.get("toolkit_minimum")
        out.append(f"or keep torch {tv}: upgrade the NVIDIA driver to one for CUDA {F.torch_cuda(snap)}"
                   + (f" (>= {want} on {F.driver_os(snap)})" if want else "") + " and it runs as it is")
    return out


def advise(snap: dict) -> tuple[list[str], str | None]:
    """What `torch-envcheck advise` prints: (reasons, command); command None when nothing fits (the
    reasons say why)."""
    rec = recommend(snap)
    if rec["kind"] in (None, "keep"):
        return rec["reasons"], None
    if rec["kind"] == "native-python":
        return rec["reasons"], native_python_steps(companions_installed(snap))
    if rec["kind"] == "jetpack":
        return rec["reasons"], jetpack_command(snap, rec["jetpack"])
    if rec["kind"] == "pypi":
        return rec["reasons"], pip_command(snap, "install", "torch", "torchvision")
    if rec["kind"] == "cpu":
        return rec["reasons"], pip_command(snap, "install", "torch", "torchvision", "--index-url", index_url("cpu"))
    companions = companions_installed(snap) if F.section_known(snap, "packages") else ["torchvision"]
    return rec["reasons"], install_command(snap, rec["build"], companions=companions)
