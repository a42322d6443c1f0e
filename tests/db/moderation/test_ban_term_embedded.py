"""In embedded mode (no beat) a timed ban ends on time: the web process's timer runs the sweep when the term ends
(issue 27 §4; docs/moderation.md, "Timed bans"); the player's page says a term has passed until it is lifted."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena.models import Player
from moderation.models import AuditEntry, BanTerm
from moderation.services import player_ban
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator

pytestmark = pytest.mark.django_db(transaction=True)  # the timer's thread reads what this test committed


def _wait_for(check, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_a_timed_ban_is_lifted_by_the_embedded_timer_as_an_audited_unban(embedded_mode):
    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    mod = make_moderator("mod")
    player_ban(
        moderator=mod, player=Player.objects.get(handle="kim"), note="cooling off", duration=timedelta(seconds=0.5)
    )
    assert Player.objects.get(handle="kim").status == Player.Status.BANNED
    assert _wait_for(lambda: Player.objects.get(handle="kim").status == Player.Status.ACTIVE)
    unban = AuditEntry.objects.get(action="unban")
    assert unban.moderator is None and not BanTerm.objects.exists()


def test_a_term_past_its_end_says_so_on_the_player_page_until_lifted():
    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    make_moderator("mod")
    kim = Player.objects.get(handle="kim")
    mod_client = Client()
    assert mod_client.login(username="mod", password=PASSWORD)
    player_ban(moderator=None, player=kim, note="three days", duration=timedelta(days=3))
    BanTerm.objects.filter(player=kim).update(until=timezone.now() - timedelta(minutes=1))  # no sweep ran yet
    shown = mod_client.get(f"/admin/arena/player/{kim.pk}/change/").content.decode()
    assert "This ban's term has ended; it is lifted at the next sweep" in shown
    assert 'id="ban-by"' in shown and "three days" in shown
