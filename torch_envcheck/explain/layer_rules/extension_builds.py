"""Layer rules for extensions built against the installed torch, read from where the failure is: the extension's own
source code, or the compiled module's init function against its file name.

    inline_source_error  a compiler error located in load_inline's own sources (main.cpp / cuda.cu in the
                         extension's build folder), with no tool, header or version missing -> not-environment: the
                         code given to load_inline
    module_init_missing  CPython's "dynamic module does not define module export function (PyInit_X)" -> toolchain:
                         the module was built under another name, for another Python, or the build is stale
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_CPP_EXTENSION = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py",
                  "what": "load_inline writes cpp_sources to main.cpp and cuda_sources to cuda.cu in the extension's build "
                          "directory, then builds them with ninja"}
_IMPORTDL = {"url": "https://github.com/python/cpython/blob/main/Python/importdl.c",
             "what": "\"dynamic module does not define module export function (PyInit_%s)\": the shared library has no "
                     "PyInit_<name> for the name it is imported under"}

# load_inline's two source files, in the build folder it names after the extension (torch_extensions/<name>/ by
# default, or the build_directory given); a compiler diagnostic placed in one of them is about the code passed in
_INLINE_SOURCE = re.compile(r"(?:torch_extensions|build)[/\\](?:[\w.+-]{1,80}[/\\]){1,3}(?P<file>main\.cpp|cuda\.cu)"
                            r"(?::\d{1,6}(?::\d{1,4})?:\s{0,4}(?:error|catastrophic error)|:\s{0,4}In\s{1,4}"
                            r"(?:member\s{1,4})?function|\(\d{1,6}\):\s{0,4}error)")
# what a missing or refused tool, header or version says: then the build's environment failed, not the code
_TOOLCHAIN_SIGNS = re.compile(r"(?i)No such file or directory|fatal error:|nvcc fatal|unsupported (?:GNU|clang|Microsoft)"
                              r"|not found|command not found|is not recognized|cannot find -l|Unsupported gpu architecture"
                              r"|#error|CUDA_HOME|Ninja is required|ld returned|undefined reference|mismatches the version")


def inline_source_error(ent, text):
    """A run-time build whose compiler reports an error inside load_inline's own main.cpp / cuda.cu: that file holds
    exactly the code the program passed, so the fix is in that code, not in the installation."""
    m, at = last_in_tail(_INLINE_SOURCE, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if _TOOLCHAIN_SIGNS.search(tail):
        return None
    sig = _sig("inline-extension-source-error", "not-environment",
               "the code given to load_inline does not compile ({file})", 78,
               "torch.utils.cpp_extension.load_inline writes the C++ sources it is given to main.cpp (and the CUDA "
               "sources to cuda.cu) in the extension's build folder and compiles them; the compiler's error is placed "
               "in {file}, that is in the code the program passed, and the text shows no tool, header or version "
               "missing.",
               look_at="Read the compiler's first `error:` under {file} (verbose=True prints the whole build) and fix "
                       "that line of the source string given to load_inline (a missing semicolon, an undeclared name, "
                       "a signature that does not match `functions=`); the installation needs no change.",
               areas=("toolchain",), sources=(_CPP_EXTENSION,))
    return _match(sig, text, at, {"file": m.group("file")})


_INIT_MISSING = re.compile(r"dynamic module does not define (?:module export|init) function \((?P<init>(?:PyInit_|init)"
                           r"(?P<name>\w{1,120}))\)|dynamic module does not define module export function\b")


def module_init_missing(ent, text):
    """Python found a compiled file for the import but no PyInit_<name> in it for that name: the module inside was
    built under another name (a renamed .so, or PYBIND11_MODULE / TORCH_EXTENSION_NAME other than the file's name),
    for Python 2 (whose init function is init<name>), or a stale build left in place."""
    m, at = last_in_tail(_INIT_MISSING, text, "dynamic module does not define")
    if m is None:
        return None
    name = m.group("name")
    py2 = bool(m.group("init")) and m.group("init").startswith("init")
    sig = _sig("module-init-function-missing", "toolchain",
               "the compiled module {name|imported} has no init function for the name it is imported under", 80,
               "A compiled Python module must export PyInit_<name> for the file name it is imported by; this one "
               "does not" + (" (init<name> is Python 2's convention: the module was built for Python 2)" if py2 else "")
               + ". The module inside was built under another name (the file renamed, or the name in PYBIND11_MODULE "
               "/ TORCH_EXTENSION_NAME differs from the file's), built for another Python, or a stale build from "
               "before a change of name is found first on the path.",
               fix="Rebuild the extension cleanly for the Python that imports it (delete its build folder and old "
                   ".so files, then build again, e.g. `python setup.py clean --all && pip install --no-build-isolation "
                   ".`); keep the module name in the binding code (PYBIND11_MODULE / TORCH_EXTENSION_NAME, setup.py's "
                   "extension name) equal to the name it is imported as, and never rename a built .so/.pyd.",
               areas=("toolchain",), sources=(_IMPORTDL,))
    return _match(sig, text, at, {"name": name})
