"""`torch-envcheck fleet`: run under a launcher, every rank probes its environment and rank 0 prints
one report for the whole job; `fleet --from-json FILE` re-renders (and re-diagnoses) a saved one.

    torchrun --nproc-per-node 8 -m torch_envcheck fleet
    torchrun --nnodes 4 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 -m torch_envcheck fleet
    srun python -m torch_envcheck fleet          (MASTER_ADDR, MASTER_PORT exported; see docs/fleet.md)

Exit status: 0 healthy fleet, 1 a failure (a rank missing, late or failing, a fleet finding),
2 bad usage or input.
"""

from __future__ import annotations

import argparse
import os
import sys

from torch_envcheck._util.args import seconds
from torch_envcheck.fleet import bandwidth
from torch_envcheck.fleet.output import write, emit


def _bytes(text: str) -> int:
    units = {"": 1, "B": 1, "K": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MIB": 1 << 20, "G": 1 << 30, "GIB": 1 << 30}
    t = text.strip().upper()
    num = t.rstrip("KMGIB")
    unit = t[len(num):]
    try:
        value = int(num) * units[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"expected a size such as 64K, 16M or 256M, got {text!r}") from None
    if not bandwidth.MIN_BYTES <= value <= 16 << 30:
        raise argparse.ArgumentTypeError(f"expected a size between 1K and 16G, got {text}")
    return value


def _count(low: int, high: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= v <= high:
            raise argparse.ArgumentTypeError(f"expected {low} to {high}, got {v}")
        return v
    return parse


def _ops(text: str) -> list[str]:
    ops = [o.strip() for o in text.split(",") if o.strip()]
    bad = [o for o in ops if o not in bandwidth.OPS]
    if bad or not ops:
        raise argparse.ArgumentTypeError(f"unknown collective {', '.join(bad) or text!r}; "
                                         f"expected some of {', '.join(bandwidth.OPS)}")
    return ops


def _ratio(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1.5, got {text!r}") from None
    if not 1.05 <= v <= 100:  # also rejects nan and inf
        raise argparse.ArgumentTypeError(f"expected a ratio between 1.05 and 100, got {text}")
    return v


def _rank(text: str) -> int:
    return _count(0, 1 << 20)(text)


def _long_seconds(text: str) -> float:
    from torch_envcheck._util.args import seconds_up_to  # noqa: PLC0415
    return seconds_up_to(3600)(text)


def add_arguments(parser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true",
                     help="print the fleet report as JSON (schema torch_envcheck.fleet/1, every rank's snapshot)")
    fmt.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    parser.add_argument("--from-json", metavar="FILE", default=None,
                        help="re-render a saved fleet report ('-' reads stdin), re-diagnosing each rank")
    parser.add_argument("--rank", type=_rank, default=None, metavar="N",
                        help="with --from-json: the doctor's report of rank N alone (--json gives its snapshot "
                             "in the doctor's format, for `torch-envcheck --from-json`)")
    parser.add_argument("--save", metavar="FILE", default=None,
                        help="rank 0 also writes the JSON report to FILE")
    parser.add_argument("--timeout", type=_long_seconds, default=120.0, metavar="SECONDS",
                        help="how long rank 0 waits for every rank's snapshot; ranks not in by then are "
                             "reported missing or late (default 120)")
    parser.add_argument("--probe-timeout", type=seconds, default=5.0, metavar="SECONDS",
                        help="time limit for each helper program a probe runs (nvidia-smi, nvcc); default 5")
    parser.add_argument("--backend", choices=("auto", "gloo", "nccl"), default="auto",
                        help="backend of the measured collectives: NCCL when every rank has a GPU (auto)")
    parser.add_argument("--no-bandwidth", action="store_true", help="skip the collective bandwidth sweep")
    parser.add_argument("--bandwidth-max", type=_bytes, default=bandwidth.MAX_BYTES, metavar="SIZE",
                        help="largest message of the sweep (default 256M; capped by memory)")
    parser.add_argument("--ops", type=_ops, default=["all_reduce"], metavar="OPS",
                        help="collectives to time, comma-separated: all_reduce (default), all_gather, broadcast")
    parser.add_argument("--iters", type=_count(1, 10000), default=20, metavar="N",
                        help="timed iterations per size (default 20; the median counts)")
    parser.add_argument("--warmup", type=_count(0, 1000), default=5, metavar="N",
                        help="untimed warm-up iterations per size (default 5)")
    parser.add_argument("--bandwidth-seconds", type=_long_seconds, default=60.0, metavar="SECONDS",
                        help="time budget of the sweep: it stops before a size that would pass it (default 60)")
    pre = parser.add_argument_group("preflight: which node would slow or kill the job")
    pre.add_argument("--preflight", action="store_true",
                     help="also time each rank's compute and ring links, judge NVML's GPU health, and exit 1 "
                          "naming the nodes to exclude (Slurm hostlist and --exclude-file)")
    pre.add_argument("--exclude-file", metavar="FILE", default=None,
                     help="write the nodes to exclude, one per line (a hostfile; empty when none)")
    pre.add_argument("--outlier-ratio", type=_ratio, default=None, metavar="X",
                     help="a rank counts as slow only at X times the fleet's median or more (default 1.5), "
                          "besides standing out by the median absolute deviation")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every host and group")


def _one_rank(fleet_report: dict, args) -> int:
    recs = {r["rank"]: r for r in fleet_report["ranks"]}
    rec = recs.get(args.rank)
    if rec is None or not isinstance(rec.get("snapshot"), dict):
        why = "is not in the report" if rec is None else f"sent no snapshot ({rec.get('status')}: {rec.get('error')})"
        from torch_envcheck._util.escape import terminal  # noqa: PLC0415
        print(f"torch-envcheck fleet: error: rank {args.rank} {terminal(why)}; the report has ranks "
              f"0-{len(recs) - 1}", file=sys.stderr)
        return 2
    if args.json:
        from torch_envcheck.doctor.render import json_render  # noqa: PLC0415
        write(json_render.render(rec["snapshot"]))
        return 0
    from torch_envcheck.doctor import report as doctor_report  # noqa: PLC0415
    rep = doctor_report(rec["snapshot"])
    if args.markdown:
        from torch_envcheck.doctor.render import markdown  # noqa: PLC0415
        write(markdown.render(rep))
    else:
        from torch_envcheck.doctor.render import terminal  # noqa: PLC0415
        terminal.print_report(rep, color=False, verbose=args.verbose)
    return rep.exit_status


def run(args) -> int:
    if args.from_json is not None:  # '' is a mistake to report, never a reason to run a live fleet
        from torch_envcheck.fleet.load import FleetFileError, load  # noqa: PLC0415
        try:
            fleet_report = load(args.from_json)
        except FleetFileError as exc:
            from torch_envcheck._util.escape import terminal  # noqa: PLC0415
            print(f"torch-envcheck fleet: error: {terminal(exc)}", file=sys.stderr)
            return 2
        if args.rank is not None:
            return _one_rank(fleet_report, args)
        emit(fleet_report, args)
        return int(fleet_report["verdict"]["exit_status"])
    if args.rank is not None:
        print("torch-envcheck fleet: error: --rank goes with --from-json FILE (a saved fleet report)", file=sys.stderr)
        return 2
    from torch_envcheck.fleet.launch import LaunchError, from_env  # noqa: PLC0415
    try:
        launch = from_env()
    except LaunchError as exc:
        print(f"torch-envcheck fleet: error: {exc}", file=sys.stderr)
        return 2
    try:
        import torch.distributed as dist  # noqa: PLC0415
        if not dist.is_available():
            raise ImportError("this torch was built without torch.distributed")
    except Exception as exc:  # noqa: BLE001
        print(f"torch-envcheck fleet: error: torch.distributed is not usable here ({type(exc).__name__}: {exc}); "
              "run `torch-envcheck` for this environment alone", file=sys.stderr)
        return 2
    # Only rank 0's report goes to stdout: everything else (library banners, NCCL_DEBUG output,
    # other ranks) is sent to stderr, so `--json > fleet.json` stays valid JSON under torchrun.
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    from torch_envcheck.fleet import worker  # noqa: PLC0415
    try:
        code = worker.run(launch, args, out_fd)
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # noqa: BLE001  (never a traceback, never a hang in shutdown)
        worker.log(launch, f"internal error: {type(exc).__name__}: {exc}")
        code = 1
    try:
        sys.stderr.flush()
        from torch_envcheck._util import proc as _proc  # noqa: PLC0415
        _proc.kill_all()  # os._exit skips atexit: the helper programs still running go now
    finally:
        os._exit(code)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="torch-envcheck fleet", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))
