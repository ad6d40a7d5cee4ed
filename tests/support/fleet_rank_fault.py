"""A fleet rank with a fault injected, for tests/test_fleet_*.py (not a test module):

    python tests/support/fleet_rank_fault.py FAULT fleet [ARGS...]

FAULT is one of
    exit-early    exits with status 3 before reaching the store (a rank that dies while starting)
    hang-probe    its probes never return (a GPU call stuck in the driver)
    hang-process  reaches the store, then its main thread stops forever (never sends a snapshot)
    garbage       sends its snapshot cut in half (a truncated payload)
    hang-barrier  joins the process group, then never reaches monitored_barrier
    by-rank       under torchrun (one script for every rank): TE_FLEET_FAULT="RANK:FAULT" injects FAULT
                  into that rank only; the others run the plain command
"""

import sys
import threading


def main() -> None:
    fault, argv = sys.argv[1], sys.argv[2:]
    if fault == "by-rank":
        import os
        rank, _, fault = os.environ.get("TE_FLEET_FAULT", "").partition(":")
        if rank != os.environ.get("RANK"):
            fault = "none"
    if fault == "none":  # a plain rank, as `python -m torch_envcheck` starts it (__main__.py)
        from torch_envcheck._util import stopflag
        stopflag.install_early(argv)
    elif fault == "exit-early":
        sys.exit(3)
    from torch_envcheck.fleet import worker

    if fault == "hang-probe":
        def collect_snapshot(probe_timeout, torch_timeout=None):
            threading.Event().wait()
        worker.collect_snapshot = collect_snapshot
    elif fault == "hang-process":
        def build_payload(*args, **kwargs):
            threading.Event().wait()
        worker.build_payload = build_payload
    elif fault == "garbage":
        real = worker.encode_payload

        def encode_payload(payload):
            data = real(payload)
            return data[: len(data) // 2]
        worker.encode_payload = encode_payload
    elif fault == "hang-barrier":
        import torch.distributed as dist

        def monitored_barrier(*args, **kwargs):
            threading.Event().wait()
        dist.monitored_barrier = monitored_barrier
    elif fault != "none":
        raise SystemExit(f"unknown fault {fault!r}")
    from torch_envcheck.cli import main as cli_main
    sys.exit(cli_main(argv))


if __name__ == "__main__":
    main()
