"""Voids in a tournament (docs/tournaments.md#voids): the voided player leaves the standings, every table they sat
at is scored again without them, the pairings stand, and the change is listed on the tournament.

Who is "the voided player" of a voided game: the banned players at its table (moderation voids games played with a
banned account). A voided game with nobody banned at it changes no standing (nobody to take out), and is listed
with an empty change so the organiser sees it was looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from arena.models import Player
from tournaments.models import Entry, Table, TableSeat, Tournament
from tournaments.rounds import lock, standings_of


def tournament_games_void(*, game_ids: Sequence[int]) -> list[int]:
    """Apply voided games to the tournaments whose tables they were; returns those tournaments' ids. Safe to
    repeat: a player already out is not taken out twice, a game already listed is not listed again."""
    touched: dict[int, list[Table]] = {}
    for table in Table.objects.filter(game_id__in=game_ids).select_related("round"):
        touched.setdefault(table.round.tournament_id, []).append(table)
    for tournament_id, tables in touched.items():
        with transaction.atomic():
            tournament = lock(tournament_id)
            for table in tables:
                _void_table(tournament, table)
    return sorted(touched)


def _void_table(tournament: Tournament, table: Table) -> None:
    if any(item.get("game") == table.game_id for item in tournament.voids):
        return
    banned = list(
        TableSeat.objects.filter(table=table, player__status=Player.Status.BANNED).values_list(
            "player_id", "player__handle"
        )
    )
    before = {line.player: line.points for line in standings_of(tournament)}
    Entry.objects.filter(tournament=tournament, player_id__in=[p for p, _ in banned]).update(
        status=Entry.Status.VOIDED, reason="games voided"
    )
    after = {line.player: line.points for line in standings_of(tournament)}
    handles = dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "player__handle"))
    changes = [
        {"player": handles[p], "before": before[p], "after": after[p]}
        for p in sorted(after, key=lambda p: handles[p])
        if before.get(p) != after[p]
    ]
    tournament.voids = [
        *tournament.voids,
        {
            "game": table.game_id,
            "table": table.pk,
            "players": sorted(h for _, h in banned),
            "at": timezone.now().isoformat(),
            "changes": changes,
        },
    ]
    tournament.save(update_fields=["voids"])
