"""The fleet report for people: terminal text and Markdown (and JSON, schema torch_envcheck.fleet/1).
Every value that came from a rank (versions, hosts, variables, messages built from them) is passed
through torch_envcheck._util.escape for where it lands: a rank's snapshot is input from a stranger."""

from __future__ import annotations

import json
import textwrap

from torch_envcheck._util.escape import md_code_block, md_inline_code, md_text, terminal
from torch_envcheck.doctor.report import findings_from
from torch_envcheck.fleet import table
from torch_envcheck.fleet.records import rank_report

MARKS = {"ok": "✓", "warning": "!", "failure": "✗", "bullet": "•"}
ASCII = {"ok": "+", "warning": "!", "failure": "x", "bullet": "-"}
MD_MARK = {"ok": "✅", "warning": "⚠️", "failure": "❌"}
SEV_ORDER = {"failure": 0, "warning": 1, "ok": 2}


def human_bytes(n) -> str:
    if not isinstance(n, (int, float)) or isinstance(n, bool):
        return "?"
    n = int(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _hosts(records) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for r in records:
        host = (r.get("rank_facts") or {}).get("host") if isinstance(r.get("rank_facts"), dict) else None
        out.setdefault(str(host) if host else "(unknown host)", []).append(r["rank"])
    return out


def rank_findings(records, severity: str) -> list[dict]:
    """Findings of one severity across ranks, grouped by (code, message): [{finding, ranks}]."""
    by: dict[tuple, dict] = {}
    for r in records:
        rep = rank_report(r)
        # a finding another one explains is shown under its cause by the doctor, not here
        for f in rep.causes if rep is not None else ():
            if f.severity == severity:
                g = by.setdefault((f.code, f.message), {"finding": f, "ranks": []})
                g["ranks"].append(r["rank"])
    return sorted(by.values(), key=lambda g: (g["ranks"][0], g["finding"].code))


def common_facts(fleet) -> list[tuple[str, str]]:
    """Facts every rank with a snapshot agrees on (shown once, so the table can show only differences)."""
    return [(c.get("label"), c.get("value")) for c in fleet.get("same_on_every_rank") or [] if isinstance(c, dict)]


def fleet_findings(fleet) -> list:
    """The fleet's own findings (Finding), failures first."""
    return sorted(findings_from(fleet.get("findings")), key=lambda f: SEV_ORDER.get(f.severity, 3))


def _where(records_by_rank, ranks) -> str:
    hosts = sorted({str((records_by_rank[r].get("rank_facts") or {}).get("host"))
                    for r in ranks if isinstance(records_by_rank[r].get("rank_facts"), dict)
                    and (records_by_rank[r].get("rank_facts") or {}).get("host")})
    label = table.ranks_label(ranks)
    if not hosts:
        return label
    return f"{label} on {', '.join(hosts[:3])}{f' +{len(hosts) - 3} hosts' if len(hosts) > 3 else ''}"


def _bw_rows(bw) -> list[dict]:
    rows = []
    for op, entries in (bw.get("ops") or {}).items():
        for e in entries or []:
            if isinstance(e, dict):
                rows.append(dict(e, op=op))
    return rows


def rate(gbps) -> str:
    """A bandwidth in GB/s (1e9 bytes/s, as nccl-tests counts) with a unit that keeps it readable."""
    if not isinstance(gbps, (int, float)) or isinstance(gbps, bool):
        return "-"
    bps = gbps * 1e9
    for unit, size in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if bps >= size:
            return f"{bps / size:.3g} {unit}"
    return f"{bps:.3g} B/s"


def _num(v, fmt: str) -> str:
    return format(v, fmt) if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def bandwidth_title(bw) -> str:
    if not bw.get("ops"):
        return f"backend {bw.get('backend')}"
    return (f"backend {bw.get('backend')}, {bw.get('device')}, {bw.get('world_size')} ranks, "
            f"link: {bw.get('link') or 'unknown'}; median of {bw.get('iters')} iterations after "
            f"{bw.get('warmup')} warm-up, timed with {bw.get('timer')}")


# ---------------------------------------------------------------------------------------- terminal

def terminal_lines(fleet: dict, unicode: bool = True, width: int = 100, verbose: bool = False) -> list[str]:
    m = MARKS if unicode else ASCII
    t = terminal
    records = [r for r in fleet.get("ranks") or [] if isinstance(r, dict)]
    by_rank = {r["rank"]: r for r in records}
    v = fleet.get("verdict") or {}
    hosts = _hosts(records)
    out = [f"torch-envcheck fleet {t(fleet.get('tool_version'))}  ({len(records)} rank{'s' if len(records) != 1 else ''} on {len(hosts)} "
           f"host{'s' if len(hosts) != 1 else ''}, report of {t(fleet.get('created'))})", ""]
    out.append(f"[{m.get(v.get('status'), '?')}] Fleet: {t(v.get('text'))}")
    for host, ranks in sorted(hosts.items(), key=lambda kv: kv[1][0])[:16 if not verbose else None]:
        out.append(f"    {t(host)}: {table.ranks_label(ranks)}")
    if len(hosts) > 16 and not verbose:
        out.append(f"    ... and {len(hosts) - 16} more hosts (--verbose lists them)")
    out.append("")

    rows = fleet.get("heterogeneity") or []
    if rows:
        out.append("What differs across ranks:")
        lw = min(26, max(len(str(r.get("label"))) for r in rows))
        for row in rows:
            groups = row.get("groups") or []
            first = True
            for g in groups[: (None if verbose else 8)]:
                label = t(row.get("label")).ljust(lw) if first else " " * lw
                hosts_note = f"  [{', '.join(t(h) for h in g['hosts'][:2])}{' +' + str(len(g['hosts']) - 2) if len(g['hosts']) > 2 else ''}]" \
                    if g.get("hosts") and len(hosts) > 1 else ""
                out.append(f"  {label}  {table.ranks_label(g['ranks'])}: {t(g['value'])}{hosts_note}")
                first = False
            if len(groups) > 8 and not verbose:
                out.append(f"  {' ' * lw}  ... {len(groups) - 8} more groups")
    else:
        out.append("What differs across ranks: nothing (of the facts below)")
    same = common_facts(fleet)
    if same:
        out += textwrap.wrap("Same on every rank: " + "; ".join(f"{t(k)} {t(val)}" for k, val in same), width - 2,
                             initial_indent="  ", subsequent_indent="    ")
    out.append("")

    out.append("Fleet findings:")
    for f in fleet_findings(fleet):
        sev = f.severity
        out.append(f"  {m['bullet'] if sev == 'ok' else m.get(sev, '!')} {t(f.code)} {t(f.message)}")
        if f.explanation and sev != "ok":
            out += textwrap.wrap(t(f.explanation), width - 6, initial_indent="      ", subsequent_indent="      ")
        if f.fix and sev != "ok":
            out.append(f"      fix: {t(f.fix)}")
    out.append("")

    for sev, title in (("failure", "Each rank's failures"), ("warning", "Warnings on ranks")):
        groups = rank_findings(records, sev)
        if not groups:
            if sev == "failure":
                out += [f"{title}: none", ""]
            continue
        out.append(f"{title}:")
        for g in groups:
            f = g["finding"]
            out.append(f"  {m[sev]} {t(f.code)} {t(f.message)}")
            out.append(f"      on {t(_where(by_rank, g['ranks']))}")
            if sev == "failure" or verbose:
                if f.explanation:
                    out += textwrap.wrap(t(f.explanation), width - 6, initial_indent="      ",
                                         subsequent_indent="      ")
            if f.fix:
                for line in f.fix.splitlines()[:6]:
                    out.append(f"      fix: {t(line)}")
        out.append("")

    out += preflight_terminal(fleet)
    out += bandwidth_terminal(fleet.get("bandwidth"))
    for e in fleet.get("errors") or []:
        out.append(f"{m['failure']} fleet error: {t(e)}")
    mark = m.get(v.get("status"), "?")
    final = {"ok": "The fleet is healthy.", "warning": "No failures; see the warnings above.",
             "failure": "The fleet needs fixing (see above)."}.get(v.get("status"), "")
    out.append(f"{mark} {final} {t(v.get('text'))}")
    return out


def preflight_terminal(report: dict) -> list[str]:
    """The preflight's page: one row per node, the nodes to exclude first, then the exclude list."""
    if not isinstance(report.get("preflight"), dict):
        return []
    from torch_envcheck.fleet import nodes  # noqa: PLC0415
    t = terminal
    pf = report["preflight"]
    out = [f"Preflight ({t(pf.get('device') or 'not run')}; matmul {t(pf.get('matmul_n'))}^3 float32, "
           f"triad, ring ping-pong of {human_bytes(pf.get('link_bytes') or 0)}; fastest of several runs):"]
    out.append(f"  {'node':<20} {'ranks':<12} {'matmul':>11} {'triad':>10} {'link (ms)':>10}  {'health':<24} verdict")
    for r in nodes.rows(report):
        out.append(f"  {t(r['host'])[:20]:<20} {t(r['ranks'])[:12]:<12} {nodes.fmt(r['matmul_gflops'], '.1f'):>6} GF/s "
                   f"{nodes.fmt(r['triad_gbps'], '.1f'):>5} GB/s {nodes.fmt(r['link_ms'], '.2f'):>10}  "
                   f"{t(r['health'])[:24]:<24} {'EXCLUDE' if r['exclude'] else 'ok'}")
    ex = report.get("exclude") or {}
    out.append(f"  exclude: {t(ex.get('slurm')) or 'none'}" + (f"   (sbatch --exclude={t(ex.get('slurm'))})"
                                                               if ex.get("slurm") else ""))
    out.append("")
    return out


def preflight_markdown(report: dict) -> list[str]:
    if not isinstance(report.get("preflight"), dict):
        return []
    from torch_envcheck.fleet import nodes  # noqa: PLC0415
    out = ["", "#### Preflight: nodes", "", "| Node | Ranks | Stack | matmul GFLOP/s | triad GB/s | link ms | Health | Verdict |",
           "|---|---|---|---:|---:|---:|---|---|"]
    for r in nodes.rows(report):
        out.append(f"| {md_text(r['host'])} | {md_text(r['ranks'])} | {md_text(r['stack'])} | "
                   f"{nodes.fmt(r['matmul_gflops'], '.1f')} | {nodes.fmt(r['triad_gbps'], '.1f')} | "
                   f"{nodes.fmt(r['link_ms'], '.2f')} | {md_text(r['health'])} | {'**exclude**' if r['exclude'] else 'ok'} |")
    slurm = (report.get("exclude") or {}).get("slurm")
    out += ["", f"Exclude: {md_inline_code(slurm) if slurm else 'none'}"]
    return out


def bandwidth_terminal(bw) -> list[str]:
    if not isinstance(bw, dict):
        return []
    t = terminal
    out = [f"Collective bandwidth ({t(bandwidth_title(bw))}):"]
    rows = _bw_rows(bw)
    if rows:
        out.append(f"  {'op':<11} {'size':>9} {'iters':>6} {'time (us)':>11} {'algbw':>11} {'busbw':>11}")
        for r in rows:
            out.append(f"  {t(r['op']):<11} {human_bytes(r.get('bytes', 0)):>9} {_num(r.get('iters'), 'd'):>6} "
                       f"{_num(r.get('time_us'), '.1f'):>11} {rate(r.get('algbw_gbps')):>11} "
                       f"{rate(r.get('busbw_gbps')):>11}")
    for key in ("cap_note", "budget_note"):
        if bw.get(key):
            out.append(f"  {t(bw[key])}")
    if bw.get("error"):
        out.append(f"  stopped: {t(bw['error'])}")
    if bw.get("skipped"):
        out.append(f"  not measured: {t(bw['skipped'])}")
    out.append("")
    return out


def to_terminal(fleet: dict, unicode: bool = True, verbose: bool = False) -> str:
    return "\n".join(terminal_lines(fleet, unicode=unicode, verbose=verbose)) + "\n"


# ---------------------------------------------------------------------------------------- Markdown

def to_markdown(fleet: dict) -> str:
    records = [r for r in fleet.get("ranks") or [] if isinstance(r, dict)]
    by_rank = {r["rank"]: r for r in records}
    v = fleet.get("verdict") or {}
    hosts = _hosts(records)
    out = [f"### torch-envcheck fleet {md_text(fleet.get('tool_version'))} report", "",
           f"{MD_MARK.get(v.get('status'), '')} **{md_text(v.get('text'))}** "
           f"({len(records)} ranks on {len(hosts)} host{'s' if len(hosts) != 1 else ''})", ""]
    rows = fleet.get("heterogeneity") or []
    out += ["#### What differs across ranks", ""]
    if rows:
        out += ["| Fact | Ranks | Value | Hosts |", "|---|---|---|---|"]
        for row in rows:
            for i, g in enumerate(row.get("groups") or []):
                hs = ", ".join(md_text(h) for h in g.get("hosts", [])[:4]) + \
                    (f" +{len(g['hosts']) - 4}" if len(g.get("hosts", [])) > 4 else "")
                # md_text, not inline code, in a table: GFM splits cells at a `|` even inside code
                out.append(f"| {md_text(row.get('label')) if i == 0 else ''} | {table.rank_ranges(g['ranks'], table.LABEL_LIMIT)} | "
                           f"{md_text(g['value'])} | {hs} |")
    else:
        out.append("Nothing: every rank agrees on the facts below.")
    same = common_facts(fleet)
    if same:
        out += ["", "Same on every rank: " + "; ".join(f"{md_text(k)} {md_inline_code(val)}" for k, val in same)]
    out += ["", "#### Fleet findings", ""]
    for f in fleet_findings(fleet):
        out.append(f"- {MD_MARK.get(f.severity, '')} **{md_text(f.code)}** {md_text(f.message)}")
        if f.fix and f.severity != "ok":
            out += ["", "  " + md_code_block(f.fix).replace("\n", "\n  ")]
    for sev, title in (("failure", "Each rank's failures"), ("warning", "Warnings on ranks")):
        groups = rank_findings(records, sev)
        if not groups and sev == "warning":
            continue
        out += ["", f"#### {title}", ""]
        if not groups:
            out.append("None.")
        for g in groups:
            f = g["finding"]
            out.append(f"- {MD_MARK[sev]} **{md_text(f.code)}** {md_text(f.message)} "
                       f"(on {md_text(_where(by_rank, g['ranks']))})")
            if f.fix:
                out += ["", "  " + md_code_block(f.fix).replace("\n", "\n  ")]
    out += preflight_markdown(fleet)
    bw = fleet.get("bandwidth")
    if isinstance(bw, dict):
        out += ["", "#### Collective bandwidth", "", md_text(bandwidth_title(bw)), ""]
        rows = _bw_rows(bw)
        if rows:
            out += ["| op | size | iterations | time (us) | algbw | busbw |", "|---|---:|---:|---:|---:|---:|"]
            for r in rows:
                out.append(f"| {md_text(r['op'])} | {human_bytes(r.get('bytes', 0))} | {_num(r.get('iters'), 'd')} | "
                           f"{_num(r.get('time_us'), '.1f')} | {rate(r.get('algbw_gbps'))} | "
                           f"{rate(r.get('busbw_gbps'))} |")
        for key in ("cap_note", "budget_note", "error", "skipped"):
            if bw.get(key):
                out += ["", md_text(f"{key.replace('_', ' ')}: {bw[key]}")]
    for e in fleet.get("errors") or []:
        out += ["", f"- ❌ fleet error: {md_text(e)}"]
    out += ["", "The full fleet, with every rank's snapshot: `torch-envcheck fleet --json`; one rank again: "
                "`torch-envcheck fleet --from-json FILE --rank N`.", ""]
    return "\n".join(out)


def to_json(fleet: dict) -> str:
    # Indented for a fleet a person reads; compact beyond that: json's C encoder only runs
    # without indent, and a 1024-rank report is 10 MB that the indenting encoder takes seconds over.
    small = len(fleet.get("ranks") or []) <= 64
    return json.dumps(fleet, indent=1 if small else None, separators=None if small else (",", ":"),
                      ensure_ascii=False) + "\n"
