"""Build conda prefixes for the tests: conda-meta/*.json records in the shapes conda and micromamba
write (conda/conda conda/models/records.py PrefixRecord: the repodata fields name, version, build,
build_number, channel, subdir, depends, constrains, md5, sha256, size, timestamp, url, ... plus
files, paths_data {paths_version, paths[{_path, path_type, sha256, sha256_in_prefix,
size_in_bytes}]}, link {source, type}, extracted_package_dir, package_tarball_full_path and
requested_spec), a conda-meta/history, and pip-installed dist-info folders with INSTALLER/RECORD."""

from __future__ import annotations

import hashlib
import json
import os

PY = "3.11"
SUBDIR = "linux-64"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def record(name, version, build, channel="conda-forge", depends=(), constrains=(), files=None, build_number=None,
           style="conda", subdir=SUBDIR, requested_spec=None, root="/home/user/miniconda3", n_files=3):
    """One conda-meta record as `conda` (style="conda": channel URL without the subdir, conda >= 23)
    or `micromamba` (style="micromamba": channel URL with the subdir, and "build_string" beside "build")
    writes it."""
    if build_number is None:
        tail = build.rsplit("_", 1)[-1]
        build_number = int(tail) if tail.isdigit() else 0
    if files is None:
        files = [f"lib/{name}/file{i}.txt" for i in range(n_files)]
    fn = f"{name}-{version}-{build}.conda"
    base = "https://repo.anaconda.com/pkgs/main" if channel == "pkgs/main" else f"https://conda.anaconda.org/{channel}"
    rec = {
        "build": build,
        "build_number": build_number,
        "channel": base if style == "conda" else f"{base}/{subdir}",
        "constrains": list(constrains),
        "depends": list(depends),
        "extracted_package_dir": f"{root}/pkgs/{fn[:-6]}",
        "features": "",
        "files": files,
        "fn": fn,
        "license": "BSD-3-Clause",
        "link": {"source": f"{root}/pkgs/{fn[:-6]}", "type": 1},
        "md5": hashlib.md5(fn.encode()).hexdigest(),
        "name": name,
        "package_tarball_full_path": f"{root}/pkgs/{fn}",
        "paths_data": {"paths": [{"_path": f, "path_type": "hardlink", "sha256": _sha(f), "sha256_in_prefix": _sha(f),
                                  "size_in_bytes": 1000 + i} for i, f in enumerate(files)], "paths_version": 1},
        "requested_spec": requested_spec or "None",
        "sha256": _sha(fn),
        "size": 123456,
        "subdir": subdir,
        "timestamp": 1714000000000,
        "track_features": "",
        "url": f"{base}/{subdir}/{fn}",
        "version": version,
    }
    if style == "micromamba":
        rec["build_string"] = build
        rec.pop("requested_spec")
    return rec


def write_prefix(prefix, records, pip=(), history=(), style="conda", indent=None):
    """Create `prefix` with conda-meta records (dicts from record()), a history with `history` spec
    lists, and pip distributions: (name, version, installer, record_lines)."""
    meta = os.path.join(prefix, "conda-meta")
    os.makedirs(meta, exist_ok=True)
    for rec in records:
        path = os.path.join(meta, f"{rec['name']}-{rec['version']}-{rec['build']}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=indent if indent is not None else (2 if style == "conda" else 4), sort_keys=True)
    with open(os.path.join(meta, "history"), "w", encoding="utf-8") as fh:
        for i, specs in enumerate(history):
            fh.write(f"==> 2024-05-0{1 + i % 9} 10:00:00 <==\n# cmd: conda install\n")
            fh.write(f"# conda version: 24.5.0\n+https://conda.anaconda.org/conda-forge/{SUBDIR}::x-1-0\n")
            kind = "remove" if specs and specs[0] == "-" else "update"
            items = specs[1:] if kind == "remove" else specs
            fh.write(f"# {kind} specs: {list(items)!r}\n")
    site = os.path.join(prefix, "lib", f"python{PY}", "site-packages")
    os.makedirs(site, exist_ok=True)
    for name, version, installer, lines in pip:
        di = os.path.join(site, f"{name.replace('-', '_')}-{version}.dist-info")
        os.makedirs(di, exist_ok=True)
        with open(os.path.join(di, "METADATA"), "w") as fh:
            fh.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        if installer is not None:
            with open(os.path.join(di, "INSTALLER"), "w") as fh:
                fh.write(installer + "\n")
        with open(os.path.join(di, "RECORD"), "w") as fh:
            fh.write("\n".join(list(lines) + [f"{os.path.basename(di)}/METADATA,,"]) + "\n")
    return site


def pytorch_cuda_env(style="conda", torch="2.3.0", cuda="12.1", cudnn="8.9.2"):
    """The records of `conda install pytorch=2.3 torchvision pytorch-cuda=12.1 -c pytorch -c nvidia`."""
    return [
        record("python", "3.11.9", "h955ad1f_0", "pkgs/main", style=style),
        record("pytorch", torch, f"py{PY}_cuda{cuda}_cudnn{cudnn}_0", "pytorch", style=style,
               depends=["blas * mkl", "filelock", "jinja2", "mkl >=2018", "networkx", "python >=3.11,<3.12.0a0",
                        f"pytorch-cuda >={cuda},<{cuda[:-1]}{int(cuda[-1]) + 1}", "pytorch-mutex 1.0 cuda",
                        "pyyaml", "sympy", "torchtriton 2.3.0", "typing_extensions"],
               constrains=["cpuonly <0"], n_files=40),
        record("pytorch-cuda", cuda, "ha16c6d3_5", "pytorch", style=style,
               depends=[f"cuda-libraries >={cuda},<{cuda[:-1]}{int(cuda[-1]) + 1}", "libnvjpeg >=12.0.0.28,<12.1.0.0"]),
        record("pytorch-mutex", "1.0", "cuda", "pytorch", style=style, build_number=100),
        record("cuda-runtime", f"{cuda}.0", "0", "nvidia", style=style),
        record("cuda-cudart", f"{cuda}.105", "0", "nvidia", style=style),
        record("torchvision", "0.18.0", f"py{PY}_cu{cuda.replace('.', '')}", "pytorch", style=style),
        record("libstdcxx-ng", "11.2.0", "h1234567_1", "pkgs/main", style=style,
               files=["lib/libstdc++.so", "lib/libstdc++.so.6", "lib/libstdc++.so.6.0.29"]),
        record("libgcc-ng", "11.2.0", "h1234567_1", "pkgs/main", style=style, files=["lib/libgcc_s.so.1"]),
        record("_openmp_mutex", "5.1", "1_gnu", "pkgs/main", style=style, build_number=0),
        record("libgomp", "11.2.0", "h1234567_1", "pkgs/main", style=style, files=["lib/libgomp.so.1.0.0", "lib/libgomp.so.1"]),
    ]


def filler(n, style="conda", n_files=60):
    """`n` unrelated records (numpy, libpng-like) to fill a prefix."""
    return [record(f"pkg{i:04d}", f"1.{i % 17}.{i % 5}", f"h{i:07x}_{i % 3}", "conda-forge", style=style, n_files=n_files,
                   depends=["libgcc-ng >=12", "python >=3.11,<3.12.0a0"]) for i in range(n)]
