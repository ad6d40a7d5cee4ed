"""`bench --plot FILE.png|FILE.svg`: the roofline figure (matplotlib, the optional `plot` extra).

One panel per device: log-log, arithmetic intensity (FLOPs per compulsory byte) against attained GFLOP/s.
Ceilings: each instruction set's measured FP32 peak ("fma" solid, "mixed" dotted) and the measured read
and copy bandwidth (diagonals).  Points: every op, ours (filled) and the built-in (hollow), per kernel
variant (marker shape); a short black bar above each op marks its own bound (roofline.py).  Every point
is its own artist with an id (`point-<device>-<variant>-<op>-<custom|builtin>`), so an SVG has one
element per point.
"""

from __future__ import annotations

import os

MARKERS = {"DEFAULT": "s", "AVX2": "^", "AVX512": "o", "best": "D"}
COLORS = {"triad": "tab:blue", "sum": "tab:orange", "softmax": "tab:green", "bias_gelu": "tab:red",
          "sgemm": "tab:purple"}
FORMATS = (".png", ".svg")


class PlotUnavailable(RuntimeError):
    """matplotlib is missing: the one line to print."""


def check_target(path: str) -> str | None:
    """Why `path` cannot be drawn to (one line), or None."""
    if os.path.splitext(path)[1].lower() not in FORMATS:
        return f"--plot writes PNG or SVG; got {path!r} (name it .png or .svg)"
    try:
        import matplotlib  # noqa: F401, PLC0415
    except ImportError:
        return "--plot needs matplotlib, which is not installed (pip install 'torch_envcheck[plot]')"
    return None


def panels(report: dict) -> dict:
    """{device: [(variant, device report)]} from a plain report or a `--isa` report."""
    out: dict = {}
    if report.get("kind") == "isa_variants":
        for v in report.get("variants", []):
            sub = v.get("report")
            if v.get("status") == "measured" and sub:
                for dev, d in sub.get("devices", {}).items():
                    if d.get("ops"):
                        out.setdefault(dev, []).append((v["variant"], d))
        return out
    selected = report.get("cpu_kernel_isa", {}).get("selected", "best")
    for dev, d in report.get("devices", {}).items():
        if d.get("ops"):
            out.setdefault(dev, []).append((selected if dev == "cpu" else "best", d))
    return out


def point_ids(report: dict) -> list:
    """The ids of the points the figure of `report` has: two per op and variant."""
    ids = []
    for dev, entries in panels(report).items():
        for variant, d in entries:
            for r in d["ops"]:
                if r.get("roofline"):
                    ids += [f"point-{dev}-{variant}-{r['op']}-{side}" for side in ("custom", "builtin")]
    return ids


def draw(report: dict, path: str) -> list:
    """Write the figure; returns the ids of the points drawn.  Raises PlotUnavailable without matplotlib."""
    try:
        import matplotlib  # noqa: PLC0415
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
        from matplotlib.lines import Line2D  # noqa: PLC0415
    except ImportError as exc:
        raise PlotUnavailable("--plot needs matplotlib, which is not installed "
                              "(pip install 'torch_envcheck[plot]')") from exc
    groups = panels(report)
    fig, axes = plt.subplots(1, max(1, len(groups)), figsize=(10 * max(1, len(groups)), 6.2), squeeze=False)
    drawn = []
    for ax, (dev, entries) in zip(axes[0], groups.items()):
        drawn += _panel(ax, dev, entries, Line2D)
    if not groups:
        axes[0][0].text(0.5, 0.5, "no measured ops in this report", ha="center", va="center")
    title = f"torch_envcheck kernels against the machine's limits, torch {report.get('torch', '?')}"
    cpu = (report.get("machine") or {}).get("cpu")
    if cpu:
        title += f", {cpu}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    # drawn in memory, then written by the one atomic writer: a symlink or a planted file at `path`
    # is replaced, never written through
    import io  # noqa: PLC0415
    from torch_envcheck._util.atomic_write import write_atomic  # noqa: PLC0415
    buf = io.BytesIO()
    fig.savefig(buf, dpi=110, format=os.path.splitext(path)[1][1:].lower() or "png")
    plt.close(fig)
    write_atomic(path, buf.getvalue(), 0o644, prefix=".torch-envcheck-plot.")
    return drawn


def _panel(ax, dev: str, entries: list, Line2D) -> list:
    xs = [r["roofline"]["intensity"] for _, d in entries for r in d["ops"] if r.get("roofline")]
    lo, hi = min(xs) / 4, max(xs) * 4
    # Ceilings: the best measurement of each over the variants' runs (each run measured them itself).
    compute: dict = {}
    read = copy = 0.0
    for _, d in entries:
        pk = d["peaks"]
        for isa, e in pk["compute"].items():
            c = compute.setdefault(isa, {"fma": 0.0, "mixed": 0.0})
            c["fma"] = max(c["fma"], e["fma"]["gflops"])
            c["mixed"] = max(c["mixed"], e["ceiling_gflops"])
        read = max(read, pk["ceilings"]["read_gbs"])
        copy = max(copy, pk["ceilings"]["copy_gbs"])
    grid = [lo * (hi / lo) ** (i / 50) for i in range(51)]
    # One line per distinct ceiling (instruction sets within 8% of each other share it and its label).
    lines: list = []
    for isa, c in compute.items():
        for kind, style in (("fma", "-"), ("mixed", ":")):
            if kind == "mixed" and c["mixed"] <= c["fma"] * 1.02:
                continue
            label = "FMA" if kind == "fma" else "FMA+add"
            same = next((ln for ln in lines if ln[2] == style and abs(ln[1] / c[kind] - 1) < 0.08), None)
            if same:
                same[0].append(isa)
            else:
                lines.append([[isa], c[kind], style, label])
    last_y, slot = None, 0
    for isas, value, style, label in sorted(lines, key=lambda ln: ln[1]):
        ax.plot([lo, hi * 6], [value, value], color="0.25", linewidth=1, linestyle=style)
        # Labels of ceilings close together go side by side instead of on top of each other.
        slot = slot + 1 if last_y is not None and value < last_y * 1.25 else 0
        last_y = value
        ax.text(lo * 1.1 * (hi / lo) ** (0.3 * slot), value * 1.04, f"{', '.join(isas)} {label} {value:.0f} GFLOP/s",
                va="bottom", fontsize=7)
    top = max(max(c["mixed"], c["fma"]) for c in compute.values())
    ax.plot(grid, [min(top, read * x) for x in grid], color="0.4", linestyle="--", linewidth=1)
    ax.plot(grid, [min(top, copy * x) for x in grid], color="0.6", linestyle="-.", linewidth=1)
    drawn = []
    for variant, d in entries:
        for r in d["ops"]:
            rl = r.get("roofline")
            if not rl:
                continue
            x = rl["intensity"]
            color = COLORS.get(r["op"], "k")
            marker = MARKERS.get(variant, "o")
            for side, face in (("custom", color), ("builtin", "none")):
                gid = f"point-{dev}-{variant}-{r['op']}-{side}"
                art = ax.scatter([x], [rl[f"{side}_gflops"]], s=46, marker=marker, facecolors=face, edgecolors=color,
                                 linewidths=1.3, zorder=3)
                art.set_gid(gid)
                drawn.append(gid)
            ax.plot([x / 1.12, x * 1.12], [rl["bound_gflops"]] * 2, color="k", linewidth=2, zorder=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi * 6)
    ax.set_xlabel("arithmetic intensity (FLOPs per compulsory byte)")
    ax.set_ylabel("attained GFLOP/s")
    threads = entries[0][1]["peaks"].get("threads")
    ax.set_title(f"{dev}: measured peaks on {threads} thread(s)" if dev == "cpu" else f"{dev}: measured peaks",
                 fontsize=9)
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    handles = [Line2D([], [], color=c, marker="o", linestyle="", label=op) for op, c in COLORS.items()]
    handles += [Line2D([], [], color="k", marker=MARKERS.get(v, "o"), linestyle="", markerfacecolor="none",
                       label=f"variant {v}") for v in dict.fromkeys(v for v, _ in entries)]
    handles += [Line2D([], [], color="k", marker="o", linestyle="", label="filled: ours; hollow: built-in"),
                Line2D([], [], color="k", linewidth=2, label="each op's bound"),
                Line2D([], [], color="0.4", linestyle="--", label=f"read {read:.0f} GB/s"),
                Line2D([], [], color="0.6", linestyle="-.", label=f"copy {copy:.0f} GB/s")]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return drawn
