"""Voiding a ring in one step from its confirmed flag; the games list's several-id search, prefix and "has a
banned player" filter; a bulk void of innocent games refused before its form, by table id (issue 20 §2)."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.test import Client

from arena.models import Game
from moderation.models import AuditEntry, Flag
from tests.db.moderation.panel_helpers import (
    PASSWORD,
    Arena,
    build_ring,
    fresh_ip,
    games_of,
    make_moderator,
    player,
    settle,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def mod_client() -> Client:
    make_moderator("mod")
    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    return client


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_a_confirmed_flag_offers_to_void_its_rings_games_lists_them_and_asks_once(mod_client):
    arena = Arena()
    build_ring(arena, main="kim", alts=("kim_alt",), games=6)
    arena.game([("olga", fresh_ip()), ("kim", fresh_ip())])  # kim's game with a stranger: not the ring's
    settle()
    flag = Flag.objects.get()
    url = f"/admin/moderation/flag/{flag.pk}/"
    assert f'href="{url}void/"' not in text(mod_client.get(f"{url}change/"))  # not confirmed yet
    assert mod_client.get(f"{url}void/").status_code == 302
    response = mod_client.post(f"{url}confirm/", {"primary": player("kim").pk, "note": "one person"})
    assert response.status_code == 302
    page = text(mod_client.get(f"{url}change/"))
    assert f'href="{url}void/"' in page and "Void this ring&#x27;s rated games" in page
    ring = [g.table_id for g in games_of("kim_alt")]
    confirm = text(mod_client.get(f"{url}void/"))
    assert "void the 6 rated games this ring&#x27;s banned accounts played: " + ", ".join(ring) in confirm
    assert games_of("olga")[0].table_id not in confirm
    response = mod_client.post(f"{url}void/", {"note": "ring"})
    assert response.status_code == 302
    assert {g.status for g in games_of("kim_alt")} == {Game.Status.VOID}
    assert games_of("olga")[0].status == Game.Status.RATED
    (entry,) = AuditEntry.objects.filter(action="void_games")
    assert sorted(entry.games.values_list("table_id", flat=True)) == sorted(ring)
    assert f'href="{url}void/"' not in text(mod_client.get(f"{url}change/"))  # nothing left to void


def test_the_games_list_searches_several_ids_a_prefix_and_filters_banned_players(mod_client):
    arena = Arena()
    for _ in range(3):
        arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    arena.game([("zed", fresh_ip()), ("yan", fresh_ip())])
    settle()
    tables = sorted(Game.objects.values_list("table_id", flat=True), key=lambda t: int(t.split("-")[1]))
    listing = text(mod_client.get("/admin/arena/game/", {"q": f"{tables[0]}, {tables[3]}"}))
    assert listing.count('class="field-table_id"') == 2 or listing.count("field-table_id") == 2
    both = text(mod_client.get("/admin/arena/game/", {"q": f"zed {tables[0]}"}))
    assert tables[3] in both and tables[0] in both and tables[1] not in both
    prefix = tables[0].split("-")[0] + "-*"
    assert all(t in text(mod_client.get("/admin/arena/game/", {"q": prefix})) for t in tables)
    assert "olga" in listing and "Players" in listing  # the players column
    from moderation.services import player_ban

    player_ban(moderator=None, player=player("zed"), note="x")
    banned = text(mod_client.get("/admin/arena/game/", {"banned": "yes"}))
    assert tables[3] in banned and tables[0] not in banned


def test_a_bulk_void_without_a_banned_player_is_refused_before_the_form_by_table_id(mod_client):
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    settle()
    game = Game.objects.get()
    response = mod_client.post(
        "/admin/arena/game/", {"action": "void_selected", helpers.ACTION_CHECKBOX_NAME: [game.pk]}, follow=True
    )
    page = text(response)
    assert "Void the selected games" not in page.split("<title>")[1].split("</title>")[0]
    assert (
        f"Only games played with a banned account can be voided (ban the account first): game {game.table_id}." in page
    )
    assert Game.objects.get().status == Game.Status.RATED
