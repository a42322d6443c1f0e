"""Incremental multiple-account detection over the database: links, suspect pairs, flags (docs/moderation.md).

The rules (thresholds, what a suspect pair is, the score) live in ``moderation.rules``; this module only reads
what they need and writes links and flags. Its cost follows the new games, not the history:

1. Two cursors (``DetectionState``), neither of which ever waits for a game: new games are those above the
   id watermark, whatever their status, and newly *rated* games those above each title's rating cursor, in the
   order the rating stage rated them (``Game.rating_seq``, one sequence per title, committed in order under the
   title's stage lock). So a game rated late is looked at when it is rated, and a game that is never rated (a
   title whose rating is stuck) holds nobody back: detection of every other game goes on.
2. Links: only the hashes the new games' seats used are looked at, and only their uses within ``LINK_WINDOW`` of
   a new use (``rules.close_pairs`` with the new uses as probes). Existing links are merged, never recounted.
3. Suspect pairs: only linked pairs who sat at a newly rated game together, or whose link is new or wider, are
   re-evaluated, over the rated games of ``SUSPECT_WINDOW`` (a game played with anyone else only adds to the
   feeder's total, which makes a pair less suspect, never more). Every beneficiary found, and every one whose
   open flag names a player of the new games, is then evaluated against all their links, so a flag aggregates
   the whole ring, not just the touched feeder. (A pair that would turn suspect only because older games left
   the window is found the next time they play together.)
4. Flags: one open flag per (beneficiary, title), updated in place; a dismissed or confirmed flag is raised
   again, as a new row, only for a suspect game it was not raised on. An open flag re-evaluated without any
   feeder meeting the thresholds any more is withdrawn (status ``withdrawn``), since detection runs after every
   batch and a few early games between two linked accounts can look like a pattern that later games undo.

Nothing here punishes anyone: "if there is any possible doubt, a player should be considered not guilty".
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, Min, Q, Sum
from django.utils import timezone

from arena.games import all_games
from arena.models import Game, Player, Seat
from moderation import crowds, rules
from moderation.models import DetectionState, Flag, FlagFeeder, Link
from ratings.models import Rating, RatingChange

CHUNK = 2000
T = TypeVar("T")


@dataclass
class DetectionResult:
    """What one pass did, for the command's summary and the benchmark."""

    games: int = 0  # new games (above the id watermark): their seats' links
    rated: int = 0  # newly rated games (above their title's rating cursor): who sat together
    watermark: int = 0
    more: bool = False  # a pass stopped at its limit: there is more to look at
    links_created: int = 0
    links_updated: int = 0
    pairs_evaluated: int = 0
    suspect_pairs: int = 0
    flags_created: int = 0
    flags_updated: int = 0
    flags_skipped: int = 0  # dismissed or confirmed, nothing new
    flags_withdrawn: int = 0  # open, but no feeder meets the thresholds any more
    flag_ids: list[int] = field(default_factory=list)


def _chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _digest(value: str) -> str:
    return crowds.hash_digest(value)


def detect(*, now: datetime | None = None, limit: int | None = None,
           progress: Callable[[str], None] | None = None) -> DetectionResult:
    """One incremental pass over the games recorded and rated since the last one; a single transaction.

    The watermark row is locked for the pass, so two workers never evaluate the same games twice at once.
    ``limit`` caps how many new games, and how many newly rated games, one pass takes (the rest wait for the next).
    """
    now = now or timezone.now()
    result = DetectionResult()
    say = progress or (lambda _message: None)
    with transaction.atomic():
        DetectionState.objects.get_or_create(name="default")
        state = DetectionState.objects.select_for_update().get(name="default")
        new = Game.objects.filter(pk__gt=state.last_game_id).order_by("pk").values_list("pk", flat=True)
        new_ids = list(new[:limit] if limit else new)
        rated_ids, cursors, rated_full = _newly_rated(state, limit)
        result.games, result.rated = len(new_ids), len(rated_ids)
        result.more = rated_full or (limit is not None and len(new_ids) >= limit)
        if new_ids or rated_ids:
            say(f"{len(new_ids)} new games, {len(rated_ids)} newly rated")
            _run(new_ids, rated_ids, now, result, say)
        if new_ids:
            state.last_game_id = new_ids[-1]
        state.rated_seqs = cursors
        state.last_run_at = now
        state.save(update_fields=["last_game_id", "rated_seqs", "last_run_at"])
        result.watermark = state.last_game_id
    return result


def _newly_rated(state: DetectionState, limit: int | None) -> tuple[list[int], dict[str, int], bool]:
    """The games rated since each title's cursor, in rating order (at most ``limit`` in all), the cursors after
    them, and whether the limit stopped the scan. One indexed range read per title (``game_rated_order``)."""
    cursors = dict(state.rated_seqs)
    titles = [game.title for game in all_games()]
    for title in titles:  # before the id watermark moves in this pass: the first cursor is placed from it
        if title not in cursors:
            cursors[title] = _first_cursor(title, state.last_game_id)
    rated: list[int] = []
    for title in titles:
        after = cursors[title]
        budget = None if limit is None else limit - len(rated)
        if budget is not None and budget <= 0:
            return rated, cursors, True
        query = (Game.objects.filter(title=title, status=Game.Status.RATED, rating_seq__gt=after)
                 .order_by("rating_seq").values_list("pk", "rating_seq"))
        rows = list(query[:budget] if budget is not None else query)
        if rows:
            after = rows[-1][1]
            rated.extend(pk for pk, _seq in rows)
        cursors[title] = after
    return rated, cursors, limit is not None and len(rated) >= limit


def _first_cursor(title: str, watermark: int) -> int:
    """A title's rating cursor where it has none yet (a fresh start, or a watermark kept from before the cursors):
    just below the first rated game above the id watermark, so nothing rated after the watermark is skipped."""
    rated = Game.objects.filter(title=title, status=Game.Status.RATED)
    first_unseen = rated.filter(pk__gt=watermark).aggregate(m=Min("rating_seq"))["m"]
    if first_unseen is not None:
        return first_unseen - 1
    return rated.aggregate(m=Max("rating_seq"))["m"] or 0


def detect_all(*, now: datetime | None = None, batch: int | None = None,
               progress: Callable[[str], None] | None = None) -> DetectionResult:
    """Passes of at most ``batch`` games (``settings.DETECTION_BATCH``) until nothing new is left.

    Each pass is its own transaction, so a first run over a long history holds no lock and no memory for long.
    """
    batch = batch or settings.DETECTION_BATCH
    total = DetectionResult()
    while True:
        result = detect(now=now, limit=batch, progress=progress)
        for name in ("games", "rated", "links_created", "links_updated", "pairs_evaluated", "suspect_pairs",
                     "flags_created", "flags_updated", "flags_skipped", "flags_withdrawn"):
            setattr(total, name, getattr(total, name) + getattr(result, name))
        total.flag_ids.extend(result.flag_ids)
        total.watermark = result.watermark
        if not result.more:
            return total


def _run(new_ids: list[int], rated_ids: list[int], now: datetime, result: DetectionResult,
         say: Callable[[str], None]) -> None:
    new, rated = set(new_ids), set(rated_ids)
    seats: list[tuple] = []
    for chunk in _chunks(sorted(new | rated)):
        seats.extend(Seat.objects.filter(game_id__in=chunk).values_list(
            "game_id", "player_id", "ip_hash", "device_hash", "game__finished_at", "game__status"))
    tables: dict[int, list[int]] = defaultdict(list)
    for game, player, _ip, _device, _at, status in seats:
        if game in rated and status == Game.Status.RATED:
            tables[game].append(player)
    # A pair can become suspect only by playing together again (more shared games) or by a new or wider link:
    # a game either played elsewhere only adds to the feeder's total and makes the pair less suspect.
    co_seated = {(a, b) if a < b else (b, a) for table in tables.values() for i, a in enumerate(table)
                 for b in table[i + 1:]}
    relinked = _update_links([seat for seat in seats if seat[0] in new], result)
    touched = {p for table in tables.values() for p in table} | {p for pair in relinked for p in pair}
    say(f"links: {result.links_created} new, {result.links_updated} widened; {len(touched)} players touched")
    since = now - rules.SUSPECT_WINDOW
    candidates = co_seated | relinked
    # Only a pair with enough shared rated games can be suspect: that is checked on the seats first, so the links
    # read are those few pairs' (a crowded address's table pairs are many, and nearly all played once).
    seats_by_player = _rated_seats({p for pair in candidates for p in pair}, since)
    enough = {(a, b) for a, b in candidates
              if len(seats_by_player.get(a, {}).keys() & seats_by_player.get(b, {}).keys()) >= rules.MIN_SHARED_GAMES}
    pairs = _links_of_pairs(enough)
    found = _suspects(pairs, since, result, seats=seats_by_player)
    beneficiaries = {b for b, _f, _title in found}
    # Open flags about anyone who played or was linked anew are brought up to date (or left as they stand).
    for chunk in _chunks(sorted(touched)):
        beneficiaries |= set(Flag.objects.filter(status=Flag.Status.OPEN).filter(
            Q(beneficiary_id__in=chunk) | Q(feeders__feeder_id__in=chunk)).values_list("beneficiary_id", flat=True))
    if not beneficiaries:
        return
    # Phase 2: each beneficiary against all their links, so the flag aggregates the whole ring.
    ring_pairs = _links_of(beneficiaries)
    # A beneficiary on a crowded address has a link per stranger it met there: only partners with enough shared
    # rated games (counted from the beneficiaries' own tables) are read in full.
    shared = _shared_counts(beneficiaries, since)
    ring_pairs = {pair: links for pair, links in ring_pairs.items()
                  if shared.get(pair, 0) >= rules.MIN_SHARED_GAMES}
    ring_found = _suspects(ring_pairs, since, result, beneficiaries=beneficiaries)
    result.suspect_pairs = len(ring_found)
    by_flag: dict[tuple[int, str], dict[int, rules.PairStats]] = defaultdict(dict)
    for (b, f, title), stats in ring_found.items():
        by_flag[(b, title)][f] = stats
    say(f"{len(ring_found)} suspect pairs, {len(by_flag)} flags to raise or update")
    for (b, title), feeders in sorted(by_flag.items()):
        _raise_flag(b, title, feeders, ring_pairs, since, now, result)
    # Open flags re-evaluated here that no feeder supports any more: an early run of luck between two linked
    # accounts that evened out over later games. Withdrawn, not left for a moderator to suspect on stale figures.
    stale = [flag for chunk in _chunks(sorted(beneficiaries))
             for flag in Flag.objects.select_for_update().filter(status=Flag.Status.OPEN, beneficiary_id__in=chunk)
             if (flag.beneficiary_id, flag.title) not in by_flag]
    for flag in stale:
        flag.status, flag.resolved_at = Flag.Status.WITHDRAWN, now
        flag.note = "Withdrawn by detection: on later games no linked account meets the thresholds any more."
        flag.save(update_fields=["status", "resolved_at", "note", "updated_at"])
    result.flags_withdrawn += len(stale)


# ---------------------------------------------------------------------------------------------------------------
# Links
# ---------------------------------------------------------------------------------------------------------------

def _update_links(seats: list[tuple], result: DetectionResult) -> set[tuple[int, int]]:
    """Merge the links the new seats create; returns the pairs whose links were created or widened.

    A hash's crowd (accounts seen on it within ``LINK_WINDOW`` of the new uses) is counted in the database first.
    A crowded hash (``rules.is_crowded``: a carrier's NAT) links only the accounts seated at one new table through
    it (``rules.table_pairs``), so neither its uses nor its N(N-1)/2 pairs are ever loaded; every other hash links
    every pair of uses within the window (``rules.close_pairs``), as before.
    """
    touched: set[tuple[int, int]] = set()
    for kind, column, index in ((Link.Kind.IP, "ip_hash", 2), (Link.Kind.DEVICE, "device_hash", 3)):
        new_uses: dict[str, list[tuple[int, datetime, int]]] = defaultdict(list)
        for seat in seats:
            if seat[index]:
                new_uses[seat[index]].append((seat[1], seat[4], seat[0]))
        if not new_uses:
            continue
        times = [t for uses in new_uses.values() for _, t, _ in uses]
        lo, hi = min(times) - rules.LINK_WINDOW, max(times) + rules.LINK_WINDOW
        in_window = {f"{column}__in": (), "game__finished_at__gte": lo, "game__finished_at__lte": hi}
        crowds: dict[str, int] = {}
        for chunk in _chunks(sorted(new_uses)):
            in_window[f"{column}__in"] = chunk
            crowds.update(Seat.objects.filter(**in_window).values_list(column).annotate(
                n=Count("player_id", distinct=True)).values_list(column, "n"))
        plain = sorted(key for key in new_uses if not rules.is_crowded(crowds.get(key, 0)))
        known: dict[str, list[tuple[int, datetime]]] = defaultdict(list)
        for chunk in _chunks(plain):
            in_window[f"{column}__in"] = chunk
            for key, player, at in Seat.objects.filter(**in_window).values_list(column, "player_id",
                                                                                 "game__finished_at"):
                known[key].append((player, at))
        spans: dict[tuple[int, int], tuple[datetime, datetime, set[str], int]] = {}
        for key, uses in new_uses.items():
            crowd = crowds.get(key) or len({player for player, _, _ in uses})
            if crowd < 2:
                continue
            if rules.is_crowded(crowd):
                pairs = rules.table_pairs(uses)
            else:
                pairs = rules.close_pairs(known.get(key) or [(p, t) for p, t, _ in uses], [(p, t) for p, t, _ in uses])
            digest = _digest(key)
            for pair, span in pairs.items():
                old = spans.get(pair)
                if old is None:
                    spans[pair] = (span.first, span.last, {digest}, crowd)
                else:
                    spans[pair] = (min(old[0], span.first), max(old[1], span.last), old[2] | {digest},
                                   max(old[3], crowd))
        if spans:
            touched |= _merge_links(kind, spans, result)
    return touched


def _merge_links(kind: str, spans: dict[tuple[int, int], tuple], result: DetectionResult) -> set[tuple[int, int]]:
    existing = {pair: links[0] for pair, links in _links_of_pairs(set(spans), kind=kind).items()}
    create, update = [], []
    touched: set[tuple[int, int]] = set()
    for (a, b), (first, last, digests, crowd) in spans.items():
        link = existing.get((a, b))
        if link is None:
            create.append(Link(player_a_id=a, player_b_id=b, kind=kind, keys=len(digests),
                               key_digests=sorted(digests), first_seen=first, last_seen=last, crowd=crowd))
            touched.add((a, b))
            continue
        merged = sorted(set(link.key_digests) | digests)
        if (merged == sorted(link.key_digests) and first >= link.first_seen and last <= link.last_seen
                and crowd <= link.crowd):
            continue
        link.key_digests, link.keys = merged, len(merged)
        link.first_seen, link.last_seen = min(link.first_seen, first), max(link.last_seen, last)
        link.crowd = max(link.crowd, crowd)
        link.updated_at = timezone.now()
        update.append(link)
        touched.add((a, b))
    _insert_links(create)
    # One UPDATE per widened link: Django's bulk_update builds a CASE per column per row, which costs more to
    # compile than these few hundred single-row updates by primary key cost to run.
    for link in update:
        Link.objects.filter(pk=link.pk).update(keys=link.keys, key_digests=link.key_digests,
                                               first_seen=link.first_seen, last_seen=link.last_seen,
                                               crowd=link.crowd, updated_at=link.updated_at)
    result.links_created += len(create)
    result.links_updated += len(update)
    return touched


def _insert_links(links: list[Link]) -> None:
    """New links in as few statements as possible: on PostgreSQL one ``INSERT ... SELECT unnest(...)`` per chunk of
    arrays (a crowded address's tables make tens of thousands at once, and ``bulk_create`` builds a row of
    placeholders per link and returns every id, which nobody reads here); elsewhere ``bulk_create``."""
    if connection.vendor != "postgresql":
        Link.objects.bulk_create(links, batch_size=CHUNK)
        return
    now = timezone.now()
    table = connection.ops.quote_name(Link._meta.db_table)
    with connection.cursor() as cur:
        for chunk in _chunks(links, 10 * CHUNK):
            cur.execute(
                f"INSERT INTO {table} (player_a_id, player_b_id, kind, keys, key_digests, first_seen, last_seen, "
                "crowd, updated_at) SELECT a, b, k, n, d::jsonb, f, l, c, %s FROM unnest(%s::bigint[], "
                "%s::bigint[], %s::text[], %s::int[], %s::text[], %s::timestamptz[], %s::timestamptz[], %s::int[]) "
                "AS t(a, b, k, n, d, f, l, c)",
                [now, [x.player_a_id for x in chunk], [x.player_b_id for x in chunk], [x.kind for x in chunk],
                 [x.keys for x in chunk], [json.dumps(x.key_digests) for x in chunk], [x.first_seen for x in chunk],
                 [x.last_seen for x in chunk], [x.crowd for x in chunk]])


def _links_of_pairs(pairs: set[tuple[int, int]], kind: str | None = None) -> dict[tuple[int, int], list[Link]]:
    """The links of exactly these (lower id, higher id) pairs (of one ``kind`` if given)."""
    out: dict[tuple[int, int], list[Link]] = defaultdict(list)
    by_first: dict[int, set[int]] = defaultdict(set)
    for a, b in pairs:
        by_first[a].add(b)
    for chunk in _chunks(sorted(by_first)):
        for seconds in _chunks(sorted({b for a in chunk for b in by_first[a]})):
            rows = Link.objects.filter(player_a_id__in=chunk, player_b_id__in=seconds)
            for link in rows.filter(kind=kind) if kind else rows:
                if (link.player_a_id, link.player_b_id) in pairs:
                    out[(link.player_a_id, link.player_b_id)].append(link)
    return out


def _links_of(players: Iterable[int]) -> dict[tuple[int, int], list[Link]]:
    """Every link of these players, by unordered pair (lower id first)."""
    ids = sorted(set(players))
    out: dict[tuple[int, int], list[Link]] = defaultdict(list)
    seen: set[int] = set()
    for chunk in _chunks(ids):
        for link in Link.objects.filter(Q(player_a_id__in=chunk) | Q(player_b_id__in=chunk)):
            if link.pk not in seen:
                seen.add(link.pk)
                out[(link.player_a_id, link.player_b_id)].append(link)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Suspect pairs
# ---------------------------------------------------------------------------------------------------------------

def _shared_counts(players: set[int], since: datetime) -> dict[tuple[int, int], int]:
    """(lower id, higher id) -> at least the rated games inside the window one of ``players`` shared with the other
    (a prefilter: a game of two of them counts twice, never less than once), read
    from those players' own tables (their seats' games, then every seat of those games)."""
    games: dict[int, list[int]] = defaultdict(list)
    for chunk in _chunks(sorted(players)):
        for player, game in Seat.objects.filter(player_id__in=chunk, game__status=Game.Status.RATED,
                                                game__finished_at__gte=since).values_list("player_id", "game_id"):
            games[game].append(player)
    out: dict[tuple[int, int], int] = defaultdict(int)
    for chunk in _chunks(sorted(games)):
        for game, other in Seat.objects.filter(game_id__in=chunk).values_list("game_id", "player_id"):
            for player in games[game]:
                if player != other:
                    out[(player, other) if player < other else (other, player)] += 1
    return out


def _rated_seats(players: set[int], since: datetime) -> dict[int, dict[int, tuple[str, int | None]]]:
    """player -> {game_id: (title, place)} over the rated games inside the window."""
    out: dict[int, dict[int, tuple[str, int | None]]] = defaultdict(dict)
    for chunk in _chunks(sorted(players)):
        rows = Seat.objects.filter(player_id__in=chunk, game__status=Game.Status.RATED,
                                   game__finished_at__gte=since).values_list(
            "player_id", "game_id", "game__title", "place")
        for player, game, title, place in rows:
            out[player][game] = (title, place)
    return out


def _suspects(pairs: dict[tuple[int, int], list[Link]], since: datetime, result: DetectionResult,
              beneficiaries: set[int] | None = None,
              seats: dict[int, dict[int, tuple[str, int | None]]] | None = None,
              ) -> dict[tuple[int, int, str], rules.PairStats]:
    """(B, F, title) -> stats for every suspect orientation of the given pairs (B restricted if given); ``seats``
    when the caller already read them (``_rated_seats`` of at least these pairs' players)."""
    if not pairs:
        return {}
    if seats is None:
        seats = _rated_seats({p for pair in pairs for p in pair}, since)
    found: dict[tuple[int, int, str], rules.PairStats] = {}
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


# ---------------------------------------------------------------------------------------------------------------
# Flags
# ---------------------------------------------------------------------------------------------------------------

def _account(player: Player, games: int, now: datetime) -> dict[str, Any]:
    return {"id": player.pk, "handle": player.handle, "created_at": player.created_at.isoformat(),
            "age_days": max((now - player.created_at).days, 0), "games": games, "status": player.status}


def _link_evidence(links: list[Link], strangers: dict[str, int]) -> list[dict[str, Any]]:
    """A link as the flag shows it: ``crowd`` counts the accounts outside the flag on its least crowded hash
    (``crowds.pair_strangers``), ``accounts_on_hash`` everyone detection saw on it."""
    out = []
    for link in links:
        crowd = strangers.get(link.kind, link.crowd)
        out.append({"kind": link.kind, "keys": link.keys, "first_seen": link.first_seen.isoformat(),
                    "last_seen": link.last_seen.isoformat(), "crowd": crowd, "accounts_on_hash": link.crowd,
                    "crowded": rules.is_crowded(crowd), "weight": round(rules.link_weight(link.kind, crowd), 3)})
    return out


def _hash_evidence(shared: crowds.SharedHash, players: dict[int, Player]) -> dict[str, Any]:
    return {"kind": shared.kind, "digest": shared.digest, "first": shared.first.isoformat(),
            "last": shared.last.isoformat(), "strangers": shared.strangers, "widely_shared": shared.widely_shared,
            "accounts": [players[p].handle for p in shared.accounts if p in players]}


def _raise_flag(b: int, title: str, feeders: dict[int, rules.PairStats],
                pairs: dict[tuple[int, int], list[Link]], since: datetime, now: datetime,
                result: DetectionResult) -> None:
    all_ids = sorted({g for stats in feeders.values() for g in stats.game_ids})
    open_flag = Flag.objects.select_for_update().filter(beneficiary_id=b, title=title, status=Flag.Status.OPEN).first()
    if open_flag is None:
        last = Flag.objects.filter(beneficiary_id=b, title=title).order_by("-pk").first()
        if last is not None and not rules.has_new_evidence(last.game_ids, all_ids):
            result.flags_skipped += 1
            return
    gains = dict(RatingChange.objects.filter(player_id=b, kind=RatingChange.Kind.GAME, game_id__in=all_ids)
                 .values_list("game_id", "delta"))
    players = Player.objects.in_bulk([b, *feeders])
    # Rated games over every title, one grouped query for the whole ring rather than one per account.
    played = dict(Rating.objects.filter(player_id__in=players).values("player_id").annotate(n=Sum("games"))
                  .values_list("player_id", "n"))
    # Each shared hash's crowd without the flag's own accounts (``crowds``): a ring is not its own crowd.
    hashes = crowds.shared_hashes(accounts=[b, *feeders], since=since - rules.LINK_WINDOW)
    rows, parts, feeder_evidence = [], [], []
    for f, stats in sorted(feeders.items()):
        links = pairs.get((min(b, f), max(b, f)), [])
        strangers = crowds.pair_strangers(hashes, b, f)
        weight = max((rules.link_weight(link.kind, strangers.get(link.kind, link.crowd)) for link in links),
                     default=0.0)
        gained = round(sum(gains.get(g, 0.0) for g in stats.game_ids), 2)
        parts.append(rules.feeder_score(stats, weight))
        feeder_evidence.append({
            **_account(players[f], played.get(f) or 0, now), "shared_games": stats.shared_games, "wins": stats.wins,
            "win_share": round(stats.win_share, 4), "concentration": round(stats.concentration, 4),
            "shared_any": stats.shared_any, "rated_games_in_window": stats.feeder_games, "elo_gained": gained,
            "weight": round(weight, 3), "links": _link_evidence(links, strangers), "game_ids": stats.game_ids,
        })
        rows.append(FlagFeeder(feeder_id=f, shared_games=stats.shared_games, wins=stats.wins,
                               win_share=stats.win_share, concentration=stats.concentration, elo_gained=gained,
                               link_kinds=sorted({link.kind for link in links}), weight=weight))
    elo_gained = round(sum(gains.get(g, 0.0) for g in all_ids), 2)
    evidence = {"game": title, "beneficiary": _account(players[b], played.get(b) or 0, now),
                "window": {"from": since.isoformat(), "to": now.isoformat()},
                "feeders": feeder_evidence, "elo_gained": elo_gained, "game_ids": all_ids,
                "hashes": [_hash_evidence(h, players) for h in hashes]}
    score = rules.flag_score(parts, elo_gained)
    if open_flag is None:
        open_flag = Flag.objects.create(beneficiary_id=b, title=title, score=score, evidence=evidence, game_ids=all_ids)
        result.flags_created += 1
    else:
        open_flag.score, open_flag.evidence, open_flag.game_ids = score, evidence, all_ids
        open_flag.save(update_fields=["score", "evidence", "game_ids", "updated_at"])
        open_flag.feeders.all().delete()
        result.flags_updated += 1
    for row in rows:
        row.flag = open_flag
    FlagFeeder.objects.bulk_create(rows)
    result.flag_ids.append(open_flag.pk)


def open_flags() -> list[dict[str, Any]]:
    """Every open flag as the command prints it, highest score first."""
    out = []
    flags = Flag.objects.filter(status=Flag.Status.OPEN).select_related("beneficiary").order_by("-score", "pk")
    feeders: dict[int, list[str]] = defaultdict(list)
    for flag_id, handle in FlagFeeder.objects.filter(flag__status=Flag.Status.OPEN).order_by(
            "feeder__handle").values_list("flag_id", "feeder__handle"):
        feeders[flag_id].append(handle)
    for flag in flags:
        out.append({"flag": flag.pk, "game": flag.title, "beneficiary": flag.beneficiary.handle,
                    "feeders": feeders[flag.pk], "score": flag.score})
    return out


def watermark_reset() -> None:
    """Forget the watermark and the rating cursors (tests, a re-run from scratch after changing the rules)."""
    DetectionState.objects.update_or_create(name="default", defaults={"last_game_id": 0, "rated_seqs": {}})


def detection_lag() -> int:
    """Games detection has still to look at (the panel's dashboard): recorded past the id watermark, and
    recorded before it but rated past their title's rating cursor (a game rated late is looked at again)."""
    state = DetectionState.objects.filter(name="default").first()
    watermark, cursors = (state.last_game_id, state.rated_seqs) if state else (0, {})
    lag = Game.objects.filter(pk__gt=watermark).count()
    for title, cursor in cursors.items():
        lag += Game.objects.filter(title=title, status=Game.Status.RATED, rating_seq__gt=cursor,
                                   pk__lte=watermark).count()
    return lag


@dataclass(frozen=True)
class DetectionPending:
    """A title's games detection has still to look at, and the wait of the oldest new one (``age``)."""

    title: str
    pending: int
    age: timedelta


def detection_pending(*, now: datetime | None = None) -> list[DetectionPending]:
    """``detection_lag`` per title (the ``arena_detection_*`` gauges). The age counts from acceptance of the oldest
    game past the id watermark; a game rated late is counted but adds no age (when it was rated is not kept)."""
    now = now or timezone.now()
    state = DetectionState.objects.filter(name="default").first()
    watermark, cursors = (state.last_game_id, state.rated_seqs) if state else (0, {})
    counts: dict[str, int] = defaultdict(int)
    ages: dict[str, timedelta] = {}
    for row in (Game.objects.filter(pk__gt=watermark).values("title")
                .annotate(n=Count("id"), oldest=Min("accepted_at")).order_by()):
        counts[row["title"]] += row["n"]
        ages[row["title"]] = max(now - row["oldest"], timedelta(0))
    for title, cursor in cursors.items():
        late = Game.objects.filter(title=title, status=Game.Status.RATED, rating_seq__gt=cursor,
                                   pk__lte=watermark).count()
        if late:
            counts[title] += late
    return [DetectionPending(title, counts[title], ages.get(title, timedelta(0))) for title in sorted(counts)]
