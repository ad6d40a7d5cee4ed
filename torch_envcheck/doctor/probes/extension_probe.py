"""The torch_envcheck extension: its state (never compiles; extension.status() only loads a binary
that is already built for this torch) and, when loaded, what it was built with and what it sees."""

from __future__ import annotations


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def probe(torch_facts: dict | None = None) -> dict:
    out = {"status": None, "build_info": None, "runtime_info": None, "errors": []}
    if torch_facts is not None and not torch_facts.get("importable"):
        # Importing a torch that just failed again can fail differently (half-initialised modules).
        out["status"] = {"state": "torch-missing", "mode": None, "path": None, "built_against": None,
                         "running_torch": None, "error": torch_facts.get("import_error"), "meta": None}
        return out
    try:
        from torch_envcheck.ext import extension  # noqa: PLC0415
        out["status"] = extension.status()
    except Exception as exc:
        out["errors"].append(f"extension.status(): {_text(exc)}")
        return out
    if (out["status"] or {}).get("state") != "ok":
        return out
    try:
        from torch_envcheck.ext import info  # noqa: PLC0415
    except Exception as exc:
        out["errors"].append(f"torch_envcheck.ext.info: {_text(exc)}")
        return out
    for name in ("build_info", "runtime_info"):
        try:
            out[name] = getattr(info, name)(build=False)
        except Exception as exc:
            out["errors"].append(f"{name}(): {_text(exc)}")
    return out
