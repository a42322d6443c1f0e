"""A tournament round's tables pushed to the organising game server (docs/tournaments.md, "Pushes").

Tournaments and matchmaking are siblings (neither imports the other), so tournaments announces a paired round
(``TournamentRoundPaired``) and this top-floor listener pushes each table through matchmaking's one door for
events, ``event_push``: the same envelope, signature, delivery ids, retries and delivery log as a matchmaking
table, with the type ``tournament.table_formed``. One event per table, all written in one transaction.
"""

from __future__ import annotations

from django.db import transaction

from infra.announcements import TournamentRoundPaired, subscribe
from matchmaking.events import TOURNAMENT_TABLE_FORMED, event_push
from tournaments.selectors import round_bodies


def on_round_paired(fact: TournamentRoundPaired) -> None:
    server_id, bodies = round_bodies(tournament_id=fact.tournament_id, number=fact.round)
    with transaction.atomic():
        for body in bodies:
            event_push(server_id, TOURNAMENT_TABLE_FORMED, body)


def subscribe_all() -> None:
    subscribe(TournamentRoundPaired, on_round_paired)
