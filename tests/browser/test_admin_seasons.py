"""The seasons in the panel, in Chromium (issue 28 §2): a season's page (live standings; once closed, the archive
and its corrections), the player's season on their case file, and a void's corrections beside its refunds.

Hand-worked (docs/seasons.md, every player in placement counts as bronze, weight 5, so a win gives 2 x 5 = 10):
season 1 of Wizard: b beats a (b 10), a beats c twice (a 20). Closed: a 1st (20), b 2nd (10), c 3rd (0). The
second a-c game is voided: a has two games left (in placement again, no league) and 10 points, and b ties a for
1st, so a reads "league bronze -> placement, points 20 -> 10" and b "place 2 -> 1".
Season 2: a beats b, a's line reads "placement: win 10".
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from arena.models import Game, Player
from moderation.models import AuditEntry
from seasons.services import season_follow, season_open, season_replay_live, season_rollover
from tests.db.seasons.helpers import rated_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _embedded(settings) -> None:
    settings.REDIS_URL = ""
    settings.SEASON_PLACEMENT_GAMES = 3


def test_season_pages_case_file_and_void_corrections(page, live_server, moderator, admin_login):
    a, b, c = (Player.objects.create(handle=h) for h in "abc")
    opened = season_open(title="wizard")
    at = max(opened.starts_at, timezone.now() - timedelta(hours=3))
    rated_game("wizard", [(b, 0, 1), (a, 1, 2)], at)
    rated_game("wizard", [(a, 0, 1), (c, 1, 2)], at + timedelta(minutes=1))
    ring = rated_game("wizard", [(a, 0, 1), (c, 1, 2)], at + timedelta(minutes=2))
    season_follow(title="wizard")
    admin_login(page, live_server, moderator)

    # The open season's page: live standings.
    page.goto(f"/admin/seasons/season/{opened.pk}/change/")
    standings = page.locator("#season-standings")
    expect(standings.locator("tr[data-player=a] td").nth(3)).to_have_text("20")
    expect(standings.locator("tr[data-player=b] td").nth(0)).to_have_text("2")
    expect(page.locator("#season-panel")).to_contain_text("Standings (3 of 3)")

    closed = season_rollover(title="wizard", actor="ops", reason="browser test")
    assert closed is not None
    Game.objects.filter(pk=ring.pk).update(status=Game.Status.VOID)
    season_replay_live(title="wizard")
    entry = AuditEntry.objects.create(
        moderator=moderator,
        moderator_name="mod",
        action=AuditEntry.Action.VOID_GAMES,
        details={"refunds": {}, "pending_titles": []},
    )
    entry.games.set([ring])
    rated_game("wizard", [(a, 0, 1), (b, 1, 2)], timezone.now())
    season_follow(title="wizard")
    today = timezone.now().date().isoformat()

    # The closed season's page: the archive after the correction, and the correction lines.
    page.goto(f"/admin/seasons/season/{closed.pk}/change/")
    expect(page.locator("#season-panel")).to_contain_text("Final standings (3 of 3)")
    expect(page.locator("#season-standings tr[data-player=b] td").nth(0)).to_have_text("1")
    expect(page.locator("#season-corrections li[data-player=a]")).to_contain_text(
        f"a: league bronze -> placement, points 20 -> 10: 1 game voided on {today}"
    )
    expect(page.locator("#season-corrections li[data-player=b]")).to_contain_text("place 2 -> 1")

    # The list of seasons filters by title.
    page.goto("/admin/seasons/season/?title=wizard")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)

    # a's case file: season 2 so far, with the game's points and why, and season 1's correction.
    page.goto(f"/admin/arena/player/{a.pk}/change/")
    season = page.locator("section.player-season[data-title=wizard]")
    expect(season.locator("h3")).to_contain_text("wizard, season 2: placement (2 left), 10 points, rank 1")
    expect(season.locator("table.season-games tbody tr")).to_have_count(1)
    expect(season.locator("table.season-games tbody tr td").nth(3)).to_have_text("placement: win 10")
    expect(season.locator(".season-corrections")).to_contain_text(
        f"Season 1: league bronze -> placement, points 20 -> 10: 1 game voided on {today}"
    )

    # The void's page: its corrections to the closed season under the refunds.
    page.goto(f"/admin/moderation/auditentry/{entry.pk}/change/")
    corrections = page.locator("#season-corrections")
    expect(corrections.locator("li[data-player=a]")).to_contain_text(
        "wizard season 1, a: league bronze -> placement, points 20 -> 10"
    )
    expect(corrections.locator("li[data-player=b]")).to_contain_text("wizard season 1, b: place 2 -> 1")
