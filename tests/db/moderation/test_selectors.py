"""The panel's reads: linked accounts without raw values, and the warnings a confirmation shows before it bans."""

from __future__ import annotations

import pytest

from arena.models import Player
from moderation.selectors import linked_accounts, multiple_accounts_warnings
from tests.db.moderation.helpers import detect, duel, link, record, seen

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
    # Everyone at the café within 30 days of a's visit is linked to a, through a hash 7 accounts used: a café, not
    # widely shared (the crowded rule is more than 50).
    assert by_handle == {
        "b": ("device", 1, 2, False),
        "c": ("ip", 1, 7, False),
        **{f"guest{i}": ("ip", 1, 7, False) for i in range(5)},
    }
    assert rows[-1]["handle"] == "b"  # the oldest link last
    assert "laptop" not in repr(rows) and "10." not in repr(rows)


def test_confirm_warns_once_per_crowded_hash_and_about_missing_links(api):
    """a, c and d met at a café 51 other accounts used within 30 days (more than rules.CROWDED_ACCOUNTS): one
    line for the hash, naming the three, not one per pair; a and b share a home: no warning for them."""
    cafe = "198.51.100.9"
    bodies = link("a", "b", key="home")
    bodies += [
        duel("a", "c", days_ago=3, ips={"a": cafe, "c": cafe}),
        duel("c", "d", days_ago=3, ips={"c": cafe, "d": cafe}),
    ]
    bodies += [duel("a", "d", days_ago=3, ips={"a": cafe, "d": cafe})]
    bodies += [seen(f"guest{i}", days_ago=4, ip=cafe) for i in range(51)]
    record(api, bodies + link("x", "y"))
    detect()
    assert multiple_accounts_warnings(accounts=[p("a"), p("b")]) == []
    (crowded,) = multiple_accounts_warnings(accounts=[p("a"), p("c"), p("d")])
    assert crowded == (
        "a, c and d are tied only through an address 51 other accounts used within 30 days (a school, "
        "a café?): weak evidence on its own."
    )
    (alone,) = multiple_accounts_warnings(accounts=[p("a"), p("b"), p("x")])
    assert alone.startswith("x shares no address")


def test_a_cafe_with_fewer_than_51_strangers_brings_no_crowd_warning(api):
    cafe = "198.51.100.10"
    bodies = [duel("a", "c", days_ago=3, ips={"a": cafe, "c": cafe})]
    bodies += [seen(f"guest{i}", days_ago=4, ip=cafe) for i in range(50)]
    record(api, bodies)
    detect()
    assert multiple_accounts_warnings(accounts=[p("a"), p("c")]) == []
