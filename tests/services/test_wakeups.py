"""Recording many games of one title sends one wake-up until a worker takes it (real Redis broker)."""

from __future__ import annotations

from ratings.tasks import WAKE_KEY, _clear_wake, request_rating


def test_wakeups_coalesce_until_the_worker_clears_them(redis_conn):
    request_rating(["wizard", "tokaido"])
    request_rating(["wizard"])
    request_rating(["wizard", "tokaido"])
    assert redis_conn.llen("elo") == 2  # one message per title, not five
    assert redis_conn.ttl(WAKE_KEY.format(title="wizard")) > 0  # a dead worker cannot block wake-ups forever

    _clear_wake("wizard")  # what rate_elo does before its first batch
    request_rating(["wizard"])
    assert redis_conn.llen("elo") == 3
