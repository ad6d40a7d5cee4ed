"""Layer rules for conda environments with GPU packages, read from conda's own reports: the transaction it is about to
run, the dependency ranges its conflict reports print, the packages an environment file names that no channel has.

    conda_plan_cpu_build  conda's "The following NEW packages will be INSTALLED" choosing pytorch's CPU build (a *cpu*
                     build string, cpuonly / cpu-only, pytorch-mutex's cpu) -> torch-build: the CUDA build asked for
    conda_dependency_range  a conflict report that prints what pytorch needs of cudatoolkit ("pytorch 1.0.1* ->
                     cudatoolkit >=10.0.130,<10.1.0a0", "Package cudatoolkit conflicts for: ... pytorch ->
                     cudatoolkit[version='>=10.1,<10.2']") -> torch-build: that cudatoolkit, or a pytorch for the other
    conda_resolve_package_not_found  an environment file's packages no channel has ("ResolvePackageNotFound") -> env
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_CONDA_DOCS = {"url": "https://docs.conda.io/projects/conda/en/latest/user-guide/troubleshooting.html",
               "what": "conda's solver errors and package-not-found reports"}
_PYTORCH_CONDA = {"url": "https://pytorch.org/get-started/previous-versions/",
                  "what": "PyTorch's conda commands per release: cudatoolkit / pytorch-cuda of each CUDA build, cpuonly"}

# a transaction row: "  pytorch   pytorch/linux-64::pytorch-1.10.0-py3.8_cpu_0", "cpu-only  pytorch/linux-64::cpu-only-1.0-0"
_PLAN = re.compile(r"The following (?:NEW )?packages will be (?:INSTALLED|DOWNLOADED|UPDATED)")
_CPU_ROW = re.compile(r"(?m)^\s{1,8}(?P<pkg>pytorch(?:-nightly)?|cpuonly|cpu-only|pytorch-mutex)\s{1,40}"
                      r"(?P<spec>[\w./:-]{0,80}::[\w.+-]{0,120})$")


def conda_plan_cpu_build(ent, text):
    m, at = last_in_tail(_PLAN, text, "packages will be")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    rows = [r for r in _CPU_ROW.finditer(tail[m.start():])
            if r.group("pkg") in ("cpuonly", "cpu-only") or re.search(r"[_+-]cpu(?:[_.-]|$)", r.group("spec"))]
    if not rows:
        return None
    row = rows[-1]
    sig = _sig("conda-plans-cpu-build", "torch-build", "conda is installing pytorch's CPU build ({spec})", 84,
               "The transaction conda printed picks the CPU-only pytorch: {spec}. conda chooses it when the environment "
               "holds the cpuonly (or cpu-only) package or pytorch-mutex's cpu variant, or when no CUDA build fits the "
               "other packages, and then CUDA is not available however the GPU and driver are.",
               fix="Remove what pins the CPU variant (`conda remove cpuonly`, or create a new environment) and install "
                   "the CUDA build explicitly: conda-forge's `conda install -c conda-forge pytorch-gpu` (or `pytorch "
                   "cuda-version=12.X`), or for PyTorch's channel (up to 2.5) `conda install pytorch pytorch-cuda=12.X -c "
                   "pytorch -c nvidia`; check the plan lists a build string with cuda before confirming.",
               areas=("torch",), sources=(_PYTORCH_CONDA, _CONDA_DOCS))
    return _match(sig, text, at, {"spec": row.group("spec").split("::")[-1]})


# what pytorch asks of cudatoolkit in conda's conflict reports, in its two layouts
_RANGE = re.compile(r"pytorch(?:\[version='[^'\n]{0,300}'\])?(?:\s{1,4}[\d.*]{1,20})?\s{0,4}->\s{0,4}cudatoolkit"
                    r"(?:\[version='(?P<r1>[^'\n]{1,60})'\]|\s{1,4}(?P<r2>[>=<][^\s\n]{1,60}))")
_CONFLICT = re.compile(r"UnsatisfiableError|Package cudatoolkit conflicts for|found to be in conflict|Found conflicts")


def _lower(rng: str) -> str | None:
    m = re.search(r">=\s{0,2}(\d{1,2})\.(\d{1,2})", rng)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def conda_dependency_range(ent, text):
    m, at = last_in_tail(_RANGE, text, "cudatoolkit")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if not _CONFLICT.search(tail):
        return None
    rng = m.group("r1") or m.group("r2")
    need = _lower(rng)
    if need is None:
        return None
    sig = _sig("conda-pytorch-cudatoolkit-range", "torch-build",
               "this pytorch needs cudatoolkit {range}; another cudatoolkit was asked for", 84,
               "conda's conflict report prints what the pytorch build needs of cudatoolkit: {range}. The cudatoolkit "
               "requested (or already in the environment) is outside that range, so conda finds no combination.",
               fix="Ask for the cudatoolkit that pytorch build was made for: `conda install pytorch=<its version> "
                   "cudatoolkit={need} -c pytorch` (cudatoolkit={need}), or choose a newer pytorch built for the "
                   "cudatoolkit you want (PyTorch's previous-versions page lists the pairs); the driver only needs to "
                   "support that CUDA.",
               areas=("torch",), sources=(_PYTORCH_CONDA, _CONDA_DOCS))
    return _match(sig, text, at, {"range": rng.strip(), "need": need})


_RESOLVE_NOT_FOUND = re.compile(r"ResolvePackageNotFound:\s{0,4}\n(?P<list>(?:\s{0,8}-\s{1,3}[^\n]{1,120}\n?){1,40})")


def conda_resolve_package_not_found(ent, text):
    m, at = last_in_tail(_RESOLVE_NOT_FOUND, text, "ResolvePackageNotFound")
    if m is None:
        return None
    pkgs = re.findall(r"-\s{1,3}([^\s\n]{1,80})", m.group("list"))
    sig = _sig("conda-resolve-package-not-found", "env", "the environment file names packages no channel has: {pkgs}", 80,
               "conda reads the packages of an environment file and finds {pkgs} in none of the channels listed for this "
               "platform: the file was exported on another OS (with exact versions and build strings), or names a "
               "package from a channel the file does not list (cudnn and cudatoolkit come from conda-forge or nvidia).",
               fix="Add the channel that publishes them to the file's channels (conda-forge, nvidia) or to the command "
                   "(`-c conda-forge`), and drop build strings and platform-only packages from the file (`conda env "
                   "export --from-history` writes a portable one); remove a package the platform does not have.",
               areas=("platform",), sources=(_CONDA_DOCS,))
    return _match(sig, text, at, {"pkgs": ", ".join(pkgs[:6])})
