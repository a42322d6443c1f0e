"""The "Moderators" group has exactly the rights docs/moderation.md gives, and the admin's URLs give no more.

Permission flags alone prove little: every test here goes through the admin's own URLs (add, change, delete,
changelist actions, the panel's action pages) with a real session, and checks the database afterwards.
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import Group, User
from django.test import Client

from arena.models import Game, GameServer, Player
from arena.players import player_status_ban
from moderation.models import AuditEntry, Flag
from moderation.moderators import GROUP
from ratings.models import HanabotRating, Rating
from tests.db.moderation.panel_helpers import PASSWORD, Arena, build_ring, make_moderator, player, settle

pytestmark = pytest.mark.django_db

# Worked out from docs/moderation.md by hand: view players, games, flags, reports (and the audit log), take the actions.
EXPECTED = {
    "arena.view_player",
    "arena.view_game",
    "moderation.view_flag",
    "moderation.view_report",
    "moderation.view_auditentry",
    "moderation.confirm_multiple_accounts",
    "moderation.void_games",
    "moderation.dismiss",
    "moderation.uphold_report",
    "moderation.ban_player",
    "moderation.unban_player",
    "moderation.reset_rating",
    "moderation.lift_cooldown",
    "moderation.warn_player",
    "moderation.note_player",
    "moderation.claim",
    "ratings.view_hanabotrating",  # issue 27 §4: moderators read the Hanabot table, never edit it
    "tournaments.view_tournament",  # docs/tournaments.md#cancelling: moderators see tournaments
    "moderation.cancel_tournament",  # ... and cancel one, audited
}


def _client(user: User, **kwargs) -> Client:
    client = Client(**kwargs)
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def world() -> dict:
    arena = Arena()
    build_ring(arena, main="kim", alts=("kim_alt",), games=6)
    settle()
    player_status_ban(player=player("kim_alt"))  # the core's ban writes no audit entry: its games can be voided
    return {
        "server": arena.server,
        "flag": Flag.objects.get(),
        "game": Game.objects.order_by("pk").first(),
        "kim": player("kim"),
        "alt": player("kim_alt"),
    }


@pytest.fixture
def moderator() -> User:
    return make_moderator()


def test_the_migration_makes_the_group_with_exactly_these_permissions():
    Group.objects.filter(name=GROUP).delete()
    migration = importlib.import_module("moderation.migrations.0003_moderators_group")
    migration.forwards(django_apps, None)
    group = Group.objects.get(name=GROUP)
    granted = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}
    assert granted == EXPECTED


def test_running_it_again_takes_back_what_was_granted_by_hand(moderator):
    group = Group.objects.get(name=GROUP)
    from django.contrib.auth.models import Permission

    group.permissions.add(Permission.objects.get(codename="change_hanabotrating"))
    importlib.import_module("moderation.migrations.0003_moderators_group").forwards(django_apps, None)
    assert "ratings.change_hanabotrating" not in {
        f"{p.content_type.app_label}.{p.codename}" for p in Group.objects.get(name=GROUP).permissions.all()
    }


def test_a_moderator_holds_exactly_the_group_permissions(moderator):
    assert {p for p in moderator.get_all_permissions()} == EXPECTED


@pytest.mark.parametrize(
    "path",
    [
        "/admin/arena/player/add/",
        "/admin/arena/game/add/",
        "/admin/moderation/flag/add/",
        "/admin/moderation/report/add/",
        "/admin/moderation/auditentry/add/",
        "/admin/arena/gameserver/",
        "/admin/arena/gameserver/add/",
        "/admin/ratings/hanabotrating/add/",
        "/admin/auth/user/",
        "/admin/auth/group/",
    ],
)
def test_moderator_is_refused_adding_and_what_is_not_theirs(moderator, world, path):
    response = _client(moderator).get(path)
    assert response.status_code == 403, (path, response.status_code)


@pytest.mark.parametrize("model", ["player", "game", "flag", "auditentry"])
def test_pages_are_read_only_for_moderators_and_superusers_alike(moderator, world, model):
    """GET shows no Save button; POSTing the change form or the delete page is refused; nothing changes."""
    root = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    services_entry = AuditEntry.objects.create(moderator=root, action=AuditEntry.Action.BAN, note="x")
    obj = {"player": world["kim"], "game": world["game"], "flag": world["flag"], "auditentry": services_entry}[model]
    app = "arena" if model in ("player", "game") else "moderation"
    base = f"/admin/{app}/{model}/{obj.pk}"
    for user in (moderator, root):
        client = _client(user)
        page = client.get(f"{base}/change/")
        assert page.status_code == 200
        assert b'name="_save"' not in page.content and b'name="_continue"' not in page.content
        assert (
            client.post(f"{base}/change/", {"handle": "renamed", "note": "edited", "status": "dismissed"}).status_code
            == 403
        )
        assert client.get(f"{base}/delete/").status_code == 403
        assert client.post(f"{base}/delete/", {"post": "yes"}).status_code == 403
    obj.refresh_from_db()  # still there, unchanged
    if model == "player":
        assert obj.handle == "kim"
    if model == "auditentry":
        assert obj.note == "x"


def test_no_bulk_delete_through_changelist_actions(moderator, world):
    """The changelists offer no "delete selected", and posting it anyway deletes nothing."""
    client = _client(moderator)
    page = client.get("/admin/arena/game/")
    assert b"delete_selected" not in page.content
    before = Game.objects.count()
    response = client.post(
        "/admin/arena/game/", {"action": "delete_selected", "_selected_action": [world["game"].pk], "post": "yes"}
    )
    assert response.status_code in (200, 302)
    assert Game.objects.count() == before


def test_ratings_cannot_be_edited_in_the_admin_by_anyone(world):
    """No page for Rating at all (the history is the source of every rating; a reset is an action)."""
    root = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    client = _client(root)
    assert client.get("/admin/ratings/rating/").status_code == 404
    assert Rating.objects.filter(player=world["kim"]).exists()


def test_the_hanabot_table_and_keys_stay_with_superusers(moderator, world):
    client = _client(moderator)
    row = HanabotRating.objects.first()
    listing = client.get("/admin/ratings/hanabotrating/")  # read, not edited: no inputs, no Save
    assert listing.status_code == 200 and b'name="_save"' not in listing.content
    assert b'name="form-0-elo"' not in listing.content
    assert client.post(f"/admin/ratings/hanabotrating/{row.pk}/change/", {"elo": 1}).status_code == 403
    server = world["server"]
    assert (
        client.post("/admin/arena/gameserver/", {"action": "revoke_keys", "_selected_action": [server.pk]}).status_code
        == 403
    )
    server.refresh_from_db()
    assert server.revoked_at is None and HanabotRating.objects.get(pk=row.pk).elo == row.elo


ACTION_URLS = [
    ("/admin/arena/player/{kim}/ban/", {"note": "n", "duration": "0"}),
    ("/admin/arena/player/{kim}/reset/", {"note": "n"}),
    ("/admin/arena/game/{game}/void/", {"note": "n"}),
    ("/admin/moderation/flag/{flag}/confirm/", {"primary": "{kim}", "note": "n"}),
    ("/admin/moderation/flag/{flag}/dismiss/", {"note": "n"}),
]


def _fill(text: str, world: dict) -> str:
    return text.format(kim=world["kim"].pk, game=world["game"].pk, flag=world["flag"].pk)


@pytest.mark.parametrize(("url", "data"), ACTION_URLS)
def test_staff_without_the_group_cannot_take_actions(world, url, data):
    staff = User.objects.create_user("staff", "s@example.com", PASSWORD, is_staff=True)
    client = _client(staff)
    path = _fill(url, world)
    assert client.get(path).status_code == 403
    assert client.post(path, {k: _fill(v, world) for k, v in data.items()}).status_code == 403
    assert not AuditEntry.objects.exists()
    assert player("kim").status == Player.Status.ACTIVE and Flag.objects.get().status == Flag.Status.OPEN


@pytest.mark.parametrize(("url", "data"), ACTION_URLS)
def test_a_get_only_shows_the_confirmation_and_a_post_without_csrf_is_refused(moderator, world, url, data):
    path = _fill(url, world)
    client = _client(moderator, enforce_csrf_checks=True)
    page = client.get(path)
    assert page.status_code == 200 and b'name="csrfmiddlewaretoken"' in page.content
    assert client.post(path, {k: _fill(v, world) for k, v in data.items()}).status_code == 403  # no token
    assert not AuditEntry.objects.exists()
    assert player("kim").status == Player.Status.ACTIVE and Flag.objects.get().status == Flag.Status.OPEN


def test_anonymous_users_are_sent_to_the_login_page(world):
    response = Client().post(f"/admin/arena/player/{world['kim'].pk}/ban/", {"note": "n"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert player("kim").status == Player.Status.ACTIVE


def test_a_moderator_does_see_what_the_group_allows(moderator, world):
    client = _client(moderator)
    for path in (
        "/admin/",
        "/admin/arena/player/",
        "/admin/arena/game/",
        "/admin/moderation/flag/",
        "/admin/moderation/report/",
        "/admin/moderation/auditentry/",
        f"/admin/arena/player/{world['kim'].pk}/change/",
        f"/admin/moderation/flag/{world['flag'].pk}/change/",
    ):
        assert client.get(path).status_code == 200, path
    assert GameServer.objects.exists()


def test_create_moderator_command(monkeypatch):
    from django.core.management import call_command

    monkeypatch.setenv("MOD_PASSWORD", PASSWORD)
    call_command("create_moderator", "ann", "--password-env", "MOD_PASSWORD")
    ann = User.objects.get(username="ann")
    assert ann.is_staff and not ann.is_superuser and ann.check_password(PASSWORD)
    assert ann.get_all_permissions() == EXPECTED


def test_an_action_permission_without_the_view_permission_is_not_enough(world):
    """Granted by hand, the ban permission alone does not open the ban page of a player one may not view."""
    from django.contrib.auth.models import Permission

    staff = User.objects.create_user("staff", "s@example.com", PASSWORD, is_staff=True)
    staff.user_permissions.add(Permission.objects.get(content_type__app_label="moderation", codename="ban_player"))
    client = _client(staff)
    url = f"/admin/arena/player/{world['kim'].pk}/ban/"
    assert client.get(url).status_code == 403
    assert client.post(url, {"note": "n"}).status_code == 403
    assert player("kim").status == Player.Status.ACTIVE
