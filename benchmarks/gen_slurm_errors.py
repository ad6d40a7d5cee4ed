"""Maintainers' script (not shipped): knowledge/data/slurm_errors.json, the messages Slurm's commands (sbatch, srun,
salloc) print when the controller refuses a job, read from Slurm's own source at a stated commit.

Two places hold them:
  src/common/slurm_errno.c   the ESLURM_* codes and their strings, one `ERRTAB_ENTRY(ESLURM_NAME), "text"` pair each
                             (what slurm_strerror() prints after "sbatch: error: Batch job submission failed: ")
  src/slurmctld/*.c          the scheduler's own err_msg strings for a request no node can meet ("Memory
                             specification can not be satisfied", "CPU count per node can not be satisfied", ...)

Each message is put in one category by its code's name (or, for the err_msg strings, its first words), the part of
the job's request it is about: gres (GPUs and other generic resources), memory, partition, time, account (account,
QOS, association, accounting policy), nodes (node count, CPUs, features, the configuration asked for), other.
Only the categories a job script can change are shipped; messages of the administrators' own commands are not.

    python benchmarks/gen_slurm_errors.py --slurm-src /path/to/slurm --commit <sha> [--write]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys

REPO = "https://github.com/SchedMD/slurm"
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "torch_envcheck", "knowledge", "data",
                     "slurm_errors.json")

_ENTRY = re.compile(r'ERRTAB_ENTRY\((?P<name>ESLURM_\w+)\)\s*,\s*(?P<text>(?:"(?:[^"\\]|\\.)*"\s*)+)')
_ERR_MSG = re.compile(r'err_msg\s*=\s*xstrdup\(\s*(?P<text>(?:"(?:[^"\\%]|\\.)*"\s*)+)\)')

# the name's words (split at "_") that say which part of a request a code is about, first hit wins
CATEGORY_WORDS = (("gres", {"GRES", "TRES", "GPU", "GPUS"}), ("memory", {"MEM", "MEMORY"}),
                  ("time", {"TIME", "TIMEOUT", "DEADLINE"}),
                  ("account", {"ACCOUNT", "QOS", "ASSOC", "ACCOUNTING", "WCKEY"}), ("partition", {"PARTITION", "PART"}),
                  ("nodes", {"NODE", "NODES", "CPU", "CPUS", "TASK", "CORE", "SOCKET", "FEATURE", "CONSTRAINT",
                             "SIZE", "LICENSES", "BURST", "CONTIGUOUS", "RESERVATION", "TOPO", "THREAD"}))
# codes only the administrators' commands or the daemons meet (a job script cannot cause or change them)
ADMIN_WORDS = {"LUA", "PARENT", "REMOVE", "TABLE", "EXISTS", "BILLING", "PREEMPTION", "CHANGE", "UPDATE", "AUTH",
               "REBOOT", "STATE", "TRANSITION", "DUP", "OVERLAP", "SKIP", "EMPTY", "POWERED", "IN_USE", "RUNNING",
               "USER_GROUP", "CNT", "ID"}
# err_msg strings: only those about a job's request that no node can meet
_ERR_MSG_KEEP = re.compile(r"can not be satisfied|can not be$|outside of")


def _join(literals: str) -> str:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', literals)
    return "".join(parts).encode("utf-8").decode("unicode_escape").strip()


def category(name: str) -> str:
    """The part of a job's request an ESLURM_* code is about, or 'other' (not a job's request, or the daemons')."""
    rest = name.removeprefix("ESLURM_")
    words = set(rest.split("_"))
    if words & ADMIN_WORDS or any(w in rest for w in ADMIN_WORDS if "_" in w):
        return "other"
    for cat, keys in CATEGORY_WORDS:
        if words & keys:
            return cat
    return "other"


def _msg_category(text: str) -> str:
    t = text.lower()
    return ("memory" if t.startswith("memory") else "nodes")


def parse_errno(src: str) -> list[dict]:
    """[{'name', 'message', 'category'}] of slurm_errno.c's ESLURM_* entries (every one, in file order)."""
    rows, seen = [], set()
    for m in _ENTRY.finditer(src):
        name, text = m.group("name"), _join(m.group("text"))
        if name in seen or not text:
            continue
        seen.add(name)
        rows.append({"name": name, "message": text, "category": category(name)})
    return rows


def parse_err_msgs(src: str) -> list[dict]:
    rows = []
    for m in _ERR_MSG.finditer(src):
        text = _join(m.group("text"))
        if _ERR_MSG_KEEP.search(text):
            rows.append({"name": None, "message": text, "category": _msg_category(text)})
    return rows


def build(slurm_src: str, commit: str) -> dict:
    with open(os.path.join(slurm_src, "src", "common", "slurm_errno.c"), encoding="utf-8") as fh:
        rows = [r for r in parse_errno(fh.read()) if r["category"] != "other"]
    ctld = os.path.join(slurm_src, "src", "slurmctld")
    seen = {r["message"] for r in rows}
    for fname in sorted(os.listdir(ctld)):
        if fname.endswith(".c"):
            with open(os.path.join(ctld, fname), encoding="utf-8", errors="replace") as fh:
                for r in parse_err_msgs(fh.read()):
                    if r["message"] not in seen:
                        seen.add(r["message"])
                        r["file"] = f"src/slurmctld/{fname}"
                        rows.append(r)
    return {"schema_version": 1, "updated": datetime.date.today().isoformat(),
            "description": "Messages Slurm's sbatch/srun/salloc print when the controller refuses a job's request, "
                           "with the part of the request each is about (gres, memory, partition, time, account, "
                           "nodes). Generated by benchmarks/gen_slurm_errors.py from Slurm's source; messages of "
                           "codes about other things (administration, the daemons) are left out.",
            "sources": [{"url": f"{REPO}/blob/{commit}/src/common/slurm_errno.c",
                         "what": "Slurm's error codes (ESLURM_*) and their strings"},
                        {"url": f"{REPO}/tree/{commit}/src/slurmctld",
                         "what": "slurmctld's err_msg strings for a request no node can meet"}],
            "messages": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slurm-src", required=True, help="a checkout of SchedMD/slurm")
    ap.add_argument("--commit", required=True, help="the commit the checkout is at (cited in the table)")
    ap.add_argument("--write", action="store_true", help="write the table (else print a summary)")
    a = ap.parse_args(argv)
    table = build(a.slurm_src, a.commit)
    if a.write:
        with open(TABLE, "w", encoding="utf-8") as fh:
            json.dump(table, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    counts: dict = {}
    for r in table["messages"]:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    print(f"{len(table['messages'])} messages: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
