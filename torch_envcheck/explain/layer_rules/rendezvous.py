"""Layer rules for launching a job on several processes and machines, before NCCL moves any data: torch.distributed's
rendezvous (torchrun's C10d store, the env:// variables, the TCPStore and its libuv backend), NCCL versions that differ
between ranks, and the hang that follows NCCL's harmless "No plugin found" line.

    rendezvous_unreachable  the C10d store / TCPStore cannot be reached (RendezvousConnectionError, connection timed
                     out or refused, failed to connect to any network address) -> the endpoint every node resolves and
                     reaches, the port open between them, one rdzv_id
    env_rendezvous_variable_missing  "environment variable RANK expected, but not set" -> launch with torchrun
    tcpstore_without_libuv  "use_libuv was requested but PyTorch was built without libuv support" -> USE_LIBUV=0
    nccl_versions_differ  NCCL's bootstrap or transport reading another rank's messages wrongly (address family 0,
                     "receiving N bytes instead of M", "collective mismatch error") -> one NCCL and NCCL_* everywhere
    nccl_hang_after_plugin_line  "No plugin found (libnccl-net.so)" in a text about a hang -> the line is harmless; the
                     network interface NCCL and MPI use
    backend_not_built  "Distributed package doesn't have MPI built in", "Unknown c10d backend type MPI" -> the wheels'
                     backends (nccl, gloo); MPI or UCC only in a torch built from source with them
    ordinal_from_local_rank  "invalid device ordinal" where each process picks its GPU by its local rank
                     (set_device(local_rank), "[rankN]:" prefixes) -> env: more processes than visible GPUs;
                     --nproc_per_node at most torch.cuda.device_count()"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_DIST_DOCS = {"url": "https://pytorch.org/docs/stable/elastic/run.html",
              "what": "torchrun: the rendezvous (rdzv_backend, rdzv_endpoint, rdzv_id) and the variables it sets"}
_NCCL_TROUBLE = {"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
                 "what": "NCCL troubleshooting: networking, NCCL_SOCKET_IFNAME, NCCL_DEBUG"}

# c10d_rendezvous_backend's _call_store raises one thing, RendezvousConnectionError, so a traceback that ends in
# its frame is that error even when the message itself was cut off.
_RDZV = re.compile(r"RendezvousConnectionError|The connection to the C10d store has failed|"
                   r"c10d_rendezvous_backend\.py\", line \d+, in _call_store|"
                   r"_env_rendezvous_handler[^\n]{0,200}\n[^\n]{0,200}TCPStore\([^\n]{0,200}\n(?:[^\n]{0,200}\n)?"
                   r"RuntimeError: Connection (?:timed out|refused|reset by peer)|"
                   r"The client socket has failed to connect to any network address of|"
                   r"(?:TCPStore|c10d)[^\n]{0,120}(?:Connection timed out|Connection refused|timed out after \d+ ?ms)")


def rendezvous_unreachable(ent, text):
    """The processes could not meet: the store on rank 0's host (torchrun's C10d rendezvous, env://'s TCPStore) was
    not reachable at the address and port the others were given."""
    m, at = last_in_tail(_RDZV, text)
    if m is None:
        return None
    sig = _sig("rendezvous-unreachable", "distributed", "the processes could not reach the rendezvous store", 82,
               "torch.distributed starts by meeting at a key-value store on one host (torchrun's C10d rendezvous at "
               "--rdzv_endpoint, or env://'s TCPStore at MASTER_ADDR:MASTER_PORT); this process could not reach it: "
               "the address does not resolve (or resolves to an interface the other nodes cannot reach), the port is "
               "closed between the machines (a firewall, a security group, a cluster exposing only some ports), or the "
               "host's process never started its store.",
               fix="Give every node the same endpoint, as a hostname or IP that each of them resolves and reaches "
                   "(`/etc/hosts` on every node, the address of the interface the nodes share), with a port open "
                   "between them (`nc -zv <host> <port>` from another node; open it in the firewall or security group, "
                   "or pick an exposed one), the same --rdzv_id and backend on all nodes, and start the host's process "
                   "first; MASTER_ADDR/MASTER_PORT for env://.",
               areas=("distributed",), sources=(_DIST_DOCS,))
    return _match(sig, text, at, {})


_ENV_VAR_MISSING = re.compile(r"environment variable (?P<var>RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|LOCAL_RANK) "
                              r"expected, but not set")


def env_rendezvous_variable_missing(ent, text):
    m, at = last_in_tail(_ENV_VAR_MISSING, text, "expected, but not set")
    if m is None:
        return None
    sig = _sig("env-rendezvous-variable-missing", "distributed",
               "init_process_group(env://) found no {var} in this process's environment", 83,
               "The env:// rendezvous reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT from each process's own "
               "environment; {var} is not set in this one: the script was started as a plain `python` process, not by "
               "a launcher that sets them per process.",
               fix="Start it with torchrun (`torchrun --nproc_per_node=<GPUs> script.py`; add --nnodes and "
                   "--rdzv_endpoint across machines), which sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and "
                   "MASTER_PORT for each process; setting one RANK in the script gives every process the same rank.",
               areas=("distributed",), sources=(_DIST_DOCS,))
    return _match(sig, text, at, {"var": m.group("var")})


_LIBUV = re.compile(r"use_libuv was requested but PyTorch was buil[dt] without libuv support")


def tcpstore_without_libuv(ent, text):
    m, at = last_in_tail(_LIBUV, text, "libuv")
    if m is None:
        return None
    sig = _sig("tcpstore-without-libuv", "distributed", "the TCPStore asks for libuv, which this torch build lacks", 86,
               "From torch 2.4 the rendezvous' TCPStore uses its libuv backend by default; builds without libuv (the "
               "Windows wheels) refuse the request.",
               fix="Set USE_LIBUV=0 in the environment before launching (`set USE_LIBUV=0` on Windows, or pass "
                   "use_libuv=False to TCPStore) to use the legacy backend; on Windows also use the gloo backend, since "
                   "Windows builds have no NCCL.",
               areas=("distributed",),
               sources=({"url": "https://pytorch.org/tutorials/intermediate/TCPStore_libuv_backend.html",
                         "what": "TCPStore's libuv backend (default from 2.4) and USE_LIBUV=0"},))
    return _match(sig, text, at, {})


_NCCL_SKEW = re.compile(r"connecting to address with family 0 is neither AF_INET|"
                        r"receiving (?P<got>\d{1,12}) bytes instead of (?P<want>\d{1,12})|"
                        r"collective mismatch error, local size \d{1,12} remote size \d{1,12}")


def nccl_versions_differ(ent, text):
    """NCCL reading a message from another rank that it does not expect: ranks running different NCCL versions (one
    node's pip nvidia-nccl, another's system libnccl) or different NCCL_* settings."""
    m, at = last_in_tail(_NCCL_SKEW, text)
    if m is None:
        return None
    sig = _sig("nccl-ranks-differ", "distributed", "NCCL on two ranks does not agree on its own messages", 81,
               "NCCL read a bootstrap or transport message from another rank in a form it does not expect (an address "
               "of family 0, a size other than the one it posted): the ranks run different NCCL versions (a node with "
               "another nvidia-nccl wheel or a system libnccl loaded first) or different NCCL_* settings (protocol, "
               "buffer size, algorithms).",
               fix="Run one NCCL everywhere: compare `python -c \"import torch; print(torch.cuda.nccl.version())\"` and "
                   "`pip list | grep nccl` on every node, install the same nvidia-nccl version (and keep a system "
                   "libnccl off LD_LIBRARY_PATH), and set the same NCCL_* variables on all ranks (NCCL_DEBUG=INFO "
                   "prints each rank's version and settings).",
               areas=("distributed",), sources=(_NCCL_TROUBLE,))
    return _match(sig, text, at, {})


_PLUGIN_LINE = re.compile(r"NET/Plugin ?: (?:No plugin found|Plugin load returned \d{1,4})|Unable to load libnccl-net\.so")
_HANG = re.compile(r"(?i)\bhang(?:s|ing)?\b|\bhung\b|freez(?:e|es|ed|ing)|frozen|\bstuck\b|no progress|never (?:starts|returns)")


def nccl_hang_after_plugin_line(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_PLUGIN_LINE, tail)
    if m is None or not _HANG.search(tail) or re.search(r"NCCL WARN|Got completion|watchdog|Watchdog", tail):
        return None
    sig = _sig("nccl-hang-after-plugin-line", "distributed",
               "a hang at NCCL's start: the plugin line is harmless, the network is not", 78,
               "NCCL's 'No plugin found (libnccl-net.so)' only says it uses its built-in transports. A job that then "
               "hangs with the GPUs idle is usually waiting on a connection between the processes: NCCL (or MPI) chose "
               "a network interface the other machines cannot reach (a docker bridge, a virtual interface), or a "
               "port is blocked.",
               fix="Pin the interface the machines share: NCCL_SOCKET_IFNAME=<iface> (and for MPI `-mca "
                   "btl_tcp_if_include <iface>`), rerun with NCCL_DEBUG=INFO to see which interface and transport each "
                   "rank picks, and test the pair with NCCL's all_reduce_perf; NCCL_P2P_DISABLE=1 for a single-node "
                   "hang.",
               areas=("distributed",), sources=(_NCCL_TROUBLE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# torch.distributed's backends: gloo and NCCL ship in the Linux CUDA wheels, MPI and UCC only in a torch built from
# source with USE_MPI / USE_C10D_UCC on a host that has the library (distributed_c10d.py's messages; the wheels'
# build options)
# (only the two a source build adds: the fix below, nccl or gloo instead, would be wrong for a build without Gloo, and
# XCCL is the XPU build's own)
_NOT_BUILT = re.compile(r"Distributed package doesn't have (?P<b>MPI|UCC) built in|"
                        r"Unknown c10d backend type (?P<u>MPI|UCC|mpi|ucc)\b")


def backend_not_built(ent, text):
    m, at = last_in_tail(_NOT_BUILT, text)
    if m is None:
        return None
    backend = (m.group("b") or m.group("u")).upper()
    unknown = m.group("u") is not None
    sig = _sig("distributed-backend-not-built", "distributed", "this torch build has no {backend} backend", 84,
               "torch.distributed's {backend} backend is compiled in only when torch is built from source with it on a "
               "host that has the library (USE_MPI for MPI, USE_C10D_UCC for UCC); the pip and conda wheels carry nccl "
               "(Linux CUDA builds) and gloo, not {backend}" + (". The process group looked the name up among the "
               "backends this build registered and did not find it: `torch.distributed.is_mpi_available()` prints "
               "False for such a build (a 2.0 nightly said the same of a build that had MPI, fixed in later releases)"
               if unknown else "") + ".",
               fix="Use a backend the wheel has: `init_process_group(backend=\"nccl\")` for GPUs, `\"gloo\"` for the CPU "
                   "(launch with torchrun, or mpirun with the env:// variables set); for {backend} itself build torch "
                   "from source on a host with it installed (`USE_MPI=1` / `USE_C10D_UCC=1`, `python setup.py develop`), "
                   "check `torch.distributed.is_mpi_available()` after, and if a source build with MPI still reports "
                   "it unknown, update torch to a newer release.",
               areas=("distributed",),
               sources=({"url": "https://pytorch.org/docs/stable/distributed.html#backends",
                         "what": "torch.distributed: which backends each build has (MPI only when built from source)"},))
    return _match(sig, text, at, {"backend": backend})


# torchrun gives each process LOCAL_RANK 0..nproc_per_node-1 and the programs pass it to set_device (their own
# scripts, accelerate's PartialState, Lightning's strategies); an ordinal past the visible GPUs is then the launch's
# process count, which the "[rankN]:" prefixes torchrun adds to each process' lines also show
_INVALID_ORDINAL = re.compile(r"invalid device ordinal|cudaErrorInvalidDevice\b|CUDA_ERROR_INVALID_DEVICE\b")
_RANK_DEVICE = re.compile(r"set_device\([^()\n]{0,40}\b(?:local_rank|LOCAL_RANK|rank)\b[^()\n]{0,20}\)|"
                          r"(?m:^\[rank(?P<rank>\d{1,4})\]:)")


def ordinal_from_local_rank(ent, text):
    m, at = last_in_tail(_INVALID_ORDINAL, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if _RANK_DEVICE.search(tail) is None or "MIG" in tail:
        return None
    sig = _sig("ordinal-from-local-rank", "env",
               "a process chose a GPU by its rank, past the GPUs it sees: more processes than GPUs", 84,
               "Each process of the launch sets its GPU from its local rank (torch.cuda.set_device(local_rank)); "
               "\"invalid device ordinal\" means a rank's number is not below the number of GPUs that process sees, so "
               "more processes were started on this machine than it has visible GPUs (or CUDA_VISIBLE_DEVICES lists "
               "fewer than --nproc_per_node). The installed packages are fine: the launch's process count is what to "
               "change.",
               fix="Start at most one process per visible GPU: `torchrun --nproc_per_node=$(python -c 'import "
                       "torch; print(torch.cuda.device_count())')` (accelerate: num_processes in its config, deepspeed: "
                       "--num_gpus); if CUDA_VISIBLE_DEVICES is set, it must list as many GPUs as processes.",
               areas=("gpu",), sources=(_DIST_DOCS,))
    return _match(sig, text, at, {})
