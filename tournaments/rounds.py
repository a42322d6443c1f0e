"""A running tournament's rounds: pair one, take a table's result, close a round at its deadline.

docs/tournaments.md ("Pairing a round", "Rounds, results and deadlines", "Elimination"). The rules are the pure
modules' (``pairing.py``, ``standings.py``, ``progress.py``, ``elimination.py``); this module loads the records they
need, writes what they decide, and announces each new round after its commit (``TournamentRoundPaired``: the top
floor pushes its tables). Every write here runs under the tournament's row lock, so a result, a deadline and a void
never interleave; the round after a result's is paired by a worker (``next_round_pair``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena.games import get_game
from arena.models import Game, Seat
from infra.announcements import TournamentRoundPaired, announce
from infra.api.contract import MAX_ID
from infra.db import retry_transient
from infra.errors import ArenaError, Conflict, InvalidInput, NotFound
from infra.handoffs import HandOff, hand_off
from tournaments import elimination, progress
from tournaments.models import Bye, Entry, Round, Table, TableSeat, Tournament
from tournaments.pairing import Entrant, PairedTable, Pairing, PairingError, pair_round
from tournaments.standings import ByeRecord, Line, TableRecord, standings


@dataclass(frozen=True, slots=True)
class Records:
    """What the pure rules read: start Elo of the players still in, the played tables, byes, the voided."""

    start_elo: dict[int, float]
    tables: list[TableRecord]
    byes: list[ByeRecord]
    removed: frozenset[int]


def records_load(tournament: Tournament, *, before_round: int | None = None) -> Records:
    """The tournament's records (every round, or those before ``before_round``): a table counts once it has a
    result or its deadline passed (no-shows lose); an open table is not yet part of the standings."""
    entries = list(
        Entry.objects.filter(
            tournament=tournament, status__in=[Entry.Status.REGISTERED, Entry.Status.VOIDED]
        ).values_list("player_id", "start_elo", "status")
    )
    start_elo = {p: float(e or 0.0) for p, e, _ in entries}
    removed = frozenset(p for p, _, s in entries if s == Entry.Status.VOIDED)
    rounds = Round.objects.filter(tournament=tournament)
    if before_round is not None:
        rounds = rounds.filter(number__lt=before_round)
    seats: dict[int, list[tuple[int, int, int | None]]] = {}
    for table_id, player_id, position, place in TableSeat.objects.filter(table__round__in=rounds).values_list(
        "table_id", "player_id", "position", "place"
    ):
        seats.setdefault(table_id, []).append((position, player_id, place))
    tables = []
    for table_id, number, has_game, no_show in (
        Table.objects.filter(round__in=rounds)
        .values_list("pk", "round__number", "game_id", "no_show")
        .order_by("round__number", "board")
    ):
        if has_game is None and not no_show:
            continue
        ordered = sorted(seats.get(table_id, []))
        places = None if no_show else tuple(place or 0 for _, _, place in ordered)
        tables.append(TableRecord(number, table_id, tuple(p for _, p, _ in ordered), places))
    byes = [ByeRecord(n, p) for n, p in Bye.objects.filter(round__in=rounds).values_list("round__number", "player_id")]
    return Records(start_elo, tables, byes, removed)


def standings_of(tournament: Tournament, records: Records | None = None) -> list[Line]:
    records = records or records_load(tournament)
    if tournament.format == Tournament.ELIMINATION:  # docs/tournaments.md#elimination: rounds advanced, then seed
        return elimination.standings(records.start_elo, records.tables, records.removed, tournament.rounds)
    return standings(records.start_elo, records.tables, records.byes, tournament.table_size, records.removed)


def _explanation(
    table: PairedTable, entrants: dict[int, Entrant], handles: dict[int, str], *, bracket: bool = False
) -> dict:
    """A table's reasons in the API's words (handles, not row ids): docs/tournaments.md#what-the-pairing-optimises;
    an elimination table gives its bracket line (the two seeds) instead of a score group and repeats."""
    top, bottom = max(table.points), min(table.points)
    first = entrants[table.seats[0]]
    repeats = [[handles[a], handles[b]] for a, b in table.repeats]
    seat_1 = f"seat 1: {handles[first.player]}, {first.first_seats} first seats before (fewest at the table)"
    return {
        "score_group": {"highest": top, "lowest": bottom},
        "repeats": repeats,
        "seat_1": {"player": handles[first.player], "first_seats_before": first.first_seats},
        "reasons": [table.reasons[0], seat_1]
        if bracket
        else [
            f"score group {top}-{bottom} points" if top != bottom else f"score group {top} points",
            ("repeats forced: " + ", ".join(f"{a}-{b}" for a, b in repeats)) if repeats else "no repeated table-mates",
            seat_1,
        ],
    }


def round_pair(tournament: Tournament) -> Round | None:
    """Pair the next round (caller holds the tournament's lock), or finish the tournament after its last round or
    when too few players are left to fill a table. Announces the round after the commit."""
    now = timezone.now()
    number = tournament.round + 1
    if number > tournament.rounds:
        return _finish(tournament, now)
    records = records_load(tournament)
    try:
        pairing, by_player = _pairing_for(tournament, records, number)
    except PairingError:
        return _finish(tournament, now)
    if not pairing.tables and not pairing.byes:  # an elimination bracket emptied by no-shows and voids
        return _finish(tournament, now)
    handles = dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "player__handle"))
    bracket = tournament.format == Tournament.ELIMINATION
    rnd = Round.objects.create(
        tournament=tournament,
        number=number,
        paired_at=now,
        deadline=now + timedelta(minutes=tournament.round_minutes),
        repeats=pairing.repeats,
        exact=pairing.exact,
        notes=list(pairing.notes),
    )
    tables = Table.objects.bulk_create(
        [
            Table(round=rnd, board=t.board, explanation=_explanation(t, by_player, handles, bracket=bracket))
            for t in pairing.tables
        ]
    )
    if any(t.pk is None for t in tables):  # backends without RETURNING on bulk inserts
        tables = list(Table.objects.filter(round=rnd).order_by("board"))
    TableSeat.objects.bulk_create(
        [
            TableSeat(table=row, player_id=p, position=i)
            for row, paired in zip(tables, pairing.tables, strict=True)
            for i, p in enumerate(paired.seats)
        ]
    )
    Bye.objects.bulk_create([Bye(round=rnd, player_id=p) for p in pairing.byes])
    tournament.round = number
    tournament.save(update_fields=["round"])
    announce(TournamentRoundPaired(tournament_id=tournament.pk, round=number))
    if not pairing.tables:  # only walkovers: nothing to wait for, the next round follows at once
        rnd.closed_at = now
        rnd.save(update_fields=["closed_at"])
        round_pair(tournament)
    return rnd


def _pairing_for(tournament: Tournament, records: Records, number: int) -> tuple[Pairing, dict[int, Entrant]]:
    """The round's pairing by the tournament's format (docs/tournaments.md), and each seated player as an Entrant
    (their first seats, which the explanation quotes)."""
    if tournament.format == Tournament.ELIMINATION:
        pairing = elimination.pair(records.start_elo, records.tables, records.removed, number)
        firsts = Counter(record.seats[0] for record in records.tables)
        return pairing, {p: Entrant(p, first_seats=firsts[p]) for t in pairing.tables for p in t.seats}
    if number == 1:
        entrants = progress.first_round_entrants(
            {p: e for p, e in records.start_elo.items() if p not in records.removed}
        )
    else:
        lines = standings(records.start_elo, records.tables, records.byes, tournament.table_size, records.removed)
        entrants = progress.next_entrants(lines, records.tables, records.byes)
    low, _ = get_game(tournament.title).player_range({})
    return pair_round(entrants, tournament.table_size, low), {e.player: e for e in entrants}


def _finish(tournament: Tournament, now: object) -> None:
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    return None


# A round's last result closes it; the next round is paired by a worker after that commit, never in the recording
# request (pairing reads every table of the tournament). Bound in tournaments/tasks.py.
next_round_pair = HandOff("tournaments: pair the round after a closed one")


def _round_close_if_done(tournament: Tournament, rnd: Round, *, pair_now: bool = False) -> None:
    """Close ``rnd`` once every table has a result or is a no-show; then the next round is paired, here when the
    caller is a worker already (``pair_now``: beat's deadline), else handed to a worker after the commit."""
    if Table.objects.filter(round=rnd, game__isnull=True, no_show=False).exists():
        return
    rnd.closed_at = timezone.now()
    rnd.save(update_fields=["closed_at"])
    if pair_now:
        round_pair(tournament)
    else:
        hand_off(next_round_pair, tournament.pk, rnd.number)


def round_next_pair(*, tournament_id: int, after: int) -> int | None:
    """The worker's side: pair the round after round ``after`` once that round is closed, exactly once. Under the
    tournament's row lock it pairs only while the tournament is running and still at round ``after`` with that
    round closed, so a retried task, a second worker and beat's sweep find it paired and do nothing (the unique
    (tournament, number) of rounds is the last guard). Returns the round paired, None when there was nothing to do
    (or the tournament finished)."""

    def work() -> int | None:
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
            if tournament is None or tournament.status != Tournament.Status.RUNNING or tournament.round != after:
                return None
            if Round.objects.filter(tournament=tournament, number=after, closed_at__isnull=True).exists():
                return None
            paired = round_pair(tournament)
            return paired.number if paired is not None else None

    return retry_transient(work)


def rounds_unpaired() -> list[int]:
    """Beat's sweep: a running tournament whose current round is closed without a next one (its hand-off lost, say
    the process died between the commit and the queue) gets it within a minute; the tournaments paired."""
    closed = Round.objects.filter(
        tournament__status=Tournament.Status.RUNNING, number=F("tournament__round"), closed_at__isnull=False
    ).values_list("tournament_id", "number")
    return [tid for tid, number in closed if round_next_pair(tournament_id=tid, after=number) is not None]


def table_for_game(*, server_id: int, table_id: object) -> Table:
    """The table a game names (``tournament_table``), this server's own; 404 for anything else."""
    if isinstance(table_id, bool) or not isinstance(table_id, int) or not 1 <= table_id <= MAX_ID:
        raise InvalidInput(
            "invalid_input",
            "tournament_table must be a table's id (a positive integer).",
            {"tournament_table": f"Must be an integer from 1 to {MAX_ID}."},
        )
    table = (
        Table.objects.select_related("round__tournament")
        .filter(pk=table_id, round__tournament__server_id=server_id)
        .first()
    )
    if table is None:
        raise NotFound(
            "tournament_table_not_found",
            f"No tournament table {table_id} of this game server.",
            {"tournament_table": "No such table."},
        )
    return table


def table_game_check(*, table: Table, title: str, handles: list[str], server_table_id: str) -> None:
    """A game may be recorded for the table only while its round is open, in the tournament's title, with exactly
    the table's players (409 ``tournament_table_closed``, 400 ``tournament_table_mismatch``). The table's own game
    sent again passes (a resend answers 200, as any resent game)."""
    tournament = table.round.tournament
    if table.game_id is not None and Game.objects.filter(pk=table.game_id, table_id=server_table_id).exists():
        return
    if tournament.status != Tournament.Status.RUNNING or table.round.closed_at is not None or table.no_show:
        raise Conflict(
            "tournament_table_closed",
            f"Table {table.pk}'s round is over; its result can no longer be recorded.",
            {"tournament_table": "Round closed."},
        )
    seated = set(TableSeat.objects.filter(table=table).values_list("player__handle", flat=True))
    fields = {}
    if title != tournament.title:
        fields["game"] = f"The tournament plays {tournament.title}."
    if set(handles) != seated:
        fields["players"] = "Must be exactly the table's players: " + ", ".join(sorted(seated)) + "."
    if fields:
        raise InvalidInput("tournament_table_mismatch", f"The game does not match tournament table {table.pk}.", fields)


def table_result_record(*, table_id: int, game: Game) -> None:
    """The table's result is the recorded game's places; when it completes the round, the next is paired. Safe to
    repeat with the same game (a resent body); another game for a table that has one is 409."""
    table = Table.objects.select_related("round").get(pk=table_id)
    tournament = Tournament.objects.select_for_update().get(pk=table.round.tournament_id)
    table.refresh_from_db()
    if table.game_id == game.pk:
        return
    if table.game_id is not None:
        raise Conflict(
            "tournament_table_recorded",
            f"Table {table.pk} already has its game ({table.game_id}).",
            {"tournament_table": "Already recorded."},
        )
    if table.no_show or table.round.closed_at is not None or tournament.status != Tournament.Status.RUNNING:
        raise Conflict(
            "tournament_table_closed", f"Table {table.pk}'s round is over.", {"tournament_table": "Round closed."}
        )
    places = dict(Seat.objects.filter(game=game).values_list("player_id", "place"))
    for seat in TableSeat.objects.filter(table=table):
        seat.place = places.get(seat.player_id) or 1  # a place-less (cooperative) seat: all tie
        seat.save(update_fields=["place"])
    table.game = game
    table.save(update_fields=["game"])
    _round_close_if_done(tournament, table.round)


def rounds_overdue(*, now: object = None) -> list[int]:
    """Beat: every open round past its deadline is closed; its tables without a result score 0 for every seat
    (no-shows lose, docs/tournaments.md#byes-and-no-shows), and the next round is paired."""
    moment = now or timezone.now()
    closed = []
    for round_id in Round.objects.filter(closed_at__isnull=True, deadline__lte=moment).values_list("pk", flat=True):
        with transaction.atomic():
            rnd = Round.objects.get(pk=round_id)
            tournament = Tournament.objects.select_for_update().get(pk=rnd.tournament_id)
            rnd.refresh_from_db()
            if rnd.closed_at is not None or tournament.status != Tournament.Status.RUNNING:
                continue
            Table.objects.filter(round=rnd, game__isnull=True).update(no_show=True)
            _round_close_if_done(tournament, rnd, pair_now=True)  # beat is a worker already
            closed.append(round_id)
    return closed


def lock(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise NotFound("tournament_not_found", f"No tournament {tournament_id}.") from None


__all__ = [
    "ArenaError",
    "Records",
    "lock",
    "next_round_pair",
    "records_load",
    "round_next_pair",
    "round_pair",
    "rounds_overdue",
    "rounds_unpaired",
    "standings_of",
    "table_for_game",
    "table_game_check",
    "table_result_record",
]
