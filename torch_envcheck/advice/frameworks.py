"""torch and TensorFlow in one environment: when their pins cannot both hold, and the fix that never
breaks one framework to repair the other.

    pin_clash(s) -> dict | None      the nvidia-* wheels torch's Requires-Dist and TensorFlow's and-cuda
                                     extra pin to versions no single one satisfies (both name
                                     nvidia-cudnn-cu12, one ==9.1.0.70, the other ==9.3.0.75): which
                                     pin the installed wheel follows, which framework that breaks
    two_environments(s) -> str       the fix: one new environment per framework, each installing the
                                     installed release exactly (torch from its index, TensorFlow with
                                     its and-cuda extra where that exists), made with the platform's
                                     manager and layout (platform.py)
    tf_gpu_requirement(version, os)  `tensorflow[and-cuda]==V` where the extra exists (Linux, >= 2.14),
                                     else `tensorflow==V` and what must be installed beside it

The two-environment answer follows TensorFlow's install guide and PyTorch's selector, which each
assume one framework per environment; the checker (check.py) proves each new environment's pins
agree, and that the fix changes nothing in the current one.
"""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import escape, versions
from torch_envcheck.advice import conda as AC
from torch_envcheck.advice.platform import Platform
from torch_envcheck.facts import core as F
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.knowledge import tensorflow as tk


def tf_gpu_requirement(version, os_col: str = "linux") -> tuple[str, str | None]:
    """(requirement word, note): the GPU TensorFlow of `version` for an OS column ('linux' also for
    WSL 2).  The and-cuda extra exists from 2.14 on Linux only (tensorflow_builds.json); an older
    release installs as `tensorflow==V`, with CUDA and cuDNN from NVIDIA beside it (the note)."""
    v = escape.requirement_version(version) if version else None
    if v and tk.and_cuda_exists(v, os_col) is False:
        row = tk.build(tk.release_key(v), os_col) or {}
        need = (f"CUDA {row['cuda']} and cuDNN {row['cudnn']}" if row.get("cuda") else "its tested CUDA and cuDNN")
        where = "on PATH" if os_col == "windows" else "on the library path (LD_LIBRARY_PATH)"
        return (f"tensorflow=={v}",
                f"TensorFlow {tk.release_key(v)} has no `and-cuda` extra (it exists from {tk.and_cuda_since()} on, "
                f"Linux only): install {need} from NVIDIA and put them {where}")
    if os_col == "windows":
        return (f"tensorflow=={v}" if v else "tensorflow", None)
    return (f"tensorflow[and-cuda]=={v}" if v else "tensorflow[and-cuda]", None)


# ---------------------------------------------------------------- the two frameworks' pins

def _torch_lines(s) -> list[str]:
    from torch_envcheck.advice import deps  # noqa: PLC0415
    for item in F.requires_dist(s):
        if deps.canonical(item.name) == "torch":
            return list(item.requires)
    return deps._known_requires(s, "torch", F.torch_version(s), F.torch_index_label(s)) or []


def _tf_lines(s) -> list[str]:
    from torch_envcheck.advice import deps  # noqa: PLC0415
    dist = deps.canonical(T.tf_distribution(s))
    for item in F.requires_dist(s):
        if deps.canonical(item.name) == dist:
            return [ln for ln in item.requires if "and-cuda" in ln]
    return [f"{r.name}{r.specifier}; extra == \"and-cuda\"" for r in T.and_cuda(s)]


def pin_clash(s) -> dict | None:
    """The nvidia-* wheels both frameworks pin, to versions no single one satisfies, when TensorFlow's
    and-cuda extra is in use beside a torch that pins CUDA wheels.  {'clashes': [{'name', 'torch',
    'tensorflow', 'installed', 'follows'}], 'follows': 'torch' | 'tensorflow' | 'neither' (whose pins
    the installed wheels keep), 'broken': the framework those wheels break}; None otherwise."""
    if not (T.tf_installed(s) and F.torch_version(s) and F.torch_installed(s) is not False):
        return None
    if F.system(s) != "Linux" or not T.uses_and_cuda(s):
        return None
    from torch_envcheck.advice import deps  # noqa: PLC0415
    if not deps.available():
        return None  # without packaging the pins are not compared
    tl, fl = _torch_lines(s), _tf_lines(s)
    if not tl or not fl:
        return None
    env = deps.marker_env(s)
    installed = {deps.canonical(k): v for k, v in F.nvidia_packages(s).items()}
    installed.update({deps.canonical(k): v for k, v in F.installed_versions(s).items() if v})
    out = []
    for name, a, b in deps.satisfiable_together(tl, [ln.split(";")[0] for ln in fl], env):
        have = installed.get(name)
        follows = None
        if have:
            ok_t = _meets(have, a)
            ok_f = _meets(have, b)
            follows = "torch" if ok_t and not ok_f else ("tensorflow" if ok_f and not ok_t else None)
        out.append({"name": name, "torch": _spec(a), "tensorflow": _spec(b), "installed": have, "follows": follows})
    if not out:
        return None
    # the libraries whose versions frameworks check at run time first (cuDNN's major.minor, the runtime)
    order = ("nvidia-cudnn", "nvidia-cuda-runtime", "nvidia-cublas", "nvidia-nvjitlink", "nvidia-cusparse")
    out.sort(key=lambda c: (next((i for i, p in enumerate(order) if c["name"].startswith(p)), len(order)), c["name"]))
    sides = {c["follows"] for c in out if c["installed"]}
    follows = sides.pop() if len(sides) == 1 else ("neither" if sides else None)
    broken = {"torch": "tensorflow", "tensorflow": "torch"}.get(follows)
    return {"clashes": out, "follows": follows, "broken": broken}


def _spec(line: str) -> str:
    from torch_envcheck.advice import deps  # noqa: PLC0415
    req = deps._req(line)
    return str(req.specifier) if req is not None else line


def _meets(version: str, line: str) -> bool:
    from torch_envcheck.advice import deps  # noqa: PLC0415
    req = deps._req(line)
    return bool(req is not None and deps._satisfies(version, req.specifier))


def clash_text(s, clash: dict, limit: int = 3) -> str:
    """'nvidia-cudnn-cu12 (torch ==9.1.0.70, tensorflow ==9.3.0.75; installed 9.1.0.70: torch's pin)'."""
    parts = []
    for c in clash["clashes"][:limit]:
        who = {"torch": "torch's pin", "tensorflow": "TensorFlow's pin"}.get(c["follows"], "neither pin")
        parts.append(f"{c['name']} (torch {c['torch']}, {T.tf_distribution(s)} {c['tensorflow']}"
                     + (f"; installed {c['installed']}: {who})" if c["installed"] else "; not installed)"))
    more = len(clash["clashes"]) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


# ---------------------------------------------------------------- the fix: one environment per framework

def torch_words(s) -> list[str]:
    """pip words installing the installed torch (and its installed companions) in a fresh
    environment, from its PyTorch index."""
    tv = F.torch_version(s)
    public = escape.requirement_version(versions.public(tv)) if tv else None
    words = ["install", f"torch=={public}" if public else "torch"]
    for name in ("torchvision", "torchaudio"):
        cv = escape.requirement_version(versions.public(F.package_version(s, name)))
        if cv:
            words.append(f"{name}=={cv}")
    tag = F.torch_index_label(s) or versions.tag_from_cuda(F.torch_cuda(s))
    if tag and not F.is_macos(s):
        words += ["--index-url", kb.index_url(tag)]
    return words


def tf_words(s) -> list[str]:
    """pip words installing the installed TensorFlow release in a fresh environment, with its GPU
    libraries where the platform has them through pip."""
    word, _note = tf_gpu_requirement(T.tf_version(s), T.tf_os(s))
    return ["install", word]


def two_environments(s, torch_name: str = "torch", tf_name: str = "tf") -> str:
    """The two command lines: a new environment for torch, one for TensorFlow (the current one is
    left as it is)."""
    p = Platform.of(s)
    lines = [p.new_environment(torch_name, torch_words(s)), p.new_environment(tf_name, tf_words(s))]
    _word, note = tf_gpu_requirement(T.tf_version(s), T.tf_os(s))
    row = T.tested(s)
    route = AC.tensorflow_cuda_route(s, row and row.cuda, row and row.cudnn, env_name=tf_name) \
        if p.conda_like and p.windows and T.is_native_windows(s) else None
    if route:
        lines.append(route)  # TensorFlow's Windows guide: CUDA and cuDNN from conda-forge into its env
    elif note:
        lines.append(escape.terminal("# " + note))
    return "\n".join(lines)
