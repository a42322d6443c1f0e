"""The recording store through the ORM, for SQLite (the embedded mode).

SQLite transactions are IMMEDIATE here (settings): a writer holds the database from its first statement, so
reading the stored tables and the players' statuses and then writing cannot race another writer, and no row
locks are needed. A few statements per call, whatever the number of games (the ORM splits very large batches
into chunks of SQLite's parameter limit).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from arena.models import Game, Seat
from arena.players import players_fetch_or_create
from arena.recording_store import GameRow, GamesWritten, StatusRule


class RecordingPortableStore:
    def games_write(self, *, server_id: int, rows: Sequence[GameRow], status_of: StatusRule) -> dict[str, GamesWritten]:
        with transaction.atomic():
            stored = set(
                Game.objects.filter(server_id=server_id, table_id__in=[r.table_id for r in rows]).values_list(
                    "table_id", flat=True
                )
            )
            rows = [r for r in rows if r.table_id not in stored]
            if not rows:
                return {}
            players = {
                h: (p.pk, p.status) for h, p in players_fetch_or_create(s.handle for r in rows for s in r.seats).items()
            }
            now = timezone.now()
            games = [
                Game(
                    server_id=server_id,
                    table_id=r.table_id,
                    title=r.title,
                    variant=r.variant,
                    rated=r.rated,
                    finished_at=r.finished_at,
                    accepted_at=now,
                    details=r.details,
                    status=status_of(r, {s.handle: players[s.handle][1] for s in r.seats}),
                    recommended_sides=r.recommended_sides,
                    coop_score=r.coop_score,
                    warnings=r.warnings,
                    same_ip=r.same_ip,
                    fingerprint=r.fingerprint,
                )
                for r in rows
            ]
            Game.objects.bulk_create(games)
            Seat.objects.bulk_create(
                [
                    Seat(
                        game=game,
                        player_id=players[s.handle][0],
                        position=s.position,
                        score=s.score,
                        quit=s.quit,
                        team=s.team,
                        side=s.side,
                        place=s.place,
                        fields=s.fields,
                        ip_hash=s.ip_hash,
                        device_hash=s.device_hash,
                    )
                    for game, r in zip(games, rows, strict=True)
                    for s in r.seats
                ]
            )
        return {g.table_id: GamesWritten(g.pk, g.status) for g in games}
