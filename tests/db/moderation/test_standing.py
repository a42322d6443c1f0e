"""Timed bans lifted by the beat, warnings, moderator notes, and the confirm pages' rating previews (issue 20 §5)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.models import Player
from moderation import tasks
from moderation.models import AuditEntry, BanTerm
from moderation.services import (
    bans_expired_lift,
    multiple_accounts_confirm,
    player_ban,
    player_note_add,
    player_unban,
    player_warn,
)
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def mod() -> User:
    return make_moderator("mod")


@pytest.fixture
def mod_client(mod) -> Client:
    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    return client


@pytest.fixture
def duel() -> None:
    """kim beats olga once in Tokaido: both new, K 60, so kim 1530 and olga 1470 (docs/moderation.md's example)."""
    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    settle()


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_a_timed_ban_is_lifted_by_the_beat_as_an_audited_action(mod, duel):
    before = timezone.now()
    entry = player_ban(moderator=mod, player=player("kim"), note="toxic chat", duration=timedelta(days=7))
    term = BanTerm.objects.get(player=player("kim"))
    assert before + timedelta(days=7) <= term.until <= timezone.now() + timedelta(days=7)
    assert entry.details["until"] == term.until.isoformat()
    assert bans_expired_lift(now=term.until - timedelta(seconds=1)) == []
    assert player("kim").status == Player.Status.BANNED
    (lifted,) = bans_expired_lift(now=term.until)
    assert player("kim").status == Player.Status.ACTIVE
    assert (lifted.action, lifted.moderator, lifted.moderator_name) == ("unban", None, "")
    assert lifted.details == {"ban_ended": term.until.isoformat()} and "timed ban ended" in lifted.note
    assert not BanTerm.objects.exists()
    assert bans_expired_lift(now=term.until + timedelta(days=1)) == []  # run again: nothing more


def test_the_beat_task_lifts_what_is_due(mod, duel):
    player_ban(moderator=mod, player=player("kim"), note="cooling off", duration=timedelta(hours=1))
    BanTerm.objects.update(until=timezone.now() - timedelta(seconds=1))
    assert tasks.lift_expired_bans() == 1
    assert player("kim").status == Player.Status.ACTIVE


def test_a_ban_until_lifted_has_no_term_and_an_unban_by_hand_clears_a_term(mod, duel):
    player_ban(moderator=mod, player=player("kim"), note="alt")
    assert not BanTerm.objects.exists()
    assert bans_expired_lift(now=timezone.now() + timedelta(days=3650)) == []
    assert player("kim").is_banned
    player_ban(moderator=mod, player=player("olga"), note="spam", duration=timedelta(days=1))
    player_unban(moderator=mod, player=player("olga"), note="appeal")
    assert not BanTerm.objects.filter(player=player("olga")).exists()


def test_confirming_multiple_accounts_makes_a_timed_ban_final(mod, duel):
    player_ban(moderator=mod, player=player("olga"), note="suspected alt", duration=timedelta(days=1))
    multiple_accounts_confirm(moderator=mod, primary=player("kim"), accounts=[player("kim"), player("olga")])
    assert not BanTerm.objects.exists()
    assert bans_expired_lift(now=timezone.now() + timedelta(days=2)) == []
    assert player("olga").is_banned


def test_the_ban_page_offers_durations_and_the_player_page_shows_when_it_ends(mod_client, duel):
    kim = player("kim")
    form = page(mod_client, f"/admin/arena/player/{kim.pk}/ban/")
    assert 'name="duration"' in form and "Until lifted" in form and "7 days" in form
    response = mod_client.post(f"/admin/arena/player/{kim.pk}/ban/", {"note": "toxic", "duration": "168"})
    assert response.status_code == 302
    until = BanTerm.objects.get(player=kim).until
    shown = page(mod_client, f"/admin/arena/player/{kim.pk}/change/")
    assert f'Banned until <strong><time datetime="{until.isoformat()}">{until:%Y-%m-%d %H:%M} UTC' in shown
    olga = player("olga")
    mod_client.post(f"/admin/arena/player/{olga.pk}/ban/", {"note": "alt", "duration": "0"})
    assert "Banned <strong>until lifted</strong>" in page(mod_client, f"/admin/arena/player/{olga.pk}/change/")


def test_warnings_and_notes_are_recorded_listed_and_audited(mod, mod_client, duel):
    kim = player("kim")
    assert mod_client.post(f"/admin/arena/player/{kim.pk}/warn/", {"note": "  "}).status_code == 200  # refused
    assert mod_client.post(f"/admin/arena/player/{kim.pk}/warn/", {"note": "stalling <b>again</b>"}).status_code == 302
    assert (
        mod_client.post(f"/admin/arena/player/{kim.pk}/note/", {"note": "talked to them on the forum"}).status_code
        == 302
    )
    assert list(AuditEntry.objects.order_by("pk").values_list("action", "note", "moderator_name")) == [
        ("warn", "stalling <b>again</b>", "mod"),
        ("note", "talked to them on the forum", "mod"),
    ]
    shown = page(mod_client, f"/admin/arena/player/{kim.pk}/change/")
    assert "Warnings (1)" in shown and "stalling &lt;b&gt;again&lt;/b&gt;" in shown
    assert "Moderator notes (1)" in shown and "talked to them on the forum" in shown
    assert player_warn(moderator=mod, player=kim, note="second").action == "warn"
    assert player_note_add(moderator=mod, player=kim, note="x").action == "note"


def test_staff_outside_the_group_cannot_warn_or_note(duel):
    User.objects.create_user("staff", password=PASSWORD, is_staff=True)
    client = Client()
    assert client.login(username="staff", password=PASSWORD)
    kim = player("kim")
    for slug in ("warn", "note"):
        response = client.post(f"/admin/arena/player/{kim.pk}/{slug}/", {"note": "x"})
        assert response.status_code == 403
        # A refusal in the admin's layout with a way back, not a bare "403 Forbidden".
        page = response.content.decode()
        assert 'id="header"' in page and 'href="/admin/arena/player/" class="button">Back to the list' in page
    assert not AuditEntry.objects.exists()


def test_no_view_site_link_and_a_favicon_that_exists(mod_client, duel):
    page_ = page(mod_client, f"/admin/arena/player/{player('kim').pk}/change/")
    assert "View site" not in page_
    assert 'rel="icon" type="image/svg+xml" href="/static/backoffice/favicon.svg"' in page_
    assert mod_client.get("/static/backoffice/favicon.svg").status_code == 200


def test_the_reset_page_shows_each_titles_rating_before_and_after(mod_client, duel):
    """Reset follows the policy (R0 in every title): olga's 1470 goes up to 1500, kim's 1530 down to 1500."""
    olga = page(mod_client, f"/admin/arena/player/{player('olga').pk}/reset/")
    assert (
        '<tr data-title="tokaido"><td>tokaido</td><td class="num before">1470.00</td><td class="num after">1500.00</td>'
    ) in olga
    assert '<td class="num delta up">+30.00</td>' in olga
    kim = page(mod_client, f"/admin/arena/player/{player('kim').pk}/reset/")
    assert '<td class="num delta down">-30.00</td>' in kim
    ban_page = page(mod_client, f"/admin/arena/player/{player('kim').pk}/ban/")
    assert '<td class="num before">1530.00</td><td class="num after">1530.00</td>' in ban_page
