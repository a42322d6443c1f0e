"""Reputation and the quit cool-down (docs/matchmaking.md), by hand-worked examples."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ratings.reputation import NONE, Cooldown, Reputation, fold, reputation, reputation_percent, seconds_left

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)


def test_no_reputation_under_10_games():
    assert reputation("") == Reputation(None, 0, 0)
    assert reputation("fffffffff") == Reputation(None, 9, 0)  # 9 games


def test_reputation_is_the_share_not_quit_of_the_last_100():
    # 10 games, 1 quit: 9 / 10 = 90 %.
    assert reputation("fffffffffq") == Reputation(90.0, 10, 1)
    # 120 games: the 20 oldest (all quits) fall out of the window; of the last 100, 3 quits: 97 %.
    assert reputation("q" * 20 + "f" * 97 + "qqq") == Reputation(97.0, 100, 3)


def test_the_percent_alone_is_the_same_share():
    # What a matchmaking pass reads per waiting player: the docs' 57 games with 2 quits is 96.49 %.
    assert round(reputation_percent("f" * 55 + "qq"), 2) == 96.49
    assert reputation_percent("fffffffffq") == 90.0
    assert reputation_percent("q" * 20 + "f" * 97 + "qqq") == 97.0
    assert reputation_percent("fffffffff") is None  # 9 games
    assert reputation_percent("") is None


def games(outcomes: str, start: datetime = T0, every: timedelta = 10 * MIN) -> list[tuple[bool, datetime]]:
    return [(c == "q", start + i * every) for i, c in enumerate(outcomes)]


def test_two_quits_in_ten_games_start_nothing():
    recent, state = fold("", NONE, games("fqffqfff"))
    assert state.until is None and state.last_quit_at == T0 + 40 * MIN and recent == "fqffqfff"


def test_the_third_quit_in_ten_games_starts_15_minutes_from_its_finish():
    # Games at T0, +10 min, ...: the quits are games 2, 5 and 8; the third finished at T0 + 70 min.
    _, state = fold("", NONE, games("fqffqffq"))
    assert state == Cooldown(until=T0 + 85 * MIN, length=15 * MIN, started_at=T0 + 70 * MIN, last_quit_at=T0 + 70 * MIN)
    # 10 minutes later, 5 minutes are left: retry_after 300 s.
    assert seconds_left(state, T0 + 80 * MIN) == 300
    assert seconds_left(state, T0 + 85 * MIN) == 0
    # A part of a second rounds up: 0.4 s left is 1 s.
    assert seconds_left(state, T0 + 85 * MIN - timedelta(seconds=0.4)) == 1


def test_three_quits_spread_over_more_than_ten_games_start_nothing():
    # Quits at games 1, 6 and 11: the last 10 games (2..11) hold two of them.
    _, state = fold("", NONE, games("qffffqffffq"))
    assert state.until is None


def test_a_repeat_within_24_hours_doubles():
    # First cool-down at T0 (15 min). Another quit 2 hours later, still 3+ quits in the last 10: 30 min.
    first = Cooldown(until=T0 + 15 * MIN, length=15 * MIN, started_at=T0, last_quit_at=T0)
    _, second = fold("fqfqfq", first, [(True, T0 + 120 * MIN)])
    assert (second.length, second.until) == (30 * MIN, T0 + 150 * MIN)
    # And again 3 hours after that: 60 min.
    _, third = fold("fqfqfqq", second, [(True, T0 + 300 * MIN)])
    assert (third.length, third.until) == (60 * MIN, T0 + 360 * MIN)


def test_doubling_stops_at_24_hours():
    # A 16 h cool-down repeated within 24 h: 32 h capped at 24 h.
    state = Cooldown(until=T0 + timedelta(hours=16), length=timedelta(hours=16), started_at=T0, last_quit_at=T0)
    _, after = fold("qqq", state, [(True, T0 + timedelta(hours=20))])
    assert after.length == timedelta(hours=24) and after.until == T0 + timedelta(hours=44)


def test_a_repeat_after_24_hours_keeps_the_length():
    # The previous (30 min) started 2 days before: no doubling, but not forgiven either (a quit 2 days ago).
    state = Cooldown(until=T0 + 30 * MIN, length=30 * MIN, started_at=T0, last_quit_at=T0)
    _, after = fold("qqq", state, [(True, T0 + timedelta(days=2))])
    assert after.length == 30 * MIN and after.until == T0 + timedelta(days=2) + 30 * MIN


def test_seven_days_without_a_quit_forgives():
    # The last quit was 7 days before this one: the next cool-down is 15 minutes again.
    state = Cooldown(until=T0 + timedelta(hours=4), length=timedelta(hours=4), started_at=T0, last_quit_at=T0)
    _, after = fold("qqq", state, [(True, T0 + timedelta(days=7))])
    assert after.length == 15 * MIN
    # 6 days 23 hours is not yet 7 days: the 4 h stays (started more than 24 h before: no doubling).
    _, kept = fold("qqq", state, [(True, T0 + timedelta(days=6, hours=23))])
    assert kept.length == timedelta(hours=4)


def test_a_running_longer_cool_down_is_never_shortened():
    # 24 h running since T0; a quit 8 days of no quits later cannot happen inside it, but a forgiven 15 min
    # started while a longer one runs (a game finished earlier, rated late) keeps the longer end.
    state = Cooldown(until=T0 + timedelta(days=10), length=timedelta(hours=24), started_at=T0, last_quit_at=T0)
    _, after = fold("qqq", state, [(True, T0 + timedelta(days=8))])
    assert after.length == 15 * MIN and after.until == T0 + timedelta(days=10)


def test_recent_keeps_the_last_200_outcomes():
    recent, _ = fold("f" * 199, NONE, games("qf"))
    assert len(recent) == 200 and recent.endswith("fqf") and reputation(recent).games == 100
