"""The panel's reads: linked accounts without raw values, and the warnings a confirmation shows before it bans."""
from __future__ import annotations

import pytest

from arena.models import Player
from moderation.selectors import confirm_warnings, linked_accounts
from tests.db.moderation.helpers import detect, link, record

pytestmark = pytest.mark.django_db


def p(handle: str) -> Player:
    return Player.objects.get(handle=handle)


def test_linked_accounts_show_kind_counts_dates_and_crowding(api):
    bodies = link("a", "b", kind="device", key="laptop", days_ago=10) + link("a", "c", key="cafe", days_ago=5)
    bodies += [g for i in range(5) for g in link(f"guest{i}", "c", key="cafe", days_ago=5)]
    record(api, bodies)
    detect()
    rows = linked_accounts(player=p("a"))
    by_handle = {r["handle"]: (r["kind"], r["keys"], r["crowd"], r["crowded"]) for r in rows}
    # Everyone at the café within 30 days of a's visit is linked to a, through a hash 7 accounts used.
    assert by_handle == {"b": ("device", 1, 2, False), "c": ("ip", 1, 7, True),
                         **{f"guest{i}": ("ip", 1, 7, True) for i in range(5)}}
    assert rows[-1]["handle"] == "b"  # the oldest link last
    assert "laptop" not in repr(rows) and "10." not in repr(rows)


def test_confirm_warns_about_crowded_and_missing_links(api):
    bodies = link("a", "b", key="home") + link("a", "c", key="cafe")
    bodies += [g for i in range(5) for g in link(f"guest{i}", "c", key="cafe")]
    record(api, bodies + link("x", "y"))
    detect()
    assert confirm_warnings(accounts=[p("a"), p("b")]) == []
    (crowded,) = confirm_warnings(accounts=[p("a"), p("c")])
    assert "7 accounts share" in crowded
    (alone,) = confirm_warnings(accounts=[p("a"), p("b"), p("x")])
    assert alone.startswith("x shares no address")
