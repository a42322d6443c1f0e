"""One detection pass, stage by stage: read the new seats, then links, suspect pairs and flags, in one transaction.

The stages are ``links``, ``suspects`` and ``flags`` of this package; the cursors that say which games are new
are ``cursors``. A pass's cost follows the new games, not the history (docs/moderation.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.models import Game, Seat
from moderation import rules
from moderation.detection.base import COUNTERS, DetectionResult, chunks
from moderation.detection.cursors import newly_rated
from moderation.detection.flags import flagged_beneficiaries, flags_update
from moderation.detection.links import links_update
from moderation.detection.suspects import pair_suspects, ring_suspects
from moderation.models import DetectionState


def detection_run(
    *, now: datetime | None = None, limit: int | None = None, progress: Callable[[str], None] | None = None
) -> DetectionResult:
    """One incremental pass over the games recorded and rated since the last one; a single transaction.

    The watermark row is locked for the pass, so two workers never evaluate the same games twice at once.
    ``limit`` caps how many new games, and how many newly rated games, one pass takes (the rest wait for the next).
    """
    now = now or timezone.now()
    result = DetectionResult()
    say = progress or (lambda _message: None)
    with transaction.atomic():
        DetectionState.objects.get_or_create(name="default")
        state = DetectionState.objects.select_for_update().get(name="default")
        new = Game.objects.filter(pk__gt=state.last_game_id).order_by("pk").values_list("pk", flat=True)
        new_ids = list(new[:limit] if limit else new)
        rated_ids, cursors, rated_full = newly_rated(state, limit)
        result.games, result.rated = len(new_ids), len(rated_ids)
        result.more = rated_full or (limit is not None and len(new_ids) >= limit)
        if new_ids or rated_ids:
            say(f"{len(new_ids)} new games, {len(rated_ids)} newly rated")
            _stages(new_ids, rated_ids, now, result, say)
        if new_ids:
            state.last_game_id = new_ids[-1]
        state.rated_seqs = cursors
        state.last_run_at = now
        state.save(update_fields=["last_game_id", "rated_seqs", "last_run_at"])
        result.watermark = state.last_game_id
    return result


def detection_run_all(
    *, now: datetime | None = None, batch: int | None = None, progress: Callable[[str], None] | None = None
) -> DetectionResult:
    """Passes of at most ``batch`` games (``settings.DETECTION_BATCH``) until nothing new is left.

    Each pass is its own transaction, so a first run over a long history holds no lock and no memory for long.
    """
    batch = batch or settings.DETECTION_BATCH
    total = DetectionResult()
    while True:
        result = detection_run(now=now, limit=batch, progress=progress)
        for name in COUNTERS:
            setattr(total, name, getattr(total, name) + getattr(result, name))
        total.flag_ids.extend(result.flag_ids)
        total.watermark = result.watermark
        if not result.more:
            return total


def _seats(new: set[int], rated: set[int]) -> tuple[list[tuple[Any, ...]], dict[int, list[int]]]:
    """Every seat of the pass's games, and the players at each newly rated game's table."""
    seats: list[tuple[Any, ...]] = []
    for chunk in chunks(sorted(new | rated)):
        seats.extend(
            Seat.objects.filter(game_id__in=chunk).values_list(
                "game_id", "player_id", "ip_hash", "device_hash", "game__finished_at", "game__status"
            )
        )
    tables: dict[int, list[int]] = defaultdict(list)
    for game, player, _ip, _device, _at, status in seats:
        if game in rated and status == Game.Status.RATED:
            tables[game].append(player)
    return seats, tables


def _stages(
    new_ids: list[int], rated_ids: list[int], now: datetime, result: DetectionResult, say: Callable[[str], None]
) -> None:
    new, rated = set(new_ids), set(rated_ids)
    seats, tables = _seats(new, rated)
    # A pair can become suspect only by playing together again (more shared games) or by a new or wider link:
    # a game either played elsewhere only adds to the feeder's total and makes the pair less suspect.
    co_seated = {
        (a, b) if a < b else (b, a) for table in tables.values() for i, a in enumerate(table) for b in table[i + 1 :]
    }
    relinked = links_update([seat for seat in seats if seat[0] in new], result)
    touched = {p for table in tables.values() for p in table} | {p for pair in relinked for p in pair}
    say(f"links: {result.links_created} new, {result.links_updated} widened; {len(touched)} players touched")
    since = now - rules.SUSPECT_WINDOW
    beneficiaries = {b for b, _f, _title in pair_suspects(co_seated | relinked, since, result)}
    # Open flags about anyone who played or was linked anew are brought up to date (or left as they stand).
    beneficiaries |= flagged_beneficiaries(touched)
    if not beneficiaries:
        return
    found, ring_pairs = ring_suspects(beneficiaries, since, result)
    result.suspect_pairs = len(found)
    flags_update(found, ring_pairs, beneficiaries, since, now, result, say)
