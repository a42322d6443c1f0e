"""POST /api/v1/reports/ (docs/api.md "Reports")."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from arena.api.game_payload import storable_text
from arena.servers import game_server_create
from moderation import api as reports_door
from moderation import rules
from moderation.models import Report
from moderation.services import report_dismiss, report_uphold
from tests.db.moderation.helpers import duel, record

pytestmark = pytest.mark.django_db
URL = "/api/v1/reports/"


@pytest.fixture
def game(api) -> dict:
    (body,) = record(
        api,
        [
            duel("alice", "bob"),
        ],
    )
    record(api, [duel("carol", "dave")])
    return body


def report(api, **body):
    return api.post(URL, body, format="json")


class TestKingmaking:
    def test_needs_game_move_and_description(self, api, game):
        response = report(api, reporter="bob", accused=["alice"], reason="kingmaking")
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid_input"
        assert set(error["fields"]) == {"game_id", "move", "description"}

    def test_a_blank_description_is_missing(self, api, game):
        response = report(
            api, reporter="bob", accused=["alice"], reason="kingmaking", game_id=game["id"], move=3, description="   "
        )
        assert response.status_code == 400
        assert set(response.json()["error"]["fields"]) == {"description"}

    def test_complete_report_goes_to_the_queue(self, api, game):
        response = report(
            api,
            reporter="bob",
            accused=["alice"],
            reason="kingmaking",
            game_id=game["id"],
            move=57,
            description="Threw the last round to carol.",
        )
        assert response.status_code == 201, response.content
        body = response.json()
        assert (body["status"], body["reason"], body["move"], body["game_id"]) == ("open", "kingmaking", 57, game["id"])
        assert "answer" not in body
        stored = Report.objects.get(pk=body["id"])
        assert stored.description == "Threw the last round to carol."
        assert list(stored.accused.values_list("handle", flat=True)) == ["alice"]

    def test_the_accused_must_have_played_the_cited_game(self, api, game):
        response = report(
            api, reporter="bob", accused=["carol"], reason="kingmaking", game_id=game["id"], move=1, description="x"
        )
        assert response.status_code == 400
        assert set(response.json()["error"]["fields"]) == {"accused"}


class TestSameIp:
    def test_same_ip_alone_is_closed_at_once_with_the_policy(self, api, game):
        response = report(api, reporter="bob", accused=["alice"], reason="same_ip")
        assert response.status_code == 201
        body = response.json()
        assert body["status"] == "closed"
        assert body["answer"] == rules.SAME_IP_ANSWER
        assert "allowed" in body["answer"]
        assert not Report.objects.filter(status=Report.Status.OPEN).exists()

    def test_same_ip_with_another_reason_reaches_the_queue(self, api, game):
        response = report(api, reporter="bob", accused=["alice"], reason=["same_ip", "multiple_accounts"])
        assert response.status_code == 201
        assert (response.json()["status"], response.json()["reason"]) == ("open", "multiple_accounts")


class TestRefusals:
    def test_unknown_reporter_and_accused_are_404_with_fields(self, api, game):
        response = report(api, reporter="nobody", accused=["alice", "ghost"], reason="other")
        assert response.status_code == 404
        assert response.json()["error"]["fields"].keys() == {"reporter", "accused.1"}

    def test_a_server_cites_only_its_own_games(self, api, game, db):
        other = APIClient()
        other.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='other').key}")
        response = report(
            other, reporter="bob", accused=["alice"], reason="kingmaking", game_id=game["id"], move=1, description="x"
        )
        assert response.status_code == 404
        assert response.json()["error"]["fields"] == {"game_id": "Unknown game."}

    def test_bad_types_are_named(self, api, game):
        response = report(
            api, reporter="bob", accused="not a list!", reason="rude", move=-1, game_id="7", description=5, extra=1
        )
        assert response.status_code == 400
        assert set(response.json()["error"]["fields"]) == {
            "accused.0",
            "reason",
            "move",
            "game_id",
            "description",
            "extra",
        }

    def test_an_unpaired_surrogate_in_the_description_is_400_not_500(self, api, game):
        raw = '{"reporter": "bob", "accused": ["alice"], "reason": "other", "description": "bad \\ud800 text"}'
        response = api.post(URL, raw, content_type="application/json")
        assert response.status_code == 400, response.content
        assert set(response.json()["error"]["fields"]) == {"description"}
        assert not Report.objects.exists()

    def test_no_self_reports(self, api, game):
        response = report(api, reporter="bob", accused=["bob"], reason="other")
        assert response.status_code == 400

    def test_needs_a_key(self, anon, db):
        assert anon.post(URL, {}, format="json").status_code == 401


class TestTrackRecord:
    def test_reliable_reporters_are_read_first(self, api, game, django_user_model):
        moderator = django_user_model.objects.create_user("mod")
        for verdict in (report_uphold, report_uphold, report_uphold):
            made = report(api, reporter="bob", accused=["alice"], reason="other").json()
            verdict(moderator=moderator, report=Report.objects.get(pk=made["id"]), note="right")
        for _ in range(3):
            made = report(api, reporter="dave", accused=["carol"], reason="other").json()
            report_dismiss(moderator=moderator, report=Report.objects.get(pk=made["id"]), note="wrong")
        fresh = report(api, reporter="carol", accused=["dave"], reason="other").json()["id"]
        reliable = report(api, reporter="bob", accused=["alice"], reason="other").json()["id"]
        unreliable = report(api, reporter="dave", accused=["carol"], reason="other").json()["id"]
        queue = list(Report.objects.filter(status=Report.Status.OPEN).values_list("pk", "score"))
        assert queue == [(reliable, 10.0), (fresh, 5.0), (unreliable, 0.0)]


@pytest.mark.parametrize(
    ("text", "storable"),
    [
        ("plain", True),
        ("élan, 東京, 🎲", True),
        ("nul \x00 inside", False),
        ("bad \ud800 half", False),
    ],
)
def test_storable_text_is_the_one_public_check_both_doors_use(text, storable):
    """The reports door imports the game door's check by its public name (not a private alias), so a change to
    what PostgreSQL can store is made once and both doors refuse the same strings."""
    assert storable_text(text) is storable
    assert reports_door.storable_text is storable_text


class TestReasonMessages:
    CHOICES = "kingmaking, multiple_accounts, other, same_ip"

    @pytest.mark.parametrize(
        ("reason", "fields"),
        [
            ("rude", {"reason": f"Unknown reason 'rude'; one of {CHOICES}."}),
            (["other", "rude"], {"reason.1": f"Unknown reason 'rude'; one of {CHOICES}."}),
            ([], {"reason": f"Must be one of {CHOICES}, or a list of 1 to 4 of them."}),
            (7, {"reason": f"Must be a reason's name: one of {CHOICES}."}),
            (None, {"reason": f"Required: one of {CHOICES}, or a list of them."}),
        ],
    )
    def test_an_invalid_reason_says_what_is_wrong_with_it(self, api, game, reason, fields):
        response = report(api, reporter="bob", accused="alice", reason=reason)
        assert response.status_code == 400
        assert response.json()["error"]["fields"] == fields

    def test_one_accused_as_a_string_and_reasons_as_a_list_are_both_accepted(self, api, game):
        response = report(api, reporter="bob", accused="alice", reason=["other", "multiple_accounts", "other"])
        assert response.status_code == 201
        assert (response.json()["accused"], response.json()["reasons"]) == (["alice"], ["multiple_accounts", "other"])


class TestReadBack:
    def test_the_filing_server_reads_its_report_and_its_status_as_it_changes(self, api, game):
        made = report(api, reporter="bob", accused=["alice"], reason="other").json()
        read = api.get(f"{URL}{made['id']}/")
        assert read.status_code == 200 and read.json() == made
        Report.objects.filter(pk=made["id"]).update(status=Report.Status.DISMISSED)
        assert api.get(f"{URL}{made['id']}/").json()["status"] == "dismissed"

    def test_another_server_and_an_unknown_id_get_report_not_found(self, api, game, anon):
        made = report(api, reporter="bob", accused=["alice"], reason="other").json()
        other = APIClient()
        other.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='someone-else').key}")
        for client, report_id in ((other, made["id"]), (api, made["id"] + 1000)):
            response = client.get(f"{URL}{report_id}/")
            assert response.status_code == 404 and response.json()["error"]["code"] == "report_not_found"
        assert anon.get(f"{URL}{made['id']}/").status_code == 401
