"""Matchmaking's reads, shaped for the API: a ticket (with why it still waits), a table, a player's preferences."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.urls import reverse
from django.utils import timezone

from arena.games import get_game
from arena.models import Game, GameServer
from arena.selectors import player_handle_check
from infra.errors import NotFound
from matchmaking import engine, store
from matchmaking.models import OpenSeat, Preferences, Ticket, TicketSeat
from ratings import hanabi, settled, stages, stakes
from ratings.config import elo_config
from ratings.elo import Standing, k_factor

log = logging.getLogger(__name__)


def ticket_get_for_server(*, server: GameServer, ticket_id: str) -> Ticket:
    """A game server sees only its own tickets: another server's is as unknown as a missing one."""
    try:
        key = uuid.UUID(str(ticket_id))
    except ValueError:
        key = None
    ticket = (
        Ticket.objects.filter(pk=key, server=server).select_related("pool", "table").first()
        if key is not None
        else None
    )
    if ticket is None:
        raise NotFound("ticket_not_found", f"No ticket {ticket_id} from this game server.")
    return ticket


def ticket_present(*, ticket: Ticket) -> dict[str, Any]:
    """The API view of a ticket (docs/api.md). A waiting ticket also says how long it has waited, the Elo gap it now
    accepts and how many tickets wait in its pool: the answer to "why is it taking so long"."""
    seats = list(TicketSeat.objects.filter(ticket=ticket).order_by("position").values_list("player__handle", flat=True))
    pool = ticket.pool
    body: dict[str, Any] = {
        "id": str(ticket.pk),
        "status": ticket.status,
        "player": seats[0],
        "party": seats[1:],
        "game": pool.title,  # the API's word for the title (docs/architecture.md#names)
        "variant": pool.variant,
        "rated": pool.rated,
        "min_players": ticket.min_players,
        "max_players": ticket.max_players,
        "request_id": ticket.request_id,
        "created_at": ticket.created_at,
        "min_reputation": ticket.min_reputation,
        "avoid_provisional": ticket.avoid_provisional,
    }
    if ticket.status == Ticket.Status.CANCELLED and ticket.cancel_reason:
        body["reason"] = ticket.cancel_reason  # deleted, player_banned or server_revoked
    if ticket.status == Ticket.Status.WAITING:
        body["waiting"] = waiting_figures(
            ticket=ticket, now=timezone.now(), pool_waiting=OpenSeat.objects.filter(pool=pool, position=0).count()
        )
        if ticket.min_reputation is not None:
            body["waiting"]["min_reputation"] = _minimum_holding(ticket)
    if ticket.status == Ticket.Status.MATCHED and ticket.table is not None:
        body["table"] = table_present(table=ticket.table)
        body["recorded_game"] = recorded_games(server_id=ticket.server_id, table_ids=[str(ticket.table_id)]).get(
            str(ticket.table_id)
        )
    return body


def waiting_figures(*, ticket: Ticket, now: Any, pool_waiting: int) -> dict[str, Any]:
    """A waiting ticket's wait as shown: the seconds at display precision (0.1 s), and the tolerance and expiry
    computed from those shown seconds, so the three agree by hand (150 + 10 x seconds: 0.0 s shows 150.0, never
    150.1; docs/matchmaking.md)."""
    seconds = round(max(0.0, (now - ticket.created_at).total_seconds()), 1)
    return {
        "seconds": seconds,
        "elo_tolerance": round(engine.tolerance(seconds), 1),
        "pool_waiting": pool_waiting,
        "expires_in": round(max(0.0, engine.EXPIRES_AFTER - seconds), 1),
    }


def recorded_games(*, server_id: int, table_ids: list[str]) -> dict[str, dict[str, Any]]:
    """table id -> ``{"id", "url"}`` of the game this server recorded under the table's id (``table_id`` = the
    table's ``id``: the one id both sides hold), in one query; docs/api.md "Reading tickets back"."""
    if not table_ids:
        return {}
    rows = Game.objects.filter(server_id=server_id, table_id__in=table_ids).values_list("table_id", "pk")
    return {table_id: {"id": pk, "url": reverse("games-detail", kwargs={"game_id": pk})} for table_id, pk in rows}


def _minimum_holding(ticket: Ticket) -> dict[str, Any]:
    """Whether the ticket's minimum reputation is what keeps it waiting: how many waiting tickets would fit with it
    but for that minimum (``engine.minimum_excludes``). One query: the pool as a pass loads it."""
    loaded = store.pool_load(pool=ticket.pool)
    # The load's ids are the database's text of the uuid (hex without dashes on SQLite): compare as uuids.
    mine = next((t for t in loaded.tickets if uuid.UUID(t.id) == ticket.pk), None)
    excludes = 0 if mine is None else engine.minimum_excludes(mine, loaded.tickets, timezone.now().timestamp())
    return {"minimum": ticket.min_reputation, "excludes": excludes, "holding": excludes > 0}


def table_present(*, table: Any) -> dict[str, Any]:
    return {
        "id": str(table.pk),
        "game": table.title,
        "variant": table.variant,
        "rated": table.rated,
        "players": table.players,
        "warnings": table.warnings,
        "formed_at": table.formed_at,
        "stakes": table_stakes(table=table),
    }


def table_stakes(*, table: Any) -> list[dict[str, Any]] | None:
    """docs/matchmaking.md, "Stakes": per seat (seating order), the rating change if the seat places first and if
    it places last (Hanabi: at the threshold score and at a perfect score), from the standings at formation and
    the rating rules' functions (``ratings.stakes``). None for an unrated table, or one formed before stakes, or
    a Hanabi table whose Hanabot rows an admin has removed: a preview must never cost the ticket or its push."""
    standings = table.standings
    if not table.rated or not standings or len(standings) != len(table.players):
        return None
    players = [
        (handle, Standing(float(elo), int(games)))
        for handle, (elo, games) in zip(table.players, standings, strict=True)
    ]
    config = elo_config()
    rules = get_game(table.title)
    if rules.cooperative:
        hanabi_rules = stages.hanabi_rules(table.title)
        try:
            found = stakes.hanabi_stakes(
                players, table.variant[hanabi.DECK_VARIANT], hanabi_rules.table, hanabi_rules.below_rule, config
            )
        except hanabi.HanabotRowMissing as missing:
            log.warning("stakes unavailable for table %s: %s", table.pk, missing)
            return None
        names = ("at_perfect", "at_threshold")
    else:
        found = stakes.competitive_stakes(players, rules.recommended_players, config)
        names = ("if_first", "if_last")
    return [
        {
            "player": handle,
            "rating": standing.rating,
            "games": standing.games,
            "k": k_factor(standing.games, config),
            names[0]: found[handle].best,
            names[1]: found[handle].worst,
            # docs/ratings.md, "How settled is a rating": from the games at formation, as a board shows it.
            **settled.on_board(standing.games, config),
        }
        for handle, standing in players
    ]


def preferences_get(*, handle: str) -> dict[str, Any]:
    """A player's preferences; a player who never set any, or Arena has not seen yet, has the defaults (a PUT would
    create them, so a GET answers what they are until then). Only a handle that cannot be a player id is 404."""
    player_handle_check(handle)
    prefs = Preferences.objects.filter(player__handle=handle).first()
    return preferences_present(handle=handle, prefs=prefs)


def preferences_present(*, handle: str, prefs: Preferences | None) -> dict[str, Any]:
    return {
        "player": handle,
        "refuse_same_ip": prefs.refuse_same_ip if prefs else False,
        "blocked": list(prefs.blocked) if prefs else [],
    }
