"""Season writes: the live stage, the rollover and the corrections after close (docs/seasons.md).

Every write runs in one transaction under the open season's row lock (``select_for_update``), so two workers
hearing the same batch fold it once (the ``cursor`` is the highest rating_seq folded), and a rollover killed
half-way leaves nothing written. The rules are ``seasons/rules.py``; this module only reads games and writes rows.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.games import all_games, get_game
from arena.models import Game, Player
from infra.errors import NotFound
from infra.gc_pause import gc_paused
from ratings.config import elo_config
from ratings.plan import PlayerState, RatedGame
from seasons import rules, standings, store
from seasons.corrections import Final, correction_text, late_reason, void_reason
from seasons.models import Season, SeasonCorrection, SeasonEntry, SeasonFinal, SeasonGame, SeasonRollover

log = logging.getLogger(__name__)

# Games read per query while folding (one query for games, one for their seats).
_CHUNK = 5000


def season_rules() -> rules.SeasonRules:
    """``seasons.rules``' defaults with the settings' overrides (read at each call, so tests may change them)."""
    return rules.SeasonRules(
        length_days=getattr(settings, "SEASON_LENGTH_DAYS", rules.LENGTH_DAYS),
        placement_games=getattr(settings, "SEASON_PLACEMENT_GAMES", rules.PLACEMENT_GAMES),
        elo=elo_config(),
    )


def season_titles() -> list[str]:
    """Titles that have seasons: those with a leaderboard (all but Hanabi)."""
    return [game.title for game in all_games() if game.has_leaderboard]


def season_title(*, game: str) -> str:
    """The title the API names ``game``: ``UnknownGame`` (404 ``unknown_game``) or 404 ``no_season`` (Hanabi)."""
    found = get_game(game)
    if not found.has_leaderboard:
        raise NotFound("no_season", f"{found.title} has no seasons: it has no leaderboard.")
    return found.title


def season_open(*, title: str, now: datetime | None = None) -> Season:
    """The title's open season; the first one is opened on first need, starting at the aligned boundary."""
    found: Season | None = Season.objects.filter(title=title, closed_at__isnull=True).first()
    if found is not None:
        return found
    now = now or timezone.now()
    length = season_rules().length_days
    with transaction.atomic():
        Season.objects.bulk_create(
            [
                Season(
                    title=title,
                    number=1,
                    starts_at=rules.aligned_start(now, length),
                    ends_at=rules.aligned_end(now, length),
                )
            ],
            ignore_conflicts=True,
        )
    opened: Season = Season.objects.get(title=title, closed_at__isnull=True)
    return opened


# Reading games ------------------------------------------------------------------------------------------------


def _season_games(title: str, season: Season, after_seq: int) -> Iterator[tuple[list[RatedGame], list[int]]]:
    """The season's rated games with rating_seq > ``after_seq``, in rating order, by chunks; and their seqs."""
    while True:
        rows = store.games_read(
            title=title, starts=season.starts_at, ends=season.ends_at, after_seq=after_seq, limit=_CHUNK
        )
        if not rows:
            return
        yield [RatedGame(r[0], r[1], None, r[2], None, r[4]) for r in rows], [r[3] for r in rows]
        after_seq = rows[-1][3]


def _carry(season: Season) -> dict[int, int]:
    """Player id -> the league the season's opening carried them into (``SeasonEntry.carried``)."""
    return dict(SeasonEntry.objects.filter(season=season, carried__isnull=False).values_list("player_id", "carried"))


# The live stage -----------------------------------------------------------------------------------------------


def _fold(season: Season) -> int:
    """Fold the open season's newly rated games into its entries and game rows (caller holds the season's lock).
    Returns the games folded. Per chunk: one read of the games, one of their seats, one of their players' entries,
    one upsert of those entries and one COPY of the games' leagues; no query per game. Then, scaled out, the
    batch's players into the Redis copy of the standings in one script call (``seasons.standings.after_fold``)."""
    folded = 0
    config = season_rules()
    written: dict[int, store.EntryRow] = {}
    old: dict[int, tuple[int, float] | None] = {}
    for games, seqs in _season_games(season.title, season, season.cursor):
        ids = {seat[0] for game in games for seat in game.seats}
        # No carry needed: every carried player has had an entry since the season opened.
        play = rules.SeasonPlay(rules=config, keep_lines=False)
        for pid, points, played, left, league, elo, elo_games, tier, score in store.entries_load(
            season_id=season.pk, player_ids=ids
        ):
            play.entries[pid] = rules.Entry(pid, points, played, left, league)
            play.elo_states[pid] = PlayerState(None, elo, elo_games)
            old.setdefault(pid, (tier, score))
        with gc_paused():
            for game in games:
                play.apply_game(game)
        rows = []
        for pid in ids:
            entry, state = play.entries[pid], play.elo_states[pid]
            tier, score = rules.order_key(entry.league, entry.points, state.elo)
            old.setdefault(pid, None)
            rows.append(
                (
                    pid,
                    entry.points,
                    entry.games,
                    entry.placement_left,
                    entry.league,
                    state.elo,
                    state.games,
                    tier,
                    score,
                )
            )
        written.update((row[0], row) for row in rows)
        store.entries_upsert(season_id=season.pk, rows=rows)
        store.games_insert(
            season_id=season.pk,
            rows=[(game_id, seq, code) for (game_id, code), seq in zip(play.leagues_before, seqs, strict=True)],
        )
        season.cursor = seqs[-1]
        folded += len(games)
    if folded:
        season.version += 1
        season.save(update_fields=["cursor", "version"])
        standings.after_fold(season, before=season.version - 1, rows=written, old=old)
    return folded


def _carried_entries(carry: dict[int, int]) -> list[store.EntryRow]:
    """The entries a season starts with: its carried-over players, placed at their league's threshold."""
    config = season_rules()
    initial = config.elo.initial
    out = []
    for pid, league in carry.items():
        entry = rules.start_entry(pid, league, config)
        tier, score = rules.order_key(entry.league, entry.points, initial)
        out.append((pid, entry.points, 0, 0, entry.league, initial, 0, tier, score))
    return out


def season_follow(*, title: str, game_ids: Iterable[int] = ()) -> int:
    """A rating batch committed: fold its games into the open season; games it rated that finished in a closed
    season settle that season's archive (docs/seasons.md "Late games"). Returns the games folded."""
    if title not in season_titles():
        return 0
    opened = season_open(title=title)
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=opened.pk)
        if season.closed_at is not None:  # closed meanwhile: the next one is open now
            season = Season.objects.select_for_update().get(title=title, closed_at__isnull=True)
        folded = _fold(season)
    ids = list(game_ids)
    if ids and Game.objects.filter(id__in=ids, finished_at__lt=season.starts_at).exists():
        for closed in Season.objects.filter(title=title, closed_at__isnull=False).order_by("number"):
            season_correct(season_id=closed.pk)
    return folded


def season_replay_live(*, title: str) -> int:
    """Ratings rebuilt the title (a void): replay the open season from its rated games, then correct the closed
    ones whose counted games changed. Returns the games folded."""
    if title not in season_titles():
        return 0
    opened = season_open(title=title)
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=opened.pk)
        SeasonGame.objects.filter(season=season).delete()
        SeasonEntry.objects.filter(season=season, carried__isnull=True).delete()
        store.entries_upsert(season_id=season.pk, rows=_carried_entries(_carry(season)))
        season.cursor = 0
        season.version += 1  # the Redis copy no longer matches: the next read rebuilds it
        season.save(update_fields=["cursor", "version"])
        folded = _fold(season)
    for closed in Season.objects.filter(title=title, closed_at__isnull=False).order_by("number"):
        season_correct(season_id=closed.pk)
    return folded


# Standings as rows ---------------------------------------------------------------------------------------------


def _banned(player_ids: Iterable[int] | None = None) -> set[int]:
    banned = Player.objects.filter(status=Player.Status.BANNED)
    if player_ids is not None:
        banned = banned.filter(id__in=list(player_ids))
    return set(banned.values_list("id", flat=True))


def _live_rows(season: Season) -> list[rules.Row]:
    entries, elo = [], {}
    for e in (
        SeasonEntry.objects.filter(season=season)
        .values_list("player_id", "points", "games", "placement_left", "league", "elo")
        .iterator(chunk_size=10000)
    ):
        entries.append(rules.Entry(e[0], e[1], e[2], e[3], e[4]))
        elo[e[0]] = e[5]
    return rules.standings(entries, elo, excluded=_banned())


# The rollover --------------------------------------------------------------------------------------------------


def _finals(season: Season, rows: list[rules.Row]) -> None:
    store.finals_insert(
        season_id=season.pk,
        rows=[
            (r.player_id, r.rank, r.league, r.points, r.games, r.placement_left, r.season_elo, r.relegation)
            for r in rows
        ],
    )


def _close(season: Season, following: Season) -> int:
    """The final standings archived and the next season's carried entries written (caller holds the lock).

    PostgreSQL: two ``INSERT ... SELECT`` statements that rank, mark the relegation zones and carry over inside the
    server (``store.close_in_database``, the same rules written in SQL; the rollover tests run on both paths).
    Elsewhere: the pure rules over the entries read into memory. Returns the players ranked."""
    if store.close_in_database():
        config = season_rules()
        return store.close_postgres(closed_id=season.pk, next_id=following.pk, initial=config.elo.initial)
    rows = _live_rows(season)
    _finals(season, rows)
    store.entries_upsert(season_id=following.pk, rows=_carried_entries(rules.carry_over(rows)), carried=True)
    return len(rows)


def season_rollover(
    *, title: str, now: datetime | None = None, actor: str | None = None, reason: str = "", number: int | None = None
) -> Season | None:
    """Close the open season (archive its final standings) and open the next, once, in one transaction.

    Beat (``actor`` None) closes only a season whose ``ends_at`` has passed; an operator (``actor`` given) closes it
    now and writes an audit row. ``number``: close only that season (a retried command does nothing the second
    time). Returns the closed season, or None when there was nothing to do.
    """
    if title not in season_titles():
        raise NotFound("no_season", f"{title} has no seasons: it has no leaderboard.")
    now = now or timezone.now()
    opened = season_open(title=title, now=now)
    with transaction.atomic():
        season: Season = Season.objects.select_for_update().get(pk=opened.pk)
        if season.closed_at is not None or (number is not None and season.number != number):
            return None
        if actor is None and now < season.ends_at:
            return None
        _fold(season)
        if actor is not None and now < season.ends_at:
            season.ends_at = now
        season.closed_at = now
        season.save(update_fields=["ends_at", "closed_at"])
        length = season_rules().length_days
        following = Season.objects.create(
            title=title,
            number=season.number + 1,
            starts_at=season.ends_at,
            ends_at=rules.aligned_end(season.ends_at, length),
        )
        players = _close(season, following)
        if actor is not None:
            SeasonRollover.objects.create(title=title, closed_number=season.number, actor=actor, reason=reason)
    standings.drop(season)
    log.info("season closed", extra={"title": title, "season": season.number, "players": players})
    return season


def seasons_due(*, now: datetime | None = None) -> list[str]:
    """Beat: close every season whose end has passed. Returns the titles closed."""
    closed = []
    for title in season_titles():
        if season_rollover(title=title, now=now) is not None:
            closed.append(title)
    return closed


# Corrections after close ---------------------------------------------------------------------------------------


def _replay_closed(season: Season) -> tuple[rules.SeasonPlay, list[int]]:
    config = season_rules()
    play = rules.SeasonPlay(rules=config, carry=_carry(season), keep_lines=False)
    for pid in play.carry:
        play.entry(pid)
    seqs: list[int] = []
    for games, chunk in _season_games(season.title, season, 0):
        for game in games:
            play.apply_game(game)
        seqs += chunk
    return play, seqs


def season_correct(*, season_id: int, now: datetime | None = None) -> int:
    """Recompute a closed season's archive from its rated games when the games it counts changed (a void, a game
    rated late); write one correction line per player whose place, league or points moved. Returns the lines."""
    now = now or timezone.now()
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season_id)
        if season.closed_at is None:
            return 0
        play, seqs = _replay_closed(season)
        counted = [game_id for game_id, _ in play.leagues_before]
        before_ids = set(SeasonGame.objects.filter(season=season).values_list("game_id", flat=True))
        voided = sorted(before_ids - set(counted))
        late = sorted(set(counted) - before_ids)
        if not voided and not late:
            return 0
        reasons = []
        if voided:
            reasons.append(void_reason(len(voided), now))
        if late:
            reasons.append(late_reason(len(late)))
        reason = "; ".join(reasons)
        rows = rules.standings(
            play.entries.values(),
            {pid: s.elo for pid, s in play.elo_states.items()},
            excluded=_banned(play.entries),
            initial=play.rules.elo.initial,
        )
        after = {r.player_id: Final(r.rank, r.league, r.points) for r in rows}
        corrections = []
        for pid, rank, league, points in SeasonFinal.objects.filter(season=season).values_list(
            "player_id", "rank", "league", "points"
        ):
            text = correction_text(Final(rank, league, points), after.get(pid), reason)
            if text is not None:
                corrections.append(SeasonCorrection(season=season, player_id=pid, text=text, game_ids=voided + late))
        SeasonFinal.objects.filter(season=season).delete()
        _finals(season, rows)
        SeasonCorrection.objects.bulk_create(corrections, batch_size=5000)
        SeasonGame.objects.filter(season=season).delete()
        store.games_insert(
            season_id=season.pk,
            rows=[(game_id, seq, code) for (game_id, code), seq in zip(play.leagues_before, seqs, strict=True)],
        )
    return len(corrections)
