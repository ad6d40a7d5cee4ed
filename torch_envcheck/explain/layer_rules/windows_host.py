"""Layer rules for the Windows host around Python, read from Windows' and pip's own words: the Microsoft Store's python
alias, the Store Python's protected install folder, and a build's tool that Windows cannot start.

    store_python_alias   "Python was not found; run without arguments to install from the Microsoft Store" -> env: no
                         Python on PATH (the Store's alias answered): python.org's installer with PATH, `py`, or the alias off
    store_python_protected  pip's [WinError 5] Access is denied inside WindowsApps\\PythonSoftwareFoundation.Python... -> env:
                         a venv, or a python.org Python, not the Store Python's own folder
    build_tool_not_started  [WinError 2] while setuptools/cpp_extension builds an extension -> toolchain: cl.exe (a developer
                         prompt), ninja, nvcc
    torch_dll_without_code  torch's "Error loading \"X.dll\" or one of its dependencies" pasted without its WinError code
                         -> windows-runtime: the Visual C++ runtime, fbgemm.dll's OpenMP DLL
    install_path_too_long  pip's "Could not install packages due to an OSError: [Errno 2] No such file or directory"
                         for a Windows path past MAX_PATH (260), or under the Store Python's long folder -> windows-runtime:
                         LongPathsEnabled, or a shorter environment path
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_ALIASES = {"url": "https://learn.microsoft.com/en-us/windows/python/faqs",
            "what": "Python on Windows: the Microsoft Store's python.exe alias (App execution aliases) and the "
                    "python.org installer's PATH option"}
_STORE_PYTHON = {"url": "https://docs.python.org/3/using/windows.html#the-microsoft-store-package",
                 "what": "the Microsoft Store package of Python: its install folder is read-only; packages go to the "
                         "user's folder or a virtual environment"}

_ALIAS = re.compile(r"Python was not found; run without arguments to install from the Microsoft Store")


def store_python_alias(ent, text):
    m, at = last_in_tail(_ALIAS, text, "Python was not found")
    if m is None:
        return None
    sig = _sig("store-python-alias", "env",
               "no Python on PATH: Windows' Microsoft Store alias answered for `python`", 86,
               "Windows ships python.exe and python3.exe as App execution aliases that only open the Microsoft Store; "
               "when no installed Python comes first on PATH, `python` runs the alias, prints this and does nothing, so "
               "every later step (a venv, pip, the program) fails with it.",
               fix="Install Python from python.org and tick \"Add python.exe to PATH\" (or use the launcher: `py -3.11 -m "
                   "venv .venv`), open a new terminal, and check `where python`; or turn the python.exe aliases off in "
                   "Settings > Apps > Advanced app settings > App execution aliases.",
               areas=("env",), sources=(_ALIASES,))
    return _match(sig, text, at, {})


_PROTECTED = re.compile(r"\[WinError 5\] Access is denied: '[^'\n]{0,40}?WindowsApps(?:\\{1,2}|/)PythonSoftwareFoundation\."
                        r"Python\.(?P<ver>3\.\d{1,2})")


def store_python_protected(ent, text):
    m, at = last_in_tail(_PROTECTED, text, "WindowsApps")
    if m is None:
        return None
    sig = _sig("store-python-protected-folder", "env",
               "pip cannot write into the Microsoft Store Python's own folder (Python {ver})", 88,
               "The Microsoft Store's Python lives in C:\\Program Files\\WindowsApps, which no user may write to; a pip "
               "that installs into it (here, a nested install during a package's build) is refused.",
               fix="Install into a virtual environment (`python -m venv .venv`, then `.venv\\Scripts\\activate` and pip "
                   "there), or use a Python from python.org; `pip install --user` also works for a plain install.",
               areas=("env",), sources=(_STORE_PYTHON,))
    return _match(sig, text, at, {"ver": m.group("ver")})


_WINERROR2 = re.compile(r"\[WinError 2\] (?:The system cannot find the file specified|系统找不到指定的文件)")
_BUILDING = re.compile(r"running build_ext|building '[\w.-]{1,80}' extension|cpp_extension|BuildExtension|"
                       r"CUDAExtension|setup\.py (?:build|install|develop)")


def build_tool_not_started(ent, text):
    m, at = last_in_tail(_WINERROR2, text, "[WinError 2]")
    if m is None:
        return None
    if not _BUILDING.search(text[-CONTEXT_TAIL:]):
        return None
    sig = _sig("windows-build-tool-not-started", "toolchain",
               "building the extension, Windows could not start one of the build's programs ([WinError 2])", 84,
               "setuptools and torch.utils.cpp_extension start the compilers as programs: cl.exe (MSVC), nvcc for CUDA "
               "sources and ninja; [WinError 2] says the one started is not on PATH. cl.exe is on PATH only inside a "
               "Visual Studio developer prompt.",
               fix="Install the Visual Studio Build Tools with the \"Desktop development with C++\" workload and build from "
                   "the \"x64 Native Tools Command Prompt\" (or after `vcvars64.bat`), so `where cl` finds cl.exe; with "
                   "CUDA sources also `where nvcc` (CUDA_HOME at the toolkit matching torch.version.cuda), and `pip "
                   "install ninja`.",
               areas=("toolchain",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py",
                         "what": "cpp_extension on Windows: cl.exe from a developer prompt, ninja, nvcc"},))
    return _match(sig, text, at, {})


# torch/__init__.py's own suffix to the loader's error (err.strerror += ' Error loading "{dll}" or one of its
# dependencies.'); with the code pasted, the catalogue's WinError sentences read it; "Erro"/"Eror" are pasting typos
_DLL_SUFFIX = re.compile(r"\bErr?or? loading \"[^\"\n]{0,260}?(?<![A-Za-z0-9_.-])(?P<dll>[A-Za-z0-9_.-]{1,60}\.dll)\" or one "
                         r"of its dependencies")


def torch_dll_without_code(ent, text):
    m, at = last_in_tail(_DLL_SUFFIX, text, "one of its dependencies")
    if m is None or "WinError" in text[max(0, at - 400):at + 20]:
        return None
    dll = m.group("dll")
    sig = _sig("torch-dll-load-failed", "windows-runtime",
               "Windows could not load torch's {dll} or a DLL it depends on", 74,
               "torch loads its DLLs one by one at import and appends this sentence to Windows' own error; most often a "
               "DLL they need is missing or too old: the Microsoft Visual C++ runtime, or for fbgemm.dll the OpenMP DLL "
               "(libomp140.x86_64.dll) that torch 2.4.0 did not ship.",
               fix="Install the latest Microsoft Visual C++ Redistributable (x64) from "
                   "https://aka.ms/vs/17/release/vc_redist.x64.exe; for fbgemm.dll with torch 2.4.0 upgrade torch (2.4.1 "
                   "ships the OpenMP DLL). If it persists, Dependencies (lucasg/Dependencies) opened on {dll} names the "
                   "DLL that is missing. Never download single DLLs from DLL sites.",
               areas=("torch", "platform"),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/__init__.py",
                         "what": "_load_dll_libraries: 'Error loading \"{dll}\" or one of its dependencies.'"},
                        {"url": "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
                         "what": "the latest supported Visual C++ Redistributable downloads"}))
    return _match(sig, text, at, {"dll": dll})


_MAX_PATH = {"url": "https://learn.microsoft.com/en-us/windows/win32/fileio/maximum-file-path-limitation",
             "what": "Windows' MAX_PATH (260 characters) and the LongPathsEnabled setting that lifts it"}
# pip writing a package's file fails with ENOENT although pip created the folder: on Windows the full path is past
# MAX_PATH (deep package trees such as TensorFlow's headers), or starts in the Store Python's already long folder
_PIP_ENOENT = re.compile(r"Could not install packages due to an? (?:OSError|EnvironmentError): \[Errno 2\] No such file or "
                         r"directory: '(?P<path>[A-Za-z]:\\{1,2}[^'\n]{1,600})")


def install_path_too_long(ent, text):
    m, at = last_in_tail(_PIP_ENOENT, text, "[Errno 2]")
    if m is None:
        return None
    path = m.group("path").replace("\\\\", "\\")
    store = re.search(r"(?i)AppData\\{1,2}Local\\{1,2}Packages\\{1,2}P", m.group("path")) is not None
    if len(path) < 200 and not store:
        return None
    sig = _sig("install-path-too-long", "windows-runtime",
               "pip could not write a file whose path is too long for Windows" + (" (the Store Python's folder)" if store else ""),
               82,
               "Windows refuses paths longer than 260 characters (MAX_PATH) unless long paths are enabled; a package with "
               "a deep tree (TensorFlow's headers, CUDA wheels) installed into a folder with a long path goes past it, "
               "and pip reports the file it could not create as missing (Errno 2)." +
               (" The Microsoft Store's Python installs into AppData\\Local\\Packages\\PythonSoftwareFoundation..., "
                "which uses much of that length already." if store else ""),
               fix="Enable long paths (an administrator PowerShell: `New-ItemProperty -Path "
                   "\"HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" -Name \"LongPathsEnabled\" -Value 1 "
                   "-PropertyType DWORD -Force`, then a new terminal) and install again; or create the environment at a "
                   "shorter path (`py -m venv C:\\venvs\\tf`)" + (" with a python.org Python instead of the Store's"
                                                                   if store else "") + ".",
               areas=("platform",), sources=(_MAX_PATH,))
    return _match(sig, text, at, {})
