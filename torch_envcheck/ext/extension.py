"""Find, check and load the compiled `_C` extension; build it on first use when needed.

Two ways an `_C` can exist:
  * ahead of time ("aot"): `pip install --no-build-isolation .` compiled torch_envcheck/_C*.so and
    wrote torch_envcheck/_build_meta.json beside it;
  * just in time ("jit"): built with torch.utils.cpp_extension.load into a cache directory keyed by
    torch version, CUDA version, Python ABI and machine, so two torch versions never share a binary.
    The sources' hash is recorded in the build's metadata, not in the key: other sources rebuild in
    the same directory (ninja recompiles what changed), so two source trees that share one torch
    and one cache rebuild over each other; give each its own TORCH_ENVCHECK_CACHE.

An AOT binary built against another torch than the one now installed is *stale*: it is never
loaded (loading it fails with "undefined symbol", or worse), it is reported with the torch it was
built against and the command that rebuilds it, and the JIT path builds a fresh one.
"""

from __future__ import annotations

import errno
import glob
import importlib
import importlib.util
import json
import os
import sys
import shutil
import tempfile
import threading
import time

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

from torch_envcheck._util.dirs import make_dirs
from torch_envcheck.ext import buildcfg

ENV_CACHE = "TORCH_ENVCHECK_CACHE"
ENV_AUTOBUILD = "TORCH_ENVCHECK_AUTOBUILD"
ENV_IGNORE_AOT = "TORCH_ENVCHECK_IGNORE_AOT"
JIT_NAME = "torch_envcheck_C"

REBUILD_COMMAND = "torch-envcheck build"
REINSTALL_COMMAND = "pip install --no-build-isolation --force-reinstall --no-deps torch_envcheck"

_lock = threading.RLock()
_module = None
_status: dict | None = None


class ExtensionUnavailable(RuntimeError):
    """The compiled extension could not be loaded or built; the message says why and what to run."""


def _torch():
    import torch  # noqa: PLC0415  (imported lazily: `import torch_envcheck` must stay cheap)
    return torch


def configured_cache_root() -> str:
    """TORCH_ENVCHECK_CACHE, else $XDG_CACHE_HOME/torch_envcheck, else ~/.cache/torch_envcheck."""
    root = os.environ.get(ENV_CACHE)
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "torch_envcheck")
    return root


def cache_problem(root: str) -> str | None:
    """Why `root` cannot hold builds (not a directory, not writable, cannot be created), or None."""
    if os.path.lexists(root) and not os.path.isdir(root):
        return "it is not a directory"
    if os.path.isdir(root):
        return None if os.access(root, os.W_OK | os.X_OK) else "it is not writable"
    parent = os.path.dirname(os.path.abspath(root))
    while parent and not os.path.lexists(parent):
        up = os.path.dirname(parent)
        if up == parent:
            break
        parent = up
    if not os.path.isdir(parent):
        return f"it cannot be created: {parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"it cannot be created: {parent} is not writable"
    return None


def fallback_cache_root() -> str:
    """A per-user folder in the temp directory, for when the configured cache is unusable."""
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"torch_envcheck-cache-{uid}")


def _own_private_dir(path: str) -> None:
    """Create `path` (mode 0700) or accept it only when it is a real directory owned by this user:
    in a shared temp directory someone else could have planted it, or a symlink in its place."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    import stat as _stat  # noqa: PLC0415
    if not _stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        raise OSError(f"{path} exists and is not a directory owned by this user")


def cache_root() -> str:
    """The cache builds go to and are read from: the configured one, or the temp fallback when the
    configured one cannot be used (see cache_problem)."""
    root = configured_cache_root()
    return root if cache_problem(root) is None else fallback_cache_root()


# (configured root, cache in use) pairs this process has announced: each said once (announce_cache)
_announced: set = set()


def cache_choice() -> tuple[str, str]:
    """(the cache builds go to, why that one): the configured one and where it was configured, or
    the temp fallback and why the configured one cannot be used."""
    root = configured_cache_root()
    if os.environ.get(ENV_CACHE):
        origin = f"set by {ENV_CACHE}"
    elif os.environ.get("XDG_CACHE_HOME"):
        origin = "the default under XDG_CACHE_HOME"
    else:
        origin = "the default"
    problem = cache_problem(root)
    if problem is None:
        return root, origin
    return fallback_cache_root(), (f"the private fallback: {root} ({origin}) cannot be used: {problem}; set "
                                   f"{ENV_CACHE} to a writable folder to keep builds there")


def announce_cache(stream=None) -> None:
    """Say, once per process, which build cache is in use and why (a fallback is never silent)."""
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    root, why = cache_choice()
    key = (configured_cache_root(), root)
    if key in _announced:
        return
    _announced.add(key)
    print(f"torch_envcheck: build cache {terminal(root)} ({terminal(why)})", file=stream or sys.stderr, flush=True)


def _usable_cache_dir(directory: str, quiet: bool) -> str:
    """Create `directory` for a build; on an unusable cache, move it under the temp fallback with
    one line on stderr.  Raises ExtensionUnavailable (one line) when neither can be used."""
    root = configured_cache_root()
    problem = cache_problem(root)
    if problem is None:
        try:
            make_dirs(directory)
            return directory
        except OSError as exc:
            problem = exc.strerror or str(exc)
    fallback = fallback_cache_root()
    target = os.path.join(fallback, os.path.basename(directory))
    if not quiet and (root, fallback) not in _announced:
        _announced.add((root, fallback))
        print(f"torch_envcheck: the build cache {root} cannot be used ({problem}); building in {fallback} "
              f"instead (set {ENV_CACHE} to a writable folder to keep builds)", file=sys.stderr, flush=True)
    try:
        _own_private_dir(fallback)
        make_dirs(target)
    except OSError as exc:
        raise ExtensionUnavailable(
            f"the build cache {root} cannot be used ({problem}) and neither can {fallback} "
            f"({exc.strerror or exc}); set {ENV_CACHE} to a writable folder") from None
    return target


class BuildLock:
    """One build per cache directory at a time, across processes: an OS lock (flock) on
    `<directory>.lock`, which the kernel releases when its holder dies, however it dies.  The file
    also names the holder (pid, host) for the waiting message.  It lives beside the build folder,
    so `build --force` can delete the folder while holding it."""

    def __init__(self, directory: str, quiet: bool = False, poll: float = 0.2, say_every: float = 30.0):
        self.path = directory + ".lock"
        self.quiet, self.poll, self.say_every = quiet, poll, say_every
        self.fd = None

    def holder(self) -> str:
        from torch_envcheck._util import safe_open  # noqa: PLC0415
        try:
            return safe_open.read_text(self.path, 200, overflow="head").strip() or "another process"
        except OSError:
            return "another process"

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        t0 = last = time.monotonic()
        said = False
        while not self._try():
            now = time.monotonic()
            if not self.quiet and (not said or now - last >= self.say_every):
                print(f"torch_envcheck: waiting for the build running in {self.holder()} to finish "
                      f"({now - t0:.0f} s; lock {self.path})", file=sys.stderr, flush=True)
                said, last = True, now
            time.sleep(self.poll)
        os.ftruncate(self.fd, 0)
        os.write(self.fd, f"pid {os.getpid()} on {platform_node()}\n".encode())
        return self

    def _try(self) -> bool:
        try:
            if fcntl is not None:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:  # Windows: a byte-range lock, also released by the OS when the process dies
                import msvcrt  # noqa: PLC0415
                msvcrt.locking(self.fd, msvcrt.LK_NBLCK, 1)
            return True
        except BlockingIOError:
            return False
        except OSError as exc:
            if getattr(exc, "errno", None) in (errno.EAGAIN, errno.EACCES, errno.EDEADLK):
                return False
            # No locks on this file system (some network mounts): build unlocked rather than never.
            if not self.quiet:
                print(f"torch_envcheck: cannot lock {self.path} ({exc.strerror or exc}); building without "
                      "a lock", file=sys.stderr, flush=True)
            return True

    def __exit__(self, *exc):
        try:
            os.ftruncate(self.fd, 0)
        except OSError:
            pass
        os.close(self.fd)  # closing the descriptor releases the lock
        self.fd = None
        return False


def platform_node() -> str:
    import socket  # noqa: PLC0415
    try:
        return socket.gethostname()
    except OSError:
        return "this host"


def _remove_stale_torch_lock(directory: str, quiet: bool) -> None:
    """torch < 2.14's cpp_extension.load waits while `<build dir>/lock` exists, and a build killed
    by SIGKILL never removes it.  Under BuildLock no other build of ours runs, so one found now is a
    dead build's."""
    path = os.path.join(directory, "lock")
    if not os.path.lexists(path):
        return
    try:
        os.remove(path)
    except OSError:
        return
    if not quiet:
        print(f"torch_envcheck: removed {path}, left by a build that was killed", file=sys.stderr, flush=True)


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in ".-_" else "_" for ch in text)


def jit_dir(torch=None) -> str:
    """The cache directory for this torch / CUDA / Python / machine combination.  Raises
    BuildConfigError when the C++ sources are missing (nothing could be built there)."""
    torch = torch or _torch()
    buildcfg.csrc_dir()
    tag = f"cu{torch.version.cuda.replace('.', '')}" if torch.version.cuda else "cpu"
    # Not keyed by the source hash: an edited or upgraded source tree rebuilds in the same
    # directory, so ninja recompiles only what changed.  The hash is checked through the metadata.
    key = "-".join([
        _safe(torch.__version__), tag, f"cp{sys.version_info[0]}{sys.version_info[1]}",
        _safe(os.uname().machine if hasattr(os, "uname") else "unknown"),
    ])
    return os.path.join(cache_root(), key)


def _aot_paths() -> tuple[list[str], str]:
    pkg = buildcfg.package_dir()
    return sorted(glob.glob(os.path.join(pkg, "_C*.so")) + glob.glob(os.path.join(pkg, "_C*.pyd"))), \
        os.path.join(pkg, buildcfg.META_NAME)


def _read_meta(path: str) -> dict | None:
    from torch_envcheck._util import safe_open  # noqa: PLC0415  (a FIFO in the cache must not hang status())
    try:
        meta = json.loads(safe_open.read_text(path, 4 << 20, errors="strict"))
        return meta if isinstance(meta, dict) else None
    except (OSError, ValueError, RecursionError):
        return None


def _base_status(torch) -> dict:
    return {
        "state": "missing",
        "mode": None,
        "path": None,
        "built_against": None,
        "running_torch": getattr(torch, "__version__", None),
        "running_torch_cuda": getattr(getattr(torch, "version", None), "cuda", None),
        "error": None,
        "meta": None,
        "rebuild_command": REBUILD_COMMAND,
        "stale_aot": None,
    }


def _stale_reason(meta: dict | None, torch) -> str | None:
    if meta is None:
        return "no build metadata next to it (built by an unknown process)"
    if meta.get("torch_version") != torch.__version__:
        return f"built against torch {meta.get('torch_version')}, running torch {torch.__version__}"
    if meta.get("torch_cuda") != torch.version.cuda:
        return f"built against CUDA {meta.get('torch_cuda')}, running torch has CUDA {torch.version.cuda}"
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    if meta.get("python_tag") not in (None, tag):
        return f"built for Python {meta.get('python')}, running Python {sys.version.split()[0]}"
    return None


def _try_aot(torch, status: dict):
    from torch_envcheck._util.envflags import env_flag  # noqa: PLC0415
    if env_flag(ENV_IGNORE_AOT, default=False, invalid=True):
        return None
    libs, meta_path = _aot_paths()
    if not libs:
        return None
    meta = _read_meta(meta_path)
    reason = _stale_reason(meta, torch)
    if reason is None:
        try:
            mod = importlib.import_module("torch_envcheck._C")
        except ImportError as exc:  # e.g. "undefined symbol" from a binary of another torch
            reason = f"failed to load: {exc}"
        else:
            status.update(state="ok", mode="aot", path=getattr(mod, "__file__", libs[0]), meta=meta,
                          built_against=(meta or {}).get("torch_version"))
            return mod
    status["stale_aot"] = {
        "path": libs[0],
        "reason": reason,
        "built_against": (meta or {}).get("torch_version"),
        "built_against_cuda": (meta or {}).get("torch_cuda"),
        "rebuild_commands": [REBUILD_COMMAND, REINSTALL_COMMAND],
    }
    status.update(state="stale", path=libs[0], meta=meta, error=reason,
                  built_against=(meta or {}).get("torch_version"))
    return None


def _load_jit_module(so_path: str):
    # cpp_extension names a rebuilt module torch_envcheck_C_v1, _v2, ...: the module name must match
    # the file's, or Python looks for the wrong PyInit_ symbol.
    name = os.path.basename(so_path).split(".")[0]
    spec = importlib.util.spec_from_file_location(name, so_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


def _try_jit_cache(torch, status: dict):
    try:
        directory = jit_dir(torch)
    except buildcfg.BuildConfigError:
        return None
    # A CUDA torch whose CUDA part could not be built caches a CPU-only binary under the same key
    # with a "-cpuonly" suffix: look at both.
    for d in (directory, directory + "-cpuonly"):
        meta = _read_meta(os.path.join(d, buildcfg.META_NAME))
        if meta is None or not meta.get("so_path") or not os.path.isfile(meta["so_path"]):
            continue
        try:
            current = buildcfg.source_hash(buildcfg.csrc_dir(), meta.get("cuda", {}).get("compiled", False))
        except (OSError, buildcfg.BuildConfigError):
            current = None
        if meta.get("source_hash") != current:
            status.update(error=f"cached build in {d} is from other sources; it will be rebuilt")
            continue
        try:
            mod = _load_jit_module(meta["so_path"])
        except ImportError as exc:
            status.update(error=f"cached build in {d} failed to load: {exc}")
            continue
        status.update(state="ok", mode="jit", path=mod.__file__, meta=meta,
                      built_against=meta.get("torch_version"))
        return mod
    return None


class _Progress:
    """A line on stderr every few seconds while the compiler runs, so a first use that compiles
    for minutes does not look hung."""

    def __init__(self, what: str, every: float = 15.0):
        self.what, self.every = what, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.monotonic()

    def _run(self):
        while not self._stop.wait(self.every):
            print(f"torch_envcheck: still compiling {self.what} ({time.monotonic() - self._t0:.0f} s)",
                  file=sys.stderr, flush=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=1)


def build_jit(verbose: bool = False, quiet: bool = False, torch=None, force: bool = False) -> tuple[object, dict]:
    """Compile the extension for the running torch into the cache and load it.
    Returns (module, build meta).  Raises ExtensionUnavailable with the reason.

    One build per cache folder at a time (BuildLock): a second caller waits, then loads what the
    first built; force=True deletes the cached build first, under the same lock, so it never pulls
    the folder from under a running build."""
    torch = torch or _torch()
    try:
        p = buildcfg.plan(torch)
    except buildcfg.BuildConfigError as exc:
        raise ExtensionUnavailable(str(exc)) from exc
    buildcfg.apply_env(p)
    try:
        base = jit_dir(torch)
    except buildcfg.BuildConfigError as exc:
        raise ExtensionUnavailable(str(exc)) from exc
    directory = base + ("-cpuonly" if torch.version.cuda and not p["with_cuda"] else "")
    directory = _usable_cache_dir(directory, quiet)
    base = os.path.join(os.path.dirname(directory), os.path.basename(base))
    with BuildLock(directory, quiet=quiet):
        if force:
            for d in (base, base + "-cpuonly"):
                if os.path.isdir(d):
                    if not quiet:
                        print(f"torch_envcheck: removing {d}", file=sys.stderr, flush=True)
                    shutil.rmtree(d, ignore_errors=True)
            make_dirs(directory)
        else:
            st = _base_status(torch)
            mod = _try_jit_cache(torch, st)
            if mod is not None:  # built by the process we waited for
                return mod, st["meta"]
        _remove_stale_torch_lock(directory, quiet)
        return _compile(torch, p, directory, verbose, quiet)


def _compile(torch, p: dict, directory: str, verbose: bool, quiet: bool) -> tuple[object, dict]:
    from torch.utils import cpp_extension  # noqa: PLC0415  (after apply_env: it reads CUDA_HOME on import)
    csrc = buildcfg.csrc_dir()
    flags = buildcfg.compile_args(p)
    what = f"the torch_envcheck extension for torch {torch.__version__}"
    what_detail = (f"CUDA {p['nvcc_version']}, {' '.join(p['gencode']['sass'])}" if p["with_cuda"]
                   else f"CPU only: {p['cuda_reason']}")
    if not quiet:
        print(f"torch_envcheck: compiling {what} ({what_detail}) into {directory}; "
              "this happens once per torch version and takes a few minutes", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    try:
        with _Progress(what) if not (quiet or verbose) else _nullcontext():
            units = os.path.join(directory, "units")  # the build units generated from the op list
            mod = cpp_extension.load(
                name=JIT_NAME,
                sources=buildcfg.build_units(csrc, p["with_cuda"], units),
                extra_cflags=flags["cxx"],
                extra_cuda_cflags=flags["nvcc"],
                extra_ldflags=flags["ldflags"],
                extra_include_paths=[csrc, units] + flags["include_dirs"],
                build_directory=directory,
                with_cuda=p["with_cuda"],
                verbose=verbose,
            )
    except Exception as exc:  # compiler errors arrive as RuntimeError/OSError/ImportError
        raise ExtensionUnavailable(f"building the extension failed: {exc}. Re-run with "
                                   f"`{REBUILD_COMMAND} --verbose` to see the compiler output.") from exc
    meta = buildcfg.build_meta(p, "jit", flags)
    meta["build_seconds"] = round(time.monotonic() - t0, 1)
    meta["so_path"] = os.path.abspath(mod.__file__)
    meta["source_hash"] = buildcfg.source_hash(csrc, p["with_cuda"])
    buildcfg.write_meta(os.path.join(directory, buildcfg.META_NAME), meta)
    if not quiet:
        print(f"torch_envcheck: built in {meta['build_seconds']:.0f} s", file=sys.stderr, flush=True)
    return mod, meta


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _autobuild_default() -> bool:
    from torch_envcheck._util.envflags import env_flag  # noqa: PLC0415
    return env_flag(ENV_AUTOBUILD, default=True, invalid=True)


def status(probe: bool = True) -> dict:
    """The extension's state without ever compiling: loads an existing, matching binary if there is
    one.  Never raises: a missing torch or a broken binary is reported in the dict."""
    with _lock:
        if _module is not None and _status is not None:
            return dict(_status)
        try:
            torch = _torch()
        except Exception as exc:  # ImportError, OSError from a broken CUDA install, ...
            return {"state": "torch-missing", "mode": None, "path": None, "built_against": None,
                    "running_torch": None, "error": f"{type(exc).__name__}: {exc}", "meta": None,
                    "rebuild_command": REBUILD_COMMAND, "stale_aot": None}
        st = _base_status(torch)
        if probe:
            try:
                _load_existing(torch, st)
            except Exception as exc:  # never let the doctor crash on a weird binary
                st.update(state="broken", error=f"{type(exc).__name__}: {exc}")
        return st


def _load_existing(torch, st: dict):
    global _module, _status
    mod = _try_aot(torch, st)
    if mod is None:
        cached = _try_jit_cache(torch, st)
        mod = cached
    if mod is not None:
        _module, _status = mod, st
    return mod


def load(build: bool | None = None, verbose: bool = False):
    """The loaded `_C` module, building it on first use when allowed.

    build=None follows TORCH_ENVCHECK_AUTOBUILD (default on).  Raises ExtensionUnavailable with
    the reason and the command to run."""
    global _module, _status
    with _lock:
        if _module is not None:
            return _module
        torch = _torch()
        st = _base_status(torch)
        mod = _load_existing(torch, st)
        if mod is not None:
            return mod
        if build is None:
            build = _autobuild_default()
        if not build:
            why = st.get("error") or "it has not been built for this torch yet"
            raise ExtensionUnavailable(
                f"the torch_envcheck extension is not available ({why}); run `{REBUILD_COMMAND}`")
        mod, meta = build_jit(verbose=verbose, torch=torch)
        st.update(state="ok", mode="jit", path=mod.__file__, meta=meta, built_against=meta["torch_version"],
                  error=None)
        _module, _status = mod, st
        return mod


def loaded_status() -> dict | None:
    return dict(_status) if _status is not None else None
