"""A staff user who is not a superuser (a moderator) gets no key management and no Hanabot table in the admin."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from arena.servers import game_server_create

pytestmark = pytest.mark.django_db(transaction=True)

# Model permissions someone might grant a moderator by mistake: the admin must stay superuser-only regardless.
KEY_AND_TABLE_PERMISSIONS = [
    ("arena", "view_gameserver"),
    ("arena", "add_gameserver"),
    ("arena", "change_gameserver"),
    ("ratings", "view_hanabotrating"),
    ("ratings", "change_hanabotrating"),
]


@pytest.mark.parametrize("granted", [False, True], ids=["moderators-group", "even-with-model-permissions"])
def test_moderator_sees_no_game_servers_nor_hanabot(page, live_server, moderator, admin_login, granted):
    if granted:
        for app_label, codename in KEY_AND_TABLE_PERMISSIONS:
            moderator.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    server = game_server_create(name="tables-eu-1").server
    admin_login(page, live_server, moderator)

    # The index offers Players (what the group allows) and nothing about keys; the Hanabot table is there to
    # read (issue 27 §4), never to add to or edit.
    main = page.locator("#content-main")
    expect(main.locator('th a[href="/admin/arena/player/"]')).to_have_text("Players")
    expect(page.locator('a[href^="/admin/arena/gameserver/"]')).to_have_count(0)
    expect(page.locator('a[href="/admin/ratings/hanabotrating/add/"]')).to_have_count(0)
    expect(main).not_to_contain_text("Game servers")

    # Typing the URLs does not help.
    for path in (
        "/admin/arena/gameserver/",
        "/admin/arena/gameserver/add/",
        f"/admin/arena/gameserver/{server.pk}/change/",
        "/admin/ratings/hanabotrating/add/",
    ):
        response = page.goto(path)
        assert response is not None and response.status == 403, (path, response and response.status)
        assert server.key_prefix not in page.content()
    response = page.goto("/admin/ratings/hanabotrating/")  # read, with nothing to save
    assert response is not None and response.status == 200
    expect(page.locator('input[name="_save"]')).to_have_count(0)

    # Control: the same session does reach what it is allowed to see.
    response = page.goto("/admin/arena/player/")
    assert response is not None and response.status == 200
