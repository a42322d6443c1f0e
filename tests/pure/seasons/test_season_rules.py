"""docs/seasons.md's worked examples, computed by hand (the numbers below are the doc's, not the code's)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ratings.plan import RatedGame
from seasons.corrections import Final, correction_text, void_reason
from seasons.rules import (
    Entry,
    SeasonPlay,
    SeasonRules,
    aligned_end,
    aligned_start,
    carry_league,
    carry_over,
    league_of,
    season_replay,
    standings,
)

T0 = datetime(2026, 10, 6, 12, tzinfo=UTC)
BRONZE, SILVER, GOLD, PLATINUM, DIAMOND, ELITE = range(6)


def game(gid: int, seats: list[tuple[int, int, int]], sides: int | None = None) -> RatedGame:
    """seats: (player, side, place); no quitter."""
    count = sides or (1 + max(s[1] for s in seats))
    return RatedGame(gid, count, None, T0 + timedelta(minutes=gid), None, [(p, s, pl, False) for p, s, pl in seats])


def play_with(leagues: dict[int, int | None]) -> SeasonPlay:
    """A season where these players already stand in these leagues (None: still in placement)."""
    play = SeasonPlay(rules=SeasonRules(placement_games=3))
    for pid, league in leagues.items():
        play.entries[pid] = Entry(
            pid,
            points=0,
            games=3 if league is not None else 0,
            placement_left=0 if league is not None else 3,
            league=league,
        )
    return play


def test_example_one_four_players_with_a_tie() -> None:
    # A gold (weight 7), B silver (6), C bronze (5), D in placement (counts as bronze, 5); places 1, 2, 2, 4.
    play = play_with({1: GOLD, 2: SILVER, 3: BRONZE, 4: None})
    play.apply_game(game(1, [(1, 0, 1), (2, 1, 2), (3, 2, 2), (4, 3, 4)]))
    got = {line.player_id: line.points for line in play.lines}
    assert got == {1: 2 * 6 + 2 * 5 + 2 * 5, 2: 0 + 1 * 5 + 2 * 5, 3: 0 + 1 * 6 + 2 * 5, 4: 0}
    assert got == {1: 32, 2: 15, 3: 16, 4: 0}
    why = {line.player_id: line.opponents for line in play.lines}
    assert why[2] == (("gold", "loss", 0), ("bronze", "tie", 5), ("placement", "win", 10))


def test_example_two_teams_weighted_by_the_mean_league() -> None:
    # Spades: P diamond + Q silver (mean 2.5 -> gold, weight 7) beat R + S platinum (weight 8).
    play = play_with({1: DIAMOND, 2: SILVER, 3: PLATINUM, 4: PLATINUM})
    play.apply_game(game(1, [(1, 0, 1), (2, 0, 1), (3, 1, 2), (4, 1, 2)], sides=2))
    assert {line.player_id: line.points for line in play.lines} == {1: 16, 2: 16, 3: 0, 4: 0}


def test_promotion_when_points_reach_the_threshold() -> None:
    play = play_with({1: BRONZE, 2: BRONZE})
    play.entries[1].points = 95
    play.apply_game(game(1, [(1, 0, 1), (2, 1, 2)]))
    assert (play.entries[1].points, play.entries[1].league) == (105, SILVER)
    assert [league_of(p) for p in (0, 99, 100, 249, 250, 450, 699, 700, 999, 1000)] == [0, 0, 1, 1, 2, 3, 3, 4, 4, 5]


def test_placement_games_then_a_league_from_points() -> None:
    play = play_with({2: BRONZE, 3: BRONZE, 4: BRONZE})
    for gid, opponent in ((1, 2), (2, 3), (3, 4)):
        play.apply_game(game(gid, [(1, 0, 1), (opponent, 1, 2)]))
        if gid < 3:
            assert (play.entries[1].league, play.entries[1].placement_left) == (None, 3 - gid)
    assert (play.entries[1].points, play.entries[1].league, play.entries[1].placement_left) == (30, BRONZE, 0)


def test_carry_over_one_league_down_two_from_the_relegation_zone() -> None:
    assert carry_league(GOLD, relegated=False) == SILVER
    assert carry_league(GOLD, relegated=True) == BRONZE
    assert carry_league(ELITE, relegated=True) == PLATINUM
    assert carry_league(None, relegated=False) == BRONZE
    # A carried silver player starts at silver's threshold (100), placed; bronze is no carry (placement again).
    play = season_replay([], carry={7: SILVER})
    assert (play.entries[7].points, play.entries[7].league, play.entries[7].placement_left) == (100, SILVER, 0)


def test_relegation_zone_is_the_bottom_fifth_rounded_up_and_standings_share_ranks() -> None:
    # Six gold players: ceil(6 * 0.2) = 2 in the zone; two tie at 300 and share rank 2.
    entries = [
        Entry(pid, points=pts, games=5, placement_left=0, league=GOLD)
        for pid, pts in ((1, 400), (2, 300), (3, 300), (4, 280), (5, 260), (6, 255))
    ]
    entries.append(Entry(9, points=40, games=2, placement_left=1, league=None))
    rows = standings(entries, {})
    assert [(r.player_id, r.rank, r.relegation) for r in rows] == [
        (1, 1, False),
        (2, 2, False),
        (3, 2, False),
        (4, 4, False),
        (5, 5, True),
        (6, 6, True),
        (9, 7, False),
    ]
    assert carry_over(rows) == {1: SILVER, 2: SILVER, 3: SILVER, 4: SILVER}
    assert [r.player_id for r in standings(entries, {}, excluded=[2])][:2] == [1, 3]


def test_season_elo_starts_afresh_and_follows_the_titles_elo() -> None:
    # Fresh 1500s, K = 60: a win moves 60 * (1 - 0.5) = 30; the return game, 1530 vs 1470:
    # E = 1 / (1 + 10 ** (-60 / 400)) = 0.585499, so A loses 60 * 0.585499 = 35.1299.
    play = season_replay(
        [game(1, [(1, 0, 1), (2, 1, 2)]), game(2, [(2, 0, 1), (1, 1, 2)])], rules=SeasonRules(placement_games=0)
    )
    assert play.season_elo(1) == pytest.approx(1494.870, abs=1e-3)
    assert play.season_elo(2) == pytest.approx(1505.130, abs=1e-3)
    # Only the top league shows it in the standings.
    entries = [
        Entry(1, points=1200, games=40, placement_left=0, league=ELITE),
        Entry(2, points=1500, games=40, placement_left=0, league=ELITE),
        Entry(3, points=990, games=40, placement_left=0, league=DIAMOND),
    ]
    rows = standings(entries, {1: 1600.0, 2: 1550.0, 3: 1700.0})
    assert [(r.player_id, r.season_elo) for r in rows] == [(1, 1600.0), (2, 1550.0), (3, None)]


def test_calendar_aligned_from_the_epoch() -> None:
    assert aligned_end(datetime(2026, 3, 1, tzinfo=UTC), 91) == datetime(2026, 4, 6, tzinfo=UTC)
    assert aligned_end(datetime(2026, 4, 6, tzinfo=UTC), 91) == datetime(2026, 7, 6, tzinfo=UTC)
    assert aligned_start(datetime(2026, 12, 3, tzinfo=UTC), 91) == datetime(2026, 10, 5, tzinfo=UTC)


def test_correction_line() -> None:
    reason = void_reason(3, datetime(2027, 2, 3, 9, tzinfo=UTC))
    assert (
        correction_text(Final(14, GOLD, 212), Final(13, GOLD, 220), reason)
        == "place 14 -> 13, points 212 -> 220: 3 games voided on 2027-02-03"
    )
    assert (
        correction_text(Final(3, GOLD, 260), Final(3, SILVER, 240), "1 game voided on 2027-02-03")
        == "league gold -> silver, points 260 -> 240: 1 game voided on 2027-02-03"
    )
    assert correction_text(Final(5, GOLD, 260), Final(5, GOLD, 260), reason) is None
