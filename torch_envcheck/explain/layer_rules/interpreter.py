"""Layer rules for the Python interpreter under the stack: standard-library modules a release removed, and an
interpreter built without the C libraries some of its modules need.

    stdlib_module_removed  "No module named 'distutils'" (or imp, asyncore, aifc, audioop, cgi, ...) on the Python that
                         removed it -> setuptools' distutils, a release of the package without it, a PyPI backport,
                         or the Python before (Debian's split python3-distutils below 3.12)
    interpreter_without_module  "No module named '_lzma'" (_ctypes, _bz2, _sqlite3, _ssl, ...) -> the library's
                         development package, then the interpreter built again (pyenv)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

# module -> the Python release that removed it (PEP 632: distutils; What's New in 3.12: imp, asynchat, asyncore,
# smtpd; PEP 594 and What's New in 3.13: the "dead batteries" and lib2to3)
REMOVED = {"distutils": "3.12", "imp": "3.12", "asynchat": "3.12", "asyncore": "3.12", "smtpd": "3.12",
           **{m: "3.13" for m in ("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "msilib",
                                  "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu",
                                  "xdrlib", "lib2to3")}}
_SOURCES = ({"url": "https://peps.python.org/pep-0632/", "what": "PEP 632: distutils removed in Python 3.12"},
            {"url": "https://peps.python.org/pep-0594/", "what": "PEP 594: dead batteries removed in Python 3.13"},
            {"url": "https://docs.python.org/3/whatsnew/3.12.html#removed", "what": "What's New in Python 3.12: removed"})

_NO_MODULE = re.compile(r"No module named '(?P<mod>[A-Za-z_][\w]{1,30})(?:\.[\w.]{1,60})?'")
def _python_named(ent) -> tuple | None:
    """(major, minor) of the Python the text names (extract reads it from prose, paths and wheel tags), or None."""
    parts = re.findall(r"\d+", str(ent.versions.get("python") or ""))[:2]
    return tuple(int(p) for p in parts) if len(parts) == 2 else None


def stdlib_module_removed(ent, text):
    m, at = last_in_tail(_NO_MODULE, text, "No module named '")
    if m is None or m.group("mod") not in REMOVED:
        return None
    mod = m.group("mod")
    removed = REMOVED[mod]
    py = _python_named(ent)
    rt = tuple(int(x) for x in removed.split("."))
    if py is not None and py < rt:
        if mod != "distutils":
            return None
        # before 3.12 Debian and Ubuntu ship distutils apart from the interpreter
        sig = _sig("distutils-package-missing", "toolchain", "this Python's distutils is a separate OS package here", 80,
                   "distutils is part of Python {py}, but Debian and Ubuntu split it into its own package "
                   "(python3-distutils), which this system lacks.",
                   fix="Install it: `sudo apt install python3-distutils` (or python3.X-distutils for a deadsnakes "
                       "Python), or use a virtual environment with setuptools installed.",
                   areas=("platform",), sources=_SOURCES[:1])
        return _match(sig, text, at, {"py": ".".join(map(str, py))})
    if mod == "distutils":
        fix = ("Python 3.12 removed distutils: install setuptools in the same environment (`python -m pip install "
               "setuptools`; it provides a distutils module for code that still imports it), upgrade the package that "
               "imports distutils to a release that does not, or use Python 3.11 for it.")
    elif mod == "imp":
        fix = ("Python 3.12 removed imp: upgrade the package that imports it to a release that uses importlib instead, "
               "or use Python 3.11 for it.")
    else:
        fix = ("Python {removed} removed {mod} from the standard library: upgrade the package that imports it to a "
               "release that no longer does, install a maintained backport of the module from PyPI where one exists "
               "(audioop-lts, standard-aifc, legacy-cgi, ...), or use a Python older than {removed} for it.")
    sig = _sig("stdlib-module-removed", "toolchain", "{mod} is gone from the standard library of Python {removed} and later",
               82, "The code (or a build step) imports {mod}, which Python {removed} removed from the standard library; "
               "the package was written for an older Python.", fix=fix, areas=("platform",), sources=_SOURCES)
    return _match(sig, text, at, {"mod": mod, "removed": removed})


# C extension modules of the standard library -> the library (and Debian/Ubuntu's development package) they are built
# against when Python is compiled (pyenv's "Suggested build environment"; CPython's configure)
WITHOUT = {"_lzma": ("liblzma (xz)", "liblzma-dev", "xz"), "_bz2": ("libbz2", "libbz2-dev", "bzip2"),
           "_ctypes": ("libffi", "libffi-dev", "libffi"), "_sqlite3": ("SQLite", "libsqlite3-dev", "sqlite"),
           "_ssl": ("OpenSSL", "libssl-dev", "openssl"), "_hashlib": ("OpenSSL", "libssl-dev", "openssl"),
           "_tkinter": ("Tcl/Tk", "tk-dev", "tcl-tk"), "readline": ("GNU readline", "libreadline-dev", "readline"),
           "_curses": ("ncurses", "libncurses-dev", "ncurses"), "_uuid": ("libuuid", "uuid-dev", "util-linux"),
           "_gdbm": ("GNU dbm", "libgdbm-dev", "gdbm"), "zlib": ("zlib", "zlib1g-dev", "zlib")}


def interpreter_without_module(ent, text):
    m, at = last_in_tail(_NO_MODULE, text, "No module named '")
    if m is None or m.group("mod") not in WITHOUT:
        return None
    mod = m.group("mod")
    lib, deb, brew = WITHOUT[mod]
    sig = _sig("interpreter-without-module", "env", "this Python was built without {mod} ({lib} was missing)", 84,
               "{mod} is a standard-library module CPython builds only when {lib}'s development files are present; this "
               "interpreter (compiled from source: pyenv, asdf, a manual build) was built without them, so every "
               "package that needs {mod} fails. pip cannot add it.",
               fix="Install the development files, then build the interpreter again: Debian/Ubuntu `sudo apt install "
                   "{deb}`, macOS `brew install {brew}`, then `pyenv install --force <version>` (or rebuild your "
                   "Python) and recreate the virtual environment; or use a prebuilt Python (python.org, conda, uv "
                   "python install).",
               areas=("platform",),
               sources=({"url": "https://github.com/pyenv/pyenv/wiki#suggested-build-environment",
                         "what": "pyenv: the libraries to install before building Python"},))
    return _match(sig, text, at, {"mod": mod, "lib": lib, "deb": deb, "brew": brew})
