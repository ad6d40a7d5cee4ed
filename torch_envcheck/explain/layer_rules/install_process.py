"""Layer rules for the install itself failing, whatever is being installed: the machine under pip (disk, memory,
network, permissions, the filesystem, a file held open), the OS's own policy (PEP 668), the certificates a download
trusts, a wheel URL that moved, conda's solver and its mixed channels.

    install_interrupted   an errno, a MemoryError, "Killed" or a read timeout while pip downloads or installs
                     -> the temp folder, --no-cache-dir, a venv / --user, the filesystem, the process holding a DLL,
                     a longer timeout with retries
    externally_managed    PEP 668's "externally-managed-environment" -> a virtual environment
    certificate_not_trusted  CERTIFICATE_VERIFY_FAILED -> the python.org macOS Python's certificates, the proxy's CA
                     for pip, certifi for a program's downloads, an expired certificate or the clock
    wheel_url_refused     pip's HTTP 403/404 for a wheel or an index page -> the current index, an upgraded pip
    conda_solver_refusals  UnsatisfiableError, PackagesNotFoundError, ClobberError, SafetyError, an invalid channel
                     -> a fresh environment, the versions the channel has, one channel order, conda clean, the token
    built_wheel_not_installed  `setup.py bdist_wheel` then "No module named 'torch'" -> install the built wheel"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _WINDOWS_TEXT, _context, _match, _sig, last_in_tail

_PIP_DOCS = {"url": "https://pip.pypa.io/en/stable/cli/pip_install/",
             "what": "pip install: --no-cache-dir, --timeout, --retries, --user, --cert"}
# what says the text comes from an install: pip's own lines and frames, a launcher's "Installing torch"
_INSTALLING = re.compile(r"Could not install packages due to an (?:OSError|EnvironmentError)|pip/_internal|pip\\_internal|"
                         r"pip/_vendor|pip\\_vendor|site-packages[/\\]pip[/\\]|\bDownloading https?://\S{1,300}\.whl|"
                         r"\bCollecting [A-Za-z]|Installing collected packages|Installing torch|Couldn't install torch|"
                         r"\bpip3? install\b|python3? -m pip install|[/\\](?:site|dist)-packages[/\\][^\s'\"]{1,200}\.egg-info\b")
_PROGRESS = re.compile(r"(?P<got>\d{1,5}(?:\.\d{1,3})?)/(?P<total>\d{1,5}(?:\.\d{1,3})?) (?P<unit>[kMG]B)\b|"
                       r"\((?P<size>\d{2,5}(?:\.\d)?) ?MB\)")


def _installing(text: str) -> bool:
    return _INSTALLING.search(text[-CONTEXT_TAIL:]) is not None


_ERRNO_LINE = re.compile(r"(?:OSError|IOError|PermissionError|EnvironmentError|\berror:)[^\n]{0,80}?\[(?:Errno|WinError) "
                         r"(?P<num>\d{1,3})\](?:[^\n'\"]{0,40}?:\s{0,3}['\"](?P<path>[^'\"\n]{1,400})['\"])?|"
                         r"(?P<memory>\bMemory ?Error\b)|(?P<timeout>TimeoutError: The read operation timed out|"
                         r"ReadTimeoutError\(|Read timed out)|(?m:^\s{0,8}(?P<killed>Killed)\s*$)|"
                         r"(?P<killed2>eta \d{1,2}:\d{2}:\d{2}Killed|with [\"'`]Killed[\"'`])")


def install_interrupted(ent, text):
    """The machine stopping an install part-way: its errno (or MemoryError, the OOM killer's "Killed", a read
    timeout) read in the install's context, where each has one remedy for an installer; the same errno in a
    program's run is the error_code rule's."""
    if not _installing(text):
        return None
    m, at = last_in_tail(_ERRNO_LINE, text)
    if m is None:
        return None
    num = int(m.group("num")) if m.group("num") else None
    path = m.group("path") or ""
    win = "WinError" in m.group(0) or bool(re.search(r"[A-Za-z]:\\", path)) or _context(text, _WINDOWS_TEXT)
    caps = {"path": path or None}
    temp = re.search(r"tempfile\.py|pip-(?:install|unpack|build)-|[/\\]te?mp[/\\]|AppData\\Local\\Temp", text[-CONTEXT_TAIL:],
                     re.I)
    if num == 28:
        title, why = "the disk filled up during the install", (
            "pip downloads the wheel and unpacks it in the temporary folder before installing (torch's CUDA wheels "
            "are 2-3 GB, several GB more unpacked), and keeps a copy in its cache; the filesystem holding "
            + ("the temporary folder" if temp else "the temporary folder, the cache or the environment")
            + " ran out of space.")
        fix = ("Point the temporary folder at a drive with room (" + ("`set TEMP=D:\\tmp` and `set TMP=D:\\tmp`"
               if win else "`export TMPDIR=/path/with/space`") + "), install with `--no-cache-dir` (or `pip cache "
               "purge`), and free space where the environment lives; `df -h` (`dir` on Windows) shows which is full.")
    elif m.group("memory"):
        title, why = "pip ran out of memory handling the download", (
            "pip handles the downloaded wheel in memory to store it in its HTTP cache (older pip releases held the "
            "whole file); a 1-3 GB torch wheel does not fit in the memory left on a small machine.")
        fix = ("Install with `pip install --no-cache-dir ...` (and a current pip: `python -m pip install -U pip`), "
               "or add memory or swap; a launcher's install command takes the same flag.")
    elif m.group("killed") or m.group("killed2"):
        title, why = "the kernel's OOM killer stopped pip after the download", (
            "'Killed' is the shell reporting SIGKILL; at the end of a large download it is the out-of-memory killer "
            "(`dmesg` shows 'Out of memory: Killed process ... (pip)'), pip holding the wheel in memory for its cache.")
        fix = ("Install with `pip install --no-cache-dir ...`, with a current pip; otherwise add swap or memory "
               "(a container or VM's memory limit).")
    elif m.group("timeout"):
        title, why = "the download stalled and pip's read timeout expired", (
            "pip waits 15 s for data by default; a stalled connection during a multi-GB wheel download ends the "
            "install.")
        fix = ("Retry with a longer timeout and retries: `pip install --timeout 120 --retries 10 ...` (pip >= 25.1: "
               "`--resume-retries 5` resumes the file), on a steadier connection; or fetch the wheel with a resumable "
               "download (`curl -C - -O <url>`) and `pip install ./<file>.whl`.")
    elif num == 13 or (num == 5 and not re.search(r"\.(?:dll|pyd)\b", path, re.I)):
        title, why = "pip may not write into that Python's packages folder", (
            "The install writes into a folder this user may not change" + (" ({path})" if path else "")
            + ": a system Python's site-packages (root's), or a Python installed for all users.")
        fix = ("Install into a virtual environment you own (`python -m venv .venv`, activate it, then pip install), "
               "or for this user only (`pip install --user ...`); do not `sudo pip install` into the system Python.")
    elif num in (5, 32):
        title, why = "a file of the environment is held open by another process", (
            "Windows refuses to replace a DLL or .pyd that a running process has loaded" + (" ({path})" if path else "")
            + ": a Python, a notebook kernel or an IDE using the same environment.")
        fix = ("Close every Python, Jupyter kernel and IDE using this environment (Task Manager: python.exe), then "
               "install again; if it persists, run the terminal as the user who owns the environment.")
    elif num == 22 and re.match(r"/(?:media|mnt|run/media)/", path):
        title, why = "the environment lives on a filesystem that refuses the file name", (
            "EINVAL while creating {path}: the environment is on a drive mounted from Windows (NTFS/exFAT under "
            "/media or /mnt), which refuses names such as one ending in a dot.")
        fix = ("Create the environment on a Linux filesystem (e.g. under your home folder) and install there; keep "
               "data, not environments, on the Windows-formatted drive.")
    else:
        return None
    sig = _sig("install-interrupted", "torch-build", title, 84, why, fix=fix, areas=("torch",), sources=(_PIP_DOCS,))
    return _match(sig, text, at, caps)


_PEP668 = re.compile(r"externally-managed-environment|This environment is externally managed")


def externally_managed(ent, text):
    m, at = last_in_tail(_PEP668, text, "xternally")
    if m is None:
        return None
    sig = _sig("externally-managed-environment", "torch-build",
               "the OS's Python refuses pip installs (PEP 668)", 86,
               "The distribution marks its Python as managed by its package manager (PEP 668's EXTERNALLY-MANAGED "
               "file: Debian 12, Ubuntu 23.04 and later, and others), so pip refuses to install into it system-wide.",
               fix="Create a virtual environment and install torch there: `python3 -m venv .venv`, "
                   "`. .venv/bin/activate`, then the pip command (the python3-venv / python3-full package provides "
                   "venv on Debian and Ubuntu); uv (`uv venv`) or conda environments work the same way. Avoid "
                   "--break-system-packages, which can break the OS's own Python tools.",
               areas=("torch",), sources=({"url": "https://peps.python.org/pep-0668/",
                                           "what": "PEP 668: marking Python base environments as externally managed"},))
    return _match(sig, text, at, {})


_CERT = re.compile(r"CERTIFICATE_VERIFY_FAILED\]? ?(?:certificate verify failed:? ?(?P<why>[a-z ]{4,60}))?")


def certificate_not_trusted(ent, text):
    m, at = last_in_tail(_CERT, text, "CERTIFICATE_VERIFY_FAILED")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    why = (m.group("why") or "").strip()
    installing = bool(re.search(r"Retrying \(Retry\(|Looking in (?:indexes|links)|pip3? install|conda install", tail))
    caps = {"why": why or None}
    if "expired" in why:
        layer, fix = ("torch-build" if installing else "env"), (
            "The server's certificate (or one in its chain) is past its date, or this machine's clock is wrong: "
            "check the date (`date`; sync the clock), update the CA bundle (`pip install -U certifi`, the OS's "
            "ca-certificates), and retry later if the server's own certificate expired.")
    elif re.search(r"/Library/Frameworks/Python\.framework", tail):
        layer, fix = "env", (
            "The python.org Python for macOS has its own certificate store and ships none until its "
            "'Install Certificates.command' is run: run it (in /Applications/Python 3.X/), which installs certifi's "
            "bundle, then retry.")
    elif installing:
        layer, fix = "torch-build", (
            "The chain cannot be traced to a CA this Python trusts: usually a proxy or firewall re-signing HTTPS. Give "
            "pip that CA (`pip install --cert /path/to/corp-ca.pem ...`, or PIP_CERT / `pip config set global.cert`), "
            "or let pip use the OS's certificate store (`--use-feature=truststore`, pip >= 22.2); keep verification on.")
    else:
        layer, fix = "env", (
            "The download (torch.hub, a dataset) uses Python's CA bundle: update it (`pip install -U certifi`) or point "
            "SSL_CERT_FILE / REQUESTS_CA_BUNDLE at the bundle that holds your proxy's CA; on the python.org macOS "
            "Python run its 'Install Certificates.command'.")
    sig = _sig("certificate-not-trusted", layer, "the HTTPS certificate could not be verified{why| (}{why}{why|)}", 83,
               "Python's TLS check refused the server's certificate{why|: }{why}.", fix=fix, areas=("platform",),
               sources=({"url": "https://pip.pypa.io/en/stable/topics/https-certificates/",
                         "what": "pip and HTTPS certificates: --cert, truststore"},))
    return _match(sig, text, at, caps)


_HTTP_REFUSED = re.compile(r"(?:HTTP error|(?<!\d)) ?(?P<code>403|404)(?: Client Error: (?:Forbidden|Not Found) for url:| "
                           r"while getting) (?P<url>https?://\S{1,300})")


def wheel_url_refused(ent, text):
    m, at = last_in_tail(_HTTP_REFUSED, text)
    if m is None or not _installing(text):
        return None
    url = m.group("url").rstrip(".,)")
    caps = {"url": url, "code": m.group("code")}
    if url.endswith(".whl"):
        fix = ("That wheel is no longer served at this URL (PyTorch moved its files: old s3 and torch_stable.html "
               "links, removed nightlies). Install with the current command from https://pytorch.org/get-started/ "
               "(the index https://download.pytorch.org/whl/<cu1XX|cpu>, or previous-versions for an older release), "
               "not a direct file URL.")
    else:
        fix = ("The PyTorch index answers {code} for a package it does not host ({url}); older pip stops there "
               "instead of taking it from PyPI. Upgrade pip (`python -m pip install -U pip`), keep PyPI as the main "
               "index with the PyTorch one as --extra-index-url, or install that package first from PyPI.")
    sig = _sig("wheel-url-refused", "torch-build", "the server refused {url} ({code})", 81,
               "pip got HTTP {code} for {url}: the file or page is not (or no longer) served there.",
               fix=fix, areas=("torch",), sources=({"url": "https://pytorch.org/get-started/previous-versions/",
                                                    "what": "PyTorch's install commands for every release"},))
    return _match(sig, text, at, caps)


_UNSAT = re.compile(r"UnsatisfiableError: The following specifications were found to be (?:in conflict|incompatible)")
_PKGS_NOT_FOUND = re.compile(r"PackagesNotFoundError: The following packages are not available from current channels:"
                             r"\s{0,8}(?P<list>(?:-\s{1,3}[\w.=*<>!,-]{1,60}\s{0,8}){1,8})")
_CLOBBER = re.compile(r"ClobberError: This transaction has incompatible packages due to a shared path")
_SAFETY = re.compile(r"SafetyError: The package for (?P<pkg>[\w.-]{1,80}) located at \S{1,400}\s{1,4}appears to be "
                     r"corrupted")
_INVALID_CHANNEL = re.compile(r"UnavailableInvalidChannel|The channel is not accessible or is invalid")
_CONDA_DOCS = {"url": "https://docs.conda.io/projects/conda/en/stable/user-guide/tasks/manage-environments.html",
               "what": "conda: creating an environment per project"}


def conda_solver_refusals(ent, text):
    """conda's own refusals read by their class name, each with its own remedy; the last one printed is the answer."""
    tail = text[-CONTEXT_TAIL:]
    found = [(p, last_match(p, tail)) for p in (_UNSAT, _PKGS_NOT_FOUND, _CLOBBER, _SAFETY, _INVALID_CHANNEL)]
    found = [(p, m) for p, m in found if m is not None]
    if not found:
        return None
    pattern, m = max(found, key=lambda pm: pm[1].start())
    at = len(text) - len(tail) + m.start()
    if pattern is _SAFETY or (pattern is _CLOBBER and _SAFETY.search(tail)):
        sm = _SAFETY.search(tail)
        caps = {"pkg": sm.group("pkg")}
        sig = _sig("conda-cache-safety-error", "torch-build", "conda's cached {pkg} does not match its manifest", 84,
                   "conda verifies each cached package (pkgs/) against its manifest; {pkg} there has files of another "
                   "size (a broken download or an interrupted extraction), and the transaction that follows fails.",
                   fix="Clear the cache (`conda clean --all`, or delete that package's folder under pkgs/) and install "
                       "again" + ("; the ClobberErrors that follow come from mixing channels: install into a fresh "
                                  "environment with one channel order (`conda create -n torch ...`, strict channel "
                                  "priority)" if pattern is _CLOBBER else "") + ".",
                   areas=("torch",), sources=(_CONDA_DOCS,))
        return _match(sig, text, at, caps)
    if pattern is _CLOBBER:
        sig = _sig("conda-clobber-error", "torch-build", "two packages in the transaction write the same file", 82,
                   "conda's ClobberError: packages from different channels (defaults, pytorch, nvidia, conda-forge) "
                   "ship the same path, so one would overwrite the other: channels mixed in one environment.",
                   fix="Install into a fresh environment with one channel order (`conda create -n torch ... -c "
                       "conda-forge` with `conda config --set channel_priority strict`), or install torch with pip "
                       "inside the environment (PyTorch's own conda channel stopped at 2.5).",
                   areas=("torch",), sources=(_CONDA_DOCS,))
        return _match(sig, text, at, {})
    if pattern is _INVALID_CHANNEL:
        token = re.search(r"Adding anaconda token|/t/[\w-]{8,80}/", tail)
        sig = _sig("conda-channel-invalid", "torch-build", "conda cannot read the channel's index", 80,
                   "conda found no valid repodata.json for a channel: "
                   + ("it sends an anaconda.org token (from `anaconda login`) with the request, and the tokenized URL "
                      "answers 404 for the public channel." if token else
                      "a misspelled channel, a mirror without that channel (or without its noarch folder), or a proxy."),
                   fix=("Log out of anaconda-client (`anaconda logout`) or remove the stored token, then retry."
                        if token else
                        "Check the channel name and its URL in a browser (…/noarch/repodata.json), remove mirrors "
                        "that lack it from .condarc (`conda config --show channels`), then retry."),
                   areas=("torch",), sources=(_CONDA_DOCS,))
        return _match(sig, text, at, {})
    if pattern is _PKGS_NOT_FOUND:
        missing = re.findall(r"-\s{1,3}([\w.=*<>!,-]{1,60})", m.group("list"))
        osx = re.search(r"/osx-(?:64|arm64)\b|macOS|\bmacpro\b|\bMac\b", tail)
        cuda_pkg = [p for p in missing if re.match(r"(?:cudatoolkit|pytorch-cuda|cuda-toolkit|cuda\d{2})", p)]
        caps = {"missing": ", ".join(missing)}
        if osx and cuda_pkg:
            sig = _sig("conda-cuda-package-on-mac", "macos", "no {missing} for macOS", 84,
                       "The channels searched are macOS ones (osx-64/osx-arm64) and CUDA packages exist for Linux and "
                       "Windows only: PyTorch has no CUDA on a Mac.",
                       fix="Install pytorch without cudatoolkit/pytorch-cuda on the Mac (the CPU build; Apple silicon "
                           "uses the 'mps' device), e.g. `pip install torch torchvision`.",
                       areas=("platform",), sources=(_CONDA_DOCS,))
            return _match(sig, text, at, caps)
        sig = _sig("conda-package-not-on-channels", "torch-build", "the channels have no {missing}", 80,
                   "conda searched the channels listed and none publishes {missing} for this platform: a version "
                   "never built (a pytorch-cuda or cudatoolkit version the channel lacks), a channel missing from the "
                   "command, or a release removed since.",
                   fix="List what the channel has (`conda search -c pytorch -c nvidia pytorch-cuda`, `conda search "
                       "-c conda-forge cudatoolkit`) and pin one of those, or add the channel that publishes it; "
                       "PyTorch's own conda channel stopped at 2.5: newer releases come from pip or conda-forge.",
                   areas=("torch",), sources=(_CONDA_DOCS,))
        return _match(sig, text, at, caps)
    sig = _sig("conda-unsatisfiable", "torch-build", "conda cannot fit pytorch into this environment", 80,
               "conda's UnsatisfiableError: the packages already in the environment (often a full Anaconda base) "
               "and the ones requested cannot all hold together.",
               fix="Install into a new environment instead of the base one: `conda create -n torch python=3.X` then "
                   "`conda activate torch` and the install command (or pip inside it); keep the base environment "
                   "for conda itself.",
               areas=("torch",), sources=(_CONDA_DOCS,))
    return _match(sig, text, at, {})


_BDIST = re.compile(r"setup\.py bdist_wheel")
_NO_TORCH = re.compile(r"No module named ['\"]?torch['\"]?")


def built_wheel_not_installed(ent, text):
    tail = text[-CONTEXT_TAIL:]
    b = _BDIST.search(tail)
    n = last_match(_NO_TORCH, tail)
    if b is None or n is None or n.start() < b.start():
        return None
    sig = _sig("built-wheel-not-installed", "torch-build", "a wheel was built, nothing was installed", 82,
               "`setup.py bdist_wheel` builds a wheel into dist/ and installs nothing, so the interpreter still has no "
               "torch.",
               fix="Install the built wheel with the same interpreter: `python3 -m pip install dist/torch-*.whl` "
                   "(or build and install in one step with `python3 -m pip install .`).",
               areas=("torch",), sources=(_PIP_DOCS,))
    return _match(sig, text, len(text) - len(tail) + n.start(), {})
