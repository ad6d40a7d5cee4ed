"""conda environment facts, read straight from the prefix: the package records conda, mamba and
micromamba write to <prefix>/conda-meta/<name>-<version>-<build>.json (no `conda` program is run,
so it is fast and works for all three), the user's requested specs in conda-meta/history, the
distributions pip (or uv, ...) installed into the same prefix (their dist-info INSTALLER file), and
on Windows where the env's Library\\bin and any CUDA toolkit sit on PATH.

Only the CUDA-relevant records are parsed (their names come from the file names, which conda
builds from name, version and build; neither version nor build may contain '-').  Every read is
bounded; a record that cannot be read becomes a line in `errors`, never an exception.

Record shape: conda/conda conda/models/records.py (PackageRecord, PrefixRecord: name, version,
build (alias build_string), build_number, channel, subdir, url, depends, constrains, files,
paths_data, requested_spec, ...).
"""

from __future__ import annotations

import os
import re
import sys

from torch_envcheck._util import safe_open
from torch_envcheck.knowledge.distributions import CONDA_RELEVANT

# The packages whose records are parsed and kept (knowledge/distributions.py: the advice writes
# the same names back).
RELEVANT = CONDA_RELEVANT
_RELEVANT = frozenset(RELEVANT)
# the packages that ship the C++/OpenMP runtime libraries (their file lists are kept)
RUNTIME_PACKAGES = frozenset(("libstdcxx-ng", "libstdcxx", "libgcc-ng", "libgcc", "libgomp", "_openmp_mutex",
                              "llvm-openmp", "intel-openmp"))

MAX_RECORDS = 20000          # conda-meta entries looked at
MAX_RECORD_BYTES = 64 << 20  # one record (pytorch's lists every file: a few MB)
MAX_LIST = 200               # depends / constrains entries kept per record
MAX_STR = 512                # any string kept
MAX_ERRORS = 50
MAX_DISTS = 5000             # dist-info folders looked at per site-packages
MAX_SMALL = 4096             # INSTALLER
MAX_PIP_RECORD = 16 << 20    # one pip RECORD file
MAX_PIP_RECORD_TOTAL = 128 << 20
MAX_HISTORY = 4 << 20        # the tail of conda-meta/history that is read
MAX_SPECS = 1000
MAX_PATH_ENTRIES = 512
MAX_RUNTIME_FILES = 50

# Runtime libraries conda ships in its own packages (libstdcxx-ng, libgcc-ng/libgomp,
# _openmp_mutex/llvm-openmp/intel-openmp) and that a pip wheel can overwrite in <prefix>/lib.
RUNTIME_LIB_RE = re.compile(
    r"(?:^|/)(libstdc\+\+\.so[.\d]*|libstdc\+\+\.\d*\.?dylib|libgomp\.so[.\d]*|libgcc_s\.so[.\d]*|"
    r"libiomp5\.(?:so|dylib)|libiomp5md\.dll|libomp\.(?:so[.\d]*|dylib)|vcomp\d*\.dll|libgomp-1\.dll|"
    r"libstdc\+\+-6\.dll)$", re.IGNORECASE)
_SUBDIR_RE = re.compile(r"^(noarch|(linux|osx|win|emscripten|wasi|freebsd|zos)-[a-z0-9_]+)$")
_WIN_TOOLKIT_RE = re.compile(r"NVIDIA GPU Computing Toolkit[\\/]+CUDA[\\/]+v(\d+\.\d+)[\\/]+bin[\\/]*$", re.IGNORECASE)
_CUDART_DLL_RE = re.compile(r"^cudart64_(\d+)\.dll$", re.IGNORECASE)
_SPEC_NAME_RE = re.compile(r"^(?:[^:\s]+::)?([A-Za-z0-9_][A-Za-z0-9_.\-]*)")


class _Errors(list):
    def add(self, text: str) -> None:
        if len(self) < MAX_ERRORS:
            self.append(_s(text))
        elif len(self) == MAX_ERRORS:
            self.append(f"... more errors not kept (at most {MAX_ERRORS})")


def _s(value, limit: int = MAX_STR):
    """A string fact, bounded; None for anything that is not a non-empty string."""
    if not isinstance(value, str) or not value:
        return None
    return value if len(value) <= limit else value[:limit] + "..."


def _read_bytes(path: str, limit: int) -> bytes:
    """The regular file's bytes (a FIFO or device is never opened for a blocking read:
    _util/safe_open.py); an OSError naming the problem when it is not one or larger than `limit`."""
    return safe_open.read_bytes(path, limit)


def split_record_name(filename: str) -> tuple[str, str, str] | None:
    """('pytorch', '2.3.0', 'py3.11_cuda12.1_cudnn8.9.2_0') for 'pytorch-2.3.0-py3.11_cuda12.1_cudnn8.9.2_0.json'."""
    if not filename.endswith(".json"):
        return None
    parts = filename[:-5].rsplit("-", 2)
    if len(parts) != 3 or not all(parts):
        return None
    return parts[0], parts[1], parts[2]


def channel_name(channel, url=None) -> str | None:
    """A record's channel as `conda list` names it: 'pytorch', 'nvidia', 'conda-forge', 'pkgs/main'
    (from 'https://conda.anaconda.org/pytorch/linux-64', 'https://repo.anaconda.com/pkgs/main', ...).
    Falls back on the package URL when the record has no channel."""
    text = channel if isinstance(channel, str) and channel.strip() else None
    if text is None and isinstance(url, str) and url.strip():
        text = url.rsplit("/", 1)[0]  # drop the package file name
    if text is None:
        return None
    text = text.strip().rstrip("/")
    m = re.match(r"^[a-z][a-z0-9+.-]*://[^/]+/?(.*)$", text, re.IGNORECASE)
    if m:
        path = [p for p in m.group(1).split("/") if p]
        if path and path[0] == "t" and len(path) > 1:  # https://conda.anaconda.org/t/<token>/<channel>
            path = path[2:]
        while path and _SUBDIR_RE.match(path[-1]):
            path = path[:-1]
        text = "/".join(path) if path else text
    else:
        parts = text.split("/")
        while len(parts) > 1 and _SUBDIR_RE.match(parts[-1]):
            parts = parts[:-1]
        text = "/".join(parts)
    return _s(text, 200)


def _str_list(value) -> list[str]:
    if not isinstance(value, (list, tuple)):
        return []
    return [_s(v) for v in value[:MAX_LIST] if isinstance(v, str) and v]


_KEYS = ("name", "version", "build", "build_string", "build_number", "channel", "subdir", "url", "depends",
         "constrains", "requested_spec", "features")
_COLON_RE = re.compile(r"\s*:\s*")
FULL_PARSE_BYTES = 256 << 10  # records above this (pytorch's: MBs of file lists) are read by key
WINDOW = 64 << 10


def _key_at(text: str, key: str, reverse: bool = False) -> int | None:
    """Where the value of the top-level `key` starts in `text`, or None."""
    quoted = f'"{key}"'
    at = text.rfind(quoted) if reverse else text.find(quoted)
    while at >= 0:
        m = _COLON_RE.match(text, at + len(quoted))
        if m and (at == 0 or text[at - 1] != "\\"):  # a key, not a string value that spells it
            return m.end()
        at = text.rfind(quoted, 0, at) if reverse else text.find(quoted, at + 1)
    return None


def _fields_from_ends(head: str, tail: str) -> dict | None:
    """The fields used here, decoded from the first and the last 64 KB of a large record.  conda and
    micromamba both write the keys in sorted order, so `build`, `channel`, `depends` sit before the
    `files` list and `subdir`, `url`, `version` after `paths_data`; None when one is not found whole
    there (the caller then parses the whole file)."""
    import json  # noqa: PLC0415

    if not (head.lstrip().startswith("{") and tail.rstrip().endswith("}")):
        return None
    dec, out = json.JSONDecoder(), {}
    for key in _KEYS:
        for text, reverse in ((head, False), (tail, True)):
            pos = _key_at(text, key, reverse)
            if pos is not None:
                try:
                    out[key] = dec.raw_decode(text, pos)[0]
                except ValueError:  # cut by the window's edge
                    return None
                break
    if "version" not in out or ("build" not in out and "build_string" not in out):
        return None
    return out


def read_record(path: str, filename: str) -> dict:
    """parse_record() of the file at `path`; a large record is read only at both ends (see
    _fields_from_ends), which keeps a 500-record prefix well under 50 ms.  OSError / ValueError
    name what is wrong."""
    with safe_open.open_binary(path) as fh:  # regular files only, never a blocking open
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_RECORD_BYTES:
            raise ValueError(f"larger than {MAX_RECORD_BYTES} bytes")
        if size > FULL_PARSE_BYTES:
            head = fh.read(WINDOW).decode("utf-8", "replace")
            fh.seek(size - WINDOW)
            tail = fh.read(WINDOW).decode("utf-8", "replace")
            fields = _fields_from_ends(head, tail)
            if fields is not None:
                fields.setdefault("name", filename.rsplit("-", 2)[0])
                return parse_record(fields, filename)
            fh.seek(0)
        data = fh.read(MAX_RECORD_BYTES + 1)
    return parse_record(data, filename)


def parse_record(data, filename: str) -> dict:
    """The facts of one conda-meta record (its bytes, or its fields already decoded); ValueError
    naming what is wrong when it is not one."""
    import json  # noqa: PLC0415

    if isinstance(data, dict):
        rec = data
    else:
        if len(data) > MAX_RECORD_BYTES:
            raise ValueError(f"larger than {MAX_RECORD_BYTES} bytes")
        try:
            rec = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"not valid JSON ({str(exc)[:120]})") from None
    if not isinstance(rec, dict):
        raise ValueError(f"expected a JSON object, got {type(rec).__name__}")
    name, version = rec.get("name"), rec.get("version")
    build = rec.get("build") if "build" in rec else rec.get("build_string")
    for key, value in (("name", name), ("version", version), ("build", build)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"'{key}' is missing or not a string")
    bn = rec.get("build_number")
    out = {
        "name": _s(filename.rsplit("-", 2)[0], 200),
        "version": _s(version, 100),
        "build": _s(build, 200),
        "build_number": bn if isinstance(bn, int) and not isinstance(bn, bool) else None,
        "channel": channel_name(rec.get("channel"), rec.get("url")),
        "channel_url": _s(rec.get("channel") if isinstance(rec.get("channel"), str) else rec.get("url")),
        "subdir": _s(rec.get("subdir"), 50),
        "depends": _str_list(rec.get("depends")),
        "constrains": _str_list(rec.get("constrains")),
        "requested_spec": _s(rec.get("requested_spec")),
        "features": _s(rec.get("features") if isinstance(rec.get("features"), str)
                       else " ".join(_str_list(rec.get("features")))),
        "file": filename,
    }
    if name != filename.rsplit("-", 2)[0]:
        raise ValueError(f"its name {_s(name, 100)!r} is not the one in its file name")
    files = rec.get("files")
    out["runtime_files"] = None
    if isinstance(files, list) and name in RUNTIME_PACKAGES:
        runtime = [f for f in files[:100000] if isinstance(f, str) and RUNTIME_LIB_RE.search(f)]
        out["runtime_files"] = [_s(f) for f in runtime[:MAX_RUNTIME_FILES]]
    return out


def read_history(meta_dir: str, errors: _Errors) -> tuple[dict, str | None]:
    """({name: spec} the user asked for, the program that last changed the env).  The specs come from
    the `# update specs: [...]` / `# install specs:` lines (`# remove specs:` drops them), as
    `conda env export --from-history` reads them; the program from the last `# cmd:` line (conda,
    mamba or micromamba: the fix commands use its name)."""
    path = os.path.join(meta_dir, "history")
    try:
        text = safe_open.read_text(path, MAX_HISTORY, overflow="tail")
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        errors.add(f"conda-meta/history: cannot be read ({type(exc).__name__}: {exc})")
        return {}, None
    specs: dict = {}
    manager = None
    for line in text.splitlines():
        if line.startswith("# cmd:"):
            words = line[6:].split()
            prog = os.path.basename(words[0].replace("\\", "/")).lower() if words else ""
            prog = prog[:-4] if prog.endswith(".exe") else prog
            if prog in ("conda", "mamba", "micromamba"):
                manager = prog
            elif prog.startswith("python") and len(words) > 1:  # `python -m conda` / conda's launcher script
                tail = os.path.basename(words[1].replace("\\", "/")).lower()
                manager = next((p for p in ("micromamba", "mamba", "conda") if p in tail), manager)
            continue
        m = re.match(r"^#\s*(update|install|create|remove|neutered)\s+specs:\s*(.*)$", line.strip())
        if not m or m.group(1) == "neutered":
            continue
        for a, b in re.findall(r"'([^']*)'|\"([^\"]*)\"", m.group(2))[:MAX_SPECS]:
            spec = (a or b).strip()
            nm = _SPEC_NAME_RE.match(spec)
            if not nm:
                continue
            name = nm.group(1).lower()
            if m.group(1) == "remove":
                specs.pop(name, None)
            elif len(specs) < MAX_SPECS or name in specs:
                specs[name] = _s(spec, 200)
    return specs, manager


def _dist_name_version(dirname: str) -> tuple[str, str] | None:
    for suffix in (".dist-info", ".egg-info"):
        if dirname.endswith(suffix):
            stem = dirname[: -len(suffix)]
            name, sep, version = stem.partition("-")
            if suffix == ".egg-info":  # name-1.0-py3.11.egg-info
                version = version.split("-py", 1)[0]
            if name and sep and version:
                return re.sub(r"[-_.]+", "-", name).lower(), version
            return None
    return None


def _record_outside_files(site_dir: str, prefix: str, dist_path: str, budget: list) -> list[str]:
    """Runtime libraries a pip distribution put outside site-packages (RECORD lines starting '../'),
    as prefix-relative paths."""
    path = os.path.join(dist_path, "RECORD")
    try:
        size = os.stat(path).st_size
        if size > MAX_PIP_RECORD or size > budget[0]:
            return []
        budget[0] -= size
        text = _read_bytes(path, min(MAX_PIP_RECORD, budget[0] + size)).decode("utf-8", "replace")
    except (OSError, ValueError):
        return []
    if "../" not in text and "..\\" not in text:
        return []
    out = []
    for line in text.splitlines():
        if not (line.startswith("../") or line.startswith("..\\")):
            continue
        rel = line.split(",", 1)[0]
        full = os.path.normpath(os.path.join(site_dir, rel))
        try:
            inside = os.path.relpath(full, prefix)
        except ValueError:  # another drive on Windows
            continue
        inside = inside.replace("\\", "/")
        if not inside.startswith("..") and RUNTIME_LIB_RE.search(inside):
            out.append(_s(inside))
            if len(out) >= MAX_RUNTIME_FILES:
                break
    return out


def read_pip_dists(site_dirs, prefix: str, errors: _Errors) -> tuple[list[dict], bool]:
    """Distributions in the prefix's site-packages that conda did not install (their dist-info
    INSTALLER says pip, uv, ...; conda writes 'conda'), with any runtime library they put outside."""
    out, truncated, budget = [], False, [MAX_PIP_RECORD_TOTAL]
    seen = set()
    for site in site_dirs:
        try:
            names = os.listdir(site)
        except OSError:
            continue
        if len(names) > MAX_DISTS * 4:
            names, truncated = names[: MAX_DISTS * 4], True
        looked = 0
        for entry in sorted(names):
            nv = _dist_name_version(entry)
            if nv is None:
                continue
            looked += 1
            if looked > MAX_DISTS:
                truncated = True
                break
            dist_path = os.path.join(site, entry)
            try:
                installer = _read_bytes(os.path.join(dist_path, "INSTALLER"), MAX_SMALL).decode("utf-8", "replace").strip()
            except FileNotFoundError:
                installer = ""
            except (OSError, ValueError) as exc:
                errors.add(f"{entry}/INSTALLER: cannot be read ({exc})")
                continue
            if installer.lower() == "conda" or nv in seen:
                continue
            seen.add(nv)
            outside = _record_outside_files(site, prefix, dist_path, budget) if entry.endswith(".dist-info") else []
            out.append({"name": _s(nv[0], 200), "version": _s(nv[1], 100), "installer": _s(installer, 40),
                        "dist_info": _s(entry, 300), "runtime_files": outside or None})
    return out, truncated


def windows_search_path(path_value: str | None, prefix: str, listdir=os.listdir) -> list[dict]:
    """PATH entries that decide which CUDA DLLs a Windows process loads: the env's Library\\bin and
    every directory holding a CUDA runtime (cudart64_*.dll) or named like a CUDA toolkit's bin.
    [{"index", "dir", "kind": "env-library-bin"|"cuda", "cuda_version"}] in PATH order."""
    out = []
    env_bin = os.path.normcase(os.path.normpath(os.path.join(prefix, "Library", "bin"))) if prefix else None
    for i, entry in enumerate((path_value or "").split(";")[:MAX_PATH_ENTRIES]):
        d = entry.strip().strip('"')
        if not d:
            continue
        norm = os.path.normcase(os.path.normpath(d)).replace("/", "\\")
        if env_bin and norm == env_bin.replace("/", "\\"):
            out.append({"index": i, "dir": _s(d), "kind": "env-library-bin", "cuda_version": None})
            continue
        m = _WIN_TOOLKIT_RE.search(d)
        version = m.group(1) if m else None
        try:
            names = listdir(d)
        except OSError:
            names = []
        for name in names[:20000]:
            dm = _CUDART_DLL_RE.match(name)
            if dm:
                digits = dm.group(1)
                # cudart64_110.dll = 11.0 (CUDA 11 and older encode major+minor); cudart64_12.dll = 12
                version = version or (f"{digits[:-1]}.{digits[-1]}" if len(digits) == 3 else digits)
                break
        else:
            if not m:
                continue
        if prefix and norm.startswith(os.path.normcase(os.path.normpath(prefix)).replace("/", "\\")):
            continue  # a directory inside the env is the env's own CUDA
        out.append({"index": i, "dir": _s(d), "kind": "cuda", "cuda_version": version})
    return out


def _site_dirs(prefix: str) -> list[str]:
    if os.path.normcase(os.path.abspath(prefix)) == os.path.normcase(os.path.abspath(sys.prefix)):
        import sysconfig  # noqa: PLC0415
        paths = sysconfig.get_paths()
        dirs = [paths.get("purelib"), paths.get("platlib")]
    else:  # another prefix (tests, or an env named by CONDA_PREFIX): the standard layouts
        import glob  # noqa: PLC0415
        dirs = [os.path.join(prefix, "Lib", "site-packages")] + sorted(
            glob.glob(os.path.join(prefix, "lib", "python3*", "site-packages")))
    out = []
    for d in dirs:
        if d and os.path.isdir(d) and d not in out:
            out.append(d)
    return out


def probe_prefix(prefix: str, env: dict | None = None, system: str | None = None, site_dirs=None) -> dict:
    """The conda facts of the environment at `prefix` (which must hold conda-meta/)."""
    import platform as _platform  # noqa: PLC0415

    env = os.environ if env is None else env
    system = system or _platform.system()
    errors = _Errors()
    meta = os.path.join(prefix, "conda-meta")
    try:
        entries = os.listdir(meta)
    except OSError as exc:
        raise RuntimeError(f"cannot list {meta}: {type(exc).__name__}: {exc}") from None
    truncated = len(entries) > MAX_RECORDS
    if truncated:
        errors.add(f"conda-meta holds {len(entries)} entries; only the first {MAX_RECORDS} were looked at")
        entries = sorted(entries)[:MAX_RECORDS]
    index: dict = {}
    for fn in entries:
        parts = split_record_name(fn)
        if parts is None:
            if fn.endswith(".json"):
                errors.add(f"conda-meta/{fn}: the file name is not <name>-<version>-<build>.json")
            continue
        index.setdefault(parts[0].lower(), []).append((fn, parts))
    packages: list = []
    for name in RELEVANT:
        for fn, _parts in index.get(name, ()):
            try:
                rec = read_record(os.path.join(meta, fn), fn)
            except (OSError, ValueError) as exc:
                errors.add(f"conda-meta/{fn}: {exc}")
                continue
            first = next((p for p in packages if p["name"] == name), None)
            if first is not None:  # two records of one name: conda's own metadata is inconsistent
                errors.add(f"conda-meta holds two records of {name}: {first['file']} and {fn}")
                continue
            packages.append(rec)
    requested, manager = read_history(meta, errors)
    req_out = []
    for name, spec in requested.items():
        found = index.get(name)
        req_out.append({"name": _s(name, 200), "spec": spec, "version": _s(found[0][1][1], 100) if found else None,
                        "build": _s(found[0][1][2], 200) if found else None})
    pip, pip_truncated = read_pip_dists(_site_dirs(prefix) if site_dirs is None else site_dirs, prefix, errors)
    conda_prefix = env.get("CONDA_PREFIX")
    out = {
        "prefix": prefix,
        "env_name": (env.get("CONDA_DEFAULT_ENV") if conda_prefix and os.path.normcase(conda_prefix) == os.path.normcase(prefix)
                     else None) or os.path.basename(prefix.rstrip("/\\")) or prefix,
        "manager": manager,
        "records": sum(len(v) for v in index.values()),
        "records_truncated": truncated,
        "packages": packages,
        "requested": req_out,
        "pip": pip,
        "pip_truncated": pip_truncated,
        "search_path": (windows_search_path(env.get("PATH") or env.get("Path"), prefix)
                        if system == "Windows" else None),
        "errors": list(errors),
    }
    return out


def active_prefix() -> str | None:
    """The conda prefix of this interpreter: sys.prefix when it holds conda-meta/ (a venv made from a
    conda Python is not a conda env: pip, not conda, manages it)."""
    return sys.prefix if os.path.isdir(os.path.join(sys.prefix, "conda-meta")) else None


def probe(env: dict | None = None) -> dict | None:
    """The conda facts of this interpreter's environment, or None when it is not a conda env."""
    prefix = active_prefix()
    return probe_prefix(prefix, env=env) if prefix else None
