"""Moderator actions: confirm, ban, unban, reset, dismiss, void with exact refunds; each writes one audit entry."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, transaction

from arena.models import Game, Player
from backoffice.admin.games import GAME_ACTIONS
from infra.errors import Conflict, InvalidInput
from moderation import tasks
from moderation.models import AuditEntry, Flag, Report
from moderation.services import (
    flag_dismiss,
    games_void,
    multiple_accounts_confirm,
    player_ban,
    player_reset,
    player_unban,
    report_dismiss,
    void_refusal,
)
from moderation.services.penalties import void_rebuild_run, void_rebuilds
from ratings.models import Rating, RatingChange
from tests.db.moderation.helpers import detect, duel, link, record

pytestmark = pytest.mark.django_db


def elo(a: float, b: float) -> float:
    return 1 / (1 + 10 ** ((b - a) / 400))


def rating(handle: str, title: str = "tokaido") -> float | None:
    row = Rating.objects.filter(player__handle=handle, title=title).first()
    return row.elo if row else None


def player(handle: str) -> Player:
    return Player.objects.get(handle=handle)


@pytest.fixture
def moderator(django_user_model):
    return django_user_model.objects.create_user("mod")


@pytest.fixture
def ring_flag(api) -> Flag:
    bodies = link("main", "alt1") + link("main", "alt2", kind="device")
    bodies += [duel("main", "alt1") for _ in range(5)] + [duel("main", "alt2") for _ in range(5)]
    bodies += [duel("main", "alt1", title="nile") for _ in range(5)] + [duel("main", "honest")]
    record(api, bodies)
    detect()
    return Flag.objects.get(title="tokaido")


class TestConfirm:
    def test_bans_the_ring_and_resets_the_primary_everywhere(
        self, api, moderator, ring_flag, django_capture_on_commit_callbacks
    ):
        games_before = dict(Rating.objects.filter(player__handle="main").values_list("title", "games"))
        assert rating("main") > 1500 and rating("main", "nile") > 1500
        with django_capture_on_commit_callbacks(execute=True):
            entry = multiple_accounts_confirm(
                moderator=moderator, primary=player("main"), flag=ring_flag, note="one person"
            )
        assert set(Player.objects.filter(status="banned").values_list("handle", flat=True)) == {"alt1", "alt2"}
        assert not player("main").is_banned
        assert rating("main") == 1500.0 and rating("main", "nile") == 1500.0
        assert dict(Rating.objects.filter(player__handle="main").values_list("title", "games")) == games_before
        resets = RatingChange.objects.filter(player__handle="main", kind="reset")
        assert sorted(resets.values_list("title", "after")) == [("nile", 1500.0), ("tokaido", 1500.0)]
        ring_flag.refresh_from_db()
        assert (ring_flag.status, ring_flag.resolved_by) == (Flag.Status.CONFIRMED, moderator)
        assert entry.action == AuditEntry.Action.CONFIRM_MULTIPLE_ACCOUNTS
        assert sorted(entry.players.values_list("handle", flat=True)) == ["alt1", "alt2", "main"]
        assert list(entry.flags.all()) == [ring_flag]
        assert entry.details["primary"] == "main" and entry.details["banned"] == ["alt1", "alt2"]
        assert AuditEntry.objects.count() == 1

    def test_a_ban_committed_since_the_page_was_read_is_neither_repeated_nor_claimed(self, api, moderator, ring_flag):
        """The confirm page read the ring while everyone was active; another moderator banned alt1 meanwhile. The
        confirm decides on the locked rows: alt1 is not banned a second time, and the entry claims only alt2."""
        page = [ring_flag.beneficiary, *Player.objects.filter(fed_flags__flag=ring_flag).order_by("pk")]
        assert [p.status for p in page] == ["active"] * 3
        player_ban(moderator=moderator, player=player("alt1"), note="caught elsewhere")
        entry = multiple_accounts_confirm(moderator=moderator, primary=page[0], accounts=page, flag=ring_flag)
        assert entry.details["banned"] == ["alt2"] and entry.details["secondaries"] == ["alt1", "alt2"]
        assert [p.status for p in page] == ["active", "banned", "banned"]  # the page's copies, read afresh
        # The same stale page submitted twice: the flag is resolved, the second is the documented 409.
        with pytest.raises(Conflict) as second:
            multiple_accounts_confirm(moderator=moderator, primary=page[0], accounts=page, flag=ring_flag)
        assert second.value.code == "already_resolved"
        assert sorted(AuditEntry.objects.values_list("action", flat=True)) == ["ban", "confirm_multiple_accounts"]

    def test_a_banned_accounts_new_games_are_rated_for_nobody(self, api, moderator, ring_flag):
        multiple_accounts_confirm(moderator=moderator, primary=player("main"), flag=ring_flag)
        (body,) = record(api, [duel("honest", "alt1")])
        assert Game.objects.get(pk=body["id"]).status == Game.Status.UNRATED
        assert not RatingChange.objects.filter(game_id=body["id"]).exists()

    def test_the_primary_must_be_one_of_the_accounts(self, api, moderator, ring_flag):
        with pytest.raises(InvalidInput):
            multiple_accounts_confirm(moderator=moderator, primary=player("honest"), flag=ring_flag)
        assert not AuditEntry.objects.exists()
        assert not Player.objects.filter(status="banned").exists()

    def test_from_a_report_upholds_it(self, api, moderator, ring_flag):
        made = api.post(
            "/api/v1/reports/",
            {"reporter": "honest", "accused": ["main", "alt1"], "reason": "multiple_accounts"},
            format="json",
        ).json()
        rep = Report.objects.get(pk=made["id"])
        entry = multiple_accounts_confirm(moderator=moderator, primary=player("main"), report=rep)
        rep.refresh_from_db()
        assert rep.status == Report.Status.UPHELD
        assert list(Player.objects.filter(status="banned").values_list("handle", flat=True)) == ["alt1"]
        assert list(entry.reports.all()) == [rep]


class TestBanUnbanReset:
    def test_ban_and_unban_with_notes(self, api, moderator):
        record(api, [duel("a", "b")])
        with pytest.raises(InvalidInput):
            player_ban(moderator=moderator, player=player("a"), note="  ")
        player_ban(moderator=moderator, player=player("a"), note="cheating")
        assert player("a").is_banned
        with pytest.raises(Conflict):
            player_ban(moderator=moderator, player=player("a"), note="again")
        with pytest.raises(InvalidInput):
            player_unban(moderator=moderator, player=player("a"), note="")
        player_unban(moderator=moderator, player=player("a"), note="appeal accepted")
        assert not player("a").is_banned
        assert list(AuditEntry.objects.order_by("pk").values_list("action", "note")) == [
            ("ban", "cheating"),
            ("unban", "appeal accepted"),
        ]

    def test_a_second_moderator_on_a_stale_page_cannot_ban_twice(self, api, moderator):
        # Two moderators open a's page while a is active; the first bans, the second's copy still says active.
        record(api, [duel("a", "b")])
        first, second = player("a"), player("a")
        player_ban(moderator=moderator, player=first, note="cheating")
        with pytest.raises(Conflict):
            player_ban(moderator=moderator, player=second, note="cheating too")
        assert AuditEntry.objects.filter(action="ban").count() == 1

    def test_reset_one_player(self, api, moderator):
        record(api, [duel("a", "b")])
        entry = player_reset(moderator=moderator, player=player("a"), note="boosted")
        assert rating("a") == 1500.0 and rating("b") == 1470.0
        assert entry.details["resets"] == [{"title": "tokaido", "before": 1530.0, "after": 1500.0}]


class TestDismiss:
    def test_dismiss_flag_and_report_need_notes_and_open_items(self, api, moderator, ring_flag):
        with pytest.raises(InvalidInput):
            flag_dismiss(moderator=moderator, flag=ring_flag, note="")
        flag_dismiss(moderator=moderator, flag=ring_flag, note="twins")
        with pytest.raises(Conflict):
            flag_dismiss(moderator=moderator, flag=ring_flag, note="twice")
        made = api.post(
            "/api/v1/reports/", {"reporter": "honest", "accused": ["main"], "reason": "other"}, format="json"
        ).json()
        report_dismiss(moderator=moderator, report=Report.objects.get(pk=made["id"]), note="no evidence")
        assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == [
            "dismiss_flag",
            "dismiss_report",
        ]
        assert not Player.objects.filter(status="banned").exists()


class TestVoid:
    def test_refunds_are_exactly_a_replay_without_the_game(self, api, moderator, django_capture_on_commit_callbacks):
        # g1: v beats w. g2: cheat beats v. g3: v beats w. All new players: K 60, two players: P 1.
        g1, g2, g3 = record(api, [duel("v", "w"), duel("cheat", "v"), duel("v", "w")])
        v1, w1 = 1530.0, 1470.0
        e = elo(v1, 1500.0)
        v2, cheat2 = v1 - 60 * e, 1500.0 + 60 * e
        d3 = 60 * (1 - elo(v2, w1))
        v3, w3 = v2 + d3, w1 - d3
        assert (rating("v"), rating("w"), rating("cheat")) == pytest.approx((v3, w3, cheat2))
        # Replay without g2: v's second game is g3, from 1530 against 1470.
        d3_clean = 60 * (1 - elo(v1, w1))
        v_clean, w_clean = v1 + d3_clean, w1 - d3_clean
        player_ban(moderator=moderator, player=player("cheat"), note="alt of someone")
        with django_capture_on_commit_callbacks() as queued:
            entry = games_void(moderator=moderator, games=[Game.objects.get(pk=g2["id"])], note="abuse")
        assert Game.objects.get(pk=g2["id"]).status == Game.Status.VOID
        # The rebuild queued for the worker (nothing rebuilt yet), and GamesVoided for tournaments.
        assert len(queued) == 2 and rating("v") == pytest.approx(v3)
        void_rebuild_run(entry_id=entry.pk, title="tokaido")  # what the worker's task does
        assert rating("v") == pytest.approx(v_clean) and rating("w") == pytest.approx(w_clean)
        assert rating("cheat") is None
        assert not RatingChange.objects.filter(game_id=g2["id"]).exists()
        entry.refresh_from_db()
        refunds = {r["handle"]: r for r in entry.details["refunds"]["tokaido"]}
        assert refunds["v"]["delta"] == pytest.approx(v_clean - v3, abs=1e-6)
        assert refunds["w"]["delta"] == pytest.approx(w_clean - w3, abs=1e-6)
        assert refunds["v"]["before"] == pytest.approx(v3) and refunds["v"]["after"] == pytest.approx(v_clean)
        assert refunds["cheat"]["after"] is None
        assert entry.details["pending_titles"] == [] and "rebuilt_at" in entry.details
        # The task redelivered after its commit (acks late): the refunds written the first time stand.
        assert void_rebuild_run(entry_id=entry.pk, title="tokaido") == entry.details["refunds"]["tokaido"]
        entry.refresh_from_db()
        assert {r["handle"] for r in entry.details["refunds"]["tokaido"]} == set(refunds)
        assert sorted(entry.players.values_list("handle", flat=True)) == ["cheat", "v"]
        # By hand: v gets back 32.59 (the loss) and what the lower rating cost in g3.
        assert v_clean - v3 == pytest.approx(60 * e - (d3 - d3_clean))
        assert g1 and g3

    @pytest.mark.skipif(not settings.CELERY_TASK_ALWAYS_EAGER, reason="embedded mode: the task runs in-process")
    def test_embedded_mode_rebuilds_after_the_commit(self, api, moderator, django_capture_on_commit_callbacks):
        (body,) = record(api, [duel("cheat", "v")])
        player_ban(moderator=moderator, player=player("cheat"), note="x")
        with django_capture_on_commit_callbacks(execute=True):
            entry = games_void(moderator=moderator, games=[Game.objects.get(pk=body["id"])])
        entry.refresh_from_db()
        assert rating("v") is None  # v's only rated game is gone: no rating left in the title
        assert {r["handle"]: r["delta"] for r in entry.details["refunds"]["tokaido"]} == {"v": 30.0, "cheat": -30.0}

    def test_only_games_with_a_banned_account(self, api, moderator):
        (body,) = record(api, [duel("a", "b")])
        with pytest.raises(Conflict):
            games_void(moderator=moderator, games=[Game.objects.get(pk=body["id"])])
        assert Game.objects.get(pk=body["id"]).status == Game.Status.RATED
        assert not AuditEntry.objects.exists()

    def test_the_rebuild_runs_after_the_commit_not_in_the_request(self, api, moderator):
        # Without the commit hook (this test's transaction never commits) the void is written, nothing rebuilt.
        (body,) = record(api, [duel("cheat", "v")])
        player_ban(moderator=moderator, player=player("cheat"), note="x")
        entry = games_void(moderator=moderator, games=[Game.objects.get(pk=body["id"])])
        assert rating("v") == 1470.0
        assert entry.details["pending_titles"] == ["tokaido"] and entry.details["refunds"] == {}

    def test_one_rule_says_which_games_can_be_voided_for_the_service_and_the_panel(self, api, moderator):
        """``void_refusal`` is the rule; the service raises it, the panel shows its message and hides the button."""
        innocent, cheat = record(api, [duel("a", "b"), duel("cheat", "v")])
        available = GAME_ACTIONS["void"].available
        game = Game.objects.get(pk=innocent["id"])
        refusal = void_refusal(games=[game])
        assert refusal is not None and refusal.code == "no_banned_player" and refusal.status == 409
        assert available(game) == refusal.message
        with pytest.raises(Conflict) as raised:
            games_void(moderator=moderator, games=[game])
        assert (raised.value.code, raised.value.message) == (refusal.code, refusal.message)
        player_ban(moderator=moderator, player=player("cheat"), note="x")
        game = Game.objects.get(pk=cheat["id"])
        assert void_refusal(games=[game]) is None and available(game) is None
        games_void(moderator=moderator, games=[game])
        game.refresh_from_db()
        refusal = void_refusal(games=[game])
        assert refusal is not None and refusal.code == "already_void" and available(game) == refusal.message
        with pytest.raises(Conflict) as raised:
            games_void(moderator=moderator, games=[game])
        assert raised.value.code == "already_void"

    def test_the_service_hands_the_rebuild_to_moderations_task_module(self):
        """No service imports a task module (not even inside a function, which hides a cycle): the void hands its
        rebuild off (``penalties.void_rebuilds``) and ``moderation.tasks`` does it."""
        assert void_rebuilds.worker is tasks.rebuild_voided
        services_dir = Path(__file__).resolve().parents[3] / "moderation" / "services"
        imported = set()
        for source in services_dir.glob("*.py"):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    imported |= {node.module or ""} | {f"{node.module}.{alias.name}" for alias in node.names}
                elif isinstance(node, ast.Import):
                    imported |= {alias.name for alias in node.names}
        assert not {name for name in imported if name.split(".")[-1] == "tasks"}, imported


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL's (SQLite has no FOR UPDATE)")
def test_a_confirm_waits_for_a_concurrent_ban_of_a_secondary_and_then_leaves_it_alone(api, moderator, ring_flag):
    """Another moderator's ban of alt1 is in flight (its transaction holds alt1's row) when the confirm, from a
    page that read alt1 active, arrives: the confirm waits on alt1's row lock, then reads it banned, so alt1 is
    banned once, by the one ban entry, and the confirm entry bans only alt2."""
    page = [ring_flag.beneficiary, *Player.objects.filter(fed_flags__flag=ring_flag).order_by("pk")]
    holding, release = threading.Event(), threading.Event()

    def other_moderator() -> None:
        try:
            with transaction.atomic():
                player_ban(moderator=moderator, player=Player.objects.get(handle="alt1"), note="caught elsewhere")
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    other = threading.Thread(target=other_moderator)
    other.start()
    assert holding.wait(10)
    threading.Timer(0.5, release.set).start()
    started = time.monotonic()
    entry = multiple_accounts_confirm(moderator=moderator, primary=page[0], accounts=page, flag=ring_flag)
    waited = time.monotonic() - started
    other.join(10)
    assert waited >= 0.4  # it did wait for the ban's commit
    assert entry.details["banned"] == ["alt2"]
    assert AuditEntry.objects.filter(action="ban", players__handle="alt1").count() == 1
    assert set(Player.objects.filter(status="banned").values_list("handle", flat=True)) == {"alt1", "alt2"}
