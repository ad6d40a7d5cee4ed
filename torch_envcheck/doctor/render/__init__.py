"""Renderers of a doctor report: terminal (flutter-doctor style), markdown (for a GitHub issue)
and JSON.  All of them take the report dict and return text; none of them judges anything."""

from __future__ import annotations
