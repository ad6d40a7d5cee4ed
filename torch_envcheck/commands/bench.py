"""Time the custom kernels against torch's built-in ops and the machine's measured limits.

`torch-envcheck bench [--quick] [--json] [--plot FILE.png|FILE.svg] [--device cpu|cuda|all]
[--isa auto|all|VARIANT,...]`.
Each op is timed against its torch built-in (speed ratio) and placed on the machine's roofline: the
peak FP32 arithmetic and memory bandwidth measured by the extension's microkernels, and the op's least
possible time from its FLOPs and bytes (% of bound).  `--plot` draws that roofline (matplotlib, the
optional `plot` extra).  `--isa all` benchmarks every compiled CPU kernel variant (DEFAULT, AVX2,
AVX512), each forced in its own process; a variant this CPU cannot run is reported as not runnable,
never executed.  Exit status 0 when the benchmark ran (missed speed targets are reported, not
failures), 1 when it could not run (extension unavailable, --device cuda without a usable GPU, the
figure could not be written), 2 on bad arguments (including --plot without matplotlib).
"""

from __future__ import annotations

import json
import sys


def add_arguments(parser) -> None:
    parser.add_argument("--quick", action="store_true", help="small sizes and short timings (a few seconds)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--plot", metavar="FILE.png|FILE.svg",
                        help="also draw the roofline figure to FILE (PNG or SVG; needs matplotlib: "
                             "pip install 'torch_envcheck[plot]')")
    parser.add_argument("--device", choices=["cpu", "cuda", "all"], default="all",
                        help="which devices to benchmark (default: all; CUDA is skipped, with the reason, "
                             "when no GPU is usable)")
    parser.add_argument("--ops", metavar="OP[,OP...]",
                        help="only these ops (triad,sum,softmax,bias_gelu,sgemm); default: all")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--isa", metavar="auto|all|VARIANT[,VARIANT...]", default="auto",
                        help="CPU kernel variants to benchmark: auto (default: the one this process selects), "
                             "all, or some of default,avx2,avx512; each forced variant runs in its own process "
                             "with ATEN_CPU_CAPABILITY set (CPU only)")


def run(args) -> int:
    try:
        import torch
    except Exception as exc:  # noqa: BLE001  (any failure to import torch is reported the same way)
        print(f"torch-envcheck bench: torch is not importable ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    from torch_envcheck.ext import extension
    from torch_envcheck.bench import report as rep
    from torch_envcheck.bench.suite import plan_steps, run_benchmarks

    devices = ["cpu", "cuda"] if args.device == "all" else [args.device]
    only = None
    if args.ops:
        from torch_envcheck.bench.suite import OPS
        only = [o.strip() for o in args.ops.split(",") if o.strip()]
        unknown = [o for o in only if o not in OPS]
        if unknown:
            print(f"torch-envcheck bench: unknown op(s) {', '.join(unknown)}; expected some of {', '.join(OPS)}",
                  file=sys.stderr)
            return 2
    if args.plot:
        from torch_envcheck.bench import plot as plot_mod
        why = plot_mod.check_target(args.plot)
        if why:  # before minutes of measuring, not after
            print(f"torch-envcheck bench: {why}", file=sys.stderr)
            return 2
    from torch_envcheck.bench import isa as isa_mod
    try:
        variants = isa_mod.parse(args.isa)
    except isa_mod.IsaUsageError as exc:
        print(f"torch-envcheck bench: {exc}", file=sys.stderr)
        return 2
    if variants is not None:
        if args.device == "cuda":
            print("torch-envcheck bench: --isa selects CPU kernel variants; use it without --device cuda",
                  file=sys.stderr)
            return 2
    if args.device == "cuda":
        why = _no_cuda_reason(torch)
        if why:  # asked for CUDA only: measuring nothing is not a successful run
            print(f"torch-envcheck bench: --device cuda needs a usable NVIDIA GPU, but {why}; "
                  "run `torch-envcheck` to see why, or use --device cpu", file=sys.stderr)
            return 1
    if variants is not None:
        return _run_isa(args, variants, only)
    try:
        with rep.Progress(plan_steps(devices), enabled=not args.no_progress) as progress:
            result = run_benchmarks(quick=args.quick, devices=devices, progress=progress, only=only)
    except extension.ExtensionUnavailable as exc:
        print(f"torch-envcheck bench: the extension is not available: {exc}", file=sys.stderr)
        return 1
    return _emit(rep, result, args, rep.print_report)


def _plot(rep, result: dict, path: str | None) -> str | None:
    """Draw the figure when asked; the error line (also printed), or None."""
    if not path:
        return None
    err = rep.plot(result, path)
    result.setdefault("plot", {}).update(path=path, error=err)
    if err:
        print(f"torch-envcheck bench: no figure written: {err}", file=sys.stderr)
    return err


def _no_cuda_reason(torch) -> str | None:
    """Why CUDA cannot be benchmarked here, or None when it can."""
    if not getattr(torch.version, "cuda", None):
        return f"torch {torch.__version__} is a build without CUDA"
    try:
        if torch.cuda.is_available():
            return None
        torch.cuda.init()  # raises with the reason (no driver, no device, CUDA_VISIBLE_DEVICES)
    except Exception as exc:  # noqa: BLE001
        return f"CUDA cannot initialise ({str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__})"
    return "torch.cuda.is_available() is False"


def _run_isa(args, variants: list, only) -> int:
    from torch_envcheck.ext import extension
    from torch_envcheck.bench import isa as isa_mod
    from torch_envcheck.bench import report as rep

    try:
        with rep.Progress(len(variants), enabled=not args.no_progress) as progress:
            result = isa_mod.isa_report(variants, args.quick, ",".join(only) if only else None, progress=progress)
    except extension.ExtensionUnavailable as exc:
        print(f"torch-envcheck bench: the extension is not available: {exc}", file=sys.stderr)
        return 1
    return _emit(rep, result, args, rep.print_isa_report)


def _emit(rep, result, args, print_text) -> int:
    """The results as JSON or text, and the roofline figure with --plot; 1 when the figure failed."""
    err = _plot(rep, result, args.plot)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print_text(result)
        if args.plot and not err:
            print(f"roofline figure written to {args.plot}")
    return 1 if err else 0
