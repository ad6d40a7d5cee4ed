"""Which shell the doctor was started from, so that fix commands are written for the one the user
pastes them into: cmd.exe (Anaconda Prompt is a cmd.exe running conda's activate.bat), PowerShell
(Windows PowerShell 5.1 or pwsh; Windows Terminal's default) or a POSIX shell (Git Bash on Windows).
Gathers evidence, never guesses: when nothing tells the Windows shells apart, name is None and the
fixes are written in the words both read alike.

    detect(env=None, chain=None, system=None) -> {"name": "cmd"|"powershell"|"sh"|None, "evidence": str}

Evidence, strongest first:
  1. the parent processes (nearest first, past python, the torch-envcheck launcher, conda, py and
     other wrappers): the first shell among them is the one the command was typed into;
  2. Windows only, when the processes cannot be read: PSModulePath holding the user's own modules
     folder (Documents\\WindowsPowerShell\\Modules or Documents\\PowerShell\\Modules), which
     PowerShell adds to the variable each time it starts (Microsoft Learn, about_PSModulePath:
     "The value of $Env:PSModulePath is constructed each time PowerShell starts"), against cmd.exe's
     PROMPT variable without it.  A cmd.exe started from PowerShell inherits both, so this is only
     used when (1) says nothing.
"""

from __future__ import annotations

import os
import sys

MAX_DEPTH = 8
SHELLS = {"cmd.exe": "cmd", "cmd": "cmd", "powershell.exe": "powershell", "powershell": "powershell",
          "pwsh.exe": "powershell", "pwsh": "powershell", "bash.exe": "sh", "bash": "sh", "sh.exe": "sh", "sh": "sh",
          "zsh": "sh", "dash": "sh", "fish": "sh", "ksh": "sh", "mintty.exe": "sh"}
# processes between the shell and the doctor that are not shells
WRAPPERS = ("python", "pythonw", "py", "torch-envcheck", "conda", "mamba", "micromamba", "uv", "pipx", "pixi", "poetry",
            "env", "timeout", "nice", "ipython", "jupyter", "sudo", "conhost", "winpty", "script", "time")
# where a chain ends without a shell: a desktop, a service, an IDE (their terminals start a shell of their own)
ROOTS = ("explorer.exe", "services.exe", "svchost.exe", "wininit.exe", "init", "systemd", "launchd", "sshd")


def _base(name: str) -> str:
    return os.path.basename(str(name).replace("\\", "/")).strip().lower()


def from_chain(chain) -> tuple[str | None, str | None]:
    """(shell, the process that says so) from the ancestors' names, nearest first."""
    for raw in list(chain or ())[:MAX_DEPTH]:
        name = _base(raw)
        if name in SHELLS:
            return SHELLS[name], name
        stem = name[:-4] if name.endswith(".exe") else name
        if name in ROOTS or stem in ROOTS:
            return None, None
        if any(stem == w or stem.startswith(w) for w in WRAPPERS):
            continue
        return None, None  # an IDE or another program: its own terminal decides, not known here
    return None, None


def _user_modules(psmodulepath: str) -> bool:
    return any(p.lower().rstrip("\\/").endswith(("documents\\windowspowershell\\modules", "documents\\powershell\\modules"))
               for p in psmodulepath.split(";"))


def from_env(env: dict) -> tuple[str | None, str | None]:
    ps = env.get("PSModulePath") or ""
    if ps and _user_modules(ps):
        return "powershell", "PSModulePath holds the user's PowerShell modules folder (PowerShell adds it at start)"
    if env.get("PROMPT"):
        return "cmd", "PROMPT is set (cmd.exe's prompt variable) and PSModulePath has no user modules folder"
    return None, None


def _windows_chain() -> list[str]:
    import ctypes  # noqa: PLC0415
    from ctypes import wintypes  # noqa: PLC0415

    class PROCESSENTRY32W(ctypes.Structure):
        _fields_ = [("dwSize", wintypes.DWORD), ("cntUsage", wintypes.DWORD), ("th32ProcessID", wintypes.DWORD),
                    ("th32DefaultHeapID", ctypes.c_void_p), ("th32ModuleID", wintypes.DWORD),
                    ("cntThreads", wintypes.DWORD), ("th32ParentProcessID", wintypes.DWORD),
                    ("pcPriClassBase", ctypes.c_long), ("dwFlags", wintypes.DWORD),
                    ("szExeFile", ctypes.c_wchar * 260)]

    k32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    snap = k32.CreateToolhelp32Snapshot(0x2, 0)  # TH32CS_SNAPPROCESS
    if snap in (0, -1, ctypes.c_void_p(-1).value):
        return []
    parents, names = {}, {}
    try:
        entry = PROCESSENTRY32W()
        entry.dwSize = ctypes.sizeof(PROCESSENTRY32W)
        ok = k32.Process32FirstW(snap, ctypes.byref(entry))
        count = 0
        while ok and count < 100000:
            parents[entry.th32ProcessID] = entry.th32ParentProcessID
            names[entry.th32ProcessID] = entry.szExeFile
            ok = k32.Process32NextW(snap, ctypes.byref(entry))
            count += 1
    finally:
        k32.CloseHandle(snap)
    return _walk(os.getpid(), parents, names)


def _walk(pid: int, parents: dict, names: dict) -> list[str]:
    out, seen = [], {pid}
    cur = parents.get(pid)
    while cur and cur not in seen and len(out) < MAX_DEPTH:
        seen.add(cur)
        if cur not in names:
            break
        out.append(names[cur])
        cur = parents.get(cur)
    return out


def _proc_chain() -> list[str]:
    out, pid = [], os.getppid()
    for _ in range(MAX_DEPTH):
        if pid <= 1:
            break
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                data = fh.read(1024)
        except OSError:
            break
        left, right = data.find(b"("), data.rfind(b")")
        if left < 0 or right < 0:
            break
        out.append(data[left + 1:right].decode(errors="replace"))
        fields = data[right + 2:].split()
        pid = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
    return out


def parent_chain(system: str | None = None) -> list[str]:
    """The names of this process's ancestors, nearest first (empty when they cannot be read)."""
    try:
        if (system or sys.platform) in ("Windows", "win32"):
            return _windows_chain()
        if os.path.isdir("/proc/self"):
            return _proc_chain()
    except Exception:  # noqa: BLE001  (a probe never fails because of this)
        return []
    return []


def detect(env: dict | None = None, chain=None, system: str | None = None) -> dict:
    env = dict(os.environ if env is None else env)
    chain = parent_chain(system) if chain is None else list(chain)
    name, proc = from_chain(chain)
    if name:
        return {"name": name, "evidence": f"parent process {proc}"}
    windows = (system or ("Windows" if sys.platform == "win32" else "")) == "Windows"
    if windows:
        name, why = from_env(env)
        if name:
            return {"name": name, "evidence": why}
        return {"name": None, "evidence": "neither the parent processes nor PSModulePath/PROMPT tell cmd.exe from PowerShell"}
    return {"name": None, "evidence": "no shell among the parent processes"}
