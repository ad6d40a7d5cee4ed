"""What a rank knows about itself beyond the doctor's snapshot: where it runs (host, rank, local
rank, launcher), the GPU it uses (LOCAL_RANK's device), the NCCL torch bundles, and the NCCL_*
variables (the snapshot's env section lists CUDA's variables, not NCCL's)."""

from __future__ import annotations

import os
import socket

from torch_envcheck.facts import core as F

MAX_VARS = 64
MAX_TEXT = 512
# NCCL_* plus torch's own NCCL knobs; values of these are settings, not secrets.
ENV_PREFIXES = ("NCCL_", "TORCH_NCCL_")


def _clip(value, limit: int = MAX_TEXT):
    return value[:limit] if isinstance(value, str) else value


def nccl_env(env=None) -> dict:
    env = os.environ if env is None else env
    names = sorted(k for k in env if k.startswith(ENV_PREFIXES))[:MAX_VARS]
    return {_clip(k, 128): _clip(env[k]) for k in names}


def nccl_version() -> str | None:
    try:
        import torch  # noqa: PLC0415
        v = torch.cuda.nccl.version()
    except Exception:  # a CPU build has no NCCL
        return None
    if isinstance(v, tuple):
        return ".".join(str(x) for x in v)
    return str(v) if v else None


def own_device(snapshot: dict | None, local_rank: int) -> dict | None:
    """The GPU this rank uses by torchrun's convention (cuda:LOCAL_RANK among the visible ones)."""
    devices = F.torch_devices(snapshot)
    if not devices:
        return None
    d = devices[local_rank % len(devices)]
    out = {"index": d.index, "name": d.name, "capability": d.capability, "total_memory_bytes": d.total_memory_bytes}
    out["shared"] = local_rank >= len(devices)  # more ranks on this host than visible GPUs
    return out


def backends() -> dict:
    try:
        import torch.distributed as dist  # noqa: PLC0415
        return {"gloo": bool(dist.is_gloo_available()), "nccl": bool(dist.is_nccl_available())}
    except Exception:
        return {"gloo": False, "nccl": False}


def gpu_memory_and_link(local_rank: int) -> dict:
    """Free memory of this rank's GPU and how it reaches the other GPUs of the host: NVLink when
    NVML (nvidia-ml-py, optional) reports an active link, else PCIe with or without peer access."""
    out = {"gpu_free_bytes": None, "gpu_link": None}
    try:
        import torch  # noqa: PLC0415
        if not torch.cuda.is_available():
            return out
        n = torch.cuda.device_count()
        dev = local_rank % n
        out["gpu_free_bytes"] = int(torch.cuda.mem_get_info(dev)[0])
        if n == 1:
            out["gpu_link"] = "one GPU per host"
        else:
            peers = [torch.cuda.can_device_access_peer(dev, o) for o in range(n) if o != dev]
            out["gpu_link"] = "PCIe with peer access" if all(peers) else "PCIe through host memory (no peer access)"
        try:
            import pynvml  # noqa: PLC0415
            pynvml.nvmlInit()
            h = pynvml.nvmlDeviceGetHandleByIndex(dev)
            active = 0
            for link in range(18):  # NVML_NVLINK_MAX_LINKS
                try:
                    active += pynvml.nvmlDeviceGetNvLinkState(h, link) == 1
                except pynvml.NVMLError:
                    break
            if active:
                out["gpu_link"] = f"NVLink ({active} active links)"
        except Exception:  # no nvidia-ml-py, or NVML without NVLink: the PCIe answer stands
            pass
    except Exception:
        pass
    return out


# Test-only: TORCH_ENVCHECK_TEST_NODES=N makes the ranks of one host report N node names
# ("node00".."node{N-1}", consecutive ranks together), so a fleet on one machine can stand for several.
ENV_TEST_NODES = "TORCH_ENVCHECK_TEST_NODES"


def hostname(rank: int, world_size: int) -> str:
    try:
        nodes = int(os.environ.get(ENV_TEST_NODES, ""))
    except ValueError:
        nodes = 0
    if 0 < nodes <= max(1, world_size):
        return f"node{rank * nodes // max(1, world_size):02d}"
    return _clip(socket.gethostname(), 255)


def collect(launch, snapshot: dict | None, gpu: bool = True) -> dict:
    from torch_envcheck.fleet.bandwidth import mem_available  # noqa: PLC0415

    out = {
        "rank": launch.rank, "world_size": launch.world_size, "local_rank": launch.local_rank,
        "host": hostname(launch.rank, launch.world_size), "pid": os.getpid(), "launcher": launch.launcher,
        "device": own_device(snapshot, launch.local_rank), "nccl_version": nccl_version(),
        "nccl_env": nccl_env(), "backends": backends(), "mem_available_bytes": mem_available(),
    }
    if gpu:
        out.update(gpu_memory_and_link(launch.local_rank))
        if out.get("gpu_free_bytes") is not None:  # a CUDA device this rank uses: its health too
            from torch_envcheck.fleet import health  # noqa: PLC0415
            out["health"] = health.collect(launch.local_rank)
    return out


# The shape of rank_facts as rank 0 keeps it: a rank's payload is input from a stranger (another
# version of this tool, a broken or hostile rank), so every field is checked and anything else is
# dropped, before the plan, the rules or the saved report read it.
_INT = (int,)
_FIELDS = {"rank": "int", "world_size": "int", "local_rank": "int", "host": "str", "pid": "int",
           "launcher": "str", "nccl_version": "str", "mem_available_bytes": "int", "gpu_free_bytes": "int",
           "gpu_link": "str", "torch": "str"}
_DEVICE = {"index": "int", "name": "str", "capability": "str", "total_memory_bytes": "int", "shared": "bool"}


def _typed(value, kind: str):
    if kind == "int":
        return value if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 1 << 62 else None
    if kind == "bool":
        return value if isinstance(value, bool) else None
    return _clip(value) if isinstance(value, str) else None


def normalise(raw) -> dict:
    """rank_facts as rank 0 reads them: the declared fields with their types (else null), the
    device and backends as flat objects, NCCL_* variables as at most MAX_VARS strings."""
    raw = raw if isinstance(raw, dict) else {}
    out = {k: _typed(raw.get(k), kind) for k, kind in _FIELDS.items() if k in raw}
    dev = raw.get("device")
    out["device"] = ({k: _typed(dev.get(k), kind) for k, kind in _DEVICE.items()} if isinstance(dev, dict) else None)
    back = raw.get("backends")
    out["backends"] = {k: back.get(k) is True for k in ("gloo", "nccl")} if isinstance(back, dict) else {}
    from torch_envcheck.fleet import health  # noqa: PLC0415
    out["health"] = health.normalise(raw.get("health"), _typed)
    env = raw.get("nccl_env")
    out["nccl_env"] = ({_clip(str(k), 128): _clip(v) for k, v in list(env.items())[:MAX_VARS] if isinstance(v, str)}
                       if isinstance(env, dict) else {})
    return out
