"""Build conda prefixes for the tests: the records come from conda_probe
(record(): the shapes conda and micromamba write; write_prefix(): conda-meta, history and
pip-installed dist-info folders), arranged here into the envs the tests need."""

from __future__ import annotations

from conda_probe import PY, record, write_prefix  # noqa: F401

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
