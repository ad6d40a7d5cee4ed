"""Reading explain's answers in tests: what an answer tells the user to do."""

from __future__ import annotations


def fix_of(answer: dict) -> str:
    """The answer's fix, or for a not-environment answer what to look at; "" when it has neither."""
    return answer.get("fix") or answer.get("look_at") or ""
