"""The heterogeneity table: for each fact that matters across a job (torch, CUDA, cuDNN, NCCL, the
driver, the GPU and its compute capability, the extension's build, Python, NCCL_* and two CUDA
variables), the groups of ranks that agree on it; rows where every rank agrees are left out.
Facts are read through the doctor's accessors (rules/_facts.py), never by indexing a snapshot."""

from __future__ import annotations

from torch_envcheck.facts import core as F

UNKNOWN = "unknown"
UNSET = "(unset)"


def rank_ranges(ranks, limit: int | None = None) -> str:
    """[0,1,2,3,5,7,8] -> '0-3, 5, 7-8'; with `limit`, at most that many pieces and a count."""
    rs = sorted(set(ranks))
    parts, i = [], 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        parts.append(str(rs[i]) if i == j else f"{rs[i]}-{rs[j]}")
        i = j + 1
    if limit is not None and len(parts) > limit:
        return ", ".join(parts[:limit]) + f", ... ({len(rs)} ranks in all)"
    return ", ".join(parts)


LABEL_LIMIT = 8


def ranks_label(ranks, limit: int | None = LABEL_LIMIT) -> str:
    rs = sorted(set(ranks))
    return f"rank {rs[0]}" if len(rs) == 1 else f"ranks {rank_ranges(rs, limit)}"


def _device(rec) -> dict:
    return F.as_dict(F.dig(rec, "rank_facts", "device"))


def _cudnn(s):
    t = F.torch_cudnn(s)
    return F.fmt_version(t) if t else None


def _gpu(rec):
    dev = _device(rec)
    if F.text(dev.get("name")):
        return dev["name"]
    gpus = F.gpus(rec.get("snapshot"))
    return F.text(gpus[0].name) if gpus else "no GPU"


def _capability(rec):
    dev = _device(rec)
    if F.text(dev.get("capability")):
        return dev["capability"]
    gpus = F.gpus(rec.get("snapshot"))
    return F.text(gpus[0].capability) if gpus else None


def _extension(s):
    st = F.ext_status(s)
    state = F.text(st.state)
    if not state:
        return None
    built = F.text(st.built_against)
    return f"{state} (built for torch {built})" if built else state


def _env(name):
    def get(rec):
        v = F.env(rec.get("snapshot"), name)
        return UNSET if v is None else v
    return get


def _nccl_var(name):
    def get(rec):
        v = F.as_dict(F.dig(rec, "rank_facts", "nccl_env")).get(name)
        return UNSET if v is None else str(v)
    return get


# (key, label, reader of a rank record)
COLUMNS = (
    ("torch", "torch", lambda r: F.torch_version(r.get("snapshot")) or ("not importable" if F.torch_importable(r.get("snapshot")) is False else None)),
    ("cuda", "CUDA (torch's)", lambda r: F.torch_cuda(r.get("snapshot")) or "none"),
    ("cudnn", "cuDNN", lambda r: _cudnn(r.get("snapshot")) or "none"),
    ("nccl", "NCCL", lambda r: F.text(F.dig(r, "rank_facts", "nccl_version")) or "none"),
    ("driver", "driver", lambda r: F.driver_version(r.get("snapshot")) or "none"),
    ("gpu", "GPU", _gpu),
    ("capability", "compute capability", lambda r: _capability(r) or "none"),
    ("gpu_count", "GPUs visible", lambda r: str(len(F.gpus(r.get("snapshot"))))),
    ("extension", "torch_envcheck extension", lambda r: _extension(r.get("snapshot"))),
    ("python", "Python", lambda r: F.python_version(r.get("snapshot"))),
    ("CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", _env("CUDA_VISIBLE_DEVICES")),
    ("LD_LIBRARY_PATH", "LD_LIBRARY_PATH", _env("LD_LIBRARY_PATH")),
)


def nccl_var_names(records) -> list[str]:
    names = set()
    for rec in records:
        names.update(k for k in F.as_dict(F.dig(rec, "rank_facts", "nccl_env")) if isinstance(k, str))
    return sorted(names)


def columns(records):
    return list(COLUMNS) + [(f"env:{n}", n, _nccl_var(n)) for n in nccl_var_names(records)]


def value_of(rec, reader) -> str:
    try:
        v = reader(rec)
    except Exception:  # a malformed snapshot: the accessors tolerate most, this catches the rest
        v = None
    return UNKNOWN if v is None else str(v)


# Each record's values, read once: the table and every fleet rule look at the same facts of the
# same 1024 records many times.  Keyed by id() with the record kept, so an id is never reused.
_ROWS: dict[int, tuple[dict, dict]] = {}


def reset() -> None:
    _ROWS.clear()


def row(rec) -> dict:
    hit = _ROWS.get(id(rec))
    if hit is not None and hit[0] is rec:
        return hit[1]
    r = {key: value_of(rec, reader) for key, _label, reader in COLUMNS}
    for name in nccl_var_names([rec]):
        r[f"env:{name}"] = value_of(rec, _nccl_var(name))
    r["host"] = F.text(F.dig(rec, "rank_facts", "host"))
    _ROWS[id(rec)] = (rec, r)
    return r


def value(rec, key: str) -> str:
    """The value of column `key` for a record ('(unset)' for an NCCL_* variable it lacks)."""
    r = row(rec)
    if key in r:
        return r[key]
    return UNSET if key.startswith("env:") else UNKNOWN


def groups(records, key: str) -> list[dict]:
    """[{value, ranks, hosts}] of column `key` over the records, the largest group first."""
    by: dict[str, dict] = {}
    for rec in records:
        g = by.setdefault(value(rec, key), {"ranks": [], "hosts": set()})
        g["ranks"].append(rec["rank"])
        host = row(rec)["host"]
        if host:
            g["hosts"].add(host)
    out = [{"value": v, "ranks": sorted(g["ranks"]), "hosts": sorted(g["hosts"])} for v, g in by.items()]
    out.sort(key=lambda g: (-len(g["ranks"]), g["ranks"][0]))
    return out


def build(records) -> list[dict]:
    """The rows that differ: [{key, label, groups}] over the records that carry a snapshot."""
    have = [r for r in records if isinstance(r.get("snapshot"), dict)]
    rows = []
    for key, label, _reader in columns(have):
        gs = groups(have, key)
        if len(gs) > 1:
            rows.append({"key": key, "label": label, "groups": gs})
    return rows


def common(records, differing) -> list[dict]:
    """[{key, label, value}] of the columns every record with a snapshot agrees on."""
    have = [r for r in records if isinstance(r.get("snapshot"), dict)]
    out = []
    for key, label, _reader in COLUMNS:
        if key in differing or not have:
            continue
        values = {value(r, key) for r in have}
        if len(values) == 1:
            out.append({"key": key, "label": label, "value": values.pop()})
    return out
