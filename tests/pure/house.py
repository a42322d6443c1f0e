"""The house's rooms, from the bottom up (docs/architecture.md, "The one-way house"), as every architecture test
reads them: a new app is added here once, and each scan (the sizes, the mode, the stores, the task imports) reaches
it without being told again."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Top floor first, as pyproject.toml's layers contract lists them.
LAYERS = [
    "backoffice | doors",
    "leaderboards | matchmaking | moderation | seasons | tournaments",
    "ratings",
    "arena",
    "infra",
]
APPS = tuple(app for layer in LAYERS for app in layer.split(" | "))
