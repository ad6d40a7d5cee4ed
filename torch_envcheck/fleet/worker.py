"""One rank's part of `torch-envcheck fleet`, in order, each step bounded in time:

1. reach the rendezvous store (rank 0 serves it, or torchrun's agent does) and say hello;
2. run the doctor's probes under a deadline and send the snapshot (JSON bytes) to the store;
3. rank 0 waits for every rank until --timeout, reads what arrived and writes a plan;
4. when every rank delivered: a process group (NCCL on GPUs plus a gloo group from
   new_group(backend="gloo"); gloo alone on CPUs), monitored_barrier on the gloo group, the
   bandwidth sweep;
5. rank 0 prints the report and exits 1 if anything failed; the others print nothing to stdout.

Processes leave with os._exit: a probe thread stuck in a driver call, or a process group whose
peer died, must not keep the job alive in interpreter shutdown.

When one rank exits with an error, torchrun stops every other rank with SIGTERM (and SIGKILL 30 s
later).  Rank 0 turns SIGTERM (and Ctrl-C's SIGINT) into a report of what had arrived by then,
naming the ranks that never did, instead of dying without a word.
"""

from __future__ import annotations

import datetime
import os
import re
import sys
import time

from torch_envcheck._util import signalled
from torch_envcheck._util.signalled import Signalled
from torch_envcheck.fleet import aggregate
from torch_envcheck.fleet import bandwidth
from torch_envcheck.fleet import rank_facts
from torch_envcheck.fleet import wire
from torch_envcheck.fleet.timeouts import Deadline, TimedOut, call_with_deadline


def log(launch, text: str) -> None:
    try:
        sys.stderr.write(f"torch-envcheck fleet [rank {launch.rank}]: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def collect_snapshot(probe_timeout: float, torch_timeout: float | None = None) -> dict:
    from torch_envcheck.doctor import collect  # noqa: PLC0415
    return collect(timeout=probe_timeout, torch_timeout=torch_timeout)


def own_report(snap: dict) -> dict:
    """This rank's findings, computed here: 1024 ranks diagnose themselves in parallel, and rank 0
    only re-diagnoses a rank whose torch_envcheck differs from its own (aggregate.use_rank_report)."""
    return aggregate.short_report(snap)


def encode_payload(payload: dict) -> bytes:
    return wire.encode(payload)


def build_payload(launch, probe_timeout: float, deadline_s: float) -> dict:
    """This rank's payload; the probes and the GPU facts run under `deadline_s` together."""
    t0 = time.monotonic()
    from torch_envcheck._version import __version__  # noqa: PLC0415
    payload = {"schema": wire.RANK_SCHEMA, "tool_version": __version__, "snapshot": None, "probe_error": None}
    try:
        # The doctor imports torch in a child with its own limit.  Here the limit is most of this
        # rank's deadline rather than the doctor's 30 s: the ranks of a node all start their
        # children at once (16 on 2 cores took over 30 s), and --timeout already bounds the run;
        # a hanging import still ends as the doctor's fact, not as a late rank.
        torch_timeout = max(1.0, 0.9 * deadline_s)
        snap, facts = call_with_deadline(
            lambda: (lambda s: (s, rank_facts.collect(launch, s)))(collect_snapshot(probe_timeout, torch_timeout)),
            deadline_s, "the probes")
        payload["snapshot"], payload["rank_facts"] = snap, facts
        payload["report"] = own_report(snap)
    except TimedOut as exc:
        payload["probe_error"] = str(exc)
        payload["rank_facts"] = rank_facts.collect(launch, None, gpu=False)
    except Exception as exc:  # noqa: BLE001  (collect() never raises; this is a last resort)
        payload["probe_error"] = f"the probes failed: {type(exc).__name__}: {exc}"
        payload["rank_facts"] = rank_facts.collect(launch, None, gpu=False)
    payload["probe_seconds"] = round(time.monotonic() - t0, 3)
    return payload


def open_store(launch, timeout: float):
    import torch.distributed as dist  # noqa: PLC0415

    td = datetime.timedelta(seconds=timeout)
    master = launch.rank == 0 and not launch.agent_store
    # wait_for_workers=False: rank 0 must not block until every rank connects (a dead rank would
    # stop the whole report); it polls the keys itself, with its own deadline.
    store = dist.TCPStore(launch.master_addr, launch.master_port, None, master, timeout=td,
                          wait_for_workers=False)
    return dist.PrefixStore(f"{wire.PREFIX}/{launch.attempt}", store)


def make_plan(records, args) -> dict:
    delivered = all(r["status"] in ("ok", "garbage") or (r["status"] == "late" and r.get("rank_facts")
                                                        and r.get("probe_seconds") is not None)
                    for r in records)
    plan = {"group": False, "reason": None, "backend": "gloo", "bandwidth": None,
            "group_timeout": float(args.timeout), "preflight": bool(getattr(args, "preflight", False))}
    if plan["preflight"]:  # every rank's host, for the preflight's turns (the same schedule on every rank)
        plan["hosts"] = [str((r.get("rank_facts") or {}).get("host") or f"rank{r['rank']}")[:255] for r in records]
    if len(records) == 1 and not plan["preflight"]:
        plan["reason"] = "one rank: no process group to test"
        return plan
    if not delivered:
        plan["reason"] = "not every rank delivered its snapshot, so no process group was formed (it would wait for them)"
        return plan
    plan["group"] = True
    facts = [r.get("rank_facts") or {} for r in records]
    gpus_everywhere = all(isinstance(f.get("device"), dict) and (f.get("backends") or {}).get("nccl") for f in facts)
    want = getattr(args, "backend", "auto")
    plan["backend"] = "nccl" if want == "nccl" or (want == "auto" and gpus_everywhere) else "gloo"
    if not args.no_bandwidth and len(records) > 1:  # one rank (a preflight of its GPU alone): nothing to sweep
        gpu = plan["backend"] == "nccl"
        cap, why = bandwidth.memory_cap(records, args.bandwidth_max, gpu)
        plan["bandwidth"] = {"sizes": bandwidth.sizes(min(cap, args.bandwidth_max), min(bandwidth.MIN_BYTES, cap)),
                             "ops": args.ops, "iters": args.iters, "warmup": args.warmup,
                             "seconds": args.bandwidth_seconds, "cap_bytes": cap, "cap_reason": why,
                             # below the process group's timeout, after which NCCL's watchdog may
                             # end the process before rank 0 has printed anything
                             "wait_limit": max(1.0, min(args.bandwidth_seconds, 0.5 * args.timeout)),
                             "link": bandwidth.link_type(records, plan["backend"])}
    return plan


_RANKS_RE = re.compile(r"Ranks? ([\d, ]+) failed to pass monitoredBarrier", re.IGNORECASE)


def barrier_missing(exc: BaseException) -> list[int] | None:
    m = _RANKS_RE.search(str(exc))
    if not m:
        return None
    return sorted({int(x) for x in re.findall(r"\d+", m.group(1))})


def group_phase(launch, store, plan: dict) -> tuple[dict, dict | None]:
    """Form the process group, pass monitored_barrier, run the preflight (with --preflight) and the
    sweep.  On rank 0 the results (the preflight's in group['preflight']); a failure at any step ends
    the phase (recorded, never raised)."""
    import torch  # noqa: PLC0415
    import torch.distributed as dist  # noqa: PLC0415

    backend = plan["backend"]
    gd = Deadline(plan["group_timeout"])
    result = {"formed": False, "backend": backend, "gloo_group": None, "barrier_missing": None,
              "error": None, "stage": None, "seconds": None}
    bw = None
    stage = "init_process_group"
    try:
        device = torch.device("cpu")
        if backend == "nccl":
            device = torch.device("cuda", launch.local_rank % max(1, torch.cuda.device_count()))
            torch.cuda.set_device(device)
        dist.init_process_group(backend, store=dist.PrefixStore("pg", store), rank=launch.rank,
                                world_size=launch.world_size, timeout=gd.delta())
        stage = "new_group(backend='gloo')"
        if backend == "gloo":
            gloo = dist.group.WORLD
            result["gloo_group"] = "the default group (gloo)"
        else:
            gloo = dist.new_group(backend="gloo", timeout=gd.delta())
            result["gloo_group"] = "new_group(backend='gloo') beside NCCL"
        result["formed"] = True
        stage = "monitored_barrier"
        try:
            dist.monitored_barrier(group=gloo, timeout=gd.delta(), wait_all_ranks=True)
        except RuntimeError as exc:
            result["barrier_missing"] = barrier_missing(exc)
            raise
        result["seconds"] = round(gd.elapsed(), 3)
        if plan.get("preflight"):
            stage = "preflight"
            from torch_envcheck.fleet import preflight  # noqa: PLC0415
            try:
                result["preflight"] = preflight.run(dist, dist.group.WORLD, gloo, launch.rank, launch.world_size,
                                                    device, plan.get("hosts"))
            except Exception as exc:  # noqa: BLE001  (the group stands; the sweep may still run)
                text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
                result["preflight"] = {"error": f"{type(exc).__name__}: {text}"}
        stage = "bandwidth"
        if plan.get("bandwidth"):
            bw = bandwidth.sweep(dist, None, gloo, launch.rank, launch.world_size, device, plan["bandwidth"])
            bw.update(backend=backend, device=device.type, world_size=launch.world_size,
                      link=plan["bandwidth"].get("link"), cap_bytes=plan["bandwidth"].get("cap_bytes"),
                      cap_note=f"largest size {bandwidth.human(plan['bandwidth']['cap_bytes'])}: "
                               f"{plan['bandwidth'].get('cap_reason')}")
    except Exception as exc:  # noqa: BLE001
        text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        result["error"] = f"{stage}: {type(exc).__name__}: {text}"
        result["stage"] = stage
    return result, bw


class Stopped(Signalled):
    """Rank 0 was sent SIGTERM or SIGINT (torchrun stopping the job); raised in its main thread."""


class _StopHandler:
    """On rank 0: SIGTERM / SIGINT raise Stopped once; while the report of what arrived is written,
    further signals are ignored (torchrun's SIGKILL 30 s later still bounds it)."""

    SIGNALS = signalled.named("SIGTERM", "SIGINT")

    def __init__(self):
        self.armed = True
        signalled.install(self.SIGNALS, self._handle)  # off the main thread (tests): no handler

    def check_early(self) -> None:
        """A signal that came before this handler (recorded by _util/stopflag): stop now."""
        from torch_envcheck._util import stopflag  # noqa: PLC0415
        if stopflag.received and self.armed:
            self.armed = False
            raise Stopped(stopflag.received[0])

    def _handle(self, signum, frame):
        if self.armed:
            self.armed = False
            raise Stopped(signum)

    def disarm(self) -> None:
        self.armed = False


def report_after_stop(launch, args, ex, out_fd: int, stop: Stopped, sent: bool) -> int:
    """Rank 0's report when the launcher stopped the job: every rank's record from what the store
    holds now (a rank that never arrived is missing, by name), no process group, exit 1."""
    reason = (f"rank 0 was stopped by {stop.name} before every rank had reported (torchrun stops the whole "
              "job when one rank exits with an error): this report holds what had arrived by then")
    arrivals = {}
    if ex is None and launch.agent_store:
        # stopped before it reached the store: torchrun's agent still serves it; read what is there
        try:
            ex = wire.Exchange(open_store(launch, 3.0), launch.rank, launch.world_size)
        except Exception as exc:  # noqa: BLE001
            log(launch, f"could not reach the rendezvous store after {stop.name}: {type(exc).__name__}: {exc}")
    if ex is not None:
        try:
            arrivals = ex.gather(Deadline(0.0))
        except Exception as exc:  # noqa: BLE001  (the store went away with the job)
            log(launch, f"could not read the rendezvous store after {stop.name}: {type(exc).__name__}: {exc}")
    records = [aggregate.record_from_arrival(r, arrivals.get(r)) for r in range(launch.world_size)]
    if not sent and records:
        records[0]["status"] = "late"
        records[0]["error"] = f"stopped by {stop.name} before its own probes finished"
        records[0]["rank_facts"] = records[0].get("rank_facts") or {"rank": 0, "host": rank_facts.socket.gethostname()[:255]}
    if ex is not None:
        try:
            ex.post_plan({"group": False, "reason": reason})  # ranks waiting for a plan leave
        except Exception:  # noqa: BLE001
            pass
    fleet_report = aggregate.build(records, group={"formed": False, "skipped": reason},
                                   bandwidth=None if args.no_bandwidth else {"skipped": reason, "ops": {}},
                                   timeout=args.timeout, world_size=launch.world_size)
    fleet_report.setdefault("errors", []).append(reason)
    fleet_report["verdict"].update(status="failure", exit_status=1)
    fleet_report["launch"] = {"launcher": launch.launcher, "world_size": launch.world_size, "stopped_by": stop.name}
    from torch_envcheck.fleet.output import emit  # noqa: PLC0415
    emit(fleet_report, args, out_fd)
    return 1


def run(launch, args, out_fd: int) -> int:
    stop = _StopHandler() if launch.rank == 0 else None
    state = {"ex": None, "sent": False}
    try:
        if stop is not None:
            stop.check_early()
        return _run(launch, args, out_fd, stop, state)
    except Stopped as exc:  # only rank 0 has the handler that raises it
        stop.disarm()
        from torch_envcheck._util import proc as _proc  # noqa: PLC0415
        _proc.kill_all()  # the probes' helper programs (the torch import) go with this run
        return report_after_stop(launch, args, state["ex"], out_fd, exc, state["sent"])
    finally:
        if stop is not None:
            stop.disarm()


def _run(launch, args, out_fd: int, stop, state: dict) -> int:
    deadline = Deadline(args.timeout)
    try:
        store = open_store(launch, args.timeout)
    except Exception as exc:  # noqa: BLE001
        where = f"{launch.master_addr}:{launch.master_port}"
        what = "could not serve" if launch.rank == 0 and not launch.agent_store else "could not reach"
        log(launch, f"{what} the rendezvous store at {where} within {args.timeout:g} s: "
                    f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        return 1
    ex = state["ex"] = wire.Exchange(store, launch.rank, launch.world_size)
    try:
        import torch  # noqa: PLC0415
        ex.hello({"host": rank_facts.hostname(launch.rank, launch.world_size), "pid": os.getpid(),
                  "local_rank": launch.local_rank, "torch": str(torch.__version__)})
        # The probes get three quarters of the window: a rank that hangs in one then still
        # reports itself as late instead of leaving rank 0 to guess.
        payload = build_payload(launch, args.probe_timeout, max(1.0, 0.75 * args.timeout))
        ex.send(encode_payload(payload))
        state["sent"] = True
    except Exception as exc:  # noqa: BLE001  (the store went away: rank 0 died)
        log(launch, f"lost the rendezvous store: {type(exc).__name__}: {exc}")
        return 1

    if launch.rank != 0:
        plan = ex.wait_plan(2 * args.timeout + 30)
        if plan is None:
            log(launch, "no word from rank 0 (it reports this run); leaving")
            return 0
        if plan.get("group"):
            group_phase(launch, store, plan)
        ex.done()
        return 0

    arrivals = ex.gather(deadline)
    records = [aggregate.record_from_arrival(r, arrivals.get(r)) for r in range(launch.world_size)]
    plan = make_plan(records, args)
    ex.post_plan(plan)
    group, bw = {"formed": False, "skipped": plan["reason"]}, None
    if plan.get("group"):
        group, bw = group_phase(launch, store, plan)
    pf = None
    if plan.get("preflight"):
        pf = group.pop("preflight", None) or {"skipped": plan.get("reason") or group.get("error") or "no process group"}
    if bw is None and not args.no_bandwidth:
        bw = {"skipped": plan.get("reason") or group.get("error") or
              ("one rank: no collective to measure" if len(records) == 1 else "no process group"),
              "backend": plan.get("backend"), "ops": {}}
    fleet_report = aggregate.build(records, group=group, bandwidth=bw, timeout=args.timeout,
                                   world_size=launch.world_size, preflight=pf,
                                   min_ratio=getattr(args, "outlier_ratio", None))
    fleet_report["launch"] = {"launcher": launch.launcher, "world_size": launch.world_size,
                              "seconds": round(deadline.elapsed(), 3)}
    from torch_envcheck.fleet.output import emit  # noqa: PLC0415
    if stop is not None:
        stop.disarm()  # the report is coming out: a signal from here on no longer changes it
    emit(fleet_report, args, out_fd)
    # Rank 0 may serve the store: give the ranks that got the plan a moment to leave cleanly
    # (a rank that never sent a payload is hung or gone and is not waited for).
    ex.wait_done(min(5.0, args.timeout), [r["rank"] for r in records if r["rank"] != 0 and
                                          (r["status"] in ("ok", "garbage") or r.get("probe_seconds") is not None)])
    return int(fleet_report["verdict"]["exit_status"])
