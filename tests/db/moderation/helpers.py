"""Builders for the moderation tests: duels and links with chosen dates, addresses and devices."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from tests.db.ratings.helpers import post, rate_all

_tables = itertools.count(1)


def own_ip(handle: str) -> str:
    """Each handle's own /64, the same on every call: a player never links to anyone by chance."""
    digest = hashlib.sha256(handle.encode()).hexdigest()
    return f"2001:db8:{digest[:4]}:{digest[4:8]}::1"


def when(days_ago: float, now: datetime | None = None) -> str:
    at = (now or timezone.now()) - timedelta(days=days_ago)
    return at.isoformat().replace("+00:00", "Z")


def duel(
    winner: str,
    loser: str,
    *,
    days_ago: float = 1,
    title: str = "tokaido",
    tie: bool = False,
    ips: dict[str, str] | None = None,
    devices: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A rated two-player game of Tokaido (or Nile) that ``winner`` wins (or ties) against ``loser``."""
    ips, devices = ips or {}, devices or {}
    players = []
    for handle, score in ((winner, 40), (loser, 40 if tie else 30)):
        entry: dict[str, Any] = {"player": handle, "ip": ips.get(handle, own_ip(handle))}
        if handle in devices:
            entry["device"] = devices[handle]
        if title == "tokaido":
            entry.update(score=score, achievements=0)
        else:  # nile: the smallest pile decides
            entry["crops"] = [score // 10] * 5
        players.append(entry)
    return {"table_id": f"M-{next(_tables)}", "game": title, "players": players, "finished_at": when(days_ago)}


def seen(handle: str, *, days_ago: float, ip: str | None = None, device: str | None = None) -> dict[str, Any]:
    """A solo unrated game: it leaves a use of an address or device and nothing else."""
    entry: dict[str, Any] = {"player": handle, "ip": ip or own_ip(handle), "score": 10, "errors": 0}
    if device:
        entry["device"] = device
    return {
        "table_id": f"S-{next(_tables)}",
        "game": "railroad_ink",
        "rated": False,
        "players": [entry],
        "finished_at": when(days_ago),
    }


def link(
    a: str, b: str, *, kind: str = "ip", days_ago: float = 20, apart: float = 0, key: str | None = None
) -> list[dict[str, Any]]:
    """Two uses of one address (or device) by ``a`` and ``b``, ``apart`` days from each other."""
    shared = key or f"shared-{a}-{b}"
    if kind == "ip":
        digest = hashlib.sha256(shared.encode()).hexdigest()
        address = f"10.{int(digest[:2], 16)}.{int(digest[2:4], 16)}.{int(digest[4:6], 16)}"
        return [seen(a, days_ago=days_ago, ip=address), seen(b, days_ago=days_ago - apart, ip=address)]
    return [seen(a, days_ago=days_ago, device=shared), seen(b, days_ago=days_ago - apart, device=shared)]


def record(api: Any, bodies: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Post, then rate (in tests on_commit hooks do not run): what the worker does after each batch."""
    out = post(api, list(bodies))
    rate_all()
    return out


def detect(now: datetime | None = None):
    from moderation import detection

    return detection.detection_run(now=now)
