"""Layer rules for NCCL's own words that its result code alone does not explain.

    nccl_socket_wrong_type  "socketFinalizeAccept: wrong type N != M" -> distributed: the two ends chose different
                         transports (InfiniBand/RoCE on one node, sockets on the other): NCCL_IB_DISABLE=1 everywhere,
                         or InfiniBand working on every node
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_WRONG_TYPE = re.compile(r"socketFinalizeAccept: wrong type (?P<got>\d{1,2}) != (?P<want>\d{1,2})")


def nccl_socket_wrong_type(ent, text):
    m, at = last_in_tail(_WRONG_TYPE, text, "wrong type")
    if m is None:
        return None
    sig = _sig("nccl-socket-wrong-type", "distributed",
               "NCCL's ranks disagree about the transport (a socket of type {got} where {want} was expected)", 84,
               "An NCCL socket accepted a connection of another kind than it was set up for: the ranks on one node "
               "use InfiniBand/RoCE (NET/IB) and those on another fall back to sockets, or the nodes run NCCLs of "
               "different versions or settings, so their bootstrap connections do not match.",
               fix="Make every node choose the same transport: repair InfiniBand on all nodes (`ibv_devinfo` shows the "
                   "ports active everywhere), or turn it off everywhere with NCCL_IB_DISABLE=1 (sockets, slower) and "
                   "pick the interface with NCCL_SOCKET_IFNAME; give all ranks the same NCCL version and NCCL_* "
                   "variables, and rerun with NCCL_DEBUG=INFO to see the transport each one picks.",
               areas=("distributed",),
               sources=({"url": "https://github.com/NVIDIA/nccl-tests/issues/188",
                         "what": "NCCL maintainer: the job tries InfiniBand; fix it on both nodes or NCCL_IB_DISABLE=1"},
                        {"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
                         "what": "NCCL_IB_DISABLE, NCCL_SOCKET_IFNAME, NCCL_DEBUG"}))
    return _match(sig, text, at, {"got": m.group("got"), "want": m.group("want")})
