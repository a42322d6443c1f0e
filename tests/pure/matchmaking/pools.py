"""Hand-made tickets and the tables the engine seats them at, shared by the engine's hand-worked tests (the
reputation and provisional rules, each judged by its own brute-force judge in its own module)."""

from __future__ import annotations

from typing import Any

from matchmaking.engine import Ticket, match

NOW = 10_000.0
SKILL = (25.0, 25.0 / 3)


def ticket(
    name: str,
    *,
    elo: float = 1500.0,
    waited: float = 0.0,
    players: tuple[int, int] = (2, 5),
    ip: str | None = None,
    blocked: tuple[str, ...] = (),
    refuses: bool = False,
    party: tuple[str, ...] = (),
    **rules: Any,
) -> Ticket:
    """A waiting ticket of ``name`` (its id ``t-name``); ``rules`` are the Ticket's own fields (reputation,
    min_reputation, provisional, avoid_provisional)."""
    return Ticket(
        id=f"t-{name}",
        player=name,
        ip_hash=ip or f"ip-{name}",
        elo=elo,
        skill=SKILL,
        min_players=players[0],
        max_players=players[1],
        refuses_same_ip=refuses,
        queued_at=NOW - waited,
        blocked=frozenset(blocked),
        party=tuple(party),
        **rules,
    )


def seated(pool: list[Ticket], rec: int = 2, low: int = 2, high: int = 5) -> list[tuple[str, ...]]:
    return [table.players for table in match(pool, NOW, recommended=rec, game_min=low, game_max=high)]
