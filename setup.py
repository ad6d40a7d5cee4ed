"""Build script.  With torch importable in the build environment (`pip install --no-build-isolation .`)
the `_C` extension is compiled ahead of time against that torch.  In pip's default isolated build
torch is not importable: then only the Python package and the C++ sources are installed, and the
extension is compiled on first use against the torch that is really installed (see README)."""

import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_envcheck.ext import buildcfg  # noqa: E402  (cheap: imports no torch)

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithSources(build_py):
    """Ship csrc/ inside the package so the just-in-time build has its sources."""

    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "torch_envcheck", "csrc")
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        shutil.copytree(os.path.join(HERE, "csrc"), dest,
                        ignore=shutil.ignore_patterns("app", "*.o", "__pycache__"))


def _torch_or_none():
    if buildcfg._truthy(os.environ.get(buildcfg.ENV_SKIP_AOT)):
        print(f"torch_envcheck: {buildcfg.ENV_SKIP_AOT}=1: not compiling the extension now", file=sys.stderr)
        return None
    try:
        import torch
    except Exception as exc:
        print("torch_envcheck: torch is not importable in the build environment "
              f"({type(exc).__name__}: {exc}); installing the sources only: the extension is compiled on "
              "first use against the installed torch. To compile now: "
              "pip install --no-build-isolation .", file=sys.stderr)
        return None
    return torch


def extension_setup_kwargs():
    torch = _torch_or_none()
    if torch is None:
        return {"cmdclass": {"build_py": BuildPyWithSources}}
    try:
        plan = buildcfg.plan(torch)
    except buildcfg.BuildConfigError as exc:  # CUDA required and impossible: the reason, no traceback
        sys.exit(f"torch_envcheck: {exc}")
    buildcfg.apply_env(plan)
    from torch.utils import cpp_extension

    flags = buildcfg.compile_args(plan)
    csrc = os.path.join("csrc")
    units = os.path.join("build", "envcheck_units")
    kind = cpp_extension.CUDAExtension if plan["with_cuda"] else cpp_extension.CppExtension
    ext = kind(
        name="torch_envcheck._C",
        # the build units, generated from csrc/ops/op_list.h
        sources=buildcfg.build_units(csrc, plan["with_cuda"], units),
        include_dirs=[os.path.join(HERE, "csrc"), os.path.join(HERE, units)] + flags["include_dirs"],
        extra_compile_args={"cxx": flags["cxx"], "nvcc": flags["nvcc"]} if plan["with_cuda"] else flags["cxx"],
        extra_link_args=flags["ldflags"],
    )
    print(f"torch_envcheck: compiling the extension against torch {torch.__version__}: "
          f"{'CUDA ' + plan['nvcc_version'] + ' for ' + plan['torch_cuda_arch_list'] if plan['with_cuda'] else 'CPU only (' + plan['cuda_reason'] + ')'}",
          file=sys.stderr)
    for note in plan["notes"]:
        print(f"torch_envcheck: note: {note}", file=sys.stderr)

    class BuildExt(cpp_extension.BuildExtension):
        def run(self):
            super().run()
            meta = buildcfg.build_meta(plan, "aot", flags)
            out_dir = os.path.join(self.build_lib, "torch_envcheck")
            os.makedirs(out_dir, exist_ok=True)
            buildcfg.write_meta(os.path.join(out_dir, buildcfg.META_NAME), meta)
            if self.inplace:
                buildcfg.write_meta(os.path.join(HERE, "torch_envcheck", buildcfg.META_NAME), meta)

    return {
        "ext_modules": [ext],
        "cmdclass": {"build_ext": BuildExt.with_options(use_ninja=True), "build_py": BuildPyWithSources},
    }


setup(**extension_setup_kwargs())
