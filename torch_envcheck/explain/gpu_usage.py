"""Did a job use a GPU?  NVML's per-process accounting, sampled while the job runs (`torch-envcheck
run`): nvmlDeviceGetComputeRunningProcesses lists the processes holding a CUDA context on each GPU
with their memory, nvmlDeviceGetProcessUtilization their SM utilisation samples.  A process counts
as the job when it is the job's process or one of its descendants (Linux: /proc).

In a container NVML may report host PIDs that this process cannot map to the job; then a compute
process that appears after the job started is reported as "probably the job".

    s = Sampler(interval=0.5); s.start(pid); ...; summary = s.stop()
    summary: {"nvml": bool, "error": str|None, "samples": int, "seconds": float,
              "gpus": {index: {"name", "max_memory_mib", "sm_util": [..]}}, "unmapped_new": int}
    lines(summary) -> list of sentences for the user"""

from __future__ import annotations

import os
import threading
import time


def descendants(pid: int) -> set:
    """`pid` and every live descendant of it (Linux /proc; elsewhere just pid)."""
    out = {pid}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    parent = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read(1024)
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
        close = data.rfind(b")")
        fields = data[close + 2:].split()
        if len(fields) >= 2 and fields[1].isdigit():
            parent[int(name)] = int(fields[1])
    changed = True
    while changed:
        changed = False
        for child, ppid in parent.items():
            if ppid in out and child not in out:
                out.add(child)
                changed = True
    return out


def _text(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


class Sampler:
    """Samples NVML in a daemon thread until stop(); never raises (NVML missing is a fact)."""

    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self._stop = threading.Event()
        self._thread = None
        self._pid = None
        self.result = {"nvml": False, "error": None, "samples": 0, "seconds": 0.0, "gpus": {}, "unmapped_new": 0}

    def start(self, pid: int) -> None:
        self._pid = pid
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="torch_envcheck-gpu-usage", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            import pynvml  # noqa: PLC0415  (nvidia-ml-py: optional)
        except Exception as exc:  # noqa: BLE001
            self.result["error"] = f"nvidia-ml-py is not installed ({type(exc).__name__})"
            return
        try:
            pynvml.nvmlInit()
        except Exception as exc:  # noqa: BLE001  (no driver: NVMLError_LibraryNotFound, ...)
            self.result["error"] = f"NVML cannot start: {exc}"
            return
        try:
            self.result["nvml"] = True
            handles = []
            for i in range(pynvml.nvmlDeviceGetCount()):
                try:
                    h = pynvml.nvmlDeviceGetHandleByIndex(i)
                    handles.append((i, h, _text(pynvml.nvmlDeviceGetName(h))))
                except Exception:  # noqa: BLE001
                    continue
            before = self._pids(pynvml, handles)
            last_ts = {i: 0 for i, _, _ in handles}
            while True:
                self._sample(pynvml, handles, before, last_ts)
                if self._stop.wait(self.interval):
                    self._sample(pynvml, handles, before, last_ts)
                    break
        except Exception as exc:  # noqa: BLE001
            self.result["error"] = f"NVML sampling failed: {type(exc).__name__}: {exc}"
        finally:
            try:
                pynvml.nvmlShutdown()
            except Exception:  # noqa: BLE001
                pass

    @staticmethod
    def _procs(pynvml, h) -> list:
        try:
            return list(pynvml.nvmlDeviceGetComputeRunningProcesses(h) or [])
        except Exception:  # noqa: BLE001
            return []

    def _pids(self, pynvml, handles) -> set:
        return {(i, p.pid) for i, h, _ in handles for p in self._procs(pynvml, h)}

    def _sample(self, pynvml, handles, before: set, last_ts: dict) -> None:
        tree = descendants(self._pid)
        self.result["samples"] += 1
        self.result["seconds"] = round(time.monotonic() - self._t0, 2)
        unmapped = 0
        for i, h, name in handles:
            mine = []
            for p in self._procs(pynvml, h):
                if p.pid in tree:
                    mine.append(p)
                elif (i, p.pid) not in before:
                    unmapped += 1
            if not mine:
                continue
            gpu = self.result["gpus"].setdefault(i, {"name": name, "max_memory_mib": 0, "sm_util": []})
            used = [getattr(p, "usedGpuMemory", None) for p in mine]
            total = sum(u for u in used if isinstance(u, int) and u >= 0)
            gpu["max_memory_mib"] = max(gpu["max_memory_mib"], total // (1024 * 1024))
            try:
                samples = pynvml.nvmlDeviceGetProcessUtilization(h, last_ts[i]) or []
                for s in samples:
                    if s.pid in tree:
                        gpu["sm_util"].append(int(s.smUtil))
                    last_ts[i] = max(last_ts[i], int(s.timeStamp))
            except Exception as exc:  # noqa: BLE001
                if "NotFound" in type(exc).__name__:
                    continue  # no new sample since the last one: nothing to add this round
                try:  # per-process samples not supported on this GPU: the device's rate while the job is on it
                    gpu["sm_util"].append(int(pynvml.nvmlDeviceGetUtilizationRates(h).gpu))
                except Exception:  # noqa: BLE001
                    pass
        self.result["unmapped_new"] = max(self.result["unmapped_new"], unmapped)

    def stop(self) -> dict:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        return self.result


IDLE_PERCENT = 10  # mean SM utilisation under this: the GPU sat mostly idle


def lines(summary: dict) -> list:
    """What the samples say, as sentences (empty when NVML could not be used)."""
    if not summary.get("nvml"):
        return []
    out = []
    gpus = summary.get("gpus") or {}
    for i, g in sorted(gpus.items()):
        util = g.get("sm_util") or []
        text = f"this job used GPU {i} ({g.get('name')}): up to {g.get('max_memory_mib', 0)} MiB of GPU memory"
        if util:
            mean = sum(util) / len(util)
            text += f"; SM utilisation mean {mean:.0f}%, max {max(util)}% ({len(util)} NVML samples)"
            if mean < IDLE_PERCENT:
                text += (". The GPU sat mostly idle: the job is bound by something else (data loading, CPU work, "
                         "host-device copies, synchronisation); profile the input pipeline first")
        out.append(text)
    if not gpus:
        if summary.get("unmapped_new"):
            out.append("a new compute process appeared on a GPU while the job ran, probably the job, but NVML reports PIDs "
                       "this process cannot map (a container's PID namespace)")
        else:
            out.append(f"this job never appeared on a GPU: NVML saw no CUDA context of it in {summary.get('samples', 0)} "
                       f"samples over {summary.get('seconds', 0)} s, so it ran on the CPU (or too briefly to be sampled)")
    return out
