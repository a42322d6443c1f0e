"""Leaderboards' metric (docs/observability.md): reads answered from SQL because Redis did not answer."""

from __future__ import annotations

from prometheus_client import Counter

FALLBACK = Counter("arena_leaderboard_fallback", "Leaderboard reads served from SQL because Redis was unreachable.")
