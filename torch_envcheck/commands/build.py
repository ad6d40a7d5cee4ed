"""`torch-envcheck build`: compile the `_C` extension for the installed torch into the cache (the
just-in-time path), then say where it went and what it contains.

Exit status: 0 built (or already built), 1 the build failed or torch is missing."""

from __future__ import annotations

import sys


def add_arguments(parser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="delete this torch's cached build first and compile from scratch")
    parser.add_argument("--verbose", action="store_true", help="show the compiler commands and output")


def _describe(meta: dict) -> list[str]:
    cuda = meta.get("cuda") or {}
    lines = [f"  torch:   {meta.get('torch_version')} (CUDA {meta.get('torch_cuda') or 'none'}), "
             f"Python {meta.get('python')}"]
    if cuda.get("compiled"):
        gencode = cuda.get("gencode") or {}
        lines.append(f"  CUDA:    nvcc {cuda.get('nvcc_version')} ({cuda.get('nvcc')}); "
                     f"TORCH_CUDA_ARCH_LIST={cuda.get('torch_cuda_arch_list')} "
                     f"(SASS {' '.join(gencode.get('sass') or []) or '-'}, "
                     f"PTX {' '.join(gencode.get('ptx') or []) or '-'}; from {cuda.get('arch_list_source')})")
    else:
        lines.append(f"  CUDA:    not compiled: {cuda.get('reason')}")
    for note in cuda.get("notes") or []:
        lines.append(f"  note:    {note}")
    return lines


def host_compiler_problem(torch, env=None) -> str | None:
    """Before compiling for minutes: the host compiler nvcc will use ($CC, which torch passes as
    -ccbin, else gcc on PATH) against the range that nvcc accepts (knowledge/data/host_compilers.json);
    outside it the CUDA part stops at nvcc's host_config.h.  The reason and the fix, or None (fits,
    unknown, or no CUDA part to build)."""
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415

    from torch_envcheck import knowledge as kb  # noqa: PLC0415
    from torch_envcheck._util import proc as _proc  # noqa: PLC0415
    from torch_envcheck.ext import buildcfg  # noqa: PLC0415

    env = os.environ if env is None else env
    if os.name == "nt":
        return None  # MSVC: checked by the doctor (TE604), not by version here
    try:
        p = buildcfg.plan(torch)
    except Exception:
        return None  # the build itself reports what is wrong with its plan
    if not p.get("with_cuda") or not p.get("nvcc_version"):
        return None
    cc = env.get("CC") or shutil.which("gcc", path=env.get("PATH", os.defpath))
    if not cc:
        return None
    try:
        rc, out, err = _proc.run([cc, "--version"], 10.0)
    except _proc.CommandFailed:
        return None
    line = next((ln for ln in (out or err).splitlines() if ln.strip()), "")
    try:
        fit = kb.host_compiler_fits(p["nvcc_version"], line)
    except kb.KnowledgeError:
        return None
    if fit is None or fit["fits"]:
        return None
    kind, (lo, hi) = fit["compiler"], fit["range"]
    want = hi if fit["major"] > hi else lo
    return (f"the host compiler {cc} is {kind} {fit['major']}, but nvcc {p['nvcc_version']} ({p['nvcc']}) accepts "
            f"{kind} {lo}-{hi}: the CUDA part would stop at nvcc's \"unsupported {'GNU' if kind == 'gcc' else kind} "
            f"version\" after compiling the rest ({fit['guide']}). Point CC and CXX at an accepted compiler and run "
            f"this again, e.g. CC={'gcc' if kind == 'gcc' else 'clang'}-{want} CXX={'g++' if kind == 'gcc' else 'clang++'}-{want} "
            f"torch-envcheck build (or {buildcfg.ENV_DISABLE_CUDA}=1 builds the CPU part alone)")


def run(args) -> int:
    from torch_envcheck.ext import extension  # noqa: PLC0415

    try:
        import torch
    except Exception as exc:
        print(f"torch-envcheck build: torch is not importable ({type(exc).__name__}: {exc}); "
              "install torch first, then run this again", file=sys.stderr)
        return 1
    # Which cache, and why: a TORCH_ENVCHECK_CACHE that cannot be used sends builds to a private
    # temp folder, which must never be used without a word (also when a build is already there).
    extension.announce_cache()
    if not args.force:
        st = extension.status()
        if st.get("state") == "ok":
            print(f"torch-envcheck build: already built ({st.get('mode')}) for torch {st.get('built_against')}: "
                  f"{st.get('path')}")
            print("\n".join(_describe(st.get("meta") or {})))
            print("(use --force to compile again)")
            return 0
        if st.get("stale_aot"):
            stale = st["stale_aot"]
            print(f"torch-envcheck build: the installed extension is stale ({stale.get('reason')}); "
                  "building a fresh one for this torch into the cache", file=sys.stderr)
    problem = host_compiler_problem(torch)
    if problem:
        print(f"torch-envcheck build: {problem}", file=sys.stderr)
        return 1
    try:
        # --force deletes the cached build under the build lock: a build running meanwhile finishes
        # first (this one waits, saying so), and is then replaced.
        mod, meta = extension.build_jit(verbose=args.verbose, force=args.force)
    except extension.ExtensionUnavailable as exc:
        print(f"torch-envcheck build: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the cache folder vanished or filled up mid-build
        print(f"torch-envcheck build: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""),
              file=sys.stderr)
        return 1
    print(f"torch-envcheck build: built {meta.get('so_path') or mod.__file__} "
          f"in {meta.get('build_seconds')} s")
    print("\n".join(_describe(meta)))
    return 0
