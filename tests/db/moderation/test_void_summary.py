"""A void's summary reads true (issue 27 §3; docs/moderation.md, "Reading a void"): both sides with totals, why
each loser lost, the table before the raw details; the flag lists its voids; a closed flag keeps its evidence as
judged with today's figure beside it; the summary gives the games' own dates.

Worked by hand (Tokaido duels, K 60, everyone new at 1500, ``docs/ratings.md``): game 1, kim beats kim_alt: kim
1530, kim_alt 1470. Game 2, hal beats kim (1530): E(1500, 1530) = 1 / (1 + 10^(30/400)) = 0.456934, so hal
+32.58 → 1532.58, kim 1497.42. kim_alt is banned and game 1 voided; the rebuild replays game 2 alone between two
players at 1500: hal 1530, kim 1470. So kim gives back 27.42 (his win over his alt is gone) and hal 2.58 (his win
over kim is worth less now kim is rebuilt lower); kim_alt (banned) is left out; nobody is refunded.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.models import Game
from moderation.models import Flag, FlagFeeder
from moderation.services import flag_dismiss, games_void, player_ban
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player

pytestmark = pytest.mark.django_db(transaction=True)  # the rebuild runs on the void's commit (embedded)


@pytest.fixture
def voided(embedded_mode) -> dict:
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    arena.game([("hal", fresh_ip()), ("kim", fresh_ip())])
    mod = make_moderator("mod")
    first, second = Game.objects.order_by("pk")
    flag = Flag.objects.create(
        beneficiary=player("kim"),
        title="tokaido",
        score=5.0,
        game_ids=[first.pk],
        evidence={"elo_gained": 30.0, "game_ids": [first.pk]},
    )
    FlagFeeder.objects.create(
        flag=flag, feeder=player("kim_alt"), shared_games=1, wins=1, win_share=1.0, concentration=1.0, elo_gained=30.0
    )
    player_ban(moderator=mod, player=player("kim_alt"), note="alt")
    entry = games_void(moderator=mod, games=[first], note="the alt's game")
    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    return {"entry": entry, "flag": flag, "client": client, "mod": mod, "first": first, "second": second}


def test_the_summary_shows_both_sides_with_totals_and_why(voided):
    page = voided["client"].get(f"/admin/moderation/auditentry/{voided['entry'].pk}/change/").content.decode()
    heading = re.sub(r"<[^>]+>", "", re.search(r'<h3 data-title="tokaido">(.*?)</h3>', page, re.S).group(1))
    assert " ".join(heading.split()) == "tokaido: 0 victims refunded 0.00 in all; 2 players gave back -30.00"
    kim = re.search(r'<tr data-player="kim">(.*?)</tr>', page, re.S).group(1)
    hal = re.search(r'<tr data-player="hal">(.*?)</tr>', page, re.S).group(1)
    assert "-27.42" in kim and "sat at the voided games" in kim
    assert "-2.58" in hal and "played kim in games that stay rated" in hal
    assert 'data-player="kim_alt"' not in page  # banned: the abuser, in neither total
    assert page.index('id="refund-summary"') < page.index("field-details")  # the table before the raw details


def test_the_flag_lists_its_voids_and_a_closed_flag_shows_todays_figure_beside_the_judged_one(voided):
    flag = voided["flag"]
    flag_dismiss(moderator=voided["mod"], flag=flag, note="judged on the old figures")
    page = voided["client"].get(f"/admin/moderation/flag/{flag.pk}/change/").content.decode()
    assert f"/admin/moderation/auditentry/{voided['entry'].pk}/change/" in page
    assert "1 game voided by mod" in page
    # Judged: +30.00; today kim holds nothing from game 1 (voided: its rating change is gone).
    assert "<strong>30.00</strong> Elo gained in them (as judged)" in page
    assert "holds <strong>0.00</strong> Elo from these games" in page
    day = f"{voided['first'].finished_at:%Y-%m-%d}"
    assert f"played between {day} and {day}" in page
