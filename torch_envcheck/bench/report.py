"""Rendering the benchmark report: a terminal table (rich when installed, plain text otherwise); the
roofline figure is plot.py's."""

from __future__ import annotations

import sys

from torch_envcheck.bench.comparable import ratio_text


def _fmt_time(s: float) -> str:
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.1f} us"


def _pct(v) -> str:
    return "-" if v is None else f"{v:.0f}%"


def rows(report: dict) -> list:
    out = []
    for dev, d in report["devices"].items():
        for r in d.get("ops", []):
            rl = r.get("roofline") or {}
            out.append([
                dev, r["op"], "x".join(str(s) for s in r["shape"]),
                _fmt_time(r["custom"]["median_s"]), _fmt_time(r["custom"]["iqr_s"]),
                f"{r['custom']['rate']:.1f} {r['unit']}",
                r["builtin"], _fmt_time(r["builtin_timing"]["median_s"]),
                f"{r['builtin_timing']['rate']:.1f} {r['unit']}",
                ratio_text(r["speed_ratio"], r.get("comparable")), _pct(rl.get("custom_pct")), _pct(rl.get("builtin_pct")),
                f"{rl['intensity']:.2f}" if rl else "-", rl.get("bound_by", "-"),
            ])
    return out


HEADERS = ["device", "op", "shape", "custom median", "IQR", "custom rate", "built-in", "built-in median",
           "built-in rate", "speed ratio", "ours % of bound", "built-in % of bound", "FLOP/byte", "bound by"]


def peak_lines(report: dict) -> list:
    """The measured physical limits, one line per kind, and the classic matmul check."""
    lines = []
    for dev, d in report["devices"].items():
        if "skipped" in d:
            lines.append(f"{dev}: skipped: {d['skipped']}")
            continue
        pk = d["peaks"]
        comp = ", ".join(f"{v} {e['fma']['gflops']:.0f} (FMA) / {e['mixed']['gflops']:.0f} (FMA+add)"
                         for v, e in pk["compute"].items())
        lines.append(f"{dev} peak FP32 GFLOP/s on {pk['threads']} thread(s): {comp}")
        th = pk.get("theoretical") or {}
        if dev == "cpu" and th.get("variants"):
            parts = []
            for v, t in th["variants"].items():
                part = f"{v} {t['flops_per_cycle_per_core']} FLOP/cycle/core"
                part += f" = {t['gflops']:.0f} GFLOP/s at {th['max_clock_ghz']:.2f} GHz" if "gflops" in t else \
                    f" (measured FMA peak implies {t['implied_clock_ghz']:.2f} GHz)"
                parts.append(part)
            lines.append(f"{dev} theoretical ({th['microarchitecture']}; clock {th['clock_source']}): "
                         + "; ".join(parts))
        elif dev == "cpu":
            lines.append(f"{dev} theoretical: {th.get('note', 'unknown')}")
        elif th.get("fp32_gflops") or th.get("memory_gbs"):
            lines.append(f"{dev} published-peak formula ({th.get('name')}): FP32 "
                         f"{th.get('fp32_gflops', float('nan')):.0f} GFLOP/s, memory "
                         f"{th.get('memory_gbs', float('nan')):.0f} GB/s")
        mem = pk["memory"]
        lines.append(f"{dev} memory: read {mem['read']['gbs']:.1f} GB/s, write (non-temporal) "
                     f"{mem['write']['gbs']:.1f} GB/s, copy {mem['copy']['gbs']:.1f} GB/s "
                     f"(working set {mem['working_set_bytes'] / d['cache_bytes']:.0f}x {d['cache_source']} "
                     f"of {d['cache_bytes'] >> 20} MiB)")
    cm = report.get("classic_matmul")
    if cm:
        line = f"classic check: torch.matmul {cm['n']}^3 on CPU {cm['cpu']['gflops']:.1f} GFLOP/s"
        if cm.get("speedup"):
            line += f", on GPU {cm['cuda']['gflops']:.1f} GFLOP/s: GPU speed-up {cm['speedup']:.1f}x"
        else:
            line += f"; GPU part skipped: {cm['cuda'].get('skipped')}"
        lines.append(line)
    load = (report.get("machine") or {}).get("load_average") or {}
    if load.get("start") and load["start"][0] > 0.5:
        lines.append(f"note: load average {load['start'][0]:.2f} at the start ({load.get('cpus')} CPUs): other "
                     "processes were running, so the peaks, the times and the % of bound are less reliable")
    for v in report.get("roofline_violations", []):
        lines.append(f"WARNING: {v}: a measured peak is too low (the bound is wrong, not the op)")
    return lines


def _target_lines(report: dict) -> list:
    lines = []
    for t in report["targets"]:
        if t["met"] is None:
            status = "not judged" if t.get("comparable") is False else "skipped"
            value = t.get("note", "")
        else:
            status = "met" if t["met"] else "MISSED"
            unit = "x" if t["metric"] == "ratio" else "%"  # "pct_bound": % of the roofline bound
            value = f"{t['value']:.2f}{unit}" if unit == "x" else f"{t['value']:.0f}{unit}"
            if t.get("note"):
                value += f" ({t['note']})"
        lines.append((t["device"], t["target"], status, value))
    return lines


def print_report(report: dict, file=None) -> None:
    file = file or sys.stdout
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None
    isa = report.get("cpu_kernel_isa", {})
    head = (f"torch {report['torch']}, {report['threads']} threads, CPU kernels {isa.get('selected')} "
            f"(compiled: {', '.join(isa.get('compiled', []))}); {report['ratio_definition']}")
    dispatch = report.get("builtin_dispatch")
    if dispatch:
        head += f"\nbuilt-ins: {dispatch['summary']}"
    if Console is not None:
        # Not a terminal (a pipe, a file): rich would wrap the wide table at 80 columns.
        console = Console(file=file, width=None if file.isatty() else 200)
        console.print(head)
        table = Table(title="custom kernels vs torch built-ins")
        for h in HEADERS:
            table.add_column(h, overflow="fold")
        for r in rows(report):
            table.add_row(*r)
        console.print(table)
        for line in peak_lines(report):
            console.print(line)
        tt = Table(title="targets")
        for h in ("device", "target", "status", "value"):
            tt.add_column(h)
        for dev, target, status, value in _target_lines(report):
            style = {"met": "green", "MISSED": "red"}.get(status, "yellow")
            tt.add_row(dev, target, f"[{style}]{status}[/{style}]", value)
        console.print(tt)
        return
    print(head, file=file)
    data = [HEADERS] + rows(report)
    widths = [max(len(str(r[i])) for r in data) for i in range(len(HEADERS))]
    for i, r in enumerate(data):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)), file=file)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=file)
    for line in peak_lines(report):
        print(line, file=file)
    print("targets:", file=file)
    for dev, target, status, value in _target_lines(report):
        print(f"  [{status}] {dev}: {target}: {value}", file=file)


ISA_OPS = ("sgemm", "triad", "sum", "softmax", "bias_gelu")


def isa_summary_rows(report: dict) -> list:
    """One row per variant of a `--isa` report: status, each op's speed ratio, targets met."""
    out = []
    for v in report["variants"]:
        forced = ", ".join(f"{k}={val}" for k, val in v.get("forced_with", {}).items()) or "-"
        sub = v.get("report")
        if v["status"] != "measured" or not sub:
            out.append([v["variant"], v["status"], forced] + ["-"] * len(ISA_OPS) + ["-"])
            continue
        ops = {r["op"]: r for r in sub.get("devices", {}).get("cpu", {}).get("ops", [])}
        ratios = [_isa_cell(ops[o]) if o in ops else "-" for o in ISA_OPS]
        cpu_targets = [t for t in sub.get("targets", []) if t["device"] == "cpu" and t["met"] is not None]
        missed = [t["target"] for t in cpu_targets if not t["met"]]
        met = f"{len(cpu_targets) - len(missed)}/{len(cpu_targets)}"
        out.append([v["variant"], "measured", forced] + ratios
                   + [met + (f" (missed: {'; '.join(missed)})" if missed else "")])
    return out


def _isa_cell(row: dict) -> str:
    """'1.23x (45%/38%)': speed ratio, then ours / the built-in as % of the op's roofline bound; ours also
    against its own instruction set's bound where that differs ('1.23x (45%, own ISA 60%/38%)')."""
    rl = row.get("roofline") or {}
    cell = ratio_text(row["speed_ratio"], row.get("comparable"))
    if rl:
        own = rl.get("custom_isa_pct")
        mine = f"{rl['custom_pct']:.0f}%"
        if own is not None and round(own) != round(rl["custom_pct"]):
            mine += f", own ISA {own:.0f}%"
            if rl.get("isa_bound_by") and rl.get("isa_bound_by") != rl.get("bound_by"):
                mine += f" [{rl['isa_bound_by']}]"
        cell += f" ({mine}/{rl['builtin_pct']:.0f}%)"
    return cell


ISA_HEADERS = ["variant", "status", "forced with"] + [f"{o} ratio (% bound ours/built-in)" for o in ISA_OPS] + \
    ["CPU targets met"]


def print_isa_report(report: dict, file=None) -> None:
    """Each measured variant's full table, then one summary row per variant."""
    file = file or sys.stdout
    flags = set(report["machine"].get("cpu_flags", []))
    from torch_envcheck.bench.machine import SIMD_FLAGS
    simd = [f for f in SIMD_FLAGS if f in flags]
    print(f"CPU: {report['machine']['cpu']}; SIMD flags: {' '.join(simd) or 'unknown'}; torch {report['torch']}, "
          f"{report['threads']} threads; {report['how']}", file=file)
    for v in report["variants"]:
        print(file=file)
        if v.get("report") and v["status"] == "measured":
            print(f"=== CPU kernels {v['variant']} ===", file=file)
            print_report(v["report"], file=file)
        else:
            print(f"=== CPU kernels {v['variant']}: {v['status']}: {v.get('reason') or v.get('error', '')} ===",
                  file=file)
    print(file=file)
    print("summary (speed ratio = built-in median time / ours, >1: ours faster; in brackets ours and the "
          "built-in as % of the op's roofline bound):", file=file)
    data = [ISA_HEADERS] + isa_summary_rows(report)
    widths = [max(len(str(r[i])) for r in data) for i in range(len(ISA_HEADERS))]
    for i, r in enumerate(data):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip(), file=file)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=file)
    for v in report["variants"]:
        if v["status"] != "measured":
            print(f"{v['variant']}: {v['status']}: {v.get('reason') or v.get('error', '')}", file=file)


class Progress:
    """A progress bar on stderr (rich) or one line per step (plain)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.enabled, self.done = total, enabled, 0
        self._rich = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
        except ImportError:
            return
        self._rich = RichProgress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                  TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self._task = self._rich.add_task("benchmark", total=total)

    def __enter__(self):
        if self._rich:
            self._rich.__enter__()
        return self

    def __exit__(self, *exc):
        if self._rich:
            self._rich.__exit__(*exc)
        return False

    def __call__(self, step: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self._rich:
            self._rich.update(self._task, advance=1, description=step)
        else:
            print(f"[{self.done}/{self.total}] {step}", file=sys.stderr, flush=True)


def plot(report: dict, path: str) -> str | None:
    """Draw the roofline figure (plot.py).  Returns an error text when it cannot, else None."""
    from torch_envcheck.bench import plot as plot_mod  # noqa: PLC0415

    why = plot_mod.check_target(path)
    if why:
        return why
    try:
        report_points = plot_mod.draw(report, path)
    except plot_mod.PlotUnavailable as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    report.setdefault("plot", {})["points"] = report_points
    return None
