"""Layer rules for a batch scheduler between the user and the GPU (Slurm): what the job asked for, read from the
scheduler's own messages.

    slurm_request_refused  "sbatch: error: Batch job submission failed: <message>" (srun/salloc alike), the message
                         found in Slurm's own table (knowledge/slurm) -> the part of the request it names: GPUs
                         (--gres/--gpus), memory (--mem), partition, time limit, account/QOS, nodes/CPUs
    slurm_memory_kill    slurmstepd's "oom-kill event(s)" / "Exceeded job memory limit" -> the job's memory request
                         (--mem, --mem-per-cpu, --mem-per-gpu), or less host memory used
    slurm_step_without_gpu  a Slurm job step (srun, sbatch, SLURM_* lines) in which CUDA finds no GPU -> the job
                         asked for none (--gres=gpu:N / --gpus=N)
    module_unknown       Lmod's "The following module(s) are unknown" (Environment Modules' "Unable to locate a
                         modulefile") -> env: module spider, and the modules its hierarchy needs first
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import slurm

_GRES_SOURCE = {"url": "https://slurm.schedmd.com/gres.html", "what": "Slurm: generic resources (GPUs), --gres and --gpus"}
_SBATCH_SOURCE = {"url": "https://slurm.schedmd.com/sbatch.html", "what": "sbatch's options: --gres, --gpus, --mem, "
                  "--partition, --time, --account, --qos"}

# what to change in the job for each part of the request a refusal names
_FIX = {
    "gres": ("the GPUs it asks for", "Ask for GPUs the way this cluster names them: `sinfo -o \"%P %G\"` lists each "
             "partition's generic resources (e.g. gpu:a100:4); request no more per node than that, with `#SBATCH "
             "--gres=gpu:1` or `--gpus=1` (a type only if the partition lists one: `--gres=gpu:a100:1`), in a partition "
             "that has GPUs (`-p`)."),
    "memory": ("the memory it asks for", "Ask for memory the nodes have: `sinfo -o \"%P %m\"` prints each partition's "
               "memory per node (MB); lower `--mem` (or use `--mem-per-cpu` / `--mem-per-gpu`) to fit, or drop the "
               "option to take the partition's default."),
    "partition": ("the partition", "Submit to a partition you may use: `sinfo -s` lists them and their state; set it "
                  "with `#SBATCH -p <partition>` (GPU jobs in one that has GPUs)."),
    "time": ("the time limit", "Set a time limit within the partition's: `sinfo -o \"%P %l\"` prints each partition's "
             "maximum; `#SBATCH --time=HH:MM:SS` at or below it."),
    "account": ("the account or QOS", "Submit under an account and QOS you belong to: `sacctmgr show assoc "
                "user=$USER format=account,partition,qos` lists them; set `#SBATCH -A <account>` (and `--qos`), or "
                "ask the cluster's administrators for access."),
    "nodes": ("the nodes, CPUs or features it asks for", "Ask for a shape some node of the partition has: `sinfo -N -o "
              "\"%N %c %m %G %f\"` lists each node's CPUs, memory, GPUs and features; lower --nodes, "
              "--ntasks-per-node, --cpus-per-task or --constraint to fit, or wait for busy or drained nodes."),
}

_SLURM_CMD_ERROR = re.compile(r"\b(?P<cmd>sbatch|srun|salloc|sinfo|scontrol): error: (?P<rest>[^\n]{5,400})")


def slurm_request_refused(ent, text):
    tail = text[-CONTEXT_TAIL:]
    found = []
    for m in _SLURM_CMD_ERROR.finditer(tail):
        row = slurm.find(m.group("rest"))
        if row is not None:
            found.append((m, row))
    if not found:
        return None
    # "Requested node configuration is not available" (nodes) closes the submission after the line that names what
    # no node has (memory, CPUs per node, a GPU type): the specific line wins, the last one among equals
    specific = [f for f in found if f[1]["category"] != "nodes"]
    m, row = (specific or found)[-1]
    what, fix = _FIX[row["category"]]
    sig = _sig("slurm-request-refused", "env", "Slurm refused the job: " + what, 86,
               "Slurm's controller refused the job before it ran: \"{msg}\" is its message for a request no node or "
               "policy of this cluster can meet, here " + what + ". Nothing on a node (driver, CUDA, torch) was "
               "reached yet.", fix=fix, areas=("platform",),
               sources=slurm.sources() + (_SBATCH_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"msg": row["message"].rstrip(".")})


# slurmstepd's task/cgroup plugin: "Detected N oom-kill event(s) in StepId=... cgroup"; the jobacct_gather plugin:
# "Exceeded job memory limit" / "Exceeded step memory limit" (Slurm's src/plugins/task/cgroup, src/interfaces)
_SLURM_OOM = re.compile(r"Detected \d{1,6} oom[-_]kill event\(?s?\)?|slurmstepd[^\n]{0,80}Exceeded (?:job|step) memory "
                        r"limit|oom[-_]kill event\(s\) in StepId")


def slurm_memory_kill(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_SLURM_OOM, tail)
    if m is None:
        return None
    sig = _sig("slurm-memory-kill", "env", "the job used more host memory than it asked Slurm for", 85,
               "Slurm runs each job in a memory cgroup sized by the memory it requested (--mem, --mem-per-cpu, "
               "--mem-per-gpu, or the partition's default per CPU); when the processes use more host RAM than that, "
               "the kernel's out-of-memory handler kills them inside the job, whatever the node has free. This is host "
               "RAM, not GPU memory.",
               fix="Request more memory for the job: `#SBATCH --mem=64G` (or `--mem-per-gpu` / `--mem-per-cpu`; `sinfo "
                   "-o \"%P %m\"` shows what nodes have); `sacct -j <jobid> -o JobID,MaxRSS,ReqMem` shows what it used. "
                   "Or lower the program's host memory: fewer DataLoader workers (each holds a copy of the dataset "
                   "object), memory-mapped data instead of loading it all.",
               areas=("platform",), sources=({"url": "https://slurm.schedmd.com/cgroup.conf.html",
                                              "what": "Slurm: cgroup memory enforcement of a job's requested memory"},
                                             _SBATCH_SOURCE))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# a Slurm job step: its commands, its daemons' lines, its variables and batch-script paths
_SLURM = re.compile(r"\b(?:srun|sbatch|salloc|slurmstepd)\b|#SBATCH|\bSLURM_[A-Z_]{3,30}\b|/slurmd?/|slurm_script")
# CUDA finding no GPU in the process: torch's words, the driver API's, nvidia-smi's
_NO_GPU = re.compile(r"is_available\(\)\)?[^\n]{0,40}\n?[^\n]{0,20}\bFalse\b|CUDA is not available|"
                     r"[Nn]o CUDA GPUs are available|no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|"
                     r"Found no NVIDIA driver on your system|NVIDIA-SMI has failed because it couldn't communicate|"
                     r"No devices were found|device_count\(\)\)?[^\n]{0,40}\n?[^\n]{0,20}\b0\b")


def slurm_step_without_gpu(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if not _SLURM.search(tail):
        return None
    m = last_match(_NO_GPU, tail)
    if m is None:
        return None
    sig = _sig("slurm-step-without-gpu", "env", "the Slurm job step has no GPU: the job did not ask for one", 80,
               "Under Slurm a job sees only the GPUs it was allocated (the node's cgroup hides the others, and "
               "CUDA_VISIBLE_DEVICES is set to the allocated ones): a job that asked for none runs with no GPU, even "
               "on a GPU node, and torch reports CUDA unavailable there while the same command works where the GPUs "
               "are not fenced (a login or staging node).",
               fix="Ask for GPUs in the job: `#SBATCH --gres=gpu:1` (or `--gpus=1` / `--gpus-per-node=1`) in a partition "
                   "with GPUs (`-p`); an `srun` inside the job inherits them, a separate `srun` needs the option too. "
                   "Check inside the job: `echo $CUDA_VISIBLE_DEVICES; nvidia-smi`. If the job did ask for GPUs, "
                   "`scontrol show job $SLURM_JOB_ID` shows what was allocated; a node whose nvidia-smi fails there is "
                   "for the administrators.",
               areas=("platform",), sources=(_GRES_SOURCE, _SBATCH_SOURCE))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# Lmod refusing a module the job or shell asked for ("Lmod has detected the following error: The following module(s)
# are unknown: ..."; Environment Modules: "Unable to locate a modulefile for 'x'"): what that module would have set up
# (a conda, a Python, a CUDA) is missing for everything the script runs after it
_MODULE_UNKNOWN = re.compile(r"The following module\(s\) are unknown:\s{0,4}\"?(?P<mod>[\w./+-]{1,120})\"?|"
                             r"Unable to locate a modulefile for '(?P<mod2>[\w./+-]{1,120})'")


def module_unknown(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_MODULE_UNKNOWN, tail)
    if m is None:
        return None
    mod = m.group("mod") or m.group("mod2")
    sig = _sig("environment-module-unknown", "env", "the module system does not know {mod}: what it sets up is missing",
               84,
               "The site's module system (Lmod or Environment Modules) could not load {mod}: the name or version is "
               "wrong, or in a hierarchy it becomes visible only after another module (a compiler, spack, a stack "
               "release) is loaded. Everything the script does after it (activating a conda environment, importing "
               "torch, finding CUDA) then runs without it.",
               fix="Run `module spider` with the module's name to see its exact versions and the modules to load first, "
                   "then load those before it in the job script (for example `module load spack` and then the "
                   "module); activate the environment that has torch only after the module that provides conda or "
                   "Python loaded.",
               areas=("env",),
               sources=({"url": "https://lmod.readthedocs.io/en/latest/010_user.html",
                         "what": "Lmod: module spider lists a module's versions and what must be loaded before it"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"mod": mod})
