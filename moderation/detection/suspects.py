"""Stage 2, suspect pairs: the linked pairs whose shared rated games look like one account feeding another.

Only linked pairs who sat at a newly rated game together, or whose link is new or wider, are re-evaluated, over
the rated games of ``SUSPECT_WINDOW`` (a game played with anyone else only adds to the feeder's total, which makes
a pair less suspect, never more). Then each beneficiary is evaluated against all their links (``ring_suspects``),
so a flag aggregates the whole ring, not just the touched feeder. What a suspect pair is: ``moderation.rules``.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from arena.models import Game, Seat
from moderation import rules
from moderation.detection.base import DetectionResult, chunks
from moderation.detection.links import links_of_pairs, links_of_players
from moderation.models import Link

Pairs = dict[tuple[int, int], list[Link]]
Found = dict[tuple[int, int, str], rules.PairStats]
SeatsByPlayer = dict[int, dict[int, tuple[str, int | None]]]


def pair_suspects(candidates: set[tuple[int, int]], since: datetime, result: DetectionResult) -> Found:
    """The suspect orientations among the pairs the new games touched (phase 1: who might be a beneficiary).

    Only a pair with enough shared rated games can be suspect: that is checked on the seats first, so the links
    read are those few pairs' (a crowded address's table pairs are many, and nearly all played once).
    """
    seats_by_player = _rated_seats({p for pair in candidates for p in pair}, since)
    enough = {
        (a, b)
        for a, b in candidates
        if len(seats_by_player.get(a, {}).keys() & seats_by_player.get(b, {}).keys()) >= rules.MIN_SHARED_GAMES
    }
    return _suspects(links_of_pairs(enough), since, result, seats=seats_by_player)


def ring_suspects(beneficiaries: set[int], since: datetime, result: DetectionResult) -> tuple[Found, Pairs]:
    """Phase 2: each beneficiary against all their links, so the flag aggregates the whole ring; returns the
    suspect orientations and the ring's links they were judged on (the flag shows them)."""
    ring_pairs = links_of_players(beneficiaries)
    # A beneficiary on a crowded address has a link per stranger it met there: only partners with enough shared
    # rated games (counted from the beneficiaries' own tables) are read in full.
    shared = _shared_counts(beneficiaries, since)
    ring_pairs = {pair: links for pair, links in ring_pairs.items() if shared.get(pair, 0) >= rules.MIN_SHARED_GAMES}
    return _suspects(ring_pairs, since, result, beneficiaries=beneficiaries), ring_pairs


def _shared_counts(players: set[int], since: datetime) -> dict[tuple[int, int], int]:
    """(lower id, higher id) -> at least the rated games inside the window one of ``players`` shared with the other
    (a prefilter: a game of two of them counts twice, never less than once), read
    from those players' own tables (their seats' games, then every seat of those games)."""
    games: dict[int, list[int]] = defaultdict(list)
    for chunk in chunks(sorted(players)):
        for player, game in Seat.objects.filter(
            player_id__in=chunk, game__status=Game.Status.RATED, game__finished_at__gte=since
        ).values_list("player_id", "game_id"):
            games[game].append(player)
    out: dict[tuple[int, int], int] = defaultdict(int)
    for chunk in chunks(sorted(games)):
        for game, other in Seat.objects.filter(game_id__in=chunk).values_list("game_id", "player_id"):
            for player in games[game]:
                if player != other:
                    out[(player, other) if player < other else (other, player)] += 1
    return out


def _rated_seats(players: set[int], since: datetime) -> SeatsByPlayer:
    """player -> {game_id: (title, place)} over the rated games inside the window."""
    out: SeatsByPlayer = defaultdict(dict)
    for chunk in chunks(sorted(players)):
        rows = Seat.objects.filter(
            player_id__in=chunk, game__status=Game.Status.RATED, game__finished_at__gte=since
        ).values_list("player_id", "game_id", "game__title", "place")
        for player, game, title, place in rows:
            out[player][game] = (title, place)
    return out


def _suspects(
    pairs: Pairs,
    since: datetime,
    result: DetectionResult,
    beneficiaries: set[int] | None = None,
    seats: SeatsByPlayer | None = None,
) -> Found:
    """(B, F, title) -> stats for every suspect orientation of the given pairs (B restricted if given); ``seats``
    when the caller already read them (``_rated_seats`` of at least these pairs' players)."""
    if not pairs:
        return {}
    if seats is None:
        seats = _rated_seats({p for pair in pairs for p in pair}, since)
    found: Found = {}
    for a, b in pairs:
        games_a, games_b = seats.get(a, {}), seats.get(b, {})
        shared = games_a.keys() & games_b.keys()
        if len(shared) < rules.MIN_SHARED_GAMES:
            continue
        for ben, feed, games_ben, games_feed in ((a, b, games_a, games_b), (b, a, games_b, games_a)):
            if beneficiaries is not None and ben not in beneficiaries:
                continue
            rows = [(g, games_ben[g][0], games_ben[g][1], games_feed[g][1]) for g in sorted(shared)]
            for title in {t for _, t, _, _ in rows}:
                result.pairs_evaluated += 1
                stats = rules.pair_stats(rows, title, feeder_games=len(games_feed))
                if rules.is_suspect(stats):
                    found[(ben, feed, title)] = stats
    return found
