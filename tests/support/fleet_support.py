"""Helpers for the fleet tests (not a test module): free loopback ports, the environment of a rank
started by hand through env://, torchrun, and ranks with a fault injected (tests/support/fleet_rank_fault.py).
Every process binds 127.0.0.1 only."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

from paths import REPO, SUPPORT as HERE
FAULT_SCRIPT = os.path.join(HERE, "fleet_rank_fault.py")
# Small and quick: the tests check that the sweep runs and reports, not the machine's bandwidth.
QUICK_BW = ["--bandwidth-max", "64K", "--iters", "3", "--warmup", "1"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env(extra: dict | None = None, drop=()) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in drop and not k.startswith(("NCCL_", "TORCH_NCCL_", "SLURM_", "OMPI_", "PMI_", "TORCHELASTIC_"))
           and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "CUDA_VISIBLE_DEVICES")}
    env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("TORCH_ENVCHECK_CACHE", os.path.join(REPO, ".pytest_cache", "te-cache"))
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONWARNINGS"] = "ignore"
    env["GLOO_SOCKET_IFNAME"] = "lo"
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def rank_env(rank: int, world: int, port: int, extra: dict | None = None) -> dict:
    """env:// for one rank; `extra` entries override (None removes a variable)."""
    return base_env(dict({"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
                          "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}, **(extra or {})))


def start_rank(python: str, rank: int, world: int, port: int, args, extra=None, fault: str | None = None,
               stdout=subprocess.PIPE) -> subprocess.Popen:
    argv = [python, FAULT_SCRIPT, fault] if fault else [python, "-m", "torch_envcheck"]
    return subprocess.Popen(argv + ["fleet"] + list(args), env=rank_env(rank, world, port, extra), cwd=REPO,
                            stdout=stdout, stderr=subprocess.PIPE, text=True)


def finish(procs, timeout: float) -> list[tuple]:
    """(returncode, stdout, stderr) of each; processes still running at the deadline are killed
    (returncode None)."""
    end = time.monotonic() + timeout
    out = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=max(0.1, end - time.monotonic()))
            out.append((p.returncode, o, e))
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
            out.append((None, o, e))
    return out


def torchrun(python: str, nproc: int, args, timeout: float, extra=None) -> subprocess.CompletedProcess:
    port = free_port()
    argv = [python, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", str(nproc),
            "--master-addr", "127.0.0.1", "--master-port", str(port), "-m", "torch_envcheck", "fleet"] + list(args)
    return subprocess.run(argv, env=base_env(extra), cwd=REPO, capture_output=True, text=True, timeout=timeout)


def load_json(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def python() -> str:
    return sys.executable
