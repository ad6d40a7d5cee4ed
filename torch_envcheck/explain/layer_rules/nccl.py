"""Layer rules for NCCL's transports: its sockets, interfaces and shared-memory segments, and its InfiniBand
completions.

    nccl_transport      NCCL's WARN lines on its sockets or /dev/shm     -> the interface / host network / shm size
    nccl_ib_completion  an IB work completion's status (ibv_wc_status)   -> the fabric, GPUDirect RDMA, the first error
    nccl_shared_memory_limit  NCCL's kernels want more shared memory than the GPU allows -> a newer NCCL
    nccl_watchdog       ProcessGroupNCCL's collective timeout / stuck watchdog -> the rank that did not join / the hang"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, SOURCES, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match


# NCCL's socket layer: the bootstrap and the socket transport name the call that failed.
# (a peer that died makes the others print socketProgress / "Connection reset" too: those are not read here)
_NCCL_SOCKET = re.compile(r"NCCL WARN (?:socketStartConnect|[Ss]ocket creation failed|[Cc]onnect to \S{1,80} failed|"
                          r"Bootstrap : no socket interface found|NET/Socket : no interface found)|[Ss]ocket creation "
                          r"failed : Address family not supported|no socket interface found")


# also a failure on a file NCCL owns by its name (/dev/shm/nccl-XXXXXX: its segments), whatever prefix the log gives
_NCCL_SHM = re.compile(r"NCCL WARN[^\n]{0,200}(?:/dev/shm|shared memory segment)|transport/shm\.cc[^\n]{0,200}(?:failed|-> ?2)|"
                       r"(?i:error|fail|unable|cannot|could not)[^\n]{0,120}/dev/shm/nccl-\w")


# NCCL's INFO line naming the interfaces it bootstraps over ("Bootstrap : Using [0]ens5:172.31.0.137<0>
# [1]veth75fa783:fe80::...<0>"); a virtual one among them (a container's veth, docker's bridge, libvirt's, CNI's,
# the loopback) is an address the other ranks cannot reach
_NCCL_IFACES = re.compile(r"NCCL INFO (?:Bootstrap|NET/Socket) ?: Using (?P<list>(?:\[\d{1,2}\][^\s<]{1,80}<\d>\s{0,3}){2,8})")


_VIRTUAL_IFACE = re.compile(r"^(?:veth|docker|br-|virbr|cni|flannel|cali|vxlan|lo$|lo:|tun|tap|zt)")


_UNREACHABLE = re.compile(r"(?i)Network is unreachable|Connection refused|No route to host|ECONNREFUSED|ENETUNREACH|"
                          r"Connection timed out")


def nccl_transport(ent, text):
    """NCCL's own WARN line names the transport that failed: its sockets (the bootstrap network: an interface
    every rank reaches, NCCL_SOCKET_IFNAME; between containers, the host network) or its shared memory (/dev/shm,
    which containers get 64 MB of)."""
    tail = text[-CONTEXT_TAIL:]
    shm, sock = last_match(_NCCL_SHM, tail), last_match(_NCCL_SOCKET, tail)
    if sock is not None and re.match(r"[^\n]{0,80}with family 0 ", tail[sock.end():]):
        # an address of family 0 is one that never arrived filled in (a bootstrap message another rank's NCCL wrote
        # in another form), not an interface this rank chose: rendezvous.nccl_versions_differ reads it
        sock = None
    if shm is None and sock is None:
        ifaces = last_match(_NCCL_IFACES, tail)
        if ifaces is None or not _UNREACHABLE.search(tail):
            return None
        names = [n.split(":", 1)[0] for n in re.findall(r"\[\d{1,2}\]([^\s<]{1,80})<", ifaces.group("list"))]
        real = [n for n in names if not _VIRTUAL_IFACE.match(n)]
        if not real or len(real) == len(names):
            return None
        sig = _sig("nccl-virtual-interface", "distributed",
                   "NCCL bootstraps over a virtual interface ({virtual}) the other ranks cannot reach", 83,
                   "NCCL uses every interface it finds unless told otherwise; here it listed {virtual}, a virtual "
                   "interface (a container's veth, a bridge, the loopback) whose address the other nodes cannot "
                   "reach, beside {real}.",
                   fix="Pin NCCL to the interface the nodes share: `export NCCL_SOCKET_IFNAME={real}` (or exclude the "
                       "virtual ones: NCCL_SOCKET_IFNAME=^docker,veth,lo), on every rank; GLOO_SOCKET_IFNAME too for "
                       "gloo.",
                   areas=("platform",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                          "env.html#nccl-socket-ifname",
                                                   "what": "NCCL_SOCKET_IFNAME: the interfaces NCCL uses"},))
        return _match(sig, text, len(text) - len(tail) + ifaces.start(),
                      {"real": real[0], "virtual": ", ".join(n for n in names if n not in real)})
    if shm is not None and re.search(r"shm_open failed : (?:Permission denied|Operation not permitted)|/dev/shm[^\n]{0,80}"
                                     r"(?:Permission denied|Read-only file system)", tail):
        sig = _sig("nccl-shared-memory-not-writable", "distributed", "NCCL may not create files in /dev/shm", 84,
                   "NCCL's SHM transport creates its segments with shm_open in /dev/shm; the call was refused: /dev/shm "
                   "is not writable by this user (its mode is not 1777) or is mounted read-only.",
                   fix="Make /dev/shm writable for everyone (`ls -ld /dev/shm` must show drwxrwxrwt; `sudo chmod 1777 "
                       "/dev/shm`, or remount it), or set NCCL_SHM_DISABLE=1 to avoid the SHM transport.",
                   areas=("platform",), sources=(SOURCES["shm"],))
        return _match(sig, text, len(text) - len(tail) + shm.start(), {})
    if shm is not None:
        sig = _sig("nccl-shared-memory-too-small", "container",
                   "NCCL could not create its shared-memory segment in /dev/shm", 84,
                   "NCCL's SHM transport between processes on one machine allocates segments in /dev/shm; a container "
                   "gets 64 MB of it by default, too little for NCCL's buffers.",
                   fix="Give the container more shared memory: `docker run --shm-size=16g ...` or `--ipc=host` "
                       "(Kubernetes: an emptyDir with medium Memory at /dev/shm); check `df -h /dev/shm`. NCCL_SHM_DISABLE=1 "
                       "avoids it at a speed cost.",
                   areas=("platform",), sources=(SOURCES["shm"],))
        return _match(sig, text, len(text) - len(tail) + shm.start(), {})
    at = len(text) - len(tail) + sock.start()
    if ent.platform.get("container"):
        sig = _sig("nccl-container-network", "container",
                   "NCCL's sockets fail between containers: the ranks do not share a network", 83,
                   "NCCL bootstraps over TCP sockets on an interface it picks; inside containers on Docker's bridge "
                   "network each container has its own private address and interfaces, so ranks cannot reach each other "
                   "(or NCCL picks an interface the others do not see).",
                   fix="Run the containers with the host's network: `docker run --network=host --ipc=host ...` "
                       "(Kubernetes: hostNetwork: true), or set NCCL_SOCKET_IFNAME to an interface every rank reaches "
                       "(e.g. NCCL_SOCKET_IFNAME=eth0); rerun with NCCL_DEBUG=INFO to see the interface chosen.",
                   areas=("platform",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                         "env.html#nccl-socket-ifname",
                                                  "what": "NCCL_SOCKET_IFNAME: the interfaces NCCL uses"},))
        return _match(sig, text, at, {})
    sig = _sig("nccl-socket-interface", "distributed", "NCCL cannot open or connect its sockets on the chosen interface",
               82, "NCCL bootstraps over TCP sockets on an interface it picks; the socket could not be created (the "
               "address family, e.g. IPv6, is not available there) or the connection to another rank failed.",
               fix="Set NCCL_SOCKET_IFNAME to an IP interface every rank reaches (`ip addr`; e.g. NCCL_SOCKET_IFNAME=eth0, "
                   "or ^lo,docker to exclude), NCCL_SOCKET_FAMILY=AF_INET to force IPv4, and open the ports between the "
                   "nodes; rerun with NCCL_DEBUG=INFO.",
               areas=("platform",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                     "env.html#nccl-socket-ifname",
                                              "what": "NCCL_SOCKET_IFNAME / NCCL_SOCKET_FAMILY"},))
    return _match(sig, text, at, {})


# ibv_wc_status, the status of an InfiniBand/RoCE work completion, in the order of rdma-core's enumeration
# (libibverbs/verbs.h, enum ibv_wc_status; linux-rdma/rdma-core at 85d8a414f05384dc9261a90d917989c99af3cc72): NCCL's
# IB transport prints it as the number after "Got completion ... with error N" / "with status=N"
IBV_WC_STATUS = ("IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
                 "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
                 "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
                 "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR",
                 "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR",
                 "IBV_WC_FATAL_ERR", "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR", "IBV_WC_TM_ERR",
                 "IBV_WC_TM_RNDV_INCOMPLETE")

# what each kind of status says about the fabric (ibv_poll_cq(3)): the peer never answered, memory registration
# refused (GPUDirect RDMA), or a flush that only follows an earlier error
_IB_RETRY = {"IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_RESP_TIMEOUT_ERR"}
_IB_MEMORY = {"IBV_WC_LOC_PROT_ERR", "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_MW_BIND_ERR"}

_NCCL_IB_COMPLETION = re.compile(r"NET/IB\w{0,4}\s{0,2}:\s{0,2}Got completion (?:from peer \S{1,80} )?with "
                                 r"(?:error |status=)(?P<status>\d{1,2})")


def nccl_ib_completion(ent, text):
    """NCCL's IB transport reports a failed work completion with the verbs status number: decoded by rdma-core's
    enumeration, it says whether the peer never acknowledged (the fabric, a dead peer, RoCE's GID), the memory
    registration was refused (GPUDirect RDMA) or the request was only flushed after another error."""
    m, at = last_in_tail(_NCCL_IB_COMPLETION, text, "completion")
    if m is None:
        return None
    n = int(m.group("status"))
    name = IBV_WC_STATUS[n] if n < len(IBV_WC_STATUS) else f"status {n}"
    # the adapter's own asynchronous event naming an access violation (IBV_EVENT_QP_ACCESS_ERR) says the failed
    # request touched memory it may not: the registration side, whatever the completion's status
    access_event = re.search(r"Got async event ?: ?[^\n]{0,40}access violation", text[-CONTEXT_TAIL:]) is not None
    if name in _IB_RETRY and not access_event:
        what = ("the peer's adapter never acknowledged (the retry counter ran out): the InfiniBand/RoCE connectivity "
                "between the two nodes (a port down or flapping, a cable, the subnet manager, on RoCE the GID index "
                "or the switch's lossless settings), or a peer process that died first")
        fix = ("Check the InfiniBand network between the nodes: `ibstat` / `ibv_devinfo` on both (port State Active, the "
               "same rate), the other ranks' logs for an earlier error, and NCCL's all_reduce_perf between the two "
               "nodes; on RoCE set NCCL_IB_GID_INDEX (show_gids lists the RoCE v2 one). NCCL_IB_TIMEOUT and "
               "NCCL_IB_RETRY_CNT only wait longer; NCCL_IB_DISABLE=1 falls back to sockets to confirm it is the IB "
               "network. Rerun with NCCL_DEBUG=INFO.")
    elif name in _IB_MEMORY or access_event:
        what = ("the adapter refused access to a registered buffer: with GPU buffers, GPUDirect RDMA (the nvidia-peermem "
                "module) or the memory registration limits")
        fix = ("Check GPUDirect RDMA: `lsmod | grep nvidia_peermem` (load it: `sudo modprobe nvidia-peermem`) or "
               "DMA-BUF support, `ulimit -l unlimited` for the ranks (containers: --ulimit memlock=-1), and ACS off on "
               "the PCIe switches; NCCL_NET_GDR_LEVEL=LOC disables GPUDirect RDMA to confirm, and a vendor NET plugin "
               "(HPC-X's or NGC's libnccl-net) instead of the internal one is worth a try. Rerun with NCCL_DEBUG=INFO.")
    else:
        what = ("a failed InfiniBand work request" + (" that was only flushed after an earlier error (find the first "
                                                       "one, on this or another rank)" if name == "IBV_WC_WR_FLUSH_ERR"
                                                       else ""))
        fix = ("Look for the first NCCL WARN on every rank (NCCL_DEBUG=INFO), then check the InfiniBand network between "
               "the nodes (`ibstat`, `ibv_devinfo`, NCCL's all_reduce_perf); NCCL_IB_DISABLE=1 falls back to sockets to "
               "confirm the IB network is the cause.")
    sig = _sig("nccl-ib-completion-error", "distributed", "NCCL's InfiniBand transport got {status_name} ({status})",
               84, "NCCL's IB transport polled a work completion with status {status}, {status_name} in the verbs "
               "enumeration: " + what + ".",
               fix=fix, areas=("platform",),
               sources=({"url": "https://github.com/linux-rdma/rdma-core/blob/85d8a414f05384dc9261a90d917989c99af3cc72/"
                                "libibverbs/verbs.h",
                         "what": "enum ibv_wc_status: the verbs work-completion statuses, in order"},
                        {"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
                         "what": "NCCL troubleshooting: networking, GPUDirect RDMA, NCCL_DEBUG"}))
    return _match(sig, text, at, {"status": str(n), "status_name": name})


# NCCL's INFO line when its kernels ask a GPU for more shared memory per block than the device allows: the NCCL was
# made before that GPU (its per-architecture limits do not know it); NCCL's version line names the one loaded
_NCCL_SHMEM_LIMIT = re.compile(r"ncclMaxSharedMem (?P<want>\d{3,7}) exceeds device/fn maxSharedMem (?P<have>\d{3,7})")
_NCCL_VERSION = re.compile(r"NCCL version (?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})")


def nccl_shared_memory_limit(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "ncclMaxSharedMem" not in tail:
        return None
    m = last_match(_NCCL_SHMEM_LIMIT, tail)
    if m is None:
        return None
    v = last_match(_NCCL_VERSION, tail)
    caps = {"want": m.group("want"), "have": m.group("have"), "nccl": v.group("v") if v else None}
    sig = _sig("nccl-kernel-shared-memory", "distributed",
               "NCCL{nccl| } asks the GPU for {want} bytes of shared memory per block; it allows {have}", 84,
               "NCCL sizes its kernels' shared memory from per-architecture limits; this NCCL" +
               (" ({nccl})" if caps["nccl"] else "") + " asks more ({want} bytes) than this GPU gives a block "
               "({have}), so its kernels cannot launch: an NCCL release older than the GPU model (the GeForce RTX 50 "
               "series met it with NCCL 2.25).",
               fix="Upgrade NCCL to a release newer than the GPU: `pip install -U nvidia-nccl-cu12` (or nvidia-nccl-cu13, "
                   "the CUDA major of your torch; torch loads the wheel's NCCL), or a torch release that bundles a newer "
                   "NCCL; check the `NCCL version` line again with NCCL_DEBUG=INFO.",
               areas=("libraries",),
               sources=({"url": "https://github.com/NVIDIA/nccl/issues/1637",
                         "what": "NCCL 2.25.1 on two RTX 5090: ncclMaxSharedMem exceeds maxSharedMem, fixed in a later "
                                 "release"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# NCCL's IB transport reporting an asynchronous event of the HCA (ibv_get_async_event(3): enum ibv_event_type in
# rdma-core's libibverbs/verbs.h, printed by ibv_event_type_str: "port error", "local catastrophic error", ...)
_NCCL_IB_ASYNC = re.compile(r"NET/IB\w{0,4}\s{0,2}:\s{0,2}Got async event\s{0,2}:\s{0,2}(?P<event>[a-zA-Z][a-zA-Z ]{2,40})")
_IB_EVENT_LINK = ("port error", "lid change", "client reregistration", "port active", "gid table change", "sm change")


def nccl_ib_async_event(ent, text):
    """NCCL printing the InfiniBand adapter's asynchronous events: a port going down and up (port error) or the
    adapter failing is the fabric's (a cable, a switch port, the subnet manager), whatever the job then does (a hang,
    a timeout); nothing in torch or CUDA."""
    m, at = last_in_tail(_NCCL_IB_ASYNC, text, "async event")
    if m is None:
        return None
    event = m.group("event").strip().lower()
    link = any(event.startswith(e) for e in _IB_EVENT_LINK)
    sig = _sig("nccl-ib-async-event", "distributed",
               "the InfiniBand adapter reports '{event}': " + ("a link flapping" if link else "the adapter's fault"), 82,
               "NCCL's IB transport relays the adapter's asynchronous event '{event}' (libibverbs' ibv_event_type). "
               + ("A port error is the link going down: repeated, it is a flapping link (a cable, a transceiver, a "
                  "switch port) that stalls or times out the collectives." if link else
                  "A catastrophic or device event is the adapter or its firmware failing."),
               fix="Find the nodes whose logs show it and check their links: `ibstat` (port state and rate), "
                   "`ibqueryerrors` / the fabric manager's (UFM's) error counters, the cables and switch ports; reseat "
                   "or replace what counts errors, then rerun. Until then, exclude those nodes (or NCCL_IB_HCA to "
                   "avoid that port). No software reinstall is involved.",
               areas=("distributed",),
               sources=({"url": "https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/man/ibv_get_async_event.3",
                         "what": "ibv_get_async_event: the adapter's asynchronous events (port error, ...)"},))
    return _match(sig, text, at, {"event": event})



# ProcessGroupNCCL's watchdog (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp): a collective that did not finish in
# the process group's timeout ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=.., OpType=..) ran for N
# milliseconds before timing out"), or the watchdog thread itself blocked inside a CUDA/NCCL call ("watchdog got stuck
# for N seconds without making progress", the heartbeat monitor killing the process)
_WATCHDOG_TIMEOUT = re.compile(r"[Ww]atchdog caught collective operation timeout:?\s{0,4}WorkNCCL\((?P<work>(?:[^()\n]|\(ms\)){0,400})\)"
                               r"(?:[^\n]{0,80}?ran for (?P<ran>\d{1,12}) milliseconds)?")
_WATCHDOG_STUCK = re.compile(r"watchdog got stuck for (?P<sec>\d{1,7}) seconds|[Hh]eartbeat monitor timed out")
_WORK_FIELD = re.compile(r"(?P<k>SeqNum|OpType|Timeout\(ms\))=(?P<v>[\w.]{1,40})")


def nccl_watchdog(ent, text):
    """The two ways ProcessGroupNCCL's watchdog ends a job, each with its own remedy: a collective that some rank never
    joined or never finished within the group's timeout (find that rank: desync debug, the flight recorder; a longer
    timeout only where one rank legitimately works alone), and a watchdog blocked inside a CUDA or NCCL call (a hang in
    the driver or the fabric; the heartbeat's timeout names its own variable)."""
    m_stuck, at_stuck = last_in_tail(_WATCHDOG_STUCK, text)
    m_to, at_to = last_in_tail(_WATCHDOG_TIMEOUT, text, "collective operation timeout")
    if m_stuck is None and m_to is None:
        return None
    nccl_doc = {"url": "https://pytorch.org/docs/stable/torch_nccl_environment_variables.html",
                "what": "PyTorch's NCCL environment variables (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC, "
                        "TORCH_NCCL_DESYNC_DEBUG, TORCH_NCCL_TRACE_BUFFER_SIZE)"}
    c10d = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
            "what": "ProcessGroupNCCL's watchdog and heartbeat monitor"}
    if m_stuck is not None and (m_to is None or at_stuck >= at_to):
        caps = {"sec": m_stuck.group("sec")}
        sig = _sig("nccl-watchdog-stuck", "distributed", "ProcessGroupNCCL's watchdog thread hung inside a CUDA/NCCL call",
                   80,
                   "The watchdog, the thread that polls the enqueued collectives, made no progress{sec| for }{sec}"
                   "{sec| seconds}: a CUDA or NCCL call it makes (an event query or destroy, a communicator abort) "
                   "blocked, so the heartbeat monitor ends the process. A call that never returns is a hang underneath "
                   "the program: a GPU that stopped answering, a peer-to-peer or network transport that deadlocked, or "
                   "another thread holding the GIL inside a CUDA call.",
                   fix="Find the hang first: `py-spy dump --native --pid <PID>` on the stuck rank, `nvidia-smi` and "
                       "`dmesg` (Xid) on its node, NCCL_DEBUG=INFO for the transport; NCCL_P2P_DISABLE=1 to test a "
                       "peer-to-peer hang. If the watchdog is only slow (a large job's teardown), raise "
                       "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC (default 480) or set TORCH_NCCL_ENABLE_MONITORING=0. No "
                       "package reinstall is involved.",
                   areas=("distributed",), sources=(c10d, nccl_doc))
        return _match(sig, text, at_stuck, caps)
    fields = dict(f.group("k", "v") for f in _WORK_FIELD.finditer(m_to.group("work")))
    caps = {"op": fields.get("OpType"), "seq": fields.get("SeqNum"), "timeout": fields.get("Timeout(ms)"),
            "ran": m_to.group("ran")}
    sig = _sig("nccl-collective-timeout", "distributed",
               "a collective{op| (}{op}{op|)} did not finish within the process group's timeout", 78,
               "ProcessGroupNCCL's watchdog aborted a collective{op| (}{op}{op|)}{seq|, number }{seq} that did not "
               "complete within the group's timeout{timeout| of }{timeout}{timeout| ms}: at least one rank never "
               "reached it or is blocked before it. The usual causes are in the program: one rank doing work alone "
               "(evaluation, saving a checkpoint, preprocessing on rank 0), ranks taking different code paths (a "
               "collective inside an `if rank == 0`, unequal numbers of batches), or a rank that died or raised; "
               "otherwise a network or peer-to-peer transport that hangs.",
               fix="Find the rank that did not join: rerun with TORCH_NCCL_DESYNC_DEBUG=1 (or the flight recorder, "
                   "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 with TORCH_NCCL_DUMP_ON_TIMEOUT=1) and NCCL_DEBUG=INFO; check "
                   "every rank's log for an earlier error. Make all ranks call the same collectives in the same order; "
                   "where one rank legitimately works alone for long, raise the timeout "
                   "(`init_process_group(..., timeout=datetime.timedelta(minutes=60))`). If it hangs at the first "
                   "collective, test the transport: NCCL_P2P_DISABLE=1, NCCL_IB_DISABLE=1, NCCL_SOCKET_IFNAME.",
               areas=("distributed",), sources=(c10d, nccl_doc))
    return _match(sig, text, at_to, caps)


# NCCL's verbs wrapper (ibvwrap.c) warns "Call to ibv_X failed" when a verbs call returns an error.  The calls that
# pin memory or create queues (ibv_reg_mr*, ibv_create_qp, ibv_create_cq, ibv_create_srq) are counted against the
# process' locked-memory limit (RLIMIT_MEMLOCK), which batch jobs and containers often leave at 64 KiB-8 MiB
# (rdma-core's man pages; NCCL troubleshooting, "InfiniBand").  Other calls (open, query) are the device itself.
_IBV_CALL_FAILED = re.compile(r"NCCL WARN Call to (?P<call>ibv_(?:reg_mr\w{0,8}|create_qp\w{0,4}|create_cq\w{0,4}|"
                              r"create_srq|alloc_pd|reg_dmabuf_mr)) failed")


def nccl_ibv_call_failed(ent, text):
    m, at = last_in_tail(_IBV_CALL_FAILED, text, "ibv_")
    if m is None:
        return None
    call = m.group("call")
    sig = _sig("nccl-ibv-locked-memory", "distributed", "NCCL's InfiniBand setup failed in {call} (locked memory)", 85,
               "NCCL's IB transport could not {what}: {call} pins host memory or allocates queue memory that counts "
               "against the process' locked-memory limit (`ulimit -l`), and that limit is low in the job or container "
               "(64 KiB-8 MiB by default; Slurm jobs inherit slurmd's own limit, not the login shell's).",
               fix="Raise the locked-memory limit where the ranks start: `srun bash -c 'ulimit -l'` shows the job's (it "
                   "must be unlimited); set `* soft memlock unlimited` and `* hard memlock unlimited` in "
                   "/etc/security/limits.conf, LimitMEMLOCK=infinity for slurmd (and PropagateResourceLimitsExcept="
                   "MEMLOCK in slurm.conf), `docker run --ulimit memlock=-1` for a container. `NCCL_IB_DISABLE=1` "
                   "(sockets instead of InfiniBand) confirms it, slower.",
               areas=("platform",),
               sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
                         "what": "NCCL troubleshooting: InfiniBand and the locked-memory limit"},
                        {"url": "https://man7.org/linux/man-pages/man3/ibv_reg_mr.3.html",
                         "what": "ibv_reg_mr: registered memory is pinned (RLIMIT_MEMLOCK)"},
                        {"url": "https://slurm.schedmd.com/faq.html#memlock",
                         "what": "Slurm FAQ: locked memory limits of jobs (PropagateResourceLimits)"}))
    what = ("register a buffer" if call.startswith(("ibv_reg", "ibv_alloc")) else "create its queues")
    return _match(sig, text, at, {"call": call, "what": what})


# AWS's NCCL plugin (aws-ofi-nccl, libnccl-net) drives libfabric and accepts only its EFA provider: on an instance or
# network interface without EFA it refuses the network ("NET/OFI Only EFA provider is supported")
_OFI_EFA_ONLY = re.compile(r"NET/OFI Only EFA provider is supported")


def nccl_ofi_without_efa(ent, text):
    m, at = last_in_tail(_OFI_EFA_ONLY, text, "EFA")
    if m is None:
        return None
    sig = _sig("nccl-ofi-without-efa", "distributed", "AWS's NCCL plugin finds no EFA network adapter", 84,
               "The aws-ofi-nccl plugin that AWS's images load (libnccl-net) runs NCCL over libfabric's EFA provider "
               "only; this instance has no Elastic Fabric Adapter attached (an instance type without EFA, or one "
               "launched without its EFA interface), so the plugin refuses the network.",
               fix="Run multi-node jobs on an EFA-capable instance type launched with its EFA interface and a security "
                   "group that allows all traffic between its members (`fi_info -p efa` lists the adapter); on one node "
                   "or without EFA, keep the plugin out (start without its library on LD_LIBRARY_PATH) so NCCL uses its "
                   "own transports.",
               areas=("platform",),
               sources=({"url": "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start-nccl.html",
                         "what": "AWS: EFA and NCCL, the aws-ofi-nccl plugin, the EFA security group"},))
    return _match(sig, text, at, {})
