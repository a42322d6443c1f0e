"""The end-of-test check, run as ``python -m tests.faults.check INPUT.json`` in the site's environment (so
Django reads the private database), after the fault is over and the clients have stopped.

It waits (within a stated bound) for the rating stages and any void rebuild to catch up, then asserts:
- every game a client got accepted is stored exactly once, under the id it was answered, and nothing else is;
- Arena rated each title's games in an order that real time allows ("the order Arena accepted them"): a game
  answered before another was sent is rated before it. Two games in flight at once may be accepted either way
  round, and the order of their commits, not of their ids, is the acceptance order, so the replay follows
  Arena's rating sequence once it is checked against what the clients saw;
- every Elo, history row and TrueSkill belief equals the replay of docs/ratings.md (tests/db/ratings/replay.py,
  which imports none of the rating code) over the accepted bodies in that order, without the games of banned
  players (voided, or recorded while banned): the refunds are exact;
- every leaderboard, as the API serves it (pages and ``around=``), equals the replay's ranks;
- no ticket seated twice, every table valid (tests/db/matchmaking/judge.py) and every table with the pushing
  server's tickets pushed exactly once, by delivery id, and received.
It prints one JSON line of figures; an AssertionError exits non-zero with its message.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections import Counter
from datetime import timedelta
from typing import Any

import django

django.setup()

import requests  # noqa: E402
from django.utils import timezone  # noqa: E402

from arena.models import Game, Player  # noqa: E402
from matchmaking.models import Delivery, OpenSeat, Table, Ticket  # noqa: E402
from moderation.models import AuditEntry  # noqa: E402
from ratings.lag import trueskill_lag  # noqa: E402
from ratings.models import RatingChange  # noqa: E402
from tests.db.ratings.replay import R0, Replay, assert_matches  # noqa: E402

MIN_GAMES, ACTIVE_DAYS = 5, 90  # docs/api.md, "Leaderboards"
BOARD_TITLES = ("wizard", "tokaido", "spades", "railroad_ink", "nile")  # Hanabi has none


def outstanding() -> dict[str, int]:
    voids = [e for e in AuditEntry.objects.filter(action="void_games") if e.details.get("pending_titles")]
    return {
        "pending": Game.objects.filter(status=Game.Status.PENDING).count(),
        "trueskill": sum(row.pending for row in trueskill_lag()),
        "voids": len(voids),
        "deliveries": Delivery.objects.filter(status="pending").count(),
    }


def wait_settled(bound: float) -> float:
    started = time.monotonic()
    while any((left := outstanding()).values()):
        if time.monotonic() - started > bound:
            raise AssertionError(f"not caught up within the bound of {bound:.0f}s: {left}")
        time.sleep(0.25)
    return time.monotonic() - started


def check_real_time(accepted: list[list[Any]], seqs: dict[str, tuple[str, int | None]]) -> int:
    """No game rated after one that was sent only once it had been answered; returns how many pairs of games
    were rated against their id order (concurrent commits: allowed, reported)."""
    by_title: dict[str, list[tuple[int, float, float, int, str]]] = {}
    for table_id, _, pk, sent, answered in accepted:
        title, seq = seqs[table_id]
        if seq is not None:
            by_title.setdefault(title, []).append((seq, sent, answered, pk, table_id))
    inversions = 0
    for title, games in by_title.items():
        games.sort()
        seen = [s for s, *_ in games]
        assert len(seen) == len(set(seen)), f"{title}: a rating_seq used twice"
        earliest_answer, holder = float("inf"), None  # over the games rated later than the current one
        for seq, sent, answered, _, table_id in reversed(games):
            assert not earliest_answer < sent, (
                f"{title}: {table_id} (seq {seq}) was sent after {holder} was answered, yet rated before it"
            )
            if answered < earliest_answer:
                earliest_answer, holder = answered, table_id
        ids = [pk for _, _, _, pk, _ in games]
        inversions += sum(1 for a, b in itertools.pairwise(ids) if a > b)
    return inversions


def check_games(accepted: list[list[Any]], banned: set[str]) -> tuple[Replay, int]:
    stored = list(Game.objects.values_list("table_id", "id", "title", "status"))
    counts = Counter(t for t, *_ in stored)
    doubled = [t for t, n in counts.items() if n > 1]
    assert not doubled, f"stored twice: {doubled[:10]}"
    by_table = {t: (pk, title, status) for t, pk, title, status in stored}
    lost = [t for t, *_ in accepted if t not in by_table]
    assert not lost, f"accepted but not stored: {lost[:10]}"
    extra = set(by_table) - {t for t, *_ in accepted}
    assert not extra, f"stored but never accepted: {sorted(extra)[:10]}"
    wrong_id = [t for t, _, pk, *_ in accepted if by_table[t][0] != pk]
    assert not wrong_id, f"answered one id, stored another: {wrong_id[:10]}"
    # A banned player's games end void (voided) or unrated (recorded while banned): none may still count.
    seqs = {t: (title, seq) for t, title, seq in Game.objects.values_list("table_id", "title", "rating_seq")}
    inversions = check_real_time(accepted, seqs)
    counted = []
    for table_id, body, *_ in accepted:
        if banned & {p["player"] for p in body["players"]}:
            assert by_table[table_id][2] in (Game.Status.VOID, Game.Status.UNRATED), (table_id, by_table[table_id])
        else:
            counted.append(body)
    # Unrated games (sent unrated, solo) have no seq and change nothing: their place in the order is moot.
    counted.sort(key=lambda b: (seqs[b["table_id"]][1] or 0, by_table[b["table_id"]][0]))
    replay = Replay()
    replay.play(counted)
    return replay, inversions


def check_ratings(replay: Replay, banned: set[str]) -> None:
    # A rebuild leaves a banned player's rows, if any, at the start (their games were all voided).
    if banned:
        from ratings.models import Rating

        for rating in Rating.objects.filter(player__handle__in=banned):
            assert rating.games == 0 and abs(rating.elo - R0) < 1e-9, ("banned player still rated", rating.pk)
            replay.ratings[(rating.player.handle, rating.title)] = [rating.elo, rating.games, rating.last_game_at]
            if rating.ts_mu is not None:
                replay.skills[(rating.player.handle, rating.title)] = (rating.ts_mu, rating.ts_sigma)
    first_divergence(replay)
    assert_matches(replay, trueskill=True)
    seats = sum(len(rows) for rows in replay.history.values())
    assert RatingChange.objects.filter(kind="game").count() == seats, "a history row counted twice or lost"


def first_divergence(replay: Replay) -> None:
    """The first history row per title where the store and the replay part (a clearer failure than a rating)."""
    from tests.db.ratings.replay import close, stored_history

    history = stored_history()
    for title, rows in replay.history.items():
        for n, (got, want) in enumerate(zip(history.get(title, []), rows, strict=False)):
            if not close(got, want):
                game = Game.objects.filter(table_id=want[1]).values("id", "rating_seq", "status").first()
                raise AssertionError(f"{title}: history row {n} differs: stored {got}, replay {want}; game {game}")


def expected_board(replay: Replay, title: str, banned: set[str]) -> list[tuple[int, str]]:
    cutoff = timezone.now() - timedelta(days=ACTIVE_DAYS)
    ids = dict(Player.objects.values_list("handle", "id"))
    rows = [
        (round(elo, 6), ids[h], h)
        for (h, t), (elo, games, last) in replay.ratings.items()
        if t == title and h not in banned and games >= MIN_GAMES and last is not None and last >= cutoff
    ]
    rows.sort(key=lambda r: (-r[0], r[1]))
    board: list[tuple[int, str]] = []
    for i, (elo, _, handle) in enumerate(rows):
        rank = board[-1][0] if board and elo == rows[i - 1][0] else i + 1
        board.append((rank, handle))
    return board


def check_boards(url: str, replay: Replay, banned: set[str]) -> dict[str, int]:
    sizes = {}
    http = requests.Session()
    for title in BOARD_TITLES:
        want = expected_board(replay, title, banned)
        got: list[tuple[int, str]] = []
        while True:
            page = http.get(
                f"{url}/api/v1/leaderboards/{title}/", params={"limit": 200, "offset": len(got)}, timeout=30
            )
            assert page.status_code == 200, (title, page.status_code, page.text[:300])
            entries = page.json()["entries"]
            got += [(e["rank"], e["player"]) for e in entries]
            if not entries or len(got) >= page.json()["total"]:
                break
        assert got == want, (title, [x for x in zip(got, want, strict=False) if x[0] != x[1]][:5], len(got), len(want))
        for rank, handle in want[:: max(1, len(want) // 5)]:
            window = http.get(
                f"{url}/api/v1/leaderboards/{title}/", params={"around": handle, "limit": 5}, timeout=30
            ).json()["entries"]
            assert (rank, handle) in [(e["rank"], e["player"]) for e in window], (title, handle)
        sizes[title] = len(want)
    return sizes


def check_tables(server: str | None, received: list[str]) -> dict[str, int]:
    from tests.db.matchmaking import judge

    tickets = list(Ticket.objects.all())
    matched = [t for t in tickets if t.status == "matched"]
    units = judge.units()
    seats = Counter()
    for ticket in matched:
        seats[ticket.table_id] += units[str(ticket.pk)].seats
    tables = list(Table.objects.all())
    for table in tables:
        assert seats[table.pk] == len(table.players) >= 2, ("a table without all of its tickets", table.pk)
        problem = judge.table_problem(table, units)
        assert problem is None, (problem, table.players)
    players = [p for table in tables for p in table.players]
    assert len(players) == len(set(players)), "a player seated at two tables"
    assert not OpenSeat.objects.exclude(ticket__status="waiting").exists(), "a closed ticket still open"
    out = {"tickets": len(tickets), "matched": len(matched), "tables": len(tables)}
    if server is not None:
        pushed_tables = set(Table.objects.filter(tickets__server__name=server).values_list("pk", flat=True))
        deliveries = list(Delivery.objects.filter(server__name=server).values_list("pk", "table_id", "status"))
        # Every push is an event (docs/api.md): a formed table's, and a ticket's expiry or cancellation (no table).
        formed = Delivery.objects.filter(server__name=server, event_type="table.formed")
        per_table = Counter(formed.values_list("table_id", flat=True))
        assert set(per_table) == pushed_tables, "a table with the server's tickets not pushed"
        assert all(n == 1 for n in per_table.values()), "a table pushed under two delivery ids"
        assert all(status == "delivered" for *_, status in deliveries), Counter(s for *_, s in deliveries)
        assert set(received) == {str(pk) for pk, _, _ in deliveries}, "deliveries received != deliveries made"
        retried = Delivery.objects.filter(server__name=server, attempts__gt=1).count()
        out.update(
            deliveries=len(deliveries),
            retried=retried,
            received=len(received),
            duplicates_dropped=len(received) - len(set(received)),
        )
    return out


def main(path: str) -> None:
    with open(path, encoding="utf-8") as file:
        spec = json.load(file)
    figures: dict[str, Any] = {"settled_s": round(wait_settled(spec["bound"]), 1)}
    banned = set(spec.get("banned", []))
    if spec.get("accepted") is not None:
        replay, inversions = check_games(spec["accepted"], banned)
        check_ratings(replay, banned)
        figures["games"] = len(spec["accepted"])
        figures["rated_against_id_order"] = inversions
        if banned:
            figures["void"] = Game.objects.filter(status=Game.Status.VOID).count()
            figures["unrated_banned"] = (
                Game.objects.filter(status=Game.Status.UNRATED, seats__player__handle__in=banned).distinct().count()
            )
        figures["boards"] = check_boards(spec["url"], replay, banned)
    if spec.get("tables"):
        figures.update(check_tables(spec.get("server"), spec.get("received", [])))
    print(json.dumps(figures))


if __name__ == "__main__":
    main(sys.argv[1])
