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


def test_a_restarted_web_process_lifts_the_terms_that_ended_meanwhile_and_times_the_others(embedded_mode):
    """The process that banned stopped (its timer gone); a new one starts (``config/wsgi.py`` calls
    ``ban_terms_resume``): zed's term ended while nothing ran and is lifted at once, kim's a second later, each
    once, as the system's audited unban; starting again (a second web process) lifts nothing twice."""
    from moderation import tasks

    Arena().game([("kim", fresh_ip()), ("zed", fresh_ip()), ("olga", fresh_ip())])
    mod = make_moderator("mod")
    kim, zed, olga = (Player.objects.get(handle=h) for h in ("kim", "zed", "olga"))
    player_ban(moderator=mod, player=zed, note="three days", duration=timedelta(days=3))
    player_ban(moderator=mod, player=kim, note="a short one", duration=timedelta(seconds=1.5))
    player_ban(moderator=mod, player=olga, note="for good")  # until lifted: no term, never lifted by a timer
    assert tasks.ban_timers_cancel() == 1  # the process stops: its one timer is gone
    BanTerm.objects.filter(player=zed).update(until=timezone.now() - timedelta(hours=1))  # ended while stopped
    time.sleep(2.0)  # kim's term ends too while no process runs a timer
    assert Player.objects.filter(status=Player.Status.BANNED).count() == 3  # nothing lifted them

    BanTerm.objects.filter(player=kim).update(until=timezone.now() + timedelta(seconds=1.5))  # kim: still to run
    tasks.ban_terms_resume()
    assert _wait_for(lambda: Player.objects.get(handle="zed").status == Player.Status.ACTIVE, timeout=5.0)
    assert Player.objects.get(handle="kim").status == Player.Status.BANNED  # its term has not ended yet
    assert _wait_for(lambda: Player.objects.get(handle="kim").status == Player.Status.ACTIVE, timeout=10.0)
    tasks.ban_terms_resume()  # a second start
    time.sleep(0.5)
    unbans = AuditEntry.objects.filter(action="unban").order_by("pk")
    assert [list(e.players.values_list("handle", flat=True)) for e in unbans] == [["zed"], ["kim"]]
    assert all(e.moderator is None and e.note.startswith("The timed ban ended") for e in unbans)
    assert Player.objects.get(handle="olga").status == Player.Status.BANNED and not BanTerm.objects.exists()


def test_the_web_entry_point_resumes_the_timed_bans(monkeypatch):
    """``config/wsgi.py`` (gunicorn's and runserver's application) is where a web process starts: loading it sets
    the timer again."""
    import importlib
    import sys

    from moderation import tasks

    started: list[int] = []
    monkeypatch.setattr(tasks, "ban_terms_resume", lambda: started.append(1))
    monkeypatch.delitem(sys.modules, "config.wsgi", raising=False)
    importlib.import_module("config.wsgi")
    assert started == [1]
