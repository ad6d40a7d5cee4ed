"""The first moments of a fleet rank 0: a signal that comes before the fleet's own handler exists.

When one rank of a torchrun job exits with an error, torchrun sends SIGTERM to every other rank at
its next check (every 0.1 s by default): a rank that dies while starting can have rank 0 stopped
before rank 0 imported anything.  Rank 0 must still print a report naming the rank that never
arrived, so `python -m torch_envcheck fleet` (and the torch-envcheck script) install this recorder
first thing, on rank 0 only; the fleet's worker then finds the signal here and reports at once.

    install_early(argv, env)   rank 0 of a fleet command: SIGTERM / SIGINT are recorded, not fatal
    received                   the signals recorded so far
"""

from __future__ import annotations

import os

from torch_envcheck._util import signalled

received: list[int] = []
# the rank variables of fleet/launch.py, in its order
_RANK_VARS = (("RANK", "WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
              ("PMI_RANK", "PMI_SIZE"))


def _record(signum, frame) -> None:
    received.append(signum)


def _rank0(env) -> bool:
    for rank, size in _RANK_VARS:
        if env.get(rank) is not None and env.get(size) is not None:
            return env.get(rank, "").strip() == "0"
    return False


def install_early(argv, env=None) -> bool:
    """On rank 0 of `fleet` (not `fleet --from-json`): record SIGTERM / SIGINT until the worker's
    handler takes over.  True when installed."""
    env = os.environ if env is None else env
    if "fleet" not in argv or "--from-json" in argv or not _rank0(env):
        return False
    return bool(signalled.install(signalled.named("SIGTERM", "SIGINT"), _record))  # none off the main thread
