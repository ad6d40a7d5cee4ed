"""The fix checker: every command the tool prints for a machine (a finding's fix, `advise`, a plan's
steps) is read back and checked against the machine's snapshot before it is printed.

    problems(s, text) -> [Problem]    for a fix (several lines: comments, commands)
    annotate(s, findings)             the doctor's pass: a fix with problems keeps them in
                                      details['fix_problems'] and gets a `# caution:` first line

What is checked:
  wheel     the wheel a command installs exists for this platform: no `tensorflow[and-cuda]` before
            TensorFlow 2.14 or on native Windows, no CUDA index on macOS, no torch build the tables
            do not have for this OS/CPU, no download.pytorch.org aarch64 wheel on a Jetson before
            JetPack 7, no torch for an x86_64 Python under Rosetta
  requires  after the command, every requirement of an installed distribution that was met is still
            met (deps.py: packaging against the recorded Requires-Dist and the tables' pins); a
            command that makes a new environment (python -m venv DIR, conda create -n NAME) is
            judged in that environment, which starts empty
  path      paths in the platform's layout (no ~/venvs/x/bin/python on Windows, no Scripts\\ on Linux)
  shell     each command line reads back as commands in the platform's shell (shellwords.py)
  manager   the environment's own installer: no `python -m pip` for a uv venv without pip (uv pip
            install --python / uv add read as pip's install); no Linux NVIDIA driver installed inside
            WSL 2
"""

from __future__ import annotations

import dataclasses
import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util import escape, versions
from torch_envcheck.advice import shellwords
from torch_envcheck.advice.platform import Platform
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import tensorflow as tk

_PIP_FLAGS_WITH_VALUE = ("--index-url", "-i", "--extra-index-url", "--find-links", "-f", "-r", "--requirement",
                         "-c", "--constraint")


@dataclasses.dataclass(frozen=True)
class Problem:
    kind: str     # wheel, requires, path, shell
    line: str
    detail: str

    def text(self) -> str:
        return f"{self.kind}: {self.detail}"


def _pip_args(argv: list[str]) -> tuple[str | None, list[str] | None]:
    """(interpreter or None for a bare `pip`, the words after pip) of a pip command, else (None, None).
    uv's forms read as pip's: `uv pip CMD --python EXE ...` is EXE's `pip CMD ...`; `uv add --project
    DIR ... --index NAME=URL` installs into DIR's .venv (the snapshot's own environment) from URL."""
    if len(argv) >= 3 and argv[1:3] == ["-m", "pip"]:
        return argv[0], argv[3:]
    if argv and argv[0] in ("pip", "pip3"):
        return None, argv[1:]
    if argv[:2] == ["uv", "pip"]:  # judged as the pip command it amounts to
        from torch_envcheck.advice.recommend import index_url  # noqa: PLC0415
        from torch_envcheck.advice.uv_words import as_pip  # noqa: PLC0415
        return as_pip(argv, index_url)
    if len(argv) >= 2 and argv[0] == "uv" and argv[1] == "add":
        words, i = ["install"], 2
        while i < len(argv):
            if argv[i] == "--project" and i + 1 < len(argv):
                i += 2
                continue
            if argv[i] == "--index" and i + 1 < len(argv):
                words += ["--index-url", argv[i + 1].split("=", 1)[-1]]
                i += 2
                continue
            words.append(argv[i])
            i += 1
        return None, words
    return None, None


def _install_specs(args: list[str]) -> tuple[list[str], str | None]:
    specs, index, skip = [], None, False
    for i, word in enumerate(args[1:], 1):
        if skip:
            skip = False
            continue
        if word in _PIP_FLAGS_WITH_VALUE:
            if word in ("--index-url", "-i") and i + 1 < len(args):
                index = args[i + 1]
            skip = True
            continue
        if not word.startswith("-"):
            specs.append(word)
    return specs, index


def _parse_spec(spec: str) -> tuple[str, set, str | None]:
    """(name, extras, exact-or-prefix version) of a requirement word, without packaging."""
    m = re.match(r"([A-Za-z0-9_.-]+)(?:\[([A-Za-z0-9_.,-]+)\])?\s*(?:===?\s*([^,;\s]+))?", spec)
    if not m:
        return "", set(), None
    extras = {e.strip().lower() for e in (m.group(2) or "").split(",") if e.strip()}
    return re.sub(r"[-_.]+", "-", m.group(1)).lower(), extras, m.group(3)


def _wheel_problems(s, p: Platform, interpreter_is_current: bool, args: list[str], line: str) -> list[Problem]:
    if not args or args[0] != "install":
        return []
    specs, index = _install_specs(args)
    label = None
    if index:
        m = re.search(r"/whl/([A-Za-z0-9.]+)/?$", index)
        label = m.group(1).lower() if m and versions.is_index_label(m.group(1)) else None
    out = []
    for spec in specs:
        name, extras, version = _parse_spec(spec)
        if name.startswith("tensorflow") and "and-cuda" in extras:
            if p.windows:
                out.append(Problem("wheel", line, "tensorflow[and-cuda] does not exist on native Windows (its "
                                                  "Windows wheels have no GPU build after 2.10 and never the extra)"))
            elif version and tk.and_cuda_exists(version.rstrip(".*"), "linux") is False:
                out.append(Problem("wheel", line, f"tensorflow {version} has no `and-cuda` extra (it exists from "
                                                  f"{tk.and_cuda_since()} on)"))
        if name != "torch":
            continue
        if p.accelerator == "apple-rosetta" and interpreter_is_current:
            out.append(Problem("wheel", line, "this x86_64 Python runs under Rosetta: pip gives it torch's x86_64 macOS "
                                              "wheels, which have no MPS (and none exists after torch 2.2)"))
        if label is None:
            continue
        if p.os == "Darwin" and label != "cpu":
            out.append(Problem("wheel", line, f"download.pytorch.org has no {label} wheels for macOS"))
        cuda = versions.cuda_from_tag(label)
        if p.accelerator == "jetson" and cuda and interpreter_is_current:
            l4t = F.jetson_l4t(s)
            from torch_envcheck.knowledge import jetson as kj  # noqa: PLC0415
            if not kj.sbsa_wheels_run(l4t):
                out.append(Problem("wheel", line, f"the PyTorch index's aarch64 {label} wheels are built for server GPUs: "
                                                  f"their code does not run on this Jetson's GPU (L4T {kj.l4t_text(l4t)})"))
        rel = kb.release(version) if version else None
        if rel and version and not version.endswith("*"):
            build = next((b for b in rel.get("builds", []) if b.get("tag") == label), None)
            if label != "cpu" and label.startswith("cu") and build is None and rel.get("builds_complete", True):
                out.append(Problem("wheel", line, f"torch {rel['torch']} has no {label} build in the tables"))
            elif build is not None and not kb.build_on_platform(build, p.os, p.machine):
                out.append(Problem("wheel", line, f"torch {rel['torch']} {label} is not published for {p.os} {p.machine or ''}".rstrip()))
    return out


class _Envs:
    """The environments a fix touches: the snapshot's own, and the new ones it creates."""

    def __init__(self, s, p: Platform):
        self.s, self.p = s, p
        self.current_exe = F.python_exe(s)
        self.envs: dict = {}
        self.venv_dirs: dict = {}   # the python path of a venv created by the fix -> its key

    def get(self, key):
        if key not in self.envs:
            from torch_envcheck.advice.deps import Env  # noqa: PLC0415  (packaging: only for pip commands)
            self.envs[key] = Env.of(self.s) if key == "current" else Env.fresh(self.s)
        return self.envs[key]

    def created(self, argv: list[str]) -> bool:
        """Record a command that makes a new environment; True if it was one."""
        if "-m" in argv and "venv" in argv:
            i = argv.index("venv")
            folder = next((w for w in argv[i + 1:] if not w.startswith("-")), None)
            if folder:
                for conda in (False, True):
                    self.venv_dirs[self.p.venv_python(folder, conda)] = ("venv", folder)
                self.envs.pop(("venv", folder), None)
                return True
        if argv and argv[0] in ("conda", "mamba", "micromamba") and len(argv) > 1 and argv[1] == "create":
            name = argv[argv.index("-n") + 1] if "-n" in argv and argv.index("-n") + 1 < len(argv) else None
            prefix = argv[argv.index("-p") + 1] if "-p" in argv and argv.index("-p") + 1 < len(argv) else None
            key = ("conda", name or prefix or "?")
            self.envs.pop(key, None)
            return True
        return False

    def target(self, argv: list[str]) -> tuple[object, list[str] | None, bool]:
        """(env key, pip words, is the snapshot's own interpreter) of a command, or (None, None, False)."""
        if argv and argv[0] in ("conda", "mamba", "micromamba") and len(argv) > 5 and argv[1] == "run":
            name = argv[argv.index("-n") + 1] if "-n" in argv else None
            rest = argv[argv.index("-n") + 2:] if "-n" in argv else []
            exe, words = _pip_args(rest)
            return (("conda", name), words, False) if words is not None else (None, None, False)
        exe, words = _pip_args(argv)
        if words is None:
            return None, None, False
        if exe is None or exe == self.current_exe:
            return "current", words, True
        if exe in self.venv_dirs:
            return self.venv_dirs[exe], words, False
        return ("other", exe), words, False


def _short(line: str) -> str:
    """'nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == "Linux"' -> 'nvidia-cudnn-cu12==9.1.0.70'."""
    from torch_envcheck.advice.deps import _req  # noqa: PLC0415
    req = _req(line)
    return f"{req.name}{req.specifier}" if req is not None else line


def _section(line: str, current: Platform, base: Platform) -> Platform:
    """A fix for native Windows may carry lines to run inside WSL 2 (TensorFlow's GPU route): a
    comment naming WSL ("then, inside WSL 2 (Ubuntu):") starts them, one naming native Windows ends
    them.  Those lines are judged as the Linux of WSL 2."""
    low = line.lower()
    if "#" not in low or not base.windows:
        return current
    comment = low[low.index("#"):]
    if "inside wsl" in comment:
        return dataclasses.replace(base, os="Linux", shell="posix", wsl=2, manager="venv")
    if "native windows" in comment:
        return base
    return current


# A Linux NVIDIA driver package (Debian/Ubuntu, Fedora/RHEL, openSUSE, Arch names): never installed
# inside WSL 2, whose GPU belongs to the Windows driver (NVIDIA's CUDA on WSL user guide).
_LINUX_DRIVER_PKG = re.compile(r"^(nvidia-driver(-\S+)?|cuda-drivers(-\S+)?|nvidia-dkms(-\S+)?|libnvidia-compute(-\S+)?|"
                               r"nvidia-utils(-\S+)?|kmod-nvidia\S*|akmod-nvidia|nvidia-open(-\S+)?|nvidia)$")


def _manager_problems(s, p: Platform, argv: list[str], line: str) -> list[Problem]:
    """A `python -m pip` for the snapshot's own interpreter where that environment has no pip (a uv
    venv: "No module named pip"), and a Linux driver installed inside WSL 2."""
    out = []
    exe = F.python_exe(s)
    if len(argv) >= 3 and argv[1:3] == ["-m", "pip"] and argv[0] == exe and F.pip_present(s) is False:
        how = (f"uv {F.uv_version(s)} made it: `uv pip ... --python {exe}` installs into it" if F.uv_version(s)
               else f"`{exe} -m ensurepip` adds it first")
        out.append(Problem("manager", line, f"this environment has no pip ({how})"))
    words = argv[1:] if argv[:1] == ["sudo"] else argv
    if p.wsl == 2 and len(words) >= 3 and words[0] in ("apt", "apt-get", "dnf", "yum", "zypper", "pacman") \
            and words[1] in ("install", "-S", "in"):
        bad = [w for w in words[2:] if _LINUX_DRIVER_PKG.match(w)]
        if bad:
            out.append(Problem("driver", line, f"{bad[0]} is a Linux NVIDIA driver: inside WSL 2 it shadows the Windows "
                                               "driver's /usr/lib/wsl/lib (never install one there)"))
    return out


def problems(s, text, platform: Platform | None = None) -> list[Problem]:
    """What is wrong with a fix (or advise's commands) for the machine of snapshot `s`."""
    if not isinstance(text, str) or not text.strip():
        return []
    base = platform or Platform.of(s)
    p = base
    envs = _Envs(s, p)
    out: list[Problem] = []
    exe = F.python_exe(s)
    own = {exe, escape.shell_quote(exe, base.shell)} if exe else set()
    for line in text.splitlines():
        p = _section(line, p, base)
        envs.p = p
        # the recorded interpreter is the machine's own path, whatever it looks like: the layout check
        # judges the paths the tool writes
        scrubbed = line
        for word in sorted(own, key=len, reverse=True):
            scrubbed = scrubbed.replace(word, "EXE")
        out += [Problem("path", line, f"{bad} is not a {p.os} path") for bad in p.path_problems(scrubbed)]
        cmds = shellwords.commands(line, p.shell)
        if not cmds:
            continue
        for argv in cmds:
            if envs.created(argv):
                continue
            out += _manager_problems(s, p, argv, line)
            key, words, is_current = envs.target(argv)
            if words is None:
                continue
            out += _wheel_problems(s, p, is_current, words, line)
            if not words or words[0] not in ("install", "uninstall"):
                continue
            from torch_envcheck.advice.deps import available, regressions  # noqa: PLC0415
            if not available():
                continue  # without packaging the requirements are not judged
            before = envs.get(key)
            after = before.pip(words)
            for dist, req, have in regressions(before, after):
                out.append(Problem("requires", line, f"{dist} requires {_short(req)}, which would leave "
                                                     + (f"{have} installed" if have else "it missing")))
            envs.envs[key] = after
    return out


def fragment_problems(text: str, kind: str, targets, chosen: dict, reqs) -> list[Problem]:
    """What is wrong with a project-file fragment (kind 'uv' or 'poetry': pyproject.toml, 'pixi': pixi.toml) for
    the platforms it targets: TOML, the tool's fields, markers, and the build each platform gets
    (advice/fragments.py)."""
    from torch_envcheck.advice import fragments  # noqa: PLC0415
    judge = {"uv": fragments.uv_problems, "pixi": fragments.pixi_problems, "poetry": fragments.poetry_problems}[kind]
    return [Problem("fragment", kind, d) for d in judge(text, targets, chosen, reqs)]


def checked(s, fix: str) -> tuple[str, list[str]]:
    """The doctor's last pass over one fix: (the fix to print, its problems).  A fix with problems
    says so on its first line; the report keeps them in the finding's details['fix_problems'] (none
    is expected: tests/unit/advice/test_fix_checker.py)."""
    try:
        found = problems(s, fix)
    except Exception as exc:  # the checker must never cost the report
        found = [Problem("checker", "", f"{type(exc).__name__}: {exc}")]
    if not found:
        return fix, []
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    return (terminal("# caution: torch-envcheck's fix checker found: " + "; ".join(pr.text() for pr in found[:3]))
            + "\n" + fix, [pr.text() for pr in found[:10]])
