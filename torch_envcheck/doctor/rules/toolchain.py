"""Toolchain rules: nvcc and CUDA_HOME matter only for compiling CUDA extensions (torch_envcheck's own
`_C`, or any other); the torch wheel itself never needs a system CUDA toolkit, so these are warnings."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util.escape import env_assign
from torch_envcheck.advice import recommend as A
from torch_envcheck.advice import system_commands as SYS
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F

WHEEL_NOTE = ("torch itself still works: the wheel ships its own CUDA runtime; a CUDA toolkit (nvcc) is "
              "needed only to compile extensions.")


_candidates = F.nvcc_candidates
used_nvcc = F.nvcc_in_use  # the one nvcc-in-use decision, shared with the toolchain headline


def _export(s, var, value) -> str:
    return env_assign(var, value, F.shell(s))  # the value comes from the snapshot: quoted


def nvcc_missing(s) -> list[dict]:
    if not F.is_cuda_torch(s) or F.is_macos(s) or used_nvcc(s) is not None:
        return []
    cands = _candidates(s)
    errors = [f"{c.path}: {c.error}" for c in cands if F.text(c.error)]
    tc = F.torch_cuda(s)
    msg = (f"no working nvcc found: CUDA extensions cannot be compiled for {F.torch_label(s)} (CUDA {tc})"
           if not cands else f"nvcc found but it does not run ({errors[0] if errors else cands[0].path})")
    return [finding("TE601", "warning", msg,
                    f"{WHEEL_NOTE} To compile CUDA extensions install a CUDA {kb.major_minor(tc)[0] if kb.major_minor(tc) else ''}.x "
                    f"toolkit (ideally {tc}; https://developer.nvidia.com/cuda-downloads) and set CUDA_HOME to it. "
                    "torch_envcheck then builds its CUDA kernels; without it, it builds CPU-only.",
                    None, {"candidates": F.as_details(cands), "torch_cuda": tc}, hides=["TE600"])]


def nvcc_major(s) -> list[dict]:
    if not F.is_cuda_torch(s) or F.is_macos(s):
        return []
    nv = used_nvcc(s)
    tc = F.torch_cuda(s)
    if not nv or not kb.major_minor(nv.version) or not kb.major_minor(tc):
        return []
    if kb.major_minor(nv.version)[0] == kb.major_minor(tc)[0]:
        return []
    better = next((c for c in _candidates(s) if kb.major_minor(c.version)
                   and kb.major_minor(c.version)[0] == kb.major_minor(tc)[0] and c.toolkit_found is not False), None)
    return [finding("TE602", "warning",
                    f"nvcc {nv.version} ({nv.path}) is CUDA {kb.major_minor(nv.version)[0]}, torch is built with CUDA {tc}",
                    "torch.utils.cpp_extension refuses to build CUDA extensions when the CUDA majors differ "
                    "(\"The detected CUDA version ... mismatches the version that was used to compile PyTorch\"). "
                    + WHEEL_NOTE + (f" A matching toolkit exists at {better.cuda_home}." if better else ""),
                    _export(s, "CUDA_HOME", better.cuda_home) if better and better.cuda_home else None,
                    {"nvcc": nv.to_dict(), "torch_cuda": tc, "matching_candidate": F.as_details(better)},
                    hides=["TE600"])]


def cuda_home(s) -> list[dict]:
    if not F.is_cuda_torch(s) or F.is_macos(s):
        return []
    out = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        st = F.cuda_home(s, var)
        val = F.text(st.value)
        if not val or (st.exists is not False and st.has_nvcc is not False):
            continue
        problem = "does not exist" if st.exists is False else "has no bin/nvcc"
        nv = used_nvcc(s)
        good = nv.cuda_home if nv and nv.toolkit_found and nv.source not in ("CUDA_HOME", "CUDA_PATH") else None
        fix = _export(s, var, good) if good else _export(s, var, None)
        out.append(finding("TE603", "warning", f"{var}={val} {problem}",
                           f"torch.utils.cpp_extension takes the toolkit from {var} before PATH, so CUDA extension "
                           f"builds fail or use a wrong toolkit. {WHEEL_NOTE}", fix,
                           {"variable": var, "value": val, "exists": st.exists, "has_nvcc": st.has_nvcc},
                           hides=["TE600"]))
    return out


# NVIDIA's CUDA Installation Guide for Microsoft Windows (https://docs.nvidia.com/cuda/cuda-installation-guide-
# microsoft-windows/, "System Requirements") makes a supported Microsoft Visual Studio a requirement: nvcc
# compiles host code with cl.exe.  The Build Tools' C++ workload id: Microsoft Learn, "Visual Studio Build
# Tools component directory" (https://learn.microsoft.com/en-us/visualstudio/install/workload-component-id-vs-build-tools).
MSVC_WORKLOAD = "Microsoft.VisualStudio.Workload.VCTools"


def msvc_missing(s) -> list[dict]:
    """TE604: native Windows without Microsoft's C++ compiler: no extension (torch_envcheck's own
    included) can be compiled, CUDA or not.  Judged from toolchain.msvc: vswhere found no install
    with the C++ tools, or there is neither vswhere (the Visual Studio Installer) nor cl.exe."""
    if F.system(s) != "Windows" or F.torch_importable(s) is not True:
        return []
    vc = F.msvc(s)
    if vc is None:
        return []  # not recorded: unknown, not missing
    missing = vc.vc_tools is False or (vc.vc_tools is None and not vc.vswhere and not vc.cl)
    if not missing:
        return []
    why = ("the Visual Studio Installer's vswhere found no install with the C++ build tools"
           if vc.vswhere else "no Visual Studio Installer (vswhere.exe) and no cl.exe on PATH")
    cuda = F.is_cuda_torch(s)
    fix = SYS.winget_install(s, "Microsoft.VisualStudio.2022.BuildTools", "--override",
                             f"--passive --wait --add {MSVC_WORKLOAD} --includeRecommended")
    return [finding("TE604", "warning",
                    f"no Microsoft C++ compiler (cl.exe): extensions cannot be compiled for {F.torch_label(s)} ({why})",
                    ("torch.utils.cpp_extension compiles C++ with cl.exe on Windows" + (
                        ", and nvcc calls cl.exe for the host code of CUDA extensions: NVIDIA's CUDA Installation "
                        "Guide for Windows makes a supported Visual Studio a requirement" if cuda else "")
                     + ". torch itself runs without it; `torch-envcheck build` and any package built from source need "
                     "it. The Visual Studio Build Tools with the C++ workload are enough (command below; a new terminal "
                     "afterwards, or the \"Developer PowerShell\" it installs)."),
                    fix, {"msvc": vc.to_dict()}, hides=["TE600"])]


def toolchain_ok(s) -> list[dict]:
    if F.torch_importable(s) is not True or not F.torch_version(s):
        return []
    if not F.is_cuda_torch(s):
        if F.is_rocm_torch(s):
            return []
        return [finding("TE600", "ok", f"{F.torch_label(s)} has no CUDA: extensions need only a C++ compiler, no CUDA toolkit",
                        "", None, {"host_compiler": F.as_details(F.host_compiler(s))})]
    nv = used_nvcc(s)
    if F.is_macos(s) or nv is None:
        return []  # (no nvcc, TE601; another CUDA major, TE602; a bad CUDA_HOME, TE603: each hides it)
    tc = F.torch_cuda(s)
    note = ""
    if kb.major_minor(nv.version) != kb.major_minor(tc):
        note = " (minor differs: cpp_extension only warns)"
    return [finding("TE600", "ok", f"nvcc {nv.version} at {nv.path} matches torch's CUDA {tc}{note}", "", None,
                    {"nvcc": nv.to_dict(), "torch_cuda": tc})]


RULES = [nvcc_missing, nvcc_major, cuda_home, msvc_missing, toolchain_ok]


def host_compiler_range(s) -> list[dict]:
    """The host C++ compiler against the range the nvcc in use accepts (knowledge/data/host_compilers.json,
    from NVIDIA's host_config.h and installation guide): outside it, every CUDA extension build stops at
    nvcc's '#error -- unsupported GNU version!', late and after a long compile of the C++ parts."""
    if F.is_macos(s) or F.system(s) == "Windows":
        return []
    nvcc = used_nvcc(s)
    host = F.host_compiler(s)
    if nvcc is None or host is None or not F.text(host.version):
        return []
    try:
        fit = kb.host_compiler_fits(nvcc.version, host.version)
    except kb.KnowledgeError:
        return []
    if fit is None or fit["fits"]:
        return []
    kind, major, (lo, hi) = fit["compiler"], fit["major"], fit["range"]
    cuda = fit["cuda"]
    too_new = major > hi
    newer_cuda = kb.newest_cuda_for_compiler(kind, major) if too_new else None
    msg = (f"the host compiler {kind} {major} ({host.path or '?'}) is outside what nvcc {cuda} accepts "
           f"({kind} {lo}-{hi}): CUDA extensions will not compile")
    expl = (f"nvcc checks the host compiler in its crt/host_config.h and stops with \"unsupported "
            f"{'GNU' if kind == 'gcc' else kind} version\" (CUDA {cuda} accepts {kind} {lo} to {hi}; source: {fit['source']}; "
            f"NVIDIA's table: {fit['guide']}). torch itself still works; only building extensions fails. "
            "torch passes $CC to nvcc as its host compiler (-ccbin), so point CC and CXX at an accepted compiler"
            + (f", or use a CUDA toolkit whose nvcc accepts {kind} {major} (CUDA {newer_cuda} does)" if newer_cuda else "")
            + ". (nvcc's -allow-unsupported-compiler skips the check at your own risk.)")
    want = hi if too_new else lo
    family = F.distro_family(s)
    install = SYS.gcc_install(s, want) if kind == "gcc" else None
    lines = []
    if install and family == "debian":
        lines += [install, _export(s, "CC", f"/usr/bin/gcc-{want}"), _export(s, "CXX", f"/usr/bin/g++-{want}")]
    elif install and family == "rhel":
        lines += [install,
                  _export(s, "CC", f"/opt/rh/gcc-toolset-{want}/root/usr/bin/gcc"),
                  _export(s, "CXX", f"/opt/rh/gcc-toolset-{want}/root/usr/bin/g++")]
    else:
        lines += [f"# install {kind} {want} (or any {lo}-{hi}) with your package manager, then point CC and CXX at it:",
                  _export(s, "CC", f"{'gcc' if kind == 'gcc' else 'clang'}-{want}"),
                  _export(s, "CXX", f"{'g++' if kind == 'gcc' else 'clang++'}-{want}")]
    return [finding("TE605", "warning", msg, expl, "\n".join(lines),
                    {"compiler": kind, "major": major, "accepted": [lo, hi], "nvcc_cuda": cuda,
                     "host_compiler": host.path, "version_line": host.version, "newer_cuda": newer_cuda},
                    hides=["TE600"])]


RULES += [host_compiler_range]
