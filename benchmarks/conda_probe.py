"""A conda prefix in the real format, and the probe's speed on it.

    python benchmarks/conda_probe.py [--records 500] [--repeats 30]

builds a prefix of N conda-meta records shaped like the ones conda writes (conda/conda
conda/models/records.py PrefixRecord: the repodata fields plus files, paths_data, link,
extracted_package_dir, package_tarball_full_path, requested_spec; keys sorted, indent 2), with real
sizes: pytorch lists 12000 files, python 4500, cudatoolkit 800, the others 60 each, and times
probes.conda.probe_prefix() on it: the first call (cold: it includes the probe's lazy imports) and the median and
worst of the repeats, interleaved with runs that parse every record whole (the ratio shows what
reading large records at both ends saves).  The target (issue 13): under 50 ms for 500 records.  `record()` and
`write_prefix()` are also what the tests build their prefixes with.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import tempfile
import time

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


def bench_prefix(root: str, n: int) -> str:
    """A prefix of `n` records with the sizes of a real CUDA pytorch env."""
    big = {"pytorch": 12000, "python": 4500, "cudatoolkit": 800}
    recs = [record("python", "3.11.9", "h955ad1f_0", "pkgs/main", n_files=big["python"]),
            record("pytorch", "2.3.0", "py3.11_cuda12.1_cudnn8.9.2_0", "pytorch", n_files=big["pytorch"],
                   depends=["pytorch-cuda >=12.1,<12.2", "pytorch-mutex 1.0 cuda", "python >=3.11,<3.12.0a0"]),
            record("pytorch-cuda", "12.1", "ha16c6d3_5", "pytorch"),
            record("cudatoolkit", "11.8.0", "h6a678d5_0", "pkgs/main", n_files=big["cudatoolkit"]),
            record("cudnn", "8.9.2.26", "cuda11_0", "pkgs/main"),
            record("libstdcxx-ng", "11.2.0", "h1234567_1", "pkgs/main",
                   files=["lib/libstdc++.so", "lib/libstdc++.so.6", "lib/libstdc++.so.6.0.29"]),
            record("_openmp_mutex", "5.1", "1_gnu", "pkgs/main")]
    recs += [record(f"pkg{i:04d}", f"1.{i % 17}.{i % 5}", f"h{i:07x}_{i % 3}", "conda-forge", n_files=60,
                    depends=["libgcc-ng >=12", "python >=3.11,<3.12.0a0"]) for i in range(max(0, n - len(recs)))]
    write_prefix(root, recs[:n])
    return root


def main(argv=None) -> int:
    from torch_envcheck.doctor.probes import conda  # noqa: PLC0415

    ap = argparse.ArgumentParser(prog="python benchmarks/conda_probe.py", description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args(argv)
    if not 1 <= args.records <= 20000 or not 1 <= args.repeats <= 1000:
        ap.error("expected 1 <= --records <= 20000 and 1 <= --repeats <= 1000")
    root = tempfile.mkdtemp(prefix="te-conda-bench-")
    try:
        bench_prefix(root, args.records)
        size = sum(os.path.getsize(os.path.join(root, "conda-meta", f)) for f in os.listdir(os.path.join(root, "conda-meta")))
        # interleaved: the probe as shipped, and the same probe parsing every record whole
        times, full_times, saved = [], [], conda.FULL_PARSE_BYTES
        for _ in range(args.repeats + 1):
            t0 = time.perf_counter()
            facts = conda.probe_prefix(root, env={}, system="Linux")
            times.append((time.perf_counter() - t0) * 1000)
            conda.FULL_PARSE_BYTES = conda.MAX_RECORD_BYTES
            try:
                t0 = time.perf_counter()
                conda.probe_prefix(root, env={}, system="Linux")
                full_times.append((time.perf_counter() - t0) * 1000)
            finally:
                conda.FULL_PARSE_BYTES = saved
        first, rest = times[0], times[1:]
        med, full_med = statistics.median(rest), statistics.median(full_times[1:])
        print(f"conda probe: {facts['records']} records ({size / 1e6:.1f} MB of conda-meta), "
              f"{len(facts['packages'])} CUDA-relevant parsed, {len(facts['errors'])} errors")
        print(f"first {first:.1f} ms; median {med:.1f} ms, worst {max(rest):.1f} ms over {len(rest)} runs "
              f"(target: under 50 ms for 500 records: {'met' if med < 50 else 'MISSED'})")
        print(f"the same probe parsing every record whole: median {full_med:.1f} ms ({full_med / med:.1f}x slower)")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
