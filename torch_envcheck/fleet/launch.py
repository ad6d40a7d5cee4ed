"""Where this process sits in the job: rank, world size, local rank and the rendezvous address,
read from torch.distributed's env:// variables (torchrun sets them) or, when RANK / WORLD_SIZE are
absent, from Slurm (srun) or Open MPI / PMI (mpirun).

    RANK        <- SLURM_PROCID | OMPI_COMM_WORLD_RANK | PMI_RANK
    WORLD_SIZE  <- SLURM_NTASKS | OMPI_COMM_WORLD_SIZE | PMI_SIZE
    LOCAL_RANK  <- SLURM_LOCALID | OMPI_COMM_WORLD_LOCAL_RANK | MPI_LOCALRANKID   (else 0)
    MASTER_ADDR, MASTER_PORT: always from the environment (no launcher agrees on them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_SOURCES = (
    ("torchrun/env://", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
    ("open-mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
)
MAX_WORLD = 1 << 20


class LaunchError(ValueError):
    """The environment does not say where this rank sits; the message says what to set."""


@dataclass(frozen=True)
class Launch:
    rank: int
    world_size: int
    local_rank: int
    master_addr: str
    master_port: int
    launcher: str
    # torchrun's agent already serves the rendezvous store at MASTER_ADDR:MASTER_PORT
    agent_store: bool
    attempt: str


def _int(env, name: str, low: int, high: int) -> int:
    raw = env.get(name, "")
    try:
        value = int(raw.strip())
    except ValueError:
        raise LaunchError(f"{name}={raw!r} is not a whole number") from None
    if not low <= value <= high:
        raise LaunchError(f"{name}={value} is out of range (expected {low} to {high})")
    return value


def from_env(env=None) -> Launch:
    env = os.environ if env is None else env
    for launcher, rank_var, size_var, local_var in _SOURCES:
        if env.get(rank_var) is not None and env.get(size_var) is not None:
            break
    else:
        raise LaunchError("RANK and WORLD_SIZE are not set (nor SLURM_PROCID/SLURM_NTASKS or "
                          "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE); start it with "
                          "`torchrun --nproc-per-node N -m torch_envcheck fleet`, srun or mpirun")
    world = _int(env, size_var, 1, MAX_WORLD)
    rank = _int(env, rank_var, 0, world - 1)
    local = _int(env, local_var, 0, MAX_WORLD) if env.get(local_var) is not None else 0
    addr = (env.get("MASTER_ADDR") or "").strip()
    if not addr:
        raise LaunchError("MASTER_ADDR is not set; set it to the host of rank 0 (under Slurm: "
                          "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1))")
    if env.get("MASTER_PORT") is None:
        raise LaunchError("MASTER_PORT is not set; set it to a free TCP port on rank 0's host, e.g. 29500")
    port = _int(env, "MASTER_PORT", 1, 65535)
    return Launch(rank=rank, world_size=world, local_rank=local, master_addr=addr, master_port=port,
                  launcher=launcher, agent_store=env.get("TORCHELASTIC_USE_AGENT_STORE") == "True",
                  attempt=str(env.get("TORCHELASTIC_RESTART_COUNT") or "0"))
