"""The conda form of `torch-envcheck advise`, used when the snapshot was taken in a conda env.

The pytorch channel published its last release with 2.5 (pytorch/pytorch#138506); newer conda builds
come from conda-forge (its pytorch-cpu feedstock: conda_cuda.json conda_forge_pytorch, each release's
CUDA builds per platform with their arch lists).  The conda form is, in this order:

  1. the installed pytorch-channel release, when the channel has a build of it this driver, GPU and
     Python run (`conda install pytorch=2.3 torchvision pytorch-cuda=12.1 -c pytorch -c nvidia`);
  2. conda-forge's newest release this machine runs, never older than the installed torch (a fix
     never downgrades): `conda install -c conda-forge "pytorch=2.13.*=cuda129*" "cuda-version=12.9"`,
     the pytorch channel's packages taken out first (one channel per env);
  3. the pytorch channel's last release (2.5), when it fits and conda-forge has nothing that does;
  4. the pip route inside the env.

Without an NVIDIA driver (or on macOS) the CPU build: the installed pytorch-channel release with
cpuonly, else conda-forge's newest release (`=cpu*` build on Linux/Windows).  Every word goes through
the shell's quoting (command_line: sh, cmd.exe, PowerShell).
"""

from __future__ import annotations

from torch_envcheck import knowledge
from torch_envcheck._util.escape import shell_join, shell_quote
from torch_envcheck.advice.recommend import recommend
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import conda_forge as CF


# The options these fixes use: written as they are (PowerShell would otherwise get '-c'); every
# other word, and any data from the snapshot, is quoted for the shell.
_FLAGS = frozenset(("-c", "-n", "-f", "-m", "-y", "--force", "--force-reinstall", "--conda"))


def command_line(s, *words) -> str:
    """A command line for this snapshot's shell (shell_join's quoting, known options left bare)."""
    shell = F.shell(s)
    out = [w if w in _FLAGS else shell_quote(w, shell) for w in words if w]
    if shell == "powershell" and out and out[0].startswith("'"):
        out.insert(0, "&")  # a quoted program path needs the call operator
    return " ".join(out)


def tensorflow_cuda_route(s, cuda: str | None, cudnn: str | None, env_name: str | None = None) -> str | None:
    """The conda route to TensorFlow's CUDA runtime in a conda env on native Windows (TensorFlow's
    own Windows guide: `conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0`, conda_cuda.json
    tf_windows_conda), for the CUDA and cuDNN of TensorFlow's tested build; None when conda-forge
    has no win-64 build of them in the table (conda_forge_win64), or this is not a conda env."""
    if not (C.has_conda_facts(s) or F.conda_env(s) or env_name) or F.system(s) != "Windows" or not cuda or not cudnn:
        return None
    try:
        table = knowledge.load_table("conda_cuda.json").get("conda_forge_win64") or {}
    except knowledge.KnowledgeError:
        return None
    cuda_mm, cudnn_mm = ".".join(cuda.split(".")[:2]), ".".join(cudnn.split(".")[:2])
    if cuda_mm not in table.get("cudatoolkit", ()) or cudnn_mm not in table.get("cudnn", ()):
        return None
    mgr = C.manager(s) if C.has_conda_facts(s) else "conda"
    where = ["-n", env_name] if env_name else []
    return command_line(s, mgr, "install", "-y", *where, "-c", "conda-forge", f"cudatoolkit={cuda_mm}", f"cudnn={cudnn_mm}")


def _releases() -> tuple[str, dict]:
    """(the pytorch channel's last release, {release: [pytorch-cuda versions]})."""
    table = knowledge.load_table("conda_cuda.json")
    last = str(table.get("last_pytorch_channel_release") or "2.5")
    rows = {str(r.get("pytorch")): [str(v) for v in r.get("pytorch_cuda", [])]
            for r in table.get("pytorch_cuda", []) if isinstance(r, dict)}
    return last, rows


def _fit(snap: dict, release: str, options: list[str]) -> dict | None:
    """The CUDA build of `release` this driver, GPU and Python run, when the pytorch channel had it."""
    try:
        pick = knowledge.latest_release_for(
            driver_cuda=F.driver_cuda(snap), capability=F.build_capability(snap), os_name=F.system(snap),
            python_version=F.python_version(snap), driver_version=F.driver_version(snap),
            torch_release=release, machine=F.machine(snap),
            driver_os_name=F.driver_os(snap))
    except knowledge.KnowledgeError:
        return None
    return pick if pick and pick["cuda"] in options else None


# the pytorch channel's own packages: they go before conda-forge's pytorch comes in (cpuonly and
# pytorch-mutex would pin the CPU variant, pytorch-cuda the channel's CUDA runtime)
_CHANNEL_PKGS = ("pytorch", "torchvision", "torchaudio", "pytorch-cuda", "cpuonly", "pytorch-mutex")


def channel_packages(snap) -> list[str]:
    """The pytorch channel's packages in the env (pytorch-cuda, cpuonly and pytorch-mutex whatever
    their channel: only that channel's pytorch uses them)."""
    out = []
    for n in _CHANNEL_PKGS:
        rec = C.package(snap, n)
        if rec and (n in ("pytorch-cuda", "cpuonly", "pytorch-mutex") or C.channel(rec) in ("pytorch", "nvidia")):
            out.append(n)
    return out


def installed_floor(snap) -> str | None:
    """The newest torch installed in the env (conda's pytorch or a pip torch): no conda-forge
    release older than it is offered."""
    vs = [v for v in (F.torch_version(snap), C.version(C.package(snap, "pytorch"))) if knowledge.version_tuple(v)]
    return max(vs, key=knowledge.version_tuple) if vs else None


def forge_pick(snap, torch_release=None, *, python_version=None, keep_installed: bool = True) -> dict | None:
    """conda-forge's newest CUDA build this machine runs (driver, GPU's capability, Python, platform),
    never older than the installed torch (`keep_installed`: False for a new env, which replaces
    nothing); None when nothing fits or the table is unreadable."""
    try:
        return CF.forge_pick(os_name=F.system(snap), machine=F.machine(snap), capability=F.build_capability(snap),
                             driver_cuda=F.driver_cuda(snap), driver_version=F.driver_version(snap),
                             python_version=python_version or F.python_version(snap), driver_os_name=F.driver_os(snap),
                             torch_release=torch_release, not_below=installed_floor(snap) if keep_installed else None)
    except knowledge.KnowledgeError:
        return None


def _not_a_downgrade(snap, release: str) -> bool:
    floor = knowledge.version_tuple(knowledge.release_key(installed_floor(snap)))
    return floor is None or floor <= knowledge.version_tuple(release)


def forge_words(pick: dict, companions=()) -> list[str]:
    """The words after `conda install`: conda-forge's CUDA pytorch of `pick`, its cuda-version, and
    the companions (torchvision) conda-forge builds for that platform (the solver pairs their variant)."""
    try:
        extra = [n for n in companions if CF.companion_on(n, pick.get("platform"))]
    except knowledge.KnowledgeError:
        extra = []
    return ["-c", "conda-forge", CF.build_spec(pick), *extra, CF.cuda_version_spec(pick)]


def companions_in_env(snap) -> list[str]:
    """The companions installed in the env (conda's or pip's) that conda-forge's pytorch replaces with its own."""
    return [n for n in ("torchvision",) if C.package(snap, n) or F.package_version(snap, n)]


def forge_reason(pick: dict) -> str:
    via = {"sass": "kernels", "ptx": "PTX"}.get(pick.get("via") or "", "code")
    return (f"conda-forge's pytorch {pick['version']} ({pick['platform']}, CUDA {pick['cuda']}: build string "
            f"cuda{pick['cuda'].replace('.', '')}*, `cuda-version={pick['cuda']}`) has {via} for this GPU "
            f"({pick.get('entry') or '?'} in its arch list {pick['arch_list']}) and runs on this driver"
            + (" through CUDA minor-version compatibility" if pick.get("driver_support") == "compat" else "") + "; "
            f"source: {source_text(pick.get('source'))}")


def source_text(key: str | None) -> str:
    try:
        src = str(knowledge.load_table("conda_cuda.json").get("sources", {}).get(key or "", ""))
    except knowledge.KnowledgeError:
        return "conda_cuda.json"
    return src.split(":", 1)[0] if src else "conda_cuda.json"


def _forge_cpu(snap) -> dict | None:
    try:
        return CF.cpu_release(os_name=F.system(snap), machine=F.machine(snap), python_version=F.python_version(snap),
                              not_below=installed_floor(snap))
    except knowledge.KnowledgeError:
        return None


def conda_form(snap: dict, why: list[str], cmd: str | None) -> tuple[list[str], str | None]:
    """(reasons, command) for a conda env, from advise()'s pip answer (`why`, `cmd`)."""
    mgr = C.manager(snap)
    try:
        last, rows = _releases()
    except knowledge.KnowledgeError as exc:
        return why + [f"the conda tables could not be read ({exc}); the pip route follows"], cmd
    env = C.env_name(snap)
    out = list(why) + [f"conda env {env or C.prefix(snap) or '?'}: the pytorch channel's last release is {last} "
                       "(pytorch/pytorch#138506); newer conda builds come from conda-forge"]
    system = F.system(snap)
    rec = C.package(snap, "pytorch")
    from_channel = bool(rec) and C.channel(rec) == "pytorch"
    installed = knowledge.release_key(C.version(rec)) if from_channel else None
    pre: list[str] = []
    if system == "Darwin" or F.driver_present(snap) is not True:
        if installed in rows:  # the installed pytorch-channel release, its CPU build
            conda_cmd = command_line(snap, mgr, "install", f"pytorch={installed}", "torchvision",
                                     *([] if system == "Darwin" else ["cpuonly"]), "-c", "pytorch")
            out.append(f"conda form: pytorch {installed} (the installed release) from the pytorch channel, its CPU build")
            return _with_pip(out, cmd, last), conda_cmd
        cpu = _forge_cpu(snap)
        if cpu is None:
            out.append("conda-forge has no pytorch for this platform and Python in the tables: the pip route inside the env")
            return out, cmd
        spec = f"pytorch={cpu['pytorch']}.*" + ("" if system == "Darwin" else "=cpu*")
        extra = [n for n in companions_in_env(snap) if CF.companion_on(n, cpu["platform"])]
        pre = [command_line(snap, mgr, "remove", "--force", *channel_packages(snap))] if channel_packages(snap) else []
        out.append(f"conda form: conda-forge's pytorch {cpu['version']}, its CPU build"
                   + ("" if system == "Darwin" else " (build string cpu*)"))
        return _with_pip(out, cmd, last), "\n".join(pre + [command_line(snap, mgr, "install", "-c", "conda-forge", spec, *extra)])
    # 1. the installed pytorch-channel release, when the channel has a build this machine runs
    if installed in rows:
        pick = _fit(snap, installed, rows[installed])
        if pick:
            if C.package(snap, "cpuonly"):
                pre.append(command_line(snap, mgr, "remove", "cpuonly"))
            out.append(f"conda form: pytorch {installed} (the installed release) with pytorch-cuda {pick['cuda']}, "
                       f"the newest of {', '.join(rows[installed])} this driver runs")
            return _with_pip(out, cmd, last), "\n".join(pre + [command_line(
                snap, mgr, "install", f"pytorch={installed}", "torchvision", f"pytorch-cuda={pick['cuda']}",
                "-c", "pytorch", "-c", "nvidia")])
    # 2. conda-forge's newest build that carries this GPU's arch, for this platform, driver and Python
    forge = forge_pick(snap)
    if forge:
        gone = channel_packages(snap)
        if gone:
            pre.append(command_line(snap, mgr, "remove", "--force", *gone))
            out.append("the pytorch channel's packages (" + ", ".join(gone) + ") go first: one channel for pytorch per env")
        out.append("conda form: " + forge_reason(forge))
        return _with_pip(out, cmd, last), "\n".join(pre + [command_line(snap, mgr, "install",
                                                                          *forge_words(forge, companions_in_env(snap)))])
    # 3. the pytorch channel's last release
    pick = _fit(snap, last, rows.get(last, [])) if _not_a_downgrade(snap, last) else None
    if pick:
        if C.package(snap, "cpuonly"):
            pre.append(command_line(snap, mgr, "remove", "cpuonly"))
        out.append("conda-forge has no build for this GPU, driver, Python and platform in the tables")
        out.append(f"conda form: pytorch {last} with pytorch-cuda {pick['cuda']}, the newest of "
                   f"{', '.join(rows[last])} this driver runs")
        return _with_pip(out, cmd, last), "\n".join(pre + [command_line(
            snap, mgr, "install", f"pytorch={last}", "torchvision", f"pytorch-cuda={pick['cuda']}", "-c", "pytorch",
            "-c", "nvidia")])
    # 4. pip inside the env
    out.append(f"neither conda-forge's builds nor pytorch {last} from the pytorch channel fit this driver, GPU, Python "
               "and platform (without downgrading the installed torch): the pip route inside the env")
    if rec:
        remove = [n for n in ("pytorch", "torchvision", "torchaudio", "pytorch-cuda", "cpuonly") if C.package(snap, n)]
        return out, "\n".join([command_line(snap, mgr, "remove", "--force", *remove)] + ([cmd] if cmd else []))
    return out, cmd


def _with_pip(out: list[str], cmd: str | None, last: str) -> list[str]:
    if cmd:
        out.append(f"or with pip inside the env (the route to any torch the conda channels do not carry): "
                   f"{cmd.splitlines()[-1]}")
    return out


def forge_env_specs(snap, plan, asked_torch: str | None = None) -> tuple[list[str], list[str]] | None:
    """(reasons, conda match specs) of a new conda env with conda-forge's pytorch for this machine (the
    words after `-c conda-forge`), when conda-forge builds one that fits; None where the plan must stay
    pip's (a pinned file, a wheel, TensorFlow or a project's requirements beside it, another index,
    torchaudio, a --torch release conda-forge does not carry, another OS than the snapshot's)."""
    if (not plan.conda or plan.pinned is not None or plan.wheel or plan.requirements or plan.tensorflow
            or plan.sources.describe() or "torchaudio" in plan.companions or plan.os_name != F.system(snap)):
        return None
    kind = recommend(snap)["kind"]
    release = knowledge.release_key(asked_torch) if asked_torch else None
    py = plan.python or F.python_mm(snap)
    try:
        if kind == "cuda":
            pick = forge_pick(snap, release, python_version=py, keep_installed=False)
            if pick is None:
                return None
            if asked_torch and len(knowledge.version_tuple(asked_torch) or ()) >= 3 and pick["version"] != asked_torch:
                return None  # an exact version conda-forge's table does not hold
            specs = forge_words(pick, plan.companions)[2:]
            why = ["conda form: " + forge_reason(pick)]
        elif kind in ("cpu", "pypi"):
            cpu = CF.cpu_release(os_name=F.system(snap), machine=F.machine(snap), python_version=py)
            if cpu is None or (release and cpu["pytorch"] != release):
                return None
            darwin = cpu["platform"].startswith("osx")
            specs = [f"pytorch={cpu['pytorch']}.*" + ("" if darwin else "=cpu*"),
                     *[n for n in plan.companions if CF.companion_on(n, cpu["platform"])]]
            why = [f"conda form: conda-forge's pytorch {cpu['version']} ({cpu['platform']}), its CPU build"]
        else:
            return None
    except knowledge.KnowledgeError:
        return None
    why.insert(0, "the pytorch channel's last release is 2.5 (pytorch/pytorch#138506): the new env takes "
                  "conda-forge's pytorch, one channel for every package")
    return why, specs


def new_env_form(snap, plan, env: str, shell: str, asked_torch: str | None = None) -> tuple[list[str], list[str]] | None:
    """`advise --conda`: (reasons, command lines quoted for `shell`) that make a new conda env with
    conda-forge's pytorch for this machine (forge_env_specs), or None where the plan stays pip's."""
    got = forge_env_specs(snap, plan, asked_torch)
    if got is None:
        return None
    why, specs = got
    py = plan.python or F.python_mm(snap)
    where = ["-p", env] if ("/" in env or "\\" in env) else ["-n", env]
    return why, [shell_join(["conda", "create", "-y", *where, "-c", "conda-forge", f"python={py or '3'}", *specs], shell),
                 shell_join(["conda", "activate", env], shell)]
