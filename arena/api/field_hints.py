"""Naming an unknown field with the one that was probably meant (issue 26 §4): ``{"user": ...}`` is answered
"Unknown field; did you mean player?", as the ``scroe`` typo already is. Pure: a spelling close to a known field
(difflib), or a word integrators commonly use for it (other APIs' names: ``user`` for ``player``)."""

from __future__ import annotations

import difflib
from collections.abc import Collection

# Other APIs' words for our fields: checked only against fields the body may carry.
SYNONYMS = {
    "user": "player",
    "user_id": "player",
    "username": "player",
    "player_id": "player",
    "name": "player",
    "handle": "player",
    "ip_address": "ip",
    "address": "ip",
    "points": "score",
    "title": "game",
    "game_type": "game",
    "table": "table_id",
    "match_id": "table_id",
    "ended_at": "finished_at",
    "finished": "finished_at",
    "options": "variant",
    "friends": "party",
    "results": "players",
}


def suggestion(key: object, known: Collection[str]) -> str | None:
    """The known field ``key`` probably meant, or None."""
    text = str(key)
    meant = SYNONYMS.get(text.lower())
    if meant in known:
        return meant
    close = difflib.get_close_matches(text, sorted(known), n=1, cutoff=0.7)
    return close[0] if close else None


def unknown_field(key: object, known: Collection[str]) -> str:
    """The ``fields`` message of an unknown field."""
    meant = suggestion(key, known)
    return f"Unknown field; did you mean {meant}?" if meant else "Unknown field."
