"""The snapshot exchange over the rendezvous store (a torch.distributed TCPStore).

Every rank writes `hello/RANK` as soon as it reaches the store and `snap/RANK` (its snapshot as
JSON bytes) when its probes are done; rank 0 polls, with its own deadline, and reads what arrived.
A collective gather is all-or-nothing: one rank that hangs in a probe would cost every snapshot.
Over the store each key stands alone, so rank 0 always keeps what did arrive, and can tell a rank
that never arrived (no hello) from one that arrived but hung (hello, no snapshot).

Nothing is unpickled: payloads are JSON, size-limited on both ends, and validated on rank 0
(a truncated or foreign payload becomes a "garbage" record, never an exception).  What rank 0
accepts is cut to the bounds a saved fleet report is read with (_util/bounds.py: nesting, entries,
values), the cut named in that rank's probe_errors, and its rank_facts reduced to their declared
shape (rank_facts.normalise): every fleet report rank 0 writes, `fleet --from-json` reads back.
"""

from __future__ import annotations

import json
import time

RANK_SCHEMA = "torch_envcheck.fleet.rank/1"
MAX_PAYLOAD = 4 << 20  # bytes of one rank's payload; a doctor snapshot is ~5-20 KiB
MAX_HELLO = 4096
PREFIX = "torch_envcheck.fleet"


class WireError(ValueError):
    """A payload rank 0 cannot use; the message says what was wrong with it."""


def encode(payload: dict) -> bytes:
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")
    if len(data) <= MAX_PAYLOAD:
        return data
    # Too big to send whole: send what identifies the rank, and say why the rest is missing.
    small = {k: v for k, v in payload.items() if k != "snapshot"}
    small["snapshot"] = None
    small["probe_error"] = f"the snapshot is {len(data)} bytes, over the {MAX_PAYLOAD}-byte limit; not sent"
    return json.dumps(small, separators=(",", ":")).encode("utf-8", "replace")


def _kind(v) -> str:
    return type(v).__name__ if v is not None else "null"


def decode(data, rank: int) -> dict:
    """The payload of `rank` from its bytes; raises WireError naming the problem."""
    if not isinstance(data, (bytes, bytearray)):
        raise WireError(f"expected bytes, got {_kind(data)}")
    if len(data) > MAX_PAYLOAD:
        raise WireError(f"{len(data)} bytes, over the {MAX_PAYLOAD}-byte limit")
    from torch_envcheck._util import bounds  # noqa: PLC0415
    try:
        text = bytes(data).decode("utf-8")
        obj = json.loads(text)
    except UnicodeDecodeError as exc:
        raise WireError(f"not UTF-8 text (byte {exc.start} of {len(data)})") from None
    except RecursionError:
        raise WireError("JSON nested too deeply") from None
    except ValueError as exc:
        raise WireError(f"not valid JSON ({getattr(exc, 'msg', exc)} at byte {getattr(exc, 'pos', '?')} "
                        f"of {len(data)}; truncated?)") from None
    if not isinstance(obj, dict):
        raise WireError(f"expected a JSON object, got {_kind(obj)}")
    if obj.get("schema") != RANK_SCHEMA:
        raise WireError(f"schema {str(obj.get('schema'))[:80]!r}, expected {RANK_SCHEMA!r} "
                        "(another version of torch_envcheck on that rank?)")
    facts = obj.get("rank_facts")
    if not isinstance(facts, dict):
        raise WireError(f"\"rank_facts\" is {_kind(facts)}, expected an object")
    if facts.get("rank") != rank:
        raise WireError(f"it says it is rank {str(facts.get('rank'))[:20]}, but was sent as rank {rank}")
    from torch_envcheck.fleet.rank_facts import normalise  # noqa: PLC0415
    obj["rank_facts"] = normalise(facts)
    # the payload sits two levels down in a fleet report (ranks[i].snapshot is the payload's snapshot);
    # a payload whose text is plainly small and shallow (every real one) is not walked
    cut = []
    if not bounds.certainly_within(text, bounds.MAX_DEPTH, bounds.SNAPSHOT_NODES):
        obj, cut = bounds.fit(obj, depth=bounds.MAX_DEPTH, nodes=bounds.SNAPSHOT_NODES)
    snap = obj.get("snapshot")
    if cut and isinstance(snap, dict):
        bounds.note_into(snap, [c.split(".", 1)[1] if c.startswith("snapshot.") else c for c in cut])
    if snap is not None:
        from torch_envcheck.facts.snapshot import SnapshotError, validate  # noqa: PLC0415
        try:
            # validate() returns the snapshot as the doctor reads it (normalised where the contract says so)
            obj["snapshot"] = validate(snap, f"rank {rank}'s snapshot")
        except SnapshotError as exc:
            raise WireError(str(exc)) from None
    err = obj.get("probe_error")
    if err is not None and not isinstance(err, str):
        raise WireError(f"\"probe_error\" is {_kind(err)}, expected a string or null")
    return obj


def decode_hello(data) -> dict:
    try:
        obj = json.loads(bytes(data[:MAX_HELLO]).decode("utf-8"))
    except (ValueError, TypeError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) else {}


class Exchange:
    """The keys of one fleet run in the store (under a prefix, so a torchrun restart starts clean)."""

    def __init__(self, store, rank: int, world_size: int):
        self.store, self.rank, self.world = store, rank, world_size

    # ---------------------------------------------------------------- every rank
    def hello(self, info: dict) -> None:
        self.store.set(f"hello/{self.rank}", json.dumps(info)[:MAX_HELLO])
        self.store.add("count/hello", 1)

    def send(self, data: bytes) -> None:
        self.store.set(f"snap/{self.rank}", data)
        self.store.add("count/snap", 1)

    def wait_plan(self, seconds: float) -> dict | None:
        """Rank 0's plan for after the exchange; None when it does not come in time."""
        import datetime  # noqa: PLC0415
        try:
            self.store.wait(["plan"], datetime.timedelta(seconds=max(0.1, seconds)))
            plan = json.loads(self.store.get("plan").decode("utf-8"))
        except Exception:  # timed out, rank 0 gone, or unreadable
            return None
        return plan if isinstance(plan, dict) else None

    def done(self) -> None:
        try:
            self.store.set(f"done/{self.rank}", "1")
        except Exception:
            pass

    # ---------------------------------------------------------------- rank 0
    def post_plan(self, plan: dict) -> None:
        self.store.set("plan", json.dumps(plan))

    def _count(self, name: str) -> int:
        return int(self.store.add(f"count/{name}", 0))

    def _has(self, key: str) -> bool:
        return bool(self.store.check([key]))

    def gather(self, deadline, poll: float = 0.05) -> dict:
        """Wait until every rank has sent its snapshot or `deadline` passes; then
        {rank: {"hello": dict|None, "data": bytes|None, "arrived_s": seconds or None}}."""
        while self._count("snap") < self.world and not deadline.expired():
            time.sleep(poll)
        out = {}
        for r in range(self.world):
            hello = data = None
            if self._has(f"hello/{r}"):
                hello = decode_hello(self.store.get(f"hello/{r}"))
            if self._has(f"snap/{r}"):
                data = self.store.get(f"snap/{r}")
            out[r] = {"hello": hello if hello is not None else None, "arrived": hello is not None, "data": data}
        return out

    def wait_done(self, seconds: float, ranks, poll: float = 0.05) -> list[int]:
        """Give `ranks` a moment to finish before rank 0 (the store's host) leaves; those not done."""
        end = time.monotonic() + seconds
        pending = list(ranks)
        while pending and time.monotonic() < end:
            pending = [r for r in pending if not self._has(f"done/{r}")]
            if pending:
                time.sleep(poll)
        return pending
