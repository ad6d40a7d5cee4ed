"""The one platform model every fix, `advise`, script and plan is made for: the machine a snapshot
describes, as the commands need it.

    Platform.of(snapshot) -> Platform
        os            Linux, Windows, Darwin (platform.system())
        shell         posix | powershell: what fix lines are quoted for (escape.shell_for)
        manager       venv | conda | mamba | micromamba | system: what manages the Python environment
        accelerator   nvidia | jetson | apple-silicon | apple-rosetta | rocm | none | unknown
        container     docker, podman, kubernetes, ... or None
        python        "3.11" (the interpreter's X.Y); machine: the interpreter's CPU (x86_64 under Rosetta)
    p.venv_python(root, conda=False)   the interpreter of an environment in the platform's layout:
                                       root/bin/python, root\\Scripts\\python.exe, root\\python.exe (conda)
    p.new_environment(name, pip_words) the command lines that make a fresh environment NAME with the
                                       platform's manager and install pip_words into it
    p.path_problems(text)              POSIX paths in a Windows command, Windows paths in a POSIX one

Every command is built from words and quoted once for the platform's shell (_util/escape.py); only
the folder of a new environment is this module's own text ($HOME\\venvs\\NAME, ~/venvs/NAME), left
unquoted so the shell expands the home folder.
"""

from __future__ import annotations

import dataclasses
import re

from torch_envcheck._util import escape
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F

# A new environment's folder, per shell: the home folder is the shell's to expand.
_HOME_VENV = {"posix": "~/venvs/{name}", "powershell": "$HOME\\venvs\\{name}"}
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
# A POSIX interpreter or venv path in a command meant for Windows (the issue's ~/venvs/x/bin/python)
_POSIX_PATH = re.compile(r"(?:^|[\s'\"=])(?:~/|/home/|/usr/|/opt/|/Users/)\S*|\S*/bin/(?:python|pip)\S*|bin/activate")
# A Windows path in a command meant for a POSIX shell
_WINDOWS_PATH = re.compile(r"(?:^|[\s'\"])(?:[A-Za-z]:\\|\$HOME\\|%\w+%\\)\S*|\\Scripts\\|\S*python\.exe")


@dataclasses.dataclass(frozen=True)
class Platform:
    os: str
    shell: str
    manager: str
    accelerator: str
    container: str | None = None
    python: str | None = None
    machine: str | None = None
    wsl: int | None = None

    # ------------------------------------------------------------------ built from a snapshot

    @classmethod
    def of(cls, s) -> "Platform":
        system = F.system(s) or "Linux"
        return cls(os=system, shell=escape.shell_for(system), manager=_manager(s), accelerator=_accelerator(s),
                   container=F.container(s), python=F.python_mm(s), machine=F.machine(s), wsl=F.wsl(s))

    @property
    def windows(self) -> bool:
        return self.os == "Windows"

    @property
    def conda_like(self) -> bool:
        return self.manager in ("conda", "mamba", "micromamba")

    # ------------------------------------------------------------------ layout

    def venv_python(self, root: str, conda: bool = False) -> str:
        """The interpreter of an environment whose folder is `root`, in this platform's layout (a
        conda env on Windows keeps python.exe at its root; a venv in Scripts\\)."""
        if self.windows:
            sep = "" if root.endswith(("\\", "/")) else "\\"
            return root + sep + ("python.exe" if conda else "Scripts\\python.exe")
        return root.rstrip("/") + "/bin/python"

    def join(self, *words) -> escape.Command:
        """A command line from words, quoted for this platform's shell."""
        return escape.shell_join(words, self.shell)

    def new_environment(self, name: str, pip_words) -> str:
        """One command line that creates a fresh environment NAME and runs `python -m pip PIP_WORDS`
        in it, with the platform's manager: `conda create -n NAME` then `conda run -n NAME` (also mamba,
        micromamba), else a venv in ~/venvs/NAME (POSIX: `python3 -m venv`) or $HOME\\venvs\\NAME
        (Windows: the `py` launcher, its python.exe in Scripts\\).  `name` is this program's own word."""
        if not _NAME.fullmatch(name):
            raise ValueError(f"not an environment name: {name!r}")
        words = [str(w) for w in pip_words]
        sep = "; " if self.shell == "powershell" else " && "
        if self.conda_like:
            mgr = self.manager
            py = f"python={self.python}" if self.python else "python"
            return (self.join(mgr, "create", "-y", "-n", name, py, "pip") + sep
                    + self.join(mgr, "run", "-n", name, "python", "-m", "pip", *words))
        folder = _HOME_VENV[self.shell].format(name=name)
        rest = escape.shell_join(["-m", "pip", *words], self.shell)
        if self.windows:
            # `py` (the Python launcher) makes the venv with this Python's X.Y; `&` calls the path.
            # '-3.10' quoted: Windows PowerShell 5.1 may split an option-like word holding a '.'
            ver = " " + escape.shell_quote(f"-{self.python}", "powershell") if self.python else ""
            return f"py{ver} -m venv {folder}{sep}& {self.venv_python(folder)} {rest}"
        return f"python3 -m venv {folder}{sep}{self.venv_python(folder)} {rest}"

    # ------------------------------------------------------------------ checks

    def path_problems(self, line: str) -> list[str]:
        """Paths in `line` that do not belong to this platform's layout."""
        if line.lstrip().startswith("#"):
            return []
        bad = _POSIX_PATH if self.windows else _WINDOWS_PATH
        # a URL's path is not a file path
        scrubbed = re.sub(r"(?:https?|file)://\S+", "URL", line)
        return [m.group(0).strip(" '\"=") for m in bad.finditer(scrubbed)]


def _manager(s) -> str:
    if C.has_conda_facts(s):
        return C.manager(s)
    if F.conda_env(s):
        return "conda"
    return "venv" if F.in_venv(s) is True else ("system" if F.in_venv(s) is False else "venv")


def _accelerator(s) -> str:
    if F.is_macos(s):
        if F.rosetta(s) is True:
            return "apple-rosetta"
        if F.apple_silicon(s) is True or F.machine(s) == "arm64":
            return "apple-silicon"
        return "none"
    if F.is_tegra(s):
        return "jetson"
    # a ROCm torch's devices are AMD GPUs: NVIDIA's are those of the driver and the PCI bus
    if F.is_rocm_torch(s) and F.driver_present(s) is not True and not F.driver_gpus(s) and not F.pci_gpus(s):
        return "rocm"
    if F.has_nvidia_gpu(s) or F.driver_present(s) is True:
        return "nvidia"
    if F.driver_present(s) is False and F.pci_gpus(s) == []:
        return "none"
    return "unknown"
