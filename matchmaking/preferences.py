"""Matchmaking's preferences writes: who a player refuses to sit with (same address, a blocked list).

Read at every pass (``store.pool_load``); written only here, by the preferences door (``PUT``/``PATCH``). The
reads for the door are ``matchmaking/selectors.py``'s (``preferences_get``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction

from arena.players import players_fetch_or_create
from infra.errors import InvalidInput
from matchmaking.models import Preferences


def blocked_list_check(blocked: Sequence[Any]) -> None:
    """``too_many_blocked`` for a list of more than ``MATCHMAKING_BLOCKED_MAX`` entries, counted as sent (repeats
    too): the first thing done with a list, before any entry is validated, deduplicated or sorted, so a huge
    list costs nothing but its length (docs/security.md, the limits). The door calls it before parsing."""
    limit = settings.MATCHMAKING_BLOCKED_MAX
    if len(blocked) > limit:
        raise InvalidInput(
            "too_many_blocked", f"A player may block at most {limit} players.", {"blocked": f"At most {limit} players."}
        )


def preferences_set(*, handle: str, refuse_same_ip: bool, blocked: Sequence[str]) -> Preferences:
    """Replaces the player's preferences; blocked players unknown so far are created, as players are elsewhere."""
    names = _blocked_names(handle, blocked)
    with transaction.atomic():
        players = players_fetch_or_create([handle, *names])
        prefs, _ = Preferences.objects.update_or_create(
            player=players[handle],
            defaults={"refuse_same_ip": refuse_same_ip, "blocked": names},
        )
    return prefs


def preferences_update(
    *, handle: str, refuse_same_ip: bool | None = None, blocked: Sequence[str] | None = None
) -> Preferences:
    """A partial change (PATCH): a field given None keeps its stored value (or its default), under the row's lock
    so two partial changes at once both land."""
    names = _blocked_names(handle, blocked) if blocked is not None else None
    with transaction.atomic():
        players = players_fetch_or_create([handle, *(names or ())])
        prefs, _ = Preferences.objects.select_for_update().get_or_create(player=players[handle])
        if refuse_same_ip is not None:
            prefs.refuse_same_ip = refuse_same_ip
        if names is not None:
            prefs.blocked = names
        prefs.save()
    return prefs


def _blocked_names(handle: str, blocked: Sequence[str]) -> list[str]:
    """The blocked list as stored (sorted, no repeats), or the refusal: the player, or more than the limit."""
    blocked_list_check(blocked)
    names = sorted(set(blocked))
    if handle in names:
        raise InvalidInput(
            "cannot_block_self",
            "A player cannot block themself.",
            {f"blocked.{list(blocked).index(handle)}": "This is the player."},
        )
    return names
