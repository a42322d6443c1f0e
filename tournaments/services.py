"""Organising a tournament: create, register, withdraw, start, cancel (docs/tournaments.md, "Organising").

Gates (``min_reputation``, ``rating_min``/``rating_max`` on the title's Elo, ``max_players``) are checked at
registration and again at the start, where a player who no longer passes leaves (as BGA re-checks karma). Banned
players and players in a quit cool-down are refused with the codes matchmaking uses (``player_banned``,
``cooldown``), so a game server handles both doors alike.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.games import UnknownGame, get_game
from arena.models import GameServer, Player
from arena.players import players_fetch_or_create
from infra.errors import ArenaError, Conflict, Forbidden, InvalidInput, NotFound
from ratings import reputation
from ratings.config import elo_config
from ratings.models import Rating, Reputation
from tournaments.elimination import rounds_needed
from tournaments.models import Entry, Tournament
from tournaments.payload import TournamentInput
from tournaments.rounds import lock, round_pair


def tournament_create(*, server: GameServer, data: TournamentInput) -> Tournament:
    """A new tournament, registering until it starts. The table size defaults to the title's recommended size
    and must lie in the title's player range; cooperative titles have no places to score, so no tournaments."""
    try:
        rules = get_game(data.title)
    except UnknownGame:
        raise InvalidInput("unknown_game", f"{data.title!r} is no game.", {"game": "Unknown game."}) from None
    if rules.cooperative:
        raise InvalidInput(
            "cooperative_game",
            f"{rules.name} is cooperative: a tournament needs places.",
            {"game": "Cooperative games have no places."},
        )
    low, high = rules.player_range({})
    size = data.table_size or rules.table_recommended or rules.recommended_players or low
    if data.format == Tournament.ELIMINATION:  # docs/tournaments.md#elimination: one winner per two-seat table
        size = data.table_size or 2
        if size != 2 or low > 2:
            raise InvalidInput(
                "invalid_input",
                f"Elimination is played at two-seat tables; {rules.name} tables take {low} to {high} players.",
                {
                    "table_size": "Must be 2 for elimination, in a title that plays two."
                    if low <= 2
                    else f"{rules.name} cannot be played two-handed."
                },
            )
    if not low <= size <= high:
        raise InvalidInput(
            "invalid_input",
            f"{rules.name} tables take {low} to {high} players.",
            {"table_size": f"Must be from {low} to {high}."},
        )
    if data.max_players is not None and data.max_players < size:
        raise InvalidInput(
            "invalid_input", "max_players must fill at least one table.", {"max_players": f"Must be at least {size}."}
        )
    return Tournament.objects.create(
        server=server,
        name=data.name,
        title=rules.title,
        format=data.format,
        rounds=data.rounds,
        table_size=size,
        round_minutes=data.round_minutes,
        starts_at=data.starts_at,
        min_reputation=data.min_reputation,
        rating_min=data.rating_min,
        rating_max=data.rating_max,
        max_players=data.max_players,
    )


def tournament_get(*, tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound("tournament_not_found", f"No tournament {tournament_id}.")
    return tournament


def own_check(tournament: Tournament, server: GameServer) -> None:
    if tournament.server_id != server.pk:
        raise NotFound("tournament_not_found", f"No tournament {tournament.pk} of this game server.")


def _registering(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.REGISTERING:
        raise Conflict(
            "tournament_started", f"Tournament {tournament.pk} is {tournament.status}: registration is closed."
        )


def gate_failure(
    tournament: Tournament,
    player: Player,
    elo: float | None,
    recent: str | None,
    cooldown_until: datetime | None,
    now: datetime,
) -> ArenaError | None:
    """Why ``player`` may not play, or None: banned, in a cool-down, below the reputation, outside the Elo range.
    A player with too few games for a reputation passes ``min_reputation`` (nothing to judge yet)."""
    if player.is_banned:
        return Forbidden("player_banned", f"{player.handle} is banned and cannot play.", {"player": "Banned."})
    if cooldown_until is not None and cooldown_until > now:
        seconds = int((cooldown_until - now).total_seconds()) + 1
        return Forbidden(
            "cooldown",
            f"{player.handle} quit too many recent games and cannot register for {seconds} more seconds.",
            {"player": f"In a quit cool-down for {seconds} more seconds."},
            extra={"retry_after": seconds},
        )
    rep = reputation.reputation(recent or "").percent
    if tournament.min_reputation is not None and rep is not None and rep < tournament.min_reputation:
        return Forbidden(
            "reputation_too_low",
            f"{player.handle}'s reputation {rep:.1f} is below the tournament's {tournament.min_reputation:g}.",
            {"player": "Reputation too low."},
        )
    rating = elo if elo is not None else elo_config().initial
    if (tournament.rating_min is not None and rating < tournament.rating_min) or (
        tournament.rating_max is not None and rating > tournament.rating_max
    ):
        return Forbidden(
            "rating_out_of_range",
            f"{player.handle}'s Elo {rating:.0f} is outside the tournament's range.",
            {"player": "Elo outside the range."},
        )
    return None


def _standing_of(players: list[Player], title: str) -> tuple[dict[int, float], dict[int, tuple[str, datetime | None]]]:
    ids = [p.pk for p in players]
    elo = dict(Rating.objects.filter(player_id__in=ids, title=title).values_list("player_id", "elo"))
    reps = {
        pk: (recent, until)
        for pk, recent, until in Reputation.objects.filter(player_id__in=ids).values_list(
            "player_id", "recent", "cooldown_until"
        )
    }
    return elo, reps


def player_register(*, server: GameServer, tournament_id: int, handle: str, ip_hash: str) -> tuple[Entry, bool]:
    """Register (or find registered) ``handle``; refused when the gates say no or the tournament is full."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        own_check(tournament, server)
        _registering(tournament)
        player = players_fetch_or_create([handle])[handle]
        existing = Entry.objects.filter(tournament=tournament, player=player).first()
        if existing is not None and existing.status == Entry.Status.REGISTERED:
            return existing, False
        elo, reps = _standing_of([player], tournament.title)
        recent, until = reps.get(player.pk, (None, None))
        refusal = gate_failure(tournament, player, elo.get(player.pk), recent, until, timezone.now())
        if refusal is not None:
            raise refusal
        count = Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).count()
        if tournament.max_players is not None and count >= tournament.max_players:
            raise Conflict("tournament_full", f"Tournament {tournament.pk} is full ({tournament.max_players}).")
        if existing is not None:
            existing.status, existing.ip_hash, existing.reason = Entry.Status.REGISTERED, ip_hash, ""
            existing.save(update_fields=["status", "ip_hash", "reason"])
            return existing, True
        try:
            return Entry.objects.create(tournament=tournament, player=player, ip_hash=ip_hash), True
        except IntegrityError:  # pragma: no cover - the tournament's lock serialises registrations
            raise Conflict("already_registered", f"{handle} is already registered.") from None


def player_withdraw(*, server: GameServer, tournament_id: int, handle: str) -> None:
    """Withdraw before the start; 404 for a player not registered."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        own_check(tournament, server)
        _registering(tournament)
        updated = Entry.objects.filter(
            tournament=tournament, player__handle=handle, status=Entry.Status.REGISTERED
        ).update(status=Entry.Status.WITHDRAWN)
        if not updated:
            raise NotFound("entry_not_found", f"{handle} is not registered in tournament {tournament.pk}.")


def tournament_start(
    *, tournament_id: int, server: GameServer | None = None, now: datetime | None = None
) -> Tournament:
    """Start now: gates again (who fails leaves, with the reason), start Elo frozen, round 1 paired. 409
    ``too_few_players`` when the rest cannot fill one table (the tournament keeps registering)."""
    moment = now or timezone.now()
    with transaction.atomic():
        tournament = lock(tournament_id)
        if server is not None:
            own_check(tournament, server)
        _registering(tournament)
        entries = list(
            Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).select_related("player")
        )
        elo, reps = _standing_of([e.player for e in entries], tournament.title)
        staying = []
        for entry in entries:
            recent, until = reps.get(entry.player_id, (None, None))
            refusal = gate_failure(tournament, entry.player, elo.get(entry.player_id), recent, until, moment)
            entry.start_elo = elo.get(entry.player_id, elo_config().initial)
            if refusal is not None:
                entry.status, entry.reason = Entry.Status.REMOVED, refusal.code
            else:
                staying.append(entry)
        low, _ = get_game(tournament.title).player_range({})
        if len(staying) < min(low, tournament.table_size):
            raise Conflict(
                "too_few_players",
                f"{len(staying)} players pass the gates; a table needs {min(low, tournament.table_size)}.",
            )
        Entry.objects.bulk_update(entries, ["start_elo", "status", "reason"])
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, moment
        if tournament.format == Tournament.ELIMINATION:  # the bracket's rounds (docs/tournaments.md#elimination)
            tournament.rounds = rounds_needed(len(staying))
        tournament.save(update_fields=["status", "started_at", "rounds"])
        round_pair(tournament)
    return tournament


def tournaments_due(*, now: datetime | None = None) -> list[int]:
    """Beat: start every registering tournament whose ``starts_at`` has passed. One that cannot start (too few
    players) is cancelled, with the reason, rather than retried every minute for ever."""
    moment = now or timezone.now()
    started = []
    for tournament_id in Tournament.objects.filter(
        status=Tournament.Status.REGISTERING, starts_at__lte=moment
    ).values_list("pk", flat=True):
        try:
            tournament_start(tournament_id=tournament_id, now=moment)
            started.append(tournament_id)
        except Conflict as refusal:
            Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.REGISTERING).update(
                status=Tournament.Status.CANCELLED, cancelled_by="beat", cancel_reason=refusal.code
            )
    return started


def tournament_cancel(*, tournament_id: int, by: str, reason: str) -> Tournament:
    """A moderator's cancellation (the panel): the tournament stops where it is; who and why are kept on it."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise Conflict("tournament_over", f"Tournament {tournament.pk} is already {tournament.status}.")
        tournament.status, tournament.cancelled_by = Tournament.Status.CANCELLED, by[:150]
        tournament.cancel_reason, tournament.finished_at = reason[:500], timezone.now()
        tournament.save(update_fields=["status", "cancelled_by", "cancel_reason", "finished_at"])
    return tournament
