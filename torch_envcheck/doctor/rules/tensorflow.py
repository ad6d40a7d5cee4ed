"""TensorFlow rules (TE800-TE851, TE890-TE892): TensorFlow's GPU support next to torch's, judged from
the `tensorflow` and `file_owners` facts: its CUDA libraries, its tested build configuration, native
Windows, the driver and compute capability against TF's build, a CPU-only TF beside an NVIDIA GPU,
the libraries TF logged it could not load, two CUDA generations in one environment, files that two
distributions own, and numpy/protobuf requirements that do not agree."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck._util.escape import path_prepend, path_remove, shell_quote, terminal
from torch_envcheck.knowledge import tensorflow as tk
from torch_envcheck.advice import conda as AC
from torch_envcheck.advice import frameworks as FW
from torch_envcheck.advice import pip_commands as P
from torch_envcheck.advice import recommend as A
from torch_envcheck.advice import system_commands as SYS
from torch_envcheck.advice.platform import Platform
from torch_envcheck.knowledge import windows_dlls as WD
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F
from torch_envcheck.facts import frameworks as H
from torch_envcheck.facts.records import TfTestedBuild
from torch_envcheck.facts import tensorflow as T

# Microsoft Learn, "Latest supported Visual C++ Redistributable downloads" (the same link advise --script uses)
VC_REDIST_URL = "https://aka.ms/vs/17/release/vc_redist.x64.exe"
_GPU_KINDS = ("cudart", "cudnn", "cublas", "cublasLt", "cufft", "curand", "cusolver", "cusparse", "nvjitlink",
              "nvrtc", "cupti", "nccl")


def _gpu_build_applies(s) -> bool:
    """A TF whose CUDA support could work here: a CUDA build, imported (or not tried), not macOS,
    not native Windows after 2.10 (TE803 covers that), not WSL 1."""
    if not T.tf_installed(s) or T.is_cuda_build(s) is not True or F.is_macos(s) or F.wsl(s) == 1:
        return False
    if T.is_native_windows(s) and tk.at_least(T.tf_version(s), "2.11"):
        return False
    return T.importable(s) is not False


def _severity(s) -> str:
    # A GPU that TF cannot use is a broken setup; without one (the PCI bus read, no driver) the CUDA
    # build only costs disk space, and where the bus cannot be read the reader decides.
    return "failure" if T.gpu_state(s) == "yes" else "warning"


def _gpu_clause(s) -> str:
    st = T.gpu_state(s)
    if st == "yes":
        return "TensorFlow cannot use this machine's NVIDIA GPU and runs on the CPU."
    if st == "no":
        return ("This machine has no NVIDIA GPU, so TensorFlow runs on the CPU either way: the CUDA build only costs "
                "disk space (tensorflow-cpu is the same TF without it).")
    return "If this machine has an NVIDIA GPU, TensorFlow cannot use it and runs on the CPU."


def _gpu_failures(s) -> list[dict]:
    return [f for f in T.dlopen_failures(s) if f.kind in _GPU_KINDS]


def _missing_and_cuda(s) -> list[dict]:
    """The and-cuda wheels TensorFlow needs and does not have: absent, or (when no torch pin explains
    it: TE852) installed in a version outside TensorFlow's pin."""
    clash = {c["name"] for c in (FW.pin_clash(s) or {}).get("clashes", [])}
    return [r for r in T.and_cuda(s) if not r.installed or (not r.satisfied and r.name not in clash)]


def _tested_text(s) -> str:
    row = T.tested(s)
    if row and row.cuda:
        return f"CUDA {row.cuda} and cuDNN {row.cudnn}"
    return "the CUDA and cuDNN of its tested build configuration"


def _fix_libraries(s) -> str:
    """The command that installs TF's CUDA libraries: its `and-cuda` extra where it has one (TF >= 2.14
    on Linux/WSL 2), else the tested toolkit and cuDNN."""
    if T.has_and_cuda_extra(s) and not T.is_native_windows(s):
        and_cuda = A.pinned("tensorflow[and-cuda]", T.tf_version(s))
        if _generations_differ(s):
            # Installing TF's CUDA 12 wheels next to torch's CUDA 13 ones overwrites shared files (TE809).
            return (f"# torch here uses CUDA {F.torch_cuda(s)}: give TensorFlow its own environment, where its CUDA "
                    f"{T.tf_cuda(s)} wheels cannot overwrite torch's\n"
                    + Platform.of(s).new_environment("tf", FW.tf_words(s)))
        if T.gpu_state(s) == "no":
            cpu = A.pinned("tensorflow-cpu", T.tf_version(s))
            return ("# no NVIDIA GPU here: TensorFlow's CPU build fits this machine (the CUDA libraries would go unused)\n"
                    + A.pip_command(s, "uninstall", "-y", T.tf_distribution(s)) + "\n" + A.pip_command(s, "install", cpu)
                    + "\n# on a machine with an NVIDIA GPU instead:\n" + A.pip_command(s, "install", and_cuda))
        return A.pip_command(s, "install", and_cuda)
    row = T.tested(s) or TfTestedBuild()
    cuda, cudnn = row.cuda or "?", row.cudnn or "?"
    conda_route = AC.tensorflow_cuda_route(s, row.cuda, row.cudnn) if T.is_native_windows(s) else None
    if conda_route:
        # the conda env's own route (TensorFlow's Windows guide): CUDA and cuDNN into the env's
        # Library\bin, which `conda activate` puts on PATH; no system toolkit, no copied DLLs
        return (f"# in this conda env, with it activated: TensorFlow's CUDA {cuda} and cuDNN {cudnn} from conda-forge\n"
                + conda_route + "\n# then open a new terminal, `conda activate` the env and check:\ntorch-envcheck")
    if T.is_native_windows(s):
        return (f"# install the CUDA Toolkit {cuda} (https://developer.nvidia.com/cuda-toolkit-archive) and cuDNN {cudnn} "
                f"for CUDA {versions.major(cuda) or '?'}.x (https://developer.nvidia.com/rdp/cudnn-archive),\n"
                f"# copy cuDNN's bin\\*.dll into the toolkit's bin folder, put that folder on PATH, then check:\n"
                + path_prepend(f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{cuda}\\bin", F.shell(s)) + "\n"
                + "# in a new terminal: TE801/TE807 are gone when TensorFlow finds them\ntorch-envcheck")
    return (f"# install the CUDA Toolkit {cuda} and cuDNN {cudnn} (https://developer.nvidia.com/cuda-toolkit-archive, "
            f"https://developer.nvidia.com/rdp/cudnn-archive),\n# put their lib64 folders on LD_LIBRARY_PATH, or move to "
            f"TensorFlow >= {tk.and_cuda_since()}, whose wheels bring their CUDA libraries:\n"
            + A.pip_command(s, "install", "tensorflow[and-cuda]"))


def _generations_differ(s) -> bool:
    """torch and TF are CUDA builds of different CUDA majors (TE809)."""
    tc, fc = F.torch_cuda(s), T.tf_cuda(s)
    return (F.is_cuda_torch(s) and T.is_cuda_build(s) is True and bool(tc) and bool(fc)
            and versions.major(tc) != versions.major(fc))


def _problem(*args, hides=(), **kw) -> dict:
    """A finding that TensorFlow does not work as installed here: it hides TE800 ("TensorFlow works")."""
    return finding(*args, hides=["TE800", *hides], **kw)


# ---------------------------------------------------------------- probe failures (TE890-TE892)

def child_failed(s) -> list[dict]:
    if not T.tf_installed(s) or not T.child_ran(s) or not T.child_error(s):
        return []
    err = T.child_error(s)
    limit = T.child_timeout(s)
    details = {"error": err, "returncode": T.child_returncode(s), "timeout": limit}
    if T.child_timed_out(s):
        return [_problem("TE891", "warning", f"importing {T.tf_label(s)} in a child process did not finish within "
                                           f"{limit if limit is not None else '?'} s",
                        "TensorFlow's facts (build info, GPUs, the libraries it could not load) are missing, so those "
                        "checks were skipped. A cold start after installing can be that slow; run the doctor again, "
                        "or with a longer --timeout (the TensorFlow child gets twice it).",
                        "torch-envcheck --timeout 60", details)]
    rc = T.child_returncode(s)
    hint = ""
    if rc in (-4, 132):
        # tensorflow/docs site/en/install/pip.md, "Hardware requirements": TF binaries use AVX instructions.
        hint = (" It died of SIGILL (an illegal instruction): TensorFlow's wheels need AVX, which this CPU (or "
                "virtual machine) does not offer.")
    return [_problem("TE892", "warning", f"the child process that imports {T.tf_label(s)} died without a result"
                                       + (f" (exit status {rc})" if rc is not None else ""),
                    f"{err}.{hint} TensorFlow's facts are missing, so those checks were skipped; `python -c \"import "
                    "tensorflow\"` shows the same failure.", None, details)]


# ---------------------------------------------------------------- TE808

def not_importable(s) -> list[dict]:
    if not T.tf_installed(s) or T.importable(s) is not False:
        return []
    err = T.import_error(s) or "(no message)"
    first = err.splitlines()[0][:300]
    explains = ("TE807",) if _gpu_failures(s) else ()
    if F.system(s) == "Windows" and "DLL load failed" in err:
        # Windows could not load TensorFlow's native module or a DLL it links: the guides' row for this
        # error is the Microsoft Visual C++ Redistributable (msvcp140_1.dll since TF 2.1), not TensorFlow
        return [_problem("TE808", "failure", f"{T.tf_label(s)} is installed but `import tensorflow` fails: {first}",
                         "Windows could not load TensorFlow's native module (_pywrap_tensorflow_internal) or a DLL it "
                         "links. TensorFlow's Windows guide lists the Microsoft Visual C++ Redistributable for Visual "
                         "Studio 2015-2019 as a requirement (msvcp140_1.dll since TensorFlow 2.1: tensorflow/docs "
                         "site/en/install/pip.md@06798ba373, 'Windows Native', step 2); a missing or older one gives "
                         "exactly this error. This is TensorFlow's import, not torch's. If it persists after the "
                         "runtime is installed: a 32-bit Python, a CPU without AVX, or a broken install (reinstall "
                         "TensorFlow, last line below).",
                         SYS.winget_install(s, "Microsoft.VCRedist.2015+.x64") + "\n"
                         f"# or run the installer from {VC_REDIST_URL}, then open a new terminal and check:\n"
                         "torch-envcheck\n# if it still fails:\n"
                         + A.pip_command(s, "install", "--force-reinstall", A.pinned(T.tf_distribution(s), T.tf_version(s))),
                         {"import_error": err, "layer": "windows-runtime"}, explains=explains)]
    return [_problem("TE808", "failure", f"{T.tf_label(s)} is installed but `import tensorflow` fails: {first}",
                    "The import error is kept verbatim below; a numpy or protobuf of the wrong major (TE851 names one), "
                    "a broken install or a CPU without AVX are the usual causes. Reinstalling TensorFlow with its "
                    "dependencies repairs a broken install.",
                    A.pip_command(s, "install", "--force-reinstall", A.pinned(T.tf_distribution(s), T.tf_version(s))),
                    {"import_error": err}, explains=explains)]


# ---------------------------------------------------------------- TE801 / TE807

def cuda_libs_missing(s) -> list[dict]:
    if not _gpu_build_applies(s):
        return []
    missing = _missing_and_cuda(s)
    failures = _gpu_failures(s)
    cuda, cudnn = T.tf_cuda(s), T.tf_cudnn(s)
    major = versions.major(cuda)
    on_path = T.path_has(s, "cudart", major) and T.path_has(s, "cudnn", versions.major(cudnn))
    from_wheels = bool(T.and_cuda(s)) and missing and not on_path
    if not from_wheels and not failures:
        return []
    if failures and not missing and not from_wheels and all(f.kind == "cuda" for f in T.dlopen_failures(s)):
        return []
    names = [r.name + (f" (installed {r.installed}, needs {r.specifier})" if r.installed else "")
             for r in missing]
    build = f"a CUDA {cuda or '?'} build" + (f" with cuDNN {cudnn}" if cudnn else "")
    absent = [r for r in missing if not r.installed]
    other = len(missing) - len(absent)
    if from_wheels and absent:
        msg = (f"{T.tf_label(s)} is {build}, but its CUDA {major or '?'} libraries are not installed: "
               f"{len(absent)} of the {len(T.and_cuda(s))} nvidia-* wheels of tensorflow[and-cuda] are missing"
               + (f" and {other} installed in another version than it pins" if other else ""))
    elif from_wheels:
        msg = (f"{T.tf_label(s)} is {build}, but {other} of the {len(T.and_cuda(s))} nvidia-* wheels of "
               "tensorflow[and-cuda] are installed in another version than it pins")
    else:
        msg = (f"{T.tf_label(s)} is {build}, but it could not load "
               + ", ".join(f"{f.file} ({f.text})" for f in failures[:4]))
    expl = (f"TensorFlow loads its CUDA libraries at run time; none of them ship in the {T.tf_distribution(s)} wheel. "
            + _gpu_clause(s) + " ")
    if T.has_and_cuda_extra(s) and not T.is_native_windows(s):
        expl += (f"TensorFlow {T.tf_release(s)} gets them from pip through its `and-cuda` extra "
                 f"({', '.join(r.name for r in T.and_cuda(s)[:3]) or 'nvidia-*-cu' + str(major)}, ...).")
        if missing:
            expl += " Missing: " + "; ".join(names[:8]) + (f"; and {len(names) - 8} more." if len(names) > 8 else ".")
    else:
        expl += (f"TensorFlow {T.tf_release(s)} was tested with {_tested_text(s)}; they must be installed and "
                 + ("on PATH." if T.is_native_windows(s) else "on the library path (LD_LIBRARY_PATH or ldconfig)."))
    if F.is_cuda_torch(s) and F.torch_cuda(s) and major and versions.major(F.torch_cuda(s)) != major:
        expl += (f" torch here is a CUDA {F.torch_cuda(s)} build: its CUDA {versions.major(F.torch_cuda(s))} wheels do "
                 f"not serve TensorFlow's CUDA {major} (see TE809).")
    return [_problem("TE801", _severity(s), msg, expl, _fix_libraries(s),
                    {"tf_cuda": cuda, "tf_cudnn": cudnn, "missing_wheels": [r.name for r in missing],
                     "dlopen_failures": [f.file for f in failures], "libraries_on_path": on_path},
                    explains=("TE807",) if failures else ())]


def dlopen_failed(s) -> list[dict]:
    if not T.tf_installed(s) or F.is_macos(s):
        return []
    fails = T.dlopen_failures(s)
    if not fails:
        return []
    gpu = [f for f in fails if f.kind in _GPU_KINDS]
    driver = [f for f in fails if f.kind == "cuda"]
    if not gpu and not driver:
        return []  # TensorRT alone is optional: TF runs without it
    listed = "; ".join(f"{f.file} = {f.text}" for f in (gpu + driver)[:6])
    if gpu:
        sev = _severity(s)
        msg = f"TensorFlow logged that it could not load {len(gpu)} GPU librar{'ies' if len(gpu) != 1 else 'y'}: {listed}"
        expl = ("TensorFlow prints \"Could not load dynamic library '...'\" for each CUDA library it cannot find and "
                "then skips the GPU (\"Cannot dlopen some GPU libraries\"). " + _gpu_clause(s)
                + f" {T.tf_label(s)} was tested with {_tested_text(s)}.")
        notes = sorted({f.note for f in gpu if f.note})
        if notes:
            expl += " (" + "; ".join(f"{f.file}: {f.note}" for f in gpu if f.note) + ".)"
        fix = _fix_libraries(s)
    else:
        sev = "warning" if T.gpu_state(s) != "yes" else "failure"
        msg = f"TensorFlow could not load the NVIDIA driver's CUDA library: {listed}"
        expl = ("libcuda.so / nvcuda.dll comes with the NVIDIA driver, not with TensorFlow or the CUDA toolkit. "
                + _gpu_clause(s))
        fix = "# install the NVIDIA driver (https://www.nvidia.com/Download/index.aspx), then check:\nnvidia-smi"
    lines = T.log_lines(s)[:10]
    return [_problem("TE807", sev, msg, expl, fix,
                    {"libraries": [{k: getattr(f, k) for k in ("file", "kind", "version", "text")} for f in fails],
                     "log_lines": lines})]


# ---------------------------------------------------------------- TE803 / TE806

def windows_no_gpu(s) -> list[dict]:
    if not T.tf_installed(s) or not T.is_native_windows(s) or not tk.at_least(T.tf_version(s), "2.11"):
        return []
    if T.gpu_state(s) != "yes":
        return []
    last = tk.windows_last_gpu_release()
    row = tk.build(last, "windows") or {}
    py = F.python_version(s)
    py_note = ""
    py_mm, hi = kb.major_minor(py), kb.major_minor(row.get("python_max"))
    if py_mm and hi and py_mm > hi:
        py_note = (f" TensorFlow {last} supports Python {row.get('python_min')}-{row['python_max']}, not {py}: that "
                   "route also needs another Python.")
    conda_route = AC.tensorflow_cuda_route(s, row.get("cuda", "11.2"), row.get("cudnn", "8.1"))
    return [_problem("TE803", "warning",
                    f"{T.tf_label(s)} on native Windows has no GPU support: the NVIDIA GPU stays unused",
                    f"TensorFlow {last} was the last release with GPU support on native Windows; from 2.11 on, the "
                    "Windows wheels are CPU-only. Run TensorFlow in WSL 2 (which uses this Windows driver), or pin "
                    f"tensorflow<2.11 with CUDA {row.get('cuda', '11.2')} and cuDNN {row.get('cudnn', '8.1')}." + py_note,
                    "wsl --install\n# then, inside WSL 2 (Ubuntu):\n"
                    + P.pip_install_line("python3", FW.tf_gpu_requirement(T.tf_version(s), "linux")[0])
                    + f"\n# or, staying on native Windows (CUDA {row.get('cuda', '11.2')} + cuDNN {row.get('cudnn', '8.1')} "
                    + ("from conda-forge, into this conda env):\n" + conda_route + "\n" if conda_route else "on PATH):\n")
                    + A.pip_command(s, "install", f"tensorflow<{'.'.join(str(x) for x in (2, 11))}"),
                    {"tf_version": T.tf_version(s), "last_windows_gpu_release": last}, hides=["TE806"])]


def cpu_build_with_gpu(s) -> list[dict]:
    if not T.tf_installed(s) or T.gpu_state(s) != "yes":
        return []
    dist = T.tf_distribution(s)  # (on native Windows after 2.10 TE803 hides it: no TF there has GPU support)
    macos = F.is_macos(s)
    if not macos and not (dist in ("tensorflow-cpu", "tf-nightly-cpu") or T.is_cuda_build(s) is False):
        return []
    if macos:
        return [_problem("TE806", "warning", f"{T.tf_label(s)} on macOS cannot use this machine's NVIDIA GPU",
                        "TensorFlow has no CUDA support on macOS; on Apple silicon tensorflow-metal adds the GPU.",
                        None, {"distribution": dist})]
    # The GPU package of this release for this OS: tensorflow[and-cuda] only where that extra exists
    # (Linux, 2.14 on); native Windows up to 2.10 and Linux before 2.14 take `tensorflow` and NVIDIA's
    # CUDA/cuDNN beside it (knowledge/tensorflow.py, advice/frameworks.py).
    gpu, note = FW.tf_gpu_requirement(T.tf_version(s), T.tf_os(s))
    fix = (A.pip_command(s, "uninstall", "-y", dist) + "\n" + A.pip_command(s, "install", gpu)
           if dist != "tensorflow" else A.pip_command(s, "install", "--force-reinstall", gpu))
    if note:
        fix += "\n" + terminal("# " + note)
    where = ("on native Windows up to 2.10" if T.is_native_windows(s) else "on Linux and WSL 2")
    return [_problem("TE806", "warning",
                    f"{T.tf_label(s)} is a CPU-only TensorFlow, but this machine has an NVIDIA GPU",
                    f"tensorflow-cpu never uses the GPU. The `tensorflow` package is the CUDA build {where}; uninstall "
                    "the CPU one first, since both install the same `tensorflow` module."
                    + (f" {note}." if note else ""),
                    fix, {"distribution": dist, "gpu_requirement": gpu})]


# ---------------------------------------------------------------- TE804 / TE805

def driver_too_old(s) -> list[dict]:
    if not _gpu_build_applies(s) or F.driver_present(s) is not True:
        return []
    cuda, dv = T.tf_cuda(s), F.driver_version(s)
    try:
        verdict = F.driver_runs(s, cuda) if dv and cuda else None
        need = kb.min_driver_for_cuda(cuda, F.driver_os(s)) if cuda else None
    except kb.KnowledgeError:
        return []
    if verdict != "no":
        return []
    need = need or {}
    floor = need.get("compat_floor") or need.get("toolkit_minimum")
    where = "the Windows driver (WSL 2 uses it)" if F.wsl(s) == 2 else "the NVIDIA driver"
    return [_problem("TE804", _severity(s),
                    f"NVIDIA driver {dv} is too old for {T.tf_label(s)}, a CUDA {cuda} build (needs >= {floor})",
                    f"TensorFlow's CUDA {cuda} runtime refuses to start on an older driver, so TF runs on the CPU. "
                    f"Update {where} to {floor} or newer"
                    + (f" ({need['toolkit_minimum']} is CUDA {need.get('toolkit_minimum_for')}'s own)"
                       if need.get("toolkit_minimum") and need.get("toolkit_minimum") != floor else "") + ".",
                    f"# install NVIDIA driver >= {floor} (https://www.nvidia.com/Download/index.aspx), then check:\nnvidia-smi",
                    {"driver": dv, "tf_cuda": cuda, "needed": floor})]


def gpu_arch_unsupported(s) -> list[dict]:
    if not _gpu_build_applies(s):
        return []
    arch = T.tf_arch_list(s)
    if not arch:
        return []
    out = []
    for g in F.gpus(s)[:T.MAX_ITEMS]:
        cap = F.text(g.capability)
        if not cap:
            continue
        m = kb.capability_match(cap, arch)
        if m.get("ok") is False:
            out.append(_problem("TE805", "failure",
                               f"{F.gpu_label(g)} is not covered by {T.tf_label(s)}'s compute capabilities "
                               f"({', '.join(arch)})",
                               "TensorFlow's wheels carry GPU code (SASS) for the listed sm_XY and PTX for the listed "
                               "compute_XY, which the driver JIT-compiles for newer GPUs only; an older GPU gets "
                               "\"device kernel image is invalid\". An older TensorFlow release, or one built from "
                               "source with TF_CUDA_COMPUTE_CAPABILITIES including this GPU, can run on it.",
                               "# build TensorFlow from source for this GPU: https://www.tensorflow.org/install/source",
                               {"capability": cap, "tf_arch_list": arch}))
    return out


# ---------------------------------------------------------------- TE802

def untested_stack(s) -> list[dict]:
    if not T.tf_installed(s):
        return []
    row = T.tested(s)
    if row is None:
        return []
    problems = []
    py = kb.major_minor(F.python_version(s))
    lo, hi = kb.major_minor(row.python_min), kb.major_minor(row.python_max)
    if py and lo and hi and not lo <= py <= hi:
        problems.append(f"Python {F.python_version(s)} (tested: {row.python_min}-{row.python_max})")
    if _gpu_build_applies(s) and row.cuda:
        tmaj = versions.major(row.cuda)
        cudnn_major = versions.major(row.cudnn)
        wheels = F.nvidia_packages(s)
        rt = next((v for n, v in wheels.items() if n.startswith(f"nvidia-cuda-runtime-cu{tmaj}")), None)
        dnn = next((v for n, v in wheels.items() if n == f"nvidia-cudnn-cu{tmaj}"), None)
        if dnn and cudnn_major is not None and versions.major(dnn) != cudnn_major:
            problems.append(f"nvidia-cudnn-cu{tmaj} {dnn} (tested: cuDNN {row.cudnn})")
        if rt and versions.major(rt) is not None and versions.major(rt) != tmaj:
            problems.append(f"CUDA runtime {rt} (tested: CUDA {row.cuda})")
        for kind, want in (("cudart", tmaj), ("cudnn", cudnn_major)):
            found = sorted({str(lib.version) for lib in T.path_libs(s, kind) if lib.version})
            if found and want is not None and not any(versions.major(v) == want for v in found):
                problems.append(f"{kind} {', '.join(found)} on the library path (tested: "
                                f"{'CUDA ' + row.cuda if kind == 'cudart' else 'cuDNN ' + row.cudnn})")
    if not problems:
        return []
    fix = None
    if problems[0].startswith("Python"):
        fix = (f"# use Python {row.python_min}-{row.python_max} for TensorFlow {T.tf_release(s)}, e.g.\n"
               + P.new_venv_install_line(row.python_max, ".venv-tf", A.pinned(T.tf_distribution(s), T.tf_version(s)))
               if not T.is_native_windows(s) else
               f"# install Python {row.python_max} (https://www.python.org/downloads/windows/), then:\n"
               + P.py_launcher_install_line(row.python_max, A.pinned(T.tf_distribution(s), T.tf_version(s))))
    elif T.has_and_cuda_extra(s) and not T.is_native_windows(s):
        fix = A.pip_command(s, "install", "--force-reinstall", FW.tf_gpu_requirement(T.tf_version(s), T.tf_os(s))[0])
    return [_problem("TE802", "warning",
                    f"{T.tf_label(s)} was not tested with " + "; ".join(problems),
                    f"TensorFlow's tested build configuration for {T.tf_release(s)} on {row.os.capitalize()}: "
                    f"Python {row.python_min}-{row.python_max}"
                    + (f", CUDA {row.cuda}, cuDNN {row.cudnn}" if row.cuda else ", no GPU build")
                    + f" (source: {row.source_url or 'tensorflow.org'}). Other versions may work, or fail at import or at "
                    "the first GPU op." + (" [table row marked unverified]" if row.unverified else ""),
                    fix, {"tested": {k: getattr(row, k) for k in ("tensorflow", "os", "python_min", "python_max", "cuda", "cudnn")},
                          "problems": problems})]


# ---------------------------------------------------------------- TE809 / TE850 / TE851

def cuda_generations(s) -> list[dict]:
    if not T.tf_installed(s) or not F.is_cuda_torch(s) or T.is_cuda_build(s) is not True:
        return []
    if T.is_native_windows(s):
        # No nvidia/ folders on native Windows: torch loads the DLLs its wheel bundles (torch\lib, never
        # PATH), TensorFlow <= 2.10 finds CUDA through PATH.  Different generations have different DLL
        # names and coexist; where the names are the same, TE812 says so.
        return []
    tc, fc = F.torch_cuda(s), T.tf_cuda(s)
    if not _generations_differ(s):
        return []
    tm, fm = versions.major(tc), versions.major(fc)
    nvidia_clash = any(any(d.startswith("nvidia-") for d in p.distributions) and p.differing
                       for p in T.owner_pairs(s))
    return [_problem("TE809", "warning",
                    f"{F.torch_label(s)} (CUDA {tc}) and {T.tf_label(s)} (CUDA {fc}) need different CUDA generations "
                    "in one environment",
                    f"torch uses the CUDA {tm} wheels (nvidia-*-cu{tm} or the unsuffixed CUDA {tm} ones) and TensorFlow "
                    f"the CUDA {fm} wheels (nvidia-*-cu{fm}). Both sets install into the same nvidia/ folders, where "
                    "libraries such as nvidia/cudnn/lib/libcudnn.so.9 have one name for two builds: the one installed "
                    "last wins, and uninstalling either deletes the file the other needs. TensorFlow's own guide and "
                    "PyTorch's install selector each assume one framework per environment: use two.",
                    FW.two_environments(s),
                    {"torch_cuda": tc, "tf_cuda": fc}, explains=("TE850",) if nvidia_clash else ())]


# ---------------------------------------------------------------- TE811 / TE812 (native Windows)

def _torch_cudnn_version(s) -> str | None:
    t = F.torch_cudnn(s)
    if t:
        return F.fmt_version(t)
    rel = kb.release(F.torch_version(s)) or {}
    tag = F.torch_index_label(s) or kb.tag_from_cuda(F.torch_cuda(s))
    build = next((b for b in rel.get("builds", []) if b.get("tag") == tag), None)
    return build.get("cudnn") if build else None


def windows_shared_dlls(s) -> list[dict]:
    """TE812: torch and TensorFlow <= 2.10 on native Windows load CUDA/cuDNN DLLs of the same name in
    other versions (torch cu118 and TF 2.10 both load cudnn64_8.dll and cudart64_110.dll): in one
    process the module loaded first serves both (data/windows_dll_search.json)."""
    if not T.tf_installed(s) or not T.is_native_windows(s) or not F.is_cuda_torch(s) or T.is_cuda_build(s) is not True:
        return []
    try:
        if WD.path_searched("tensorflow", T.tf_version(s)) is not True:
            return []
        tcd, fcd = _torch_cudnn_version(s), T.tf_cudnn(s)
        tn, fn = WD.dll_names(F.torch_cuda(s), tcd), WD.dll_names(T.tf_cuda(s), fcd)
        shared = WD.shared_names(tn, fn)
    except kb.KnowledgeError:
        return []
    versions_of = {"cudart": (F.torch_cuda(s), T.tf_cuda(s)), "cublas": (F.torch_cuda(s), T.tf_cuda(s)),
                   "cudnn": (tcd, fcd)}
    differ = [(kind, tn[kind]) for kind in tn if tn[kind].lower() in shared
              and kb.major_minor(versions_of[kind][0]) != kb.major_minor(versions_of[kind][1])]
    if not differ:
        return []
    names = ", ".join(n for _k, n in differ)
    detail = "; ".join(f"{n}: torch's {'cuDNN' if k == 'cudnn' else 'CUDA'} {versions_of[k][0]}, TensorFlow's "
                       f"{versions_of[k][1]}" for k, n in differ)
    return [_problem("TE812", "warning",
                     f"{F.torch_label(s)} and {T.tf_label(s)} load DLLs of the same name in other versions ({names}): "
                     "in one process, the framework imported first decides which copy both get",
                     f"torch loads the CUDA DLLs its wheel bundles from torch\\lib ({WD.how('torch', F.torch_version(s))}; "
                     f"{WD.source_text('torch', F.torch_version(s))}); TensorFlow {T.tf_release(s)} finds its CUDA "
                     f"{T.tf_cuda(s)} and cuDNN {T.tf_cudnn(s)} through PATH "
                     f"({WD.source_text('tensorflow', T.tf_version(s))}). Windows resolves a DLL asked for by name to a "
                     "module of that name already loaded, whichever folder it came from (Microsoft Learn, 'Dynamic-link "
                     f"library search order'): {detail}. Importing TensorFlow first gives torch the older cuDNN (\"cuDNN "
                     "version incompatibility\"); importing torch first gives TensorFlow torch's copies. Give each "
                     "framework its own environment.",
                     FW.two_environments(s),
                     {"shared_dlls": [n for _k, n in differ], "torch_dlls": tn, "tensorflow_dlls": fn})]


def windows_path_order(s) -> list[dict]:
    """TE811: TensorFlow <= 2.10 on native Windows finds its CUDA DLLs through PATH, and a folder of
    another CUDA version comes first (every CUDA 11.x runtime is named cudart64_110.dll).  A conda env's
    PATH order is TE908's; torch never searches PATH (data/windows_dll_search.json), so its users are
    not warned."""
    if not T.tf_installed(s) or not T.is_native_windows(s) or C.has_conda_facts(s) or T.is_cuda_build(s) is not True:
        return []
    try:
        if WD.path_searched("tensorflow", T.tf_version(s)) is not True:
            return []
    except kb.KnowledgeError:
        return []
    want = kb.major_minor(T.tf_cuda(s))
    dirs = T.windows_path_cuda_dirs(s)
    if want is None or not dirs:
        return []
    first_ok = next((d.position for d in dirs if kb.major_minor(d.cuda) == want), None)
    wrong = [d for d in dirs if (first_ok is None or d.position < first_ok) and d.cuda
             and kb.major_minor(d.cuda) != want and ("\\cuda\\v" in d.dir.lower()
                                                     or versions.major(d.cuda) != want[0])]
    if not wrong:
        return []
    d = wrong[0]
    drop = path_remove(d.dir, F.shell(s))
    where = "and no folder of CUDA " + f"{want[0]}.{want[1]} is on PATH" if first_ok is None else \
        f"before the CUDA {want[0]}.{want[1]} folder"
    return [_problem("TE811", "warning",
                     terminal(f"PATH puts the CUDA {d.cuda} folder {d.dir} {where}: {T.tf_label(s)}, built with "
                              f"CUDA {T.tf_cuda(s)}, loads {', '.join(d.files[:3]) or 'its CUDA DLLs'} from there"),
                     f"TensorFlow {T.tf_release(s)} loads cudart64_110.dll, cudnn64_8.dll and the other CUDA DLLs by name "
                     f"from the first PATH folder that has them ({WD.source_text('tensorflow', T.tf_version(s))}); every "
                     "CUDA 11.x toolkit names its runtime cudart64_110.dll, so an older toolkit's copy is taken for the "
                     f"one TensorFlow was built with (CUDA {T.tf_cuda(s)}, cuDNN {T.tf_cudnn(s)}). torch is not affected: "
                     "it loads its own DLLs and never searches PATH. Put the matching toolkit's folder first, or take "
                     "the other one off PATH (the command below does it for this terminal session).",
                     "\n".join([drop, "# permanently: in System Properties > Environment Variables, move the CUDA "
                                       f"{want[0]}.{want[1]} bin folder above it in Path (or remove it), then open a new "
                                       "terminal"]),
                     {"entry": d.to_dict(), "tf_cuda": T.tf_cuda(s), "path_cuda_dirs": F.as_details(dirs[:10])})]


# ---------------------------------------------------------------- TE852

def nvidia_pins_clash(s) -> list[dict]:
    """TE852: torch's Requires-Dist and TensorFlow's and-cuda extra pin the same nvidia-* wheels to
    versions no single one satisfies: whichever framework was installed last replaced the other's
    wheels, and reinstalling either breaks the other again.  The fix is two environments."""
    clash = FW.pin_clash(s)
    if clash is None:
        return []
    broken = clash["broken"]
    torch_fails = F.torch_importable(s) is False
    tf_gpu_lost = broken == "tensorflow" and T.gpu_state(s) == "yes" and not T.tf_gpus(s)
    sev = "failure" if torch_fails or tf_gpu_lost or (broken == "tensorflow" and T.gpu_state(s) == "yes") else "warning"
    n = len(clash["clashes"])
    who = {"torch": f"the installed wheels follow torch's pins, so {T.tf_label(s)} runs with libraries it was not "
                    "built for",
           "tensorflow": f"the installed wheels follow TensorFlow's pins, so {F.torch_label(s)} runs with libraries "
                         "it was not built for" + (" and does not import" if torch_fails else "")}.get(
        clash["follows"], "the installed wheels follow neither framework's pins")
    explains = ["TE201"] if torch_fails else []
    return [_problem("TE852", sev,
                     f"{F.torch_label(s)} and {T.tf_label(s)}[and-cuda] pin {n} nvidia-* wheel{'s' if n != 1 else ''} to "
                     f"versions no single one satisfies: {FW.clash_text(s, clash)}",
                     "Both frameworks take their CUDA libraries from the same nvidia-* wheels, and pip keeps one version "
                     f"of each: the framework installed last replaced the other's ({who}). pip does not check what is "
                     "already installed, so reinstalling either framework re-pins the wheels and breaks the other again. "
                     "No single environment satisfies both: give each framework its own (the commands below install the "
                     "same releases, each with its own pins), or move one to a release whose pins agree with the other's.",
                     FW.two_environments(s),
                     {"clashes": clash["clashes"], "follows": clash["follows"], "broken": broken},
                     explains=explains)]


def files_owned_twice(s) -> list[dict]:
    pairs = [p for p in T.owner_pairs(s) if p.differing]
    if not pairs:
        return []
    total = sum(p.differing for p in pairs)
    first = pairs[0]
    ex = [e.path for e in first.examples if e.same_content is False][:3] or [e.path for e in first.examples][:3]
    listed = "; ".join(f"{p.distributions[0]} and {p.distributions[1]} ({p.differing} file"
                       f"{'s' if p.differing != 1 else ''})" for p in pairs[:3])
    more = f"; and {len(pairs) - 3} more pairs" if len(pairs) > 3 else ""
    keep = first.distributions[0]
    return [finding("TE850", "warning",
                    f"{total} installed file{'s are' if total != 1 else ' is'} owned by two distributions with different "
                    f"content: {listed}{more}",
                    f"pip installs a wheel's files over whatever is there: {', '.join(ex)} now hold the copy of the "
                    "distribution installed last, and the other one runs with files that are not its own. Uninstalling "
                    "either deletes the shared files, breaking the other. Keep such distributions in separate "
                    "environments (for nvidia-*-cu12 beside nvidia-*-cu13: one environment per framework); to repair "
                    "this one now, reinstall the one whose copy must win.",
                    A.pip_command(s, "install", "--force-reinstall", "--no-deps", keep),
                    {"pairs": F.as_details(pairs[:10]), "pairs_total": T.owners_summary(s).pairs_total,
                     "identical_shared_files": T.owners_summary(s).identical})]


def _candidates(specs: list[str]) -> list[str]:
    """Versions worth testing against a set of specifiers: every version they name, and its neighbours."""
    import re  # noqa: PLC0415
    out = set()
    for spec in specs:
        for v in re.findall(r"\d+(?:\.\d+)*", spec):
            t = list(versions.version_tuple(v))[:3] + [0] * (3 - min(3, len(versions.version_tuple(v))))
            out.update({v, f"{t[0]}.{t[1]}.{t[2] + 1}", f"{t[0]}.{t[1] + 1}.0", f"{t[0] + 1}.0.0"})
            if t[2] > 0:
                out.add(f"{t[0]}.{t[1]}.{t[2] - 1}")
            if t[1] > 0:
                out.add(f"{t[0]}.{t[1] - 1}.99")
            if t[0] > 0:
                out.add(f"{t[0] - 1}.99.99")
    return sorted(out, key=lambda v: kb.version_tuple(v) or ())


def shared_dependency_conflict(s) -> list[dict]:
    out = []
    for dep in ("numpy", "protobuf"):
        reqs = [r for r in T.requires(s, dep) if r.applies is not False and r.specifier]
        if not reqs:
            continue
        installed = T.dependency_version(s, dep)
        broken = [r for r in reqs if installed and T.satisfies(installed, r.specifier) is False]
        frameworks = {r.framework for r in reqs}
        specs = [r.specifier for r in reqs]
        fits = [v for v in _candidates(specs) if all(T.satisfies(v, sp) for sp in specs)]
        clash = len(frameworks) > 1 and not fits
        if not broken and not clash:
            continue
        who = "; ".join(f"{r.distribution} {r.version} needs {dep}{r.specifier}" for r in reqs[:6])
        if clash:
            msg = f"no {dep} version satisfies both frameworks: {who}"
            fix = None
            expl = (f"The installed distributions state {dep} requirements with no version in common, so pip cannot "
                    "satisfy both in one environment; use one environment per framework.")
        else:
            msg = (f"{dep} {installed} does not satisfy " +
                   "; ".join(f"{r.distribution} {r.version} ({dep}{r.specifier})" for r in broken[:4]))
            common = ",".join(sorted(set(specs)))
            fix = A.pip_command(s, "install", f"{dep}{common}")
            expl = (f"The installed {dep} is outside what {', '.join(sorted({r.distribution for r in broken}))} "
                    f"declare{'s' if len(broken) == 1 else ''} in Requires-Dist (another package, or a later `pip install`, "
                    f"replaced it); that framework can fail at import or at run time. Every framework here accepts "
                    f"{dep}{common}" + (f", e.g. {fits[-1]}" if fits else "") + ".")
        out.append(finding("TE851", "warning", msg, expl, fix,
                           {"dependency": dep, "installed": installed, "requirements": F.as_details(reqs[:10])}))
    return out


# ---------------------------------------------------------------- TE813

def not_installed_but_asked(s) -> list[dict]:
    """--framework tensorflow (or both) in an env without it: the wrong env is active, or TF is missing."""
    if not H.asked(s, "tensorflow") or "tensorflow" in H.held(s) or (T.tf_recorded(s) is False and not C.has_conda_facts(s)):
        return []
    conda = F.conda_env(s)
    where = f"conda env {conda}" if conda else F.python_exe(s)
    held = H.label(s)
    return [finding("TE813", "failure", f"TensorFlow is not installed in {where}"
                                        + (f" (it holds {held})" if held != "none" else ""),
                    "--framework asked for TensorFlow. If it is installed in another environment, that one is not "
                    "the active one: activate it (`conda activate tf-gpu`) or run its python, or check them all with "
                    "`torch-envcheck --all-envs`. Otherwise `torch-envcheck advise` prints the TensorFlow install "
                    "that fits this machine; on native Windows TensorFlow 2.10 is the last release with GPU support.",
                    None, {"frameworks": list(H.held(s)), "asked": list(F.requested_frameworks(s))})]


# ---------------------------------------------------------------- TE800

def tensorflow_ok(s) -> list[dict]:
    if not T.tf_installed(s):
        return []  # (every problem of TensorFlow itself hides it: _problem)
    cuda = T.is_cuda_build(s)
    gpus = T.tf_gpus(s)
    if T.child_ran(s) and T.importable(s):
        secs = T.import_seconds(s)
        state = f"imports in {secs:.1f} s" if secs is not None else "imports"
    else:
        state = "installed (not imported: --no-tensorflow)"
    if cuda:
        use = (f"sees {len(gpus)} GPU{'s' if len(gpus) != 1 else ''}" if gpus else
               "no GPU visible" + (" (this machine has no NVIDIA GPU)" if T.gpu_state(s) == "no" else ""))
        kind = f"CUDA {T.tf_cuda(s) or '?'} build"
    else:
        use, kind = "runs on the CPU", "CPU build"
    return [finding("TE800", "ok", f"{T.tf_label(s)} ({kind}) {state}, {use}",
                    "", None, {"build_info": T.build_info(s), "gpus": F.as_details(gpus)})]


def knowledge_gap(s) -> list[dict]:
    """A TensorFlow release newer than the TensorFlow table: its tested configuration is
    unknown, so it is judged from its own build info (CUDA, cuDNN, compute capabilities)."""
    from torch_envcheck.knowledge import freshness  # noqa: PLC0415
    if not T.tf_installed(s) or not T.tf_version(s):
        return []
    try:
        gap = freshness.tensorflow_gap(T.tf_version(s), T.tf_os(s))
    except kb.KnowledgeError:
        return []
    if gap is None:
        return []
    bi = T.build_info(s)
    live = ", ".join(x for x in (f"CUDA {T.tf_cuda(s)}" if T.tf_cuda(s) else None,
                                 f"cuDNN {T.tf_cudnn(s)}" if T.tf_cudnn(s) else None,
                                 "kernels for " + " ".join(T.tf_arch_list(s)[:12]) if T.tf_arch_list(s) else None) if x)
    return [finding("TE810", "warning",
                    f"{T.tf_label(s)} is newer than {gap['tables']}, which end at TensorFlow {gap['newest']}: its tested "
                    "Python/CUDA/cuDNN configuration is unknown to the doctor",
                    ("Judged from TensorFlow's own build info instead" + (f" ({live})." if live else
                                                                          " (none was recorded: run the doctor without --no-tensorflow).")
                     + f" `{freshness.UPDATE_COMMAND}` learns newer TensorFlow releases (Requires-Python and the and-cuda "
                     "pins) from PyPI."),
                    freshness.UPDATE_COMMAND,
                    {"tensorflow": T.tf_version(s), "newest_known": gap["newest"], "tables_updated": gap["updated"],
                     "build_info": bi or None, "judged_from": "live facts"})]


RULES = [not_installed_but_asked, child_failed, not_importable, cuda_libs_missing, dlopen_failed, windows_no_gpu, cpu_build_with_gpu,
         driver_too_old, gpu_arch_unsupported, untested_stack, cuda_generations, windows_shared_dlls,
         windows_path_order, nvidia_pins_clash, files_owned_twice, shared_dependency_conflict, knowledge_gap,
         tensorflow_ok]
