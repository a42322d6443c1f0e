"""A moderator action that locks players or games is retried when the database aborts it as a deadlock victim
(issue 27 §1; docs/moderation.md, "Under rating load"), as recording is: one transient abort costs nothing, the
action is done once, with one audit entry, and the moderator never sees a 500."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from arena.models import Game, Player
from moderation.models import AuditEntry
from moderation.services import games_void, player_ban
from moderation.services.penalties import bans, voids
from tests.db.moderation.helpers import duel, record

# Real transactions: inside a test-wide transaction nothing can be retried (``retry_transient`` leaves it to the
# owner of the outer transaction).
pytestmark = pytest.mark.django_db(transaction=True)


def _deadlock() -> OperationalError:
    """What Django raises for PostgreSQL's "deadlock detected" (SQLSTATE 40P01, ``infra.db.is_transient``)."""
    cause = Exception("deadlock detected")
    cause.sqlstate = "40P01"  # type: ignore[attr-defined]  (psycopg's errors carry it)
    error = OperationalError("deadlock detected")
    error.__cause__ = cause
    return error


def _abort_first(monkeypatch, module, name: str) -> list[int]:
    """Make the first call of ``<module>.<name>`` (a step the action takes under its locks) a deadlock victim;
    later calls run as they are."""
    calls: list[int] = []
    real = getattr(module, name)

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise _deadlock()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, flaky)
    return calls


def test_a_ban_aborted_once_as_a_deadlock_victim_is_retried_and_done_once(api, monkeypatch, django_user_model):
    record(api, [duel("kim", "olga")])
    calls = _abort_first(monkeypatch, bans, "statuses_lock")
    entry = player_ban(
        moderator=django_user_model.objects.create_user("mod"),
        player=Player.objects.get(handle="kim"),
        note="alt",
        duration=None,
    )
    assert len(calls) == 2 and entry.action == "ban"
    assert Player.objects.get(handle="kim").status == Player.Status.BANNED
    assert AuditEntry.objects.filter(action="ban").count() == 1


def test_a_void_aborted_once_is_retried_and_a_lasting_refusal_is_not(api, monkeypatch, django_user_model):
    record(api, [duel("kim", "olga")])
    mod = django_user_model.objects.create_user("mod")
    game = Game.objects.get()
    player_ban(moderator=mod, player=Player.objects.get(handle="kim"), note="alt")
    calls = _abort_first(monkeypatch, voids, "void_refusal")
    entry = games_void(moderator=mod, games=[game], note="played with an alt")
    assert len(calls) == 2 and entry.action == "void_games"
    assert Game.objects.get().status == Game.Status.VOID
    assert AuditEntry.objects.filter(action="void_games").count() == 1


def test_an_error_that_is_not_transient_is_not_retried(api, monkeypatch, django_user_model):
    record(api, [duel("kim", "olga")])
    calls: list[int] = []

    def broken(players):
        calls.append(1)
        raise OperationalError("no such table")

    monkeypatch.setattr(bans, "statuses_lock", broken)
    with pytest.raises(OperationalError):
        player_ban(
            moderator=django_user_model.objects.create_user("mod"), player=Player.objects.get(handle="kim"), note="alt"
        )
    assert calls == [1] and not AuditEntry.objects.exists()


def test_retries_run_out_a_409_database_busy_nothing_written_and_the_page_answers_409(api, monkeypatch):
    """Every attempt a deadlock victim: the service gives up with 409 ``database_busy`` (nothing written), and the
    panel's void page answers that 409 with the reason, never a 500 (issue 27 §1)."""
    from django.test import Client

    from infra import db
    from infra.errors import Conflict
    from tests.db.moderation.panel_helpers import PASSWORD, make_moderator

    record(api, [duel("kim", "olga")])
    mod = make_moderator("mod")
    kim = Player.objects.get(handle="kim")
    player_ban(moderator=mod, player=kim, note="alt")
    monkeypatch.setattr(db, "RETRY_PAUSE_SECONDS", 0.0)
    monkeypatch.setattr(db.time, "sleep", lambda seconds: None)  # no waiting between the doomed attempts
    calls: list[int] = []

    def always(*args, **kwargs):
        calls.append(1)
        raise _deadlock()

    monkeypatch.setattr(voids, "void_refusal", always)
    game = Game.objects.get()
    with pytest.raises(Conflict) as busy:
        games_void(moderator=mod, games=[game], note="alt")
    assert busy.value.code == "database_busy" and busy.value.status == 409
    assert len(calls) == db.RETRY_ATTEMPTS
    assert Game.objects.get().status == Game.Status.RATED
    assert not AuditEntry.objects.filter(action="void_games").exists()

    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    answer = client.post(f"/admin/arena/game/{game.pk}/void/", {"note": "alt"})
    assert answer.status_code == 409, answer.status_code
    assert "The database was busy" in answer.content.decode()
    assert Game.objects.get().status == Game.Status.RATED
