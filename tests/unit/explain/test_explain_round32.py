"""explain's thirty-second round, from test32's misses (launching training on several GPUs and machines): the
rendezvous store no rank reaches (its message, or a traceback ending in the store call that raises only that error),
env:// without its variables, a TCPStore asked for libuv on a build without it, ranks whose NCCL disagree, a hang
after NCCL's harmless plugin line, the adapter's access-violation event, too many peers, RCCL's iommu=pt warning. The
texts are written for these tests from each library's messages and sources, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


_ELASTIC = ("  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/"
            "dynamic_rendezvous.py\", line 1080, in _sync\n    get_response = self._backend.get_state()\n")


@pytest.mark.parametrize("tail", [
    "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. "
    "See inner exception for details.",
    "[W socket.cpp:663] [c10d] The client socket has failed to connect to any network address of (node0, 29500).",
    # the message cut off: the frame that raises only RendezvousConnectionError says it
    "  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py\","
    " line 115, in _call_store\n    raise",
])
def test_a_store_no_rank_reaches_is_the_endpoint_and_its_port(tail):
    r = diagnose.diagnose(_ELASTIC + tail)
    assert r["signature"] == "rendezvous-unreachable" and r["layer"] == "distributed", r
    assert "port" in _fix(r) and "nc -zv" in _fix(r), _fix(r)


def test_another_rendezvous_frame_is_not_the_store():
    r = diagnose.diagnose(_ELASTIC + "  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/"
                          "rendezvous/dynamic_rendezvous.py\", line 600, in _decode_state\n"
                          "ValueError: the state is not valid")
    assert r is None or r["signature"] != "rendezvous-unreachable", r


@pytest.mark.parametrize("var", ["RANK", "MASTER_ADDR", "WORLD_SIZE"])
def test_env_rendezvous_without_its_variable_wants_a_launcher(var):
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n"
                          "    dist.init_process_group(\"nccl\")\n"
                          f"ValueError: Error initializing torch.distributed using env:// rendezvous: environment "
                          f"variable {var} expected, but not set")
    assert r["signature"] == "env-rendezvous-variable-missing" and var in r["title"], r
    assert "torchrun --nproc_per_node" in _fix(r), _fix(r)


def test_a_tcpstore_asking_for_libuv_on_windows_is_use_libuv_0():
    r = diagnose.diagnose("  File \"C:\\envs\\t\\Lib\\site-packages\\torch\\distributed\\rendezvous.py\", line 189, "
                          "in _create_c10d_store\n    return TCPStore(\ntorch.distributed.DistStoreError: use_libuv was "
                          "requested but PyTorch was build without libuv support")
    assert r["signature"] == "tcpstore-without-libuv" and "USE_LIBUV=0" in _fix(r), r
    assert "gloo" in _fix(r), _fix(r)


@pytest.mark.parametrize("line", [
    "node3:1234:1301 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: connecting to address with family 0 is "
    "neither AF_INET(2) nor AF_INET6(10)",
    "node3:1234:1301 [1] transport/net_socket.cc:428 NCCL WARN NET/Socket : peer 10.0.0.4<50122> message truncated : "
    "receiving 1048576 bytes instead of 65536",
])
def test_ranks_whose_nccl_disagree_want_one_nccl(line):
    r = diagnose.diagnose(line + "\ntorch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
                          "unhandled system error, NCCL version 2.21.5")
    assert r["signature"] == "nccl-ranks-differ" and r["layer"] == "distributed", r
    assert "same nvidia-nccl version" in _fix(r), _fix(r)


def test_a_hang_after_the_plugin_line_is_the_network_interface():
    r = diagnose.diagnose("Training hangs forever on the second machine, GPUs at 0%.\n"
                          "node1:77:77 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal "
                          "implementation\nnode1:77:77 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth")
    assert r["signature"] == "nccl-hang-after-plugin-line" and "NCCL_SOCKET_IFNAME" in _fix(r), r


def test_the_plugin_line_alone_is_not_a_hang():
    r = diagnose.diagnose("node1:77:77 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal "
                          "implementation\nnode1:77:77 [0] NCCL INFO Using network Socket")
    assert r is None or r["signature"] != "nccl-hang-after-plugin-line", r


def test_an_access_violation_event_makes_a_retry_status_a_memory_question():
    r = diagnose.diagnose("gpu7:22:40 [3] NCCL INFO NET/IB : Got async event : local access violation work queue "
                          "error\ngpu7:22:40 [3] transport/net_ib.cc:1683 NCCL WARN NET/IB : Got completion from peer "
                          "10.1.1.2<33050> with error 12, opcode 0, len 0, vendor err 129 (Recv)")
    assert r["layer"] == "distributed" and "nvidia-peermem" in _fix(r), r


def test_the_same_retry_status_without_the_event_stays_the_fabric():
    r = diagnose.diagnose("gpu7:22:40 [3] transport/net_ib.cc:1683 NCCL WARN NET/IB : Got completion from peer "
                          "10.1.1.2<33050> with error 12, opcode 0, len 0, vendor err 129 (Recv)")
    assert r["layer"] == "distributed" and "nvidia-peermem" not in _fix(r), r


def test_too_many_peers_is_one_gpu_per_process():
    r = diagnose.diagnose("  File \"train.py\", line 40, in <module>\n    model = model.to(device)\n"
                          "RuntimeError: CUDA error: peer mapping resources exhausted\n"
                          "CUDA kernel errors might be asynchronously reported at some other API call\n"
                          "cudaErrorTooManyPeers")
    assert r["layer"] == "distributed" and "one process per GPU" in _fix(r), r


def test_rccl_iommu_warning_is_the_kernel_parameter():
    r = diagnose.diagnose("(RayWorkerWrapper pid=411) node:411:411 [0] /long_pathname/rccl/src/init.cc:140 NCCL WARN "
                          "Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!\n"
                          "then the server hangs at the first all-reduce")
    assert r["signature"] == "rccl-iommu-pt-missing" and r["layer"] == "rocm", r
    assert "iommu=pt" in _fix(r) and "update-grub" in _fix(r), _fix(r)
