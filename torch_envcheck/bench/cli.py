"""Time the custom kernels against torch's built-in ops and the machine's measured limits.

`torch-envcheck bench [--quick] [--json] [--plot FILE.png] [--device cpu|cuda|all]`.  Exit status 0
when the benchmark ran (missed speed targets are reported, not failures), 1 when it could not run
(extension unavailable, or --device cuda without a usable GPU), 2 on bad arguments.
"""

from __future__ import annotations

import json
import sys


def add_arguments(parser) -> None:
    parser.add_argument("--quick", action="store_true", help="small sizes and short timings (a few seconds)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--plot", metavar="FILE.png", help="also write a chart (needs matplotlib)")
    parser.add_argument("--device", choices=["cpu", "cuda", "all"], default="all",
                        help="which devices to benchmark (default: all; CUDA is skipped, with the reason, "
                             "when no GPU is usable)")
    parser.add_argument("--ops", metavar="OP[,OP...]",
                        help="only these ops (triad,sum,softmax,bias_gelu,sgemm); default: all")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args) -> int:
    try:
        import torch
    except Exception as exc:  # noqa: BLE001  (any failure to import torch is reported the same way)
        print(f"torch-envcheck bench: torch is not importable ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    from .. import extension
    from . import report as rep
    from .suite import plan_steps, run_benchmarks

    if args.device == "cuda":
        why = _no_cuda_reason(torch)
        if why:  # asked for CUDA only: measuring nothing is not a successful run
            print(f"torch-envcheck bench: --device cuda needs a usable NVIDIA GPU, but {why}; "
                  "run `torch-envcheck` to see why, or use --device cpu", file=sys.stderr)
            return 1
    devices = ["cpu", "cuda"] if args.device == "all" else [args.device]
    only = None
    if args.ops:
        from .suite import OPS
        only = [o.strip() for o in args.ops.split(",") if o.strip()]
        unknown = [o for o in only if o not in OPS]
        if unknown:
            print(f"torch-envcheck bench: unknown op(s) {', '.join(unknown)}; expected some of {', '.join(OPS)}",
                  file=sys.stderr)
            return 2
    try:
        with rep.Progress(plan_steps(devices), enabled=not args.no_progress) as progress:
            result = run_benchmarks(quick=args.quick, devices=devices, progress=progress, only=only)
    except extension.ExtensionUnavailable as exc:
        print(f"torch-envcheck bench: the extension is not available: {exc}", file=sys.stderr)
        return 1
    if args.plot:
        err = rep.plot(result, args.plot)
        result["plot"] = {"path": args.plot, "error": err}
        if err:
            print(f"torch-envcheck bench: no chart written: {err}", file=sys.stderr)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        rep.print_report(result)
        if args.plot and not result["plot"]["error"]:
            print(f"chart written to {args.plot}")
    return 0


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
