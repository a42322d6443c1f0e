"""A tournament as the API shows it: the tournament with its rounds and standings, one round with each table's
explanation, one player's standing term by term (docs/tournaments.md, "The API"). A fixed number of queries
whatever the size: the rows are read per kind, the standings recomputed by the pure rules from the records."""

from __future__ import annotations

from typing import Any

from infra.errors import NotFound
from tournaments import progress
from tournaments.models import Bye, Entry, Round, Table, TableSeat, Tournament
from tournaments.rounds import records_load, standings_of
from tournaments.standings import Line


def _handles(tournament: Tournament) -> dict[int, str]:
    return dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "player__handle"))


def _rounds(tournament: Tournament, handles: dict[int, str], number: int | None = None) -> list[dict[str, Any]]:
    rounds = Round.objects.filter(tournament=tournament).order_by("number")
    if number is not None:
        rounds = rounds.filter(number=number)
    seats: dict[int, list[tuple[int, int, int | None]]] = {}
    for table_id, position, player_id, place in TableSeat.objects.filter(table__round__in=rounds).values_list(
        "table_id", "position", "player_id", "place"
    ):
        seats.setdefault(table_id, []).append((position, player_id, place))
    tables: dict[int, list[Table]] = {}
    for table in Table.objects.filter(round__in=rounds).order_by("board"):
        tables.setdefault(table.round_id, []).append(table)
    byes: dict[int, list[str]] = {}
    for round_id, player_id in Bye.objects.filter(round__in=rounds).values_list("round_id", "player_id"):
        byes.setdefault(round_id, []).append(handles[player_id])
    out = []
    for rnd in rounds:
        out.append(
            {
                "number": rnd.number,
                "paired_at": rnd.paired_at,
                "deadline": rnd.deadline,
                "closed_at": rnd.closed_at,
                "tables": [
                    _table(t, sorted(seats.get(t.pk, [])), handles, number is not None) for t in tables.get(rnd.pk, [])
                ],
                "byes": sorted(byes.get(rnd.pk, [])),
                **({"repeats": rnd.repeats, "exact": rnd.exact, "notes": rnd.notes} if number is not None else {}),
            }
        )
    return out


def _table(
    table: Table, seats: list[tuple[int, int, int | None]], handles: dict[int, str], explained: bool
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": table.pk,
        "board": table.board,
        "seats": [handles[p] for _, p, _ in seats],
        "game": table.game_id,
        "no_show": table.no_show,
    }
    if table.game_id is not None:
        body["places"] = [place for _, _, place in seats]
    if explained:
        body["explanation"] = table.explanation
    return body


def _line(line: Line, handles: dict[int, str]) -> dict[str, Any]:
    return {
        "rank": line.rank,
        "player": handles[line.player],
        "points": line.points,
        "buchholz": line.buchholz,
        "opponents_elo": round(float(line.opponents_elo), 2),
        "head_to_head": line.head_to_head,
    }


def tournament_present(tournament: Tournament) -> dict[str, Any]:
    handles = _handles(tournament)
    entries = list(Entry.objects.filter(tournament=tournament).values_list("player_id", "status", "reason"))
    lines = standings_of(tournament) if tournament.round else []
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "game": tournament.title,
        "format": tournament.format,
        "status": tournament.status,
        "rounds_planned": tournament.rounds,
        "round": tournament.round,
        "table_size": tournament.table_size,
        "round_minutes": tournament.round_minutes,
        "starts_at": tournament.starts_at,
        "started_at": tournament.started_at,
        "finished_at": tournament.finished_at,
        "gates": {
            "min_reputation": tournament.min_reputation,
            "rating_min": tournament.rating_min,
            "rating_max": tournament.rating_max,
            "max_players": tournament.max_players,
        },
        "players": sorted(handles[p] for p, status, _ in entries if status == Entry.Status.REGISTERED),
        "left": sorted(
            (
                {"player": handles[p], "status": status, "reason": reason}
                for p, status, reason in entries
                if status in (Entry.Status.REMOVED, Entry.Status.VOIDED)
            ),
            key=lambda item: item["player"],
        ),
        "rounds": _rounds(tournament, handles),
        "standings": [_line(line, handles) for line in lines],
        "voids": tournament.voids,
        **({"cancel_reason": tournament.cancel_reason} if tournament.status == Tournament.Status.CANCELLED else {}),
    }


def round_present(tournament: Tournament, number: int) -> dict[str, Any]:
    handles = _handles(tournament)
    rounds = _rounds(tournament, handles, number)
    if not rounds:
        raise NotFound("round_not_found", f"Tournament {tournament.pk} has no round {number} yet.")
    return rounds[0]


def _named(value: Any, handles: dict[int, str]) -> Any:
    """The pure explanation with row ids turned into the players' ids."""
    if isinstance(value, dict):
        return {
            k: (handles[v] if k in ("player", "table_mate") and isinstance(v, int) else _named(v, handles))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_named(v, handles) for v in value]
    return value


def standing_explain(tournament: Tournament, handle: str) -> dict[str, Any]:
    """One player's line, each figure with the terms it adds up from (docs/tournaments.md#tie-breaks)."""
    handles = _handles(tournament)
    lines = standings_of(tournament, records_load(tournament)) if tournament.round else []  # none before the start
    line = next((line for line in lines if handles[line.player] == handle), None)
    if line is None:
        raise NotFound(
            "standing_not_found",
            f"{handle} has no standing in tournament {tournament.pk}.",
            {"player": "Not in the standings."},
        )
    body = _named(progress.explain(line), handles)
    body["points"]["terms"] = [{**term, **_source(term["from"])} for term in body["points"]["terms"]]
    return body


def _source(label: str) -> dict[str, Any]:
    """``"table 12"`` reads ``from: "table", table: 12``; a bye ``from: "bye", table: null``."""
    kind, _, rest = label.partition(" ")
    return {"from": kind, "table": int(rest) if rest else None}


def round_bodies(*, tournament_id: int, number: int) -> tuple[int, list[dict[str, Any]]]:
    """The organising server and one push body per table of a round (``tournament.table_formed``'s ``data``)."""
    tournament = Tournament.objects.get(pk=tournament_id)
    rnd = round_present(tournament, number)
    head = {"id": tournament.pk, "name": tournament.name, "game": tournament.title}
    return tournament.server_id, [
        {
            "tournament": head,
            "round": number,
            "deadline": rnd["deadline"],
            "table": {
                "id": t["id"],
                "board": t["board"],
                "seats": t["seats"],
                "seat_1": t["explanation"].get("seat_1", {}).get("player"),
            },
        }
        for t in rnd["tables"]
    ]
