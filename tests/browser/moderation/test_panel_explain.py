"""The panel's part of issue 15, in Chromium: a game page explains every change term by term; a player page shows
reputation and a running quit cool-down, which a moderator lifts as an audited action."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from moderation.models import AuditEntry
from ratings.models import Reputation
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, fresh_ip, player

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_game_page_explains_each_change(page, live_server, moderator, artifacts):
    """Hand-worked: Tokaido, three new players (n = 3 ≤ rec 4: P = 2/3), every E = 0.5 and K = 60, so each duel is
    60 · 2/3 · (±0.5) = ±20: first +40, second 0, third −40."""
    arena = Arena()
    game = arena.game([("ann", fresh_ip()), ("ben", fresh_ip()), ("cat", fresh_ip())])
    login(page, live_server, moderator)
    page.goto(f"/admin/arena/game/{game['id']}/change/")
    table = page.locator("#game-explanation")
    expect(table).to_contain_text("P(3) = 0.6667")
    expect(table.locator("tr[data-player=ann][data-against=ben] td.term")).to_have_text("20.00")
    expect(table.locator("tr[data-player=ann][data-against=cat] td.term")).to_have_text("20.00")
    expect(table.locator("tr[data-player=ben][data-against=ann] td.term")).to_have_text("-20.00")
    expect(table.locator("tr[data-player=ben][data-against=cat] td.term")).to_have_text("20.00")
    expect(table.locator("tr.explanation-total[data-player=ann] td.delta")).to_have_text("40.00")
    expect(table.locator("tr.explanation-total[data-player=ben] td.delta")).to_have_text("0.00")
    expect(table.locator("tr.explanation-total[data-player=cat] td.delta")).to_have_text("-40.00")
    expect(table.locator("tr.explanation-total[data-player=cat]")).to_contain_text("fewer than 10, K 60")
    page.screenshot(path=str(artifacts / "game_explanation.png"), full_page=True)


def test_a_moderator_sees_and_lifts_a_cool_down(page, live_server, moderator, artifacts):
    """q quits three games in a row (3 quits in the last 10): a 15-minute cool-down from the third game's finish
    (now). Reputation needs 10 games: none yet after 3."""
    arena = Arena()
    for _ in range(3):
        body = {
            "table_id": f"Q-{fresh_ip()}",
            "game": "tokaido",
            "players": [
                {"player": "q", "ip": fresh_ip(), "score": 60, "achievements": 0, "quit": True},
                {"player": "r", "ip": fresh_ip(), "score": 50, "achievements": 0},
            ],
        }
        assert arena.client.post("/api/v1/games/", body, format="json").status_code == 201
    row = Reputation.objects.get(player=player("q"))
    assert row.recent == "qqq" and row.cooldown_until > timezone.now()

    login(page, live_server, moderator)
    page.goto(f"/admin/arena/player/{player('q').pk}/change/")
    section = page.locator("#player-reputation")
    expect(section).to_contain_text("none yet (3 games; it needs 10)")
    expect(section.locator(".cooldown.running")).to_contain_text("lasts 15 minutes")
    page.screenshot(path=str(artifacts / "player_cooldown.png"), full_page=True)

    page.click("a.action-lift_cooldown")
    expect(page).to_have_url(re.compile(rf"/player/{player('q').pk}/lift_cooldown/$"))
    expect(page.locator(".consequences")).to_contain_text("end q's quit cool-down now")
    page.fill("textarea[name=note]", "disconnected by a power cut")
    page.click("input[name=confirm]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("cool-down is lifted")
    expect(page.locator("#player-reputation .cooldown")).to_contain_text("No cool-down running")
    expect(page.locator("a.action-lift_cooldown")).to_have_count(0)  # nothing left to lift
    entry = AuditEntry.objects.get(action=AuditEntry.Action.LIFT_COOLDOWN)
    assert entry.moderator == moderator and entry.note == "disconnected by a power cut"
    assert entry.details["length_seconds"] == 900
    # The player may queue again.
    answer = arena.client.post(
        "/api/v1/matchmaking/tickets/", {"player": "q", "ip": fresh_ip(), "game": "tokaido"}, format="json"
    )
    assert answer.status_code == 201, answer.content
    # And r, who finished every game, has no cool-down and no lift button.
    page.goto(f"/admin/arena/player/{player('r').pk}/change/")
    expect(page.locator("#player-reputation .cooldown")).to_contain_text("No cool-down running")
    expect(page.locator("a.action-lift_cooldown")).to_have_count(0)
