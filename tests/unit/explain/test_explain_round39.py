"""explain's thirty-ninth round, from test39's misses (HPC clusters): Slurm's refusals read from Slurm's own error
table, its cgroup's out-of-memory kills, a job step without a GPU, conda solving on a login node, torch without an MPI
backend, NCCL's verbs calls under a low locked-memory limit, a host library bound by Apptainer's --nv, and torch 1.0's
own libcudart lookup. The texts are written for these tests from the tools' messages (Slurm's source, torch's,
NCCL's), not copied from the corpus."""

from __future__ import annotations

import json
import os

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import slurm
from torch_envcheck.knowledge.tables import DATA_DIR
from explain_answers import fix_of as _fix

BENCH = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir, "benchmarks")


# --- Slurm's table -------------------------------------------------------------------------------------------------

def test_the_slurm_table_comes_from_slurms_source_and_has_a_category_for_each_message():
    t = json.load(open(os.path.join(DATA_DIR, "slurm_errors.json"), encoding="utf-8"))
    assert all("github.com/SchedMD/slurm/" in s["url"] for s in t["sources"])
    cats = {r["category"] for r in t["messages"]}
    assert cats <= set(slurm.CATEGORIES) and {"gres", "memory", "partition", "time", "account", "nodes"} <= cats
    names = {r["name"]: r["category"] for r in t["messages"] if r["name"]}
    assert names["ESLURM_INVALID_GRES"] == "gres" and names["ESLURM_INVALID_TIME_LIMIT"] == "time"
    assert names["ESLURM_INVALID_ACCOUNT"] == "account" and names["ESLURM_INVALID_PARTITION_NAME"] == "partition"
    # the administrators' own codes are not a job's request
    assert "ESLURM_RESERVATION_NAME_DUP" not in names and "ESLURM_LUA_FUNC_FAILED_ENOMEM" not in names


def test_the_generator_reads_errtab_entries_and_classifies_by_the_codes_words():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_slurm_errors", os.path.join(BENCH, "gen_slurm_errors.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    src = ('static slurm_errtab_t slurm_errtab[] = {\n\t{\n\t\tERRTAB_ENTRY(ESLURM_INVALID_GRES),\n\t\t"Invalid generic '
           'resource (gres) specification",\n\t},\n\t{\n\t\tERRTAB_ENTRY(ESLURM_INVALID_TIME_LIMIT),\n\t\t"Requested '
           'time limit is invalid "\n\t\t"(missing or exceeds some limit)",\n\t},\n\t{\n\t\tERRTAB_ENTRY('
           'ESLURM_REBOOT_IN_PROGRESS),\n\t\t"Reboot already in progress",\n\t},\n};\n')
    rows = gen.parse_errno(src)
    assert [(r["name"], r["category"]) for r in rows] == [("ESLURM_INVALID_GRES", "gres"),
                                                          ("ESLURM_INVALID_TIME_LIMIT", "time"),
                                                          ("ESLURM_REBOOT_IN_PROGRESS", "other")]
    assert rows[1]["message"] == "Requested time limit is invalid (missing or exceeds some limit)"
    msgs = gen.parse_err_msgs('\t\t*err_msg = xstrdup("Memory specification can not be satisfied");\n'
                              '\t*err_msg = xstrdup("Reservation partition cannot be removed");')
    assert [(r["message"], r["category"]) for r in msgs] == [("Memory specification can not be satisfied", "memory")]


@pytest.mark.parametrize("line, category, word", [
    ("sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification", "gres", "--gres"),
    ("srun: error: Unable to allocate resources: Requested time limit is invalid (missing or exceeds some limit)",
     "time", "--time"),
    ("salloc: error: Job submit/allocate failed: Invalid account or account/partition combination specified",
     "account", "sacctmgr"),
    ("sbatch: error: Batch job submission failed: Invalid partition name specified", "partition", "sinfo -s"),
])
def test_a_slurm_refusal_names_the_part_of_the_request(line, category, word):
    assert slurm.find(line)["category"] == category
    r = diagnose.diagnose(line)
    assert r["signature"] == "slurm-request-refused" and r["layer"] == "env" and word in _fix(r), r


def test_the_line_naming_what_no_node_has_wins_over_the_closing_node_configuration_line():
    r = diagnose.diagnose("sbatch: error: CPU count per node can not be satisfied\nsbatch: error: Memory specification "
                          "can not be satisfied\nsbatch: error: Batch job submission failed: Requested node "
                          "configuration is not available")
    assert r["signature"] == "slurm-request-refused" and "memory" in r["title"] and "--mem" in _fix(r), r


def test_a_tasks_exit_line_is_not_a_refusal():
    assert slurm.find("srun: error: node017: task 0: Exited with exit code 1") is None


def test_the_cgroup_oom_kill_asks_for_more_job_memory():
    r = diagnose.diagnose("/var/spool/slurmd/job4242/slurm_script: line 12: 31337 Killed   python train.py\n"
                          "slurmstepd: error: Detected 2 oom-kill event(s) in StepId=4242.batch. Some of your processes "
                          "may have been killed by the cgroup out-of-memory handler.")
    assert r["signature"] == "slurm-memory-kill" and r["layer"] == "env" and "--mem" in _fix(r), r


def test_a_job_step_without_a_gpu_asks_for_one():
    r = diagnose.diagnose("$ srun python -c 'import torch; print(torch.cuda.is_available())'\nFalse")
    assert r["signature"] == "slurm-step-without-gpu" and r["layer"] == "env" and "--gres=gpu" in _fix(r), r


def test_a_gpu_failing_inside_a_slurm_job_is_not_read_as_no_gpu_requested():
    r = diagnose.diagnose("CUDA error 3 in file AMReX_GpuDevice.cpp line 164: initialization error\n"
                          "srun: error: n042: task 0: Exited with exit code 6")
    assert r is None or r["signature"] != "slurm-step-without-gpu", r


# --- conda on a login node ---------------------------------------------------------------------------------------

def test_conda_on_a_login_node_is_told_the_compute_nodes_driver():
    r = diagnose.diagnose("Installing on the cluster's login node:\n  └─ pytorch 2.1.2 cuda120_py311 requires\n"
                          "     └─ __cuda, which is missing on the system;")
    assert r["signature"] == "conda-solve-on-gpu-less-host" and r["layer"] == "env", r
    assert "CONDA_OVERRIDE_CUDA" in _fix(r)


def test_conda_without_a_driver_elsewhere_stays_the_driver():
    r = diagnose.diagnose("  └─ pytorch 2.1.2 cuda120_py311 requires\n     └─ __cuda, which is missing on the system;")
    assert r["signature"] == "conda-no-cuda-driver" and r["layer"] == "driver", r


# --- distributed backends ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "RuntimeError: Distributed package doesn't have MPI built in. MPI is only included if you build PyTorch from "
    "source on a host that has MPI installed.",
    "AssertionError: Unknown c10d backend type MPI",
])
def test_torch_without_mpi_is_told_its_backends(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "distributed-backend-not-built" and r["layer"] == "distributed", r
    assert "gloo" in _fix(r) and "USE_MPI" in _fix(r) and "MPI" in r["title"]


@pytest.mark.parametrize("backend", ["Gloo", "XCCL"])
def test_a_missing_gloo_or_xccl_is_not_told_to_use_gloo(backend):
    r = diagnose.diagnose(f"RuntimeError: Distributed package doesn't have {backend} built in")
    assert r is None or r["signature"] != "distributed-backend-not-built", r


def test_nccl_not_built_in_is_left_to_its_own_windows_reading():
    r = diagnose.diagnose("RuntimeError: Distributed package doesn't have NCCL built in")
    assert r["signature"] != "distributed-backend-not-built", r


def test_nccl_verbs_calls_failing_is_the_locked_memory_limit():
    r = diagnose.diagnose("node1:123:456 [0] NCCL INFO Using network IB\nnode1:123:789 [0] ibvwrap.c:130 NCCL WARN "
                          "Call to ibv_create_qp failed\nnode1:123:789 [0] NCCL INFO ib_plugin.c:196 -> 2")
    assert r["signature"] == "nccl-ibv-locked-memory" and "ibv_create_qp" in r["title"], r
    assert "memlock" in _fix(r) and "ulimit -l" in _fix(r)


# --- containers and old torch -------------------------------------------------------------------------------------

def test_a_glibc_tag_wanted_by_a_library_apptainer_bound_is_the_container():
    r = diagnose.diagnose("ImportError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.35' not found (required by "
                          "/.singularity.d/libs/libEGL_nvidia.so.0)")
    assert r["signature"] == "host-library-newer-than-container" and r["layer"] == "container", r
    assert "nvliblist.conf" in _fix(r) and "GLIBC_2.35" in r["title"]


def test_a_glibc_tag_wanted_by_a_wheel_stays_the_c_runtime():
    r = diagnose.diagnose("ImportError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by "
                          "/opt/venv/lib/python3.11/site-packages/foo/_foo.so)")
    assert r["layer"] == "c-runtime", r


def test_torch_1_0_looking_up_libcudart():
    r = diagnose.diagnose("RuntimeError: couldn't find libcudart. Make sure CUDA libraries are installed in a default "
                          "location, or that they're in LD_LIBRARY_PATH.")
    assert r["signature"] == "old-torch-cudart-lookup" and r["layer"] == "libraries" and "LD_LIBRARY_PATH" in _fix(r), r
