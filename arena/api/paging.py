"""The ranked-list window every public list takes: ``limit``, ``offset``, or ``around=PLAYER`` (docs/api.md).

The boards and the season standings page the same way, so one parser names each bad field the same way for both.
"""

from __future__ import annotations

from django.http import QueryDict

from arena.models import is_player_id
from infra.errors import InvalidInput

# Far beyond any population, small enough for every database's integer.
MAX_OFFSET = 1_000_000_000


def window_parse(
    params: QueryDict, *, max_limit: int, default_page: int, default_around: int
) -> tuple[int, int, str | None]:
    """(limit, offset, around) from the query; InvalidInput with one message per bad field."""
    fields: dict[str, str] = {}

    def integer(name: str, low: int, high: int) -> int | None:
        raw = params.get(name)
        if raw is None:
            return None
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 12) or not low <= int(raw) <= high:
            fields[name] = f"Must be an integer from {low} to {high}."
            return None
        return int(raw)

    limit = integer("limit", 1, max_limit)
    offset = integer("offset", 0, MAX_OFFSET)
    around = params.get("around")
    if around is not None:
        if not is_player_id(around):
            fields["around"] = "Must be a player id."
        if "offset" in params:
            fields["offset"] = "Not allowed with around: the window places itself."
    if fields:
        raise InvalidInput("invalid_input", "Some query parameters are invalid; see fields.", fields)
    return limit or (default_page if around is None else default_around), offset or 0, around
