"""Tickets in and out: a ticket opened (checked against the game's rules, one transaction), read, cancelled, and
the cancellations a ban or a revoked server causes.

``ticket_open`` and ``ticket_poll`` run the pool's pass first where the mode says so
(``ticket_pass_on_request``, ``matchmaking.services.passes.pool_run``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.games import UnknownGame, get_game
from arena.models import GameServer, Player
from arena.players import players_fetch_or_create
from infra import mode
from infra.errors import ArenaError, Conflict, Forbidden, InvalidInput
from matchmaking import events
from matchmaking.models import OpenSeat, Pool, Ticket, TicketSeat
from matchmaking.selectors import ticket_get_for_server
from matchmaking.services.passes import pool_run
from matchmaking.services.pushes import deliveries_abandon, pushes_due
from matchmaking.sizes import pool_sizes, table_name
from ratings import reputation
from ratings.models import Reputation

# docs/matchmaking.md: "a ticket may bring up to 3 friends".
PARTY_MAX = 3


@dataclass(frozen=True)
class SeatInput:
    player: str
    ip_hash: str
    # The least reputation (percent) this player accepts at the table (docs/matchmaking.md); None for any.
    min_reputation: float | None = None


@dataclass(frozen=True)
class TicketInput:
    """A parsed ticket request (IPs already hashed); ``min_players``/``max_players`` None means the game's."""

    player: SeatInput
    title: str
    variant: dict[str, Any]
    rated: bool
    min_players: int | None
    max_players: int | None
    party: tuple[SeatInput, ...]
    request_id: str | None
    fingerprint: str
    # No provisional player at the table (docs/matchmaking.md, "Avoiding provisional players").
    avoid_provisional: bool = False

    @property
    def min_reputation(self) -> float | None:
        """The ticket's minimum: the strictest its players asked (docs/matchmaking.md), None when nobody asked."""
        asked = [seat.min_reputation for seat in (self.player, *self.party) if seat.min_reputation is not None]
        return max(asked) if asked else None


@dataclass(frozen=True)
class Created:
    ticket: Ticket
    created: bool


def variant_key(variant: dict[str, Any]) -> str:
    """The canonical JSON of a normalised variant: equal variants, one pool."""
    return json.dumps(variant, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _pool_for(title: str, variant: dict[str, Any], rated: bool) -> Pool:
    pool: Pool
    pool, _ = Pool.objects.get_or_create(
        title=title, variant_key=variant_key(variant), rated=rated, defaults={"variant": variant}
    )
    return pool


def _check_request(data: TicketInput) -> tuple[Any, dict[str, Any], int, int]:
    """The game's rules applied to the request: (rules, normalised variant, min, max); raises InvalidInput."""
    try:
        rules = get_game(data.title)
    except UnknownGame:
        raise InvalidInput(
            "unknown_game", f"Arena does not match a game called {data.title!r}.", {"game": "Unknown game."}
        ) from None
    variant = rules.normalise_variant(data.variant)  # RuleViolation: 400 naming the option
    if data.rated and not rules.rated_variant(variant):
        raise InvalidInput(
            "variant_not_rated",
            "This variant can only be played with rated: false.",
            {"rated": "Must be false for this variant."},
        )
    sizes = pool_sizes(rules, variant)
    low = sizes.low if data.min_players is None else data.min_players
    high = sizes.high if data.max_players is None else data.max_players
    allowed = f"{sizes.low} to {sizes.high}"
    fields = {}
    if not sizes.low <= low <= sizes.high:
        fields["min_players"] = f"Must be from {allowed} for this game and variant."
    if not sizes.low <= high <= sizes.high:
        fields["max_players"] = f"Must be from {allowed} for this game and variant."
    if not fields and low > high:
        fields["max_players"] = "Must not be below min_players."
    if fields:
        raise InvalidInput("player_count", f"{table_name(rules, variant)} tables take {allowed} players.", fields)
    party_limit = min(PARTY_MAX, sizes.high - 1)
    if len(data.party) > party_limit:
        raise InvalidInput(
            "party_too_large",
            f"A party brings at most {party_limit} friends to {rules.name}.",
            {"party": f"At most {party_limit} friends."},
        )
    handles = [data.player.player] + [seat.player for seat in data.party]
    for index, seat in enumerate(data.party):
        if seat.player in handles[: index + 1]:
            raise InvalidInput(
                "duplicate_player",
                f"{seat.player} appears twice in the ticket.",
                {f"party.{index}.player": "Already in this ticket."},
            )
    if len(handles) > high:
        raise InvalidInput(
            "party_too_large",
            f"The party needs {len(handles)} seats but max_players is {high}.",
            {"max_players": f"Must be at least {len(handles)}, the party's size."},
        )
    return rules, variant, low, high


def ticket_create(*, server: GameServer, data: TicketInput, now: datetime | None = None) -> Created:
    """A waiting ticket for the player and their party, or the ticket this ``request_id`` already made.

    Refused: banned player or party member (403, naming them), anyone with an open ticket in this game (409,
    with that ticket's id if it is this server's own), a player-count range outside the game's limits (400).
    ``now`` is for simulations (the benchmark, property tests); the API never passes it.
    """
    rules, variant, low, high = _check_request(data)
    if data.request_id is not None:
        retried = _retried(server, data)
        if retried is not None:
            return Created(retried, False)
    pool = _pool_for(rules.title, variant, data.rated)
    seats = (data.player, *data.party)
    try:
        with transaction.atomic():
            players = players_fetch_or_create([seat.player for seat in seats])
            for index, seat in enumerate(seats):
                if players[seat.player].is_banned:
                    raise Forbidden(
                        "player_banned", f"{seat.player} is banned and cannot queue.", {_seat_path(index): "Banned."}
                    )
            _refuse_cooldown(seats, players, now or timezone.now())
            _refuse_open(server, rules.title, seats, players)
            _refuse_too_many_waiting(server)
            ticket = Ticket.objects.create(
                server=server,
                pool=pool,
                player=players[data.player.player],
                request_id=data.request_id,
                fingerprint=data.fingerprint,
                min_players=low,
                max_players=high,
                min_reputation=data.min_reputation,
                avoid_provisional=data.avoid_provisional,
                created_at=now or timezone.now(),
            )
            TicketSeat.objects.bulk_create(
                [
                    TicketSeat(ticket=ticket, player=players[seat.player], position=index, ip_hash=seat.ip_hash)
                    for index, seat in enumerate(seats)
                ]
            )
            OpenSeat.objects.bulk_create(
                [
                    OpenSeat(
                        player=players[seat.player],
                        title=rules.title,
                        ticket=ticket,
                        pool=pool,
                        position=index,
                        ip_hash=seat.ip_hash,
                        server=server,
                    )
                    for index, seat in enumerate(seats)
                ]
            )
    except IntegrityError:
        # A concurrent request won the race: the same retry (request_id) or another ticket of one of the players.
        if data.request_id is not None and (retried := _retried(server, data)) is not None:
            return Created(retried, False)
        players = {p.handle: p for p in Player.objects.filter(handle__in=[seat.player for seat in seats])}
        _refuse_open(server, rules.title, seats, players)
        raise
    ticket.pool = pool
    return Created(ticket, True)


def ticket_open(*, server: GameServer, data: TicketInput, now: datetime | None = None) -> Created:
    """The ticket door's one call: ``ticket_create``, then, where a pass runs on request, the pool's pass."""
    created = ticket_create(server=server, data=data, now=now)
    return Created(ticket=ticket_pass_on_request(ticket=created.ticket), created=created.created)


def ticket_poll(*, server: GameServer, ticket_id: str) -> Ticket:
    """The ticket's GET: this server's ticket (``ticket_not_found`` otherwise), after its pool's pass where a pass
    runs on request."""
    return ticket_pass_on_request(ticket=ticket_get_for_server(server=server, ticket_id=ticket_id))


def ticket_pass_on_request(*, ticket: Ticket) -> Ticket:
    """docs/matchmaking.md: without real workers a pass runs when a ticket is created or read. Returns the ticket
    as it stands after the pass, read as ``ticket_present`` reads it (pool and table joined)."""
    if not mode.pass_on_request() or ticket.status != Ticket.Status.WAITING:
        return ticket
    pool_run(pool_id=ticket.pool_id, wait=True)
    after: Ticket = Ticket.objects.select_related("pool", "table").get(pk=ticket.pk)
    return after


def _refuse_too_many_waiting(server: GameServer) -> None:
    """429 ``too_many_tickets`` once the server has ``MATCHMAKING_MAX_WAITING_PER_SERVER`` tickets waiting.

    Counted in the request's transaction over the owners' open seats of this server (index
    mm_open_server_owner), reading at most the limit's worth of index entries. Concurrent requests of one
    server may each pass at the limit minus one, so the bound can be exceeded by the requests in flight at
    that instant (a few, the web threads); a server row lock would make it exact at the price of serialising
    every ticket of the server, which the bound is not worth.
    """
    limit = settings.MATCHMAKING_MAX_WAITING_PER_SERVER
    if limit is None:
        return
    waiting = OpenSeat.objects.filter(server=server, position=0).values("pk")[:limit].count()
    if waiting >= limit:
        raise ArenaError(
            "too_many_tickets",
            f"This game server already has {limit} tickets waiting, the most it may keep; cancel some "
            "or wait until they are matched or expire.",
            status=429,
        )


def _seat_path(index: int) -> str:
    return "player" if index == 0 else f"party.{index - 1}.player"


def _refuse_cooldown(seats: Sequence[SeatInput], players: dict[str, Player], now: datetime) -> None:
    """403 ``cooldown`` while any of the ticket's players sits out a quit cool-down (docs/matchmaking.md), with
    ``retry_after``: the seconds until every one of them may queue again. One query."""
    ids = {players[seat.player].pk: index for index, seat in enumerate(seats)}
    running = dict(
        Reputation.objects.filter(player_id__in=ids, cooldown_until__gt=now).values_list("player_id", "cooldown_until")
    )
    if not running:
        return
    left = {pk: reputation.seconds_left(reputation.Cooldown(until=until), now) for pk, until in running.items()}
    fields = {
        _seat_path(ids[pk]): f"In a quit cool-down for {seconds} more seconds."
        for pk, seconds in sorted(left.items(), key=lambda item: ids[item[0]])
    }
    first = min(running, key=ids.__getitem__)
    raise Forbidden(
        "cooldown",
        f"{seats[ids[first]].player} quit too many recent games and cannot queue for {left[first]} more seconds.",
        fields,
        extra={"retry_after": max(left.values())},
    )


def _retried(server: GameServer, data: TicketInput) -> Ticket | None:
    ticket: Ticket | None = (
        Ticket.objects.filter(server=server, request_id=data.request_id).select_related("pool").first()
    )
    if ticket is None:
        return None
    if ticket.fingerprint != data.fingerprint:
        raise Conflict(
            "request_conflict",
            f"request_id {data.request_id!r} was already used for a different ticket ({ticket.pk}).",
            {"request_id": "Already used with another body."},
        )
    return ticket


def _refuse_open(server: GameServer, title: str, seats: Sequence[SeatInput], players: dict[str, Player]) -> None:
    """409 ``open_ticket`` if a player already waits in this title. The open ticket's id is named only to the
    server that owns it: another server's ticket id is that tenant's, and with it a DELETE could be tried
    (docs/security.md#game-server-keys-and-scopes)."""
    ids = {players[seat.player].pk: index for index, seat in enumerate(seats) if seat.player in players}
    found = (
        OpenSeat.objects.filter(player_id__in=ids, title=title)
        .values_list("player_id", "ticket_id", "ticket__server_id")
        .first()
    )
    if found is not None:
        player_id, ticket_id, owner_id = found
        index = ids[player_id]
        if owner_id == server.pk:
            raise Conflict(
                "open_ticket",
                f"{seats[index].player} already has an open {title} ticket: {ticket_id}.",
                {_seat_path(index): f"Open ticket {ticket_id}.", "ticket": str(ticket_id)},
            )
        raise Conflict(
            "open_ticket",
            f"{seats[index].player} already has an open {title} ticket, from another game server.",
            {_seat_path(index): "Open ticket from another game server."},
        )


def ticket_cancel(*, ticket: Ticket) -> Ticket:
    """Cancels a waiting ticket (DELETE). A ticket already matched, cancelled or expired is left as it is: 409."""
    with transaction.atomic():
        Pool.objects.select_for_update().filter(pk=ticket.pool_id).first()  # waits for a running pass
        done = _close([ticket.pk], Ticket.Status.CANCELLED, Ticket.CancelReason.DELETED)
        ticket.refresh_from_db()
    if not done:
        raise Conflict("ticket_not_waiting", f"Ticket {ticket.pk} is {ticket.status}, not waiting.")
    return ticket


def tickets_cancel_for_player(*, player: Player) -> int:
    """Cancels every waiting ticket the player is in (their own or as a party member); moderation calls this."""
    cancelled = 0
    waiting = OpenSeat.objects.filter(player=player).values_list("pool_id", "ticket_id").order_by("pool_id")
    for pool_id, ticket_id in list(waiting):
        with transaction.atomic():
            Pool.objects.select_for_update().filter(pk=pool_id).first()
            cancelled += _close([ticket_id], Ticket.Status.CANCELLED, Ticket.CancelReason.PLAYER_BANNED)
    return cancelled


def tickets_cancel_for_server(*, server_id: int) -> None:
    """A revoked server's ending, inside the revoking transaction (``matchmaking/listeners.py``): its waiting
    tickets are cancelled (``server_revoked``) under their pools' locks, taken in pool order as every pass takes
    one, and its pending pushes are abandoned, never sent. A pass running meanwhile finishes first (it holds its
    pool), so a table it formed leaves a pending push, which is abandoned here too."""
    # The open seats are exactly the waiting tickets' players: found there, the closed history is never read.
    seats = OpenSeat.objects.filter(ticket__server_id=server_id)
    for pool_id in sorted(set(seats.values_list("pool_id", flat=True))):
        Pool.objects.select_for_update().filter(pk=pool_id).first()
    waiting = sorted(set(seats.values_list("ticket_id", flat=True)))  # read again under the locks
    _close(waiting, Ticket.Status.CANCELLED, Ticket.CancelReason.SERVER_REVOKED)
    deliveries_abandon(server_id=server_id, reason="server revoked")


def _close(ticket_ids: Sequence[Any], status: str, reason: str = "") -> int:
    """Closes waiting tickets (never a matched one), frees their players to queue again; returns how many."""
    now = timezone.now()
    closed: int = Ticket.objects.filter(pk__in=ticket_ids, status=Ticket.Status.WAITING).update(
        status=status, closed_at=now, cancel_reason=reason
    )
    if closed:
        OpenSeat.objects.filter(ticket_id__in=ticket_ids).delete()
        pushes_due(events.ticket_closed_deliveries(ticket_ids=ticket_ids, now=now))  # ticket.cancelled
    return closed
