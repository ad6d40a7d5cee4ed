"""Findings only a fleet can have (codes TE940-TE957, area "fleet"): ranks that are missing, late or
unreadable; mixed torch, NCCL, cuDNN, Python or GPU generations; a node whose driver is behind;
ranks with identical stacks but different results; NCCL_* settings that differ; the process group,
the barrier and the bandwidth run.  Pure functions of the rank records (and of the group/bandwidth
results rank 0 measured); each rank's own findings come from the doctor's rules."""

from __future__ import annotations

from torch_envcheck._util import versions
from torch_envcheck._util.escape import requirement_version
from torch_envcheck.advice import recommend as A
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F
from torch_envcheck.fleet import health_rules
from torch_envcheck.fleet import table
from torch_envcheck.fleet.health_rules import exclude_hosts  # noqa: F401  (aggregate asks rules for it)
from torch_envcheck.fleet.records import counted, rank_report
from torch_envcheck.fleet.table import ranks_label


def _where(records, ranks) -> str:
    wanted = set(ranks)
    hosts = sorted({table.row(r)["host"] for r in records if r["rank"] in wanted} - {None})
    if not hosts:
        return ranks_label(ranks)
    shown = ", ".join(hosts[:3]) + (f" and {len(hosts) - 3} more" if len(hosts) > 3 else "")
    return f"{ranks_label(ranks)} ({'host' if len(hosts) == 1 else 'hosts'} {shown})"


def _split(groups) -> str:
    return "; ".join(f"{ranks_label(g['ranks'])}: {g['value']}" for g in groups[:6]) + \
        (f"; and {len(groups) - 6} more groups" if len(groups) > 6 else "")


def _details(groups) -> dict:
    return {"groups": [{"value": g["value"], "ranks": table.rank_ranges(g["ranks"]), "hosts": g["hosts"][:16]}
                       for g in groups]}


def rank_status(records, timeout: float | None) -> list[dict]:
    out = []
    within = f" within {timeout:g} s" if timeout else ""
    missing = [r["rank"] for r in records if r["status"] == "missing"]
    if missing:
        out.append(finding(
            "TE941", "failure", f"{ranks_label(missing)} never reached rank 0{within}",
            "These ranks never wrote to the rendezvous store: the process died before joining (an import "
            "error, an out-of-memory kill, a crash), was never started, or cannot reach MASTER_ADDR:MASTER_PORT. "
            "Their own output (stderr of the launcher) says why.",
            "python -m torch_envcheck   # on the node of a missing rank, in the job's environment",
            {"ranks": table.rank_ranges(missing)}))
    late = [r for r in records if r["status"] == "late"]
    if late:
        by_reason: dict[str, list[int]] = {}
        for r in late:
            by_reason.setdefault(r.get("error") or "no snapshot", []).append(r["rank"])
        why = "; ".join(f"{ranks_label(rs)}: {reason}" for reason, rs in sorted(by_reason.items(), key=lambda kv: kv[1][0])[:8])
        out.append(finding(
            "TE942", "failure", f"{_where(records, [r['rank'] for r in late])} arrived but sent no usable snapshot"
                                f"{within} ({why})",
            "The rank reached the store, so it runs and can reach rank 0, but its probes did not finish in time: "
            "usually a GPU or driver call that hangs (a GPU in a bad state, a stuck nvidia-smi). "
            "Run the doctor on that node to see which probe hangs.",
            "python -m torch_envcheck --verbose   # on the node of a late rank", {"ranks": table.rank_ranges([r["rank"] for r in late]),
                                                   "reasons": {k: table.rank_ranges(v) for k, v in list(by_reason.items())[:16]}}))
    bad = [r for r in records if r["status"] == "garbage"]
    if bad:
        out.append(finding(
            "TE943", "failure", f"{_where(records, [r['rank'] for r in bad])} sent a snapshot rank 0 cannot read: "
                                f"{bad[0].get('error')}",
            "The payload was truncated, from another version of torch_envcheck, or not a snapshot at all. "
            "Install the same torch_envcheck on every node.",
            "pip install --upgrade torch_envcheck   # the same version on every node",
            {"ranks": table.rank_ranges([r["rank"] for r in bad]),
             "errors": sorted({str(r.get("error")) for r in bad})[:16]}))
    return out


def _mixed(records, key, code, severity, what, explanation, fix=None) -> list[dict]:
    have = [r for r in records if isinstance(r.get("snapshot"), dict)]
    gs = [g for g in table.groups(have, key) if g["value"] not in (table.UNKNOWN, "none")]
    if len(gs) < 2:
        return []
    fix_text = fix(gs) if callable(fix) else fix
    return [finding(code, severity, f"{what} differ across ranks: {_split(gs)}", explanation, fix_text, _details(gs))]


def _torch_fix(gs) -> str | None:
    v = requirement_version(gs[0]["value"])
    if not v:
        return None
    release, _, local = v.partition("+")
    tag = A.index_tag(local)
    index = f" --index-url {A.index_url(tag)}" if tag else ""
    return (f"python -m pip install \"torch=={release}\"{index}   # on "
            f"{ranks_label([r for g in gs[1:] for r in g['ranks']])}, to match the others")


def mixed_versions(records) -> list[dict]:
    out = []
    out += _mixed(records, "torch", "TE944", "failure", "torch versions",
                  "Every rank of one job should run the same torch: collectives, DDP's bucketing and anything "
                  "pickled between ranks assume it, and a mismatch fails (or silently diverges) in ways that are hard "
                  "to trace back. The majority's build is listed first.", _torch_fix)
    out += _mixed(records, "nccl", "TE945", "failure", "NCCL versions",
                  "NCCL's wire protocol is only guaranteed between ranks that run the same NCCL; mixed versions hang or "
                  "fail at the first collective. torch wheels bundle NCCL (nvidia-nccl-cu*), so this follows a torch "
                  "or nvidia-nccl package that differs between nodes.",
                  "pip install the same torch (and nvidia-nccl-cu* package) on every node")
    out += _mixed(records, "cudnn", "TE946", "warning", "cuDNN versions",
                  "Different cuDNN versions pick different convolution algorithms, so ranks compute slightly "
                  "different results and run at different speeds.", None)
    out += _mixed(records, "python", "TE951", "warning", "Python versions",
                  "Different Pythons mean different wheels (and often different torch builds) on the nodes.", None)
    return out


def _major(cap: str):
    return versions.major(cap)


def gpu_generations(records) -> list[dict]:
    have = [r for r in records if isinstance(r.get("snapshot"), dict)]
    gs = [g for g in table.groups(have, "capability") if g["value"] not in (table.UNKNOWN, "none")]
    if len({_major(g["value"]) for g in gs}) < 2:
        return []
    names = {}
    for g in gs:
        members = set(g["ranks"])
        names[g["value"]] = table.groups([r for r in have if r["rank"] in members], "gpu")[0]["value"]
    return [finding("TE947", "warning",
                    "the ranks use GPUs of different generations: " +
                    "; ".join(f"{ranks_label(g['ranks'])}: {names[g['value']]} ({g['value']})" for g in gs[:6]),
                    "In data-parallel training every step waits for the slowest rank, and kernels that need the "
                    "newer generation (bf16, FP8, TMA) are unavailable on the older one.", None, _details(gs))]


def _version_key(v: str):
    return versions.version_tuple(v) or ()


def driver_behind(records) -> list[dict]:
    """Nodes whose driver is older than the one most nodes run (per driver OS: a Windows driver's
    number says nothing about a Linux one's)."""
    out = []
    have = [r for r in records if isinstance(r.get("snapshot"), dict) and F.driver_version(r["snapshot"])]
    for os_name in sorted({F.driver_os(r["snapshot"]) for r in have}):
        same_os = [r for r in have if F.driver_os(r["snapshot"]) == os_name]
        gs = table.groups(same_os, "driver")
        if len(gs) < 2:
            continue
        usual = max(gs, key=lambda g: (len(g["hosts"]) or len(g["ranks"]), _version_key(g["value"])))["value"]
        for g in gs:
            if _version_key(g["value"]) >= _version_key(usual):
                continue
            out.append(finding("TE948", "warning",
                               f"{_where(records, g['ranks'])} {'runs' if len(g['hosts']) <= 1 else 'run'} NVIDIA "
                               f"driver {g['value']}, behind the {usual} of most nodes",
                               "A node with an older driver supports fewer CUDA versions (a torch upgrade can break "
                               "there first) and may lack fixes the others have; keep one driver across the fleet.",
                               f"# on {', '.join(g['hosts'][:8]) or 'those nodes'}"
                               f"{' and the others listed' if len(g['hosts']) > 8 else ''}: install NVIDIA "
                               f"driver {usual} (your distribution's package), reboot, then check:\nnvidia-smi",
                               {"ranks": table.rank_ranges(g["ranks"]), "hosts": g["hosts"][:64], "driver": g["value"],
                                "usual": usual, "driver_os": os_name}))
    return out


def same_stack_different_results(records) -> list[dict]:
    """Ranks whose stacks agree on every table column (the NCCL_* variables too) but whose own
    findings differ: the cause is the hardware or the node's state, not the software."""
    have = [r for r in records if isinstance(r.get("snapshot"), dict) and isinstance(r.get("report"), dict)]
    keys = [c[0] for c in table.columns(have)]
    stacks: dict[tuple, list] = {}
    for r in have:
        stacks.setdefault(tuple(table.value(r, k) for k in keys), []).append(r)
    out = []
    for members in stacks.values():
        by_result: dict[tuple, list[int]] = {}
        for r in members:
            codes = tuple(sorted({f.code for f in rank_report(r).problems}))
            by_result.setdefault(codes, []).append(r["rank"])
        if len(by_result) < 2:
            continue
        parts = sorted(by_result.items(), key=lambda kv: -len(kv[1]))
        desc = "; ".join(f"{ranks_label(rs)}: {', '.join(c) if c else 'no problems'}" for c, rs in parts[:6])
        out.append(finding("TE949", "warning", f"ranks with identical stacks report different results: {desc}",
                           "Same torch, driver, GPU model and settings, different findings: look at the hardware and "
                           "the state of the odd node (a GPU fallen off the bus, a GPU in a bad state, a full disk, "
                           "another process holding the GPU). Their own findings are listed below.",
                           None, {"groups": [{"codes": list(c), "ranks": table.rank_ranges(rs)} for c, rs in parts]}))
    return out


def nccl_env_differs(records) -> list[dict]:
    have = [r for r in records if isinstance(r.get("snapshot"), dict)]
    out = []
    for name in table.nccl_var_names(have):
        gs = table.groups(have, f"env:{name}")
        if len(gs) > 1:
            out.append(finding("TE950", "warning", f"{name} differs across ranks: {_split(gs)}",
                               "NCCL reads its settings on every rank; transports, protocols and interfaces that "
                               "disagree make communicators fall back to slower paths or hang at the first "
                               "collective. Export the same NCCL_* variables on every node (in the job script, "
                               "not in one node's shell profile).", None, _details(gs)))
    return out


def gpu_count_differs(records) -> list[dict]:
    have = [r for r in records if isinstance(r.get("snapshot"), dict)]
    per_host: dict[str, set] = {}
    for r in have:
        host = table.row(r)["host"] or f"rank {r['rank']}"
        per_host.setdefault(host, set()).add(len(F.driver_gpus(r["snapshot"])) or len(F.gpus(r["snapshot"])))
    counts = {h: max(c) for h, c in per_host.items()}
    if len(set(counts.values())) < 2 or max(counts.values()) == 0:
        return []
    most = max(counts.values())
    short = sorted(h for h, c in counts.items() if c < most)
    return [finding("TE952", "warning",
                    f"{', '.join(short[:8])}{' and more' if len(short) > 8 else ''} "
                    f"{'sees' if len(short) == 1 else 'see'} fewer GPUs than the other nodes ({most})",
                    "Nodes of one job are usually identical; a node that lists fewer GPUs often has one that fell "
                    "off the bus (Xid 79) or is held by the driver in a bad state. `nvidia-smi` on that node and the "
                    "kernel log (dmesg) say which.", "nvidia-smi; sudo dmesg | grep -i xid",
                    {"gpus_per_host": {h: counts[h] for h in sorted(counts)[:256]}})]


def gpu_shared(records) -> list[dict]:
    shared = [r["rank"] for r in records if F.dig(r, "rank_facts", "device", "shared") is True]
    if not shared:
        return []
    return [finding("TE953", "warning", f"{_where(records, shared)} share a GPU with another rank of the same node",
                    "There are more ranks on these nodes than GPUs visible to them, so cuda:LOCAL_RANK wraps around "
                    "and two ranks use one GPU (NCCL refuses that: 'Duplicate GPU detected').",
                    "torchrun --nproc-per-node <number of GPUs per node> ...", {"ranks": table.rank_ranges(shared)})]


def rank_failures(records) -> list[dict]:
    failing = [r["rank"] for r in records if counted(r, "failure")]
    if not failing:
        return []
    return [finding("TE957", "failure", f"{_where(records, failing)} {'has' if len(failing) == 1 else 'have'} "
                                        "failures of their own (listed under each rank)",
                    "The doctor found problems in these ranks' environments; the fix for each is given with it.",
                    None, {"ranks": table.rank_ranges(failing)})]


def group_results(group: dict | None, bandwidth: dict | None) -> list[dict]:
    out = []
    group = group if isinstance(group, dict) else {}
    if group.get("error"):
        out.append(finding("TE954", "failure", f"the ranks could not form a gloo process group: {group['error']}",
                           "Every rank sent its snapshot over the store, but the process group (gloo, over TCP) did "
                           "not come up: a firewall between nodes, a wrong network interface (GLOO_SOCKET_IFNAME), or "
                           "a rank that died after sending its snapshot.",
                           "export GLOO_SOCKET_IFNAME=<the interface the nodes share>  # and NCCL_SOCKET_IFNAME",
                           {"stage": group.get("stage")}))
    missing = group.get("barrier_missing")
    if missing:
        out.append(finding("TE955", "failure",
                           f"monitored_barrier: {ranks_label(missing)} did not reach the barrier",
                           "These ranks sent snapshots but did not get to the barrier after them: they died or hung "
                           "in between.", None, {"ranks": table.rank_ranges(missing)}))
    bw = bandwidth if isinstance(bandwidth, dict) else {}
    if bw.get("error"):
        out.append(finding("TE956", "warning", f"the bandwidth measurement failed: {bw['error']}",
                           "The ranks formed a group but a collective failed or timed out part-way; the sizes "
                           "measured before it are kept.", None, {}))
    return out


RULES = (rank_status, mixed_versions, gpu_generations, driver_behind, same_stack_different_results,
         nccl_env_differs, gpu_count_differs, gpu_shared, rank_failures)


def evaluate(records, group=None, bandwidth=None, timeout=None, errors: list | None = None,
             preflight=None, analysis=None) -> list[dict]:
    """Every fleet finding; a rule that trips over odd input is skipped and named in `errors`
    (the others still run)."""
    out, health = [], []
    calls = [(rule, (records, timeout) if rule is rank_status else (records,), out) for rule in RULES]
    calls += [(health_rules.gpu_health, (records,), health),
              (health_rules.preflight, (records, analysis, preflight), health)]
    failed = []
    for rule, rule_args, into in calls:
        try:
            into += rule(*rule_args)
        except Exception as exc:  # noqa: BLE001
            failed.append(f"the fleet rule {rule.__name__} could not run: {type(exc).__name__}: {exc}")
    if errors is not None:
        errors += failed
    group_found = group_results(group, bandwidth)
    # TE940 says the ranks reported and their stacks match: the GPUs' health and the preflight's timings
    # (a slow node or link) are findings beside it, not reasons to withhold it.
    stacks_ok = not any(f.is_problem for f in out + group_found) and not failed and not errors
    out += health + group_found
    if stacks_ok:
        n = len(records)
        out.insert(0, finding("TE940", "ok", f"all {n} rank{'s' if n != 1 else ''} reported and their stacks match",
                              "", None, {}))
    return out
