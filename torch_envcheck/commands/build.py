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
