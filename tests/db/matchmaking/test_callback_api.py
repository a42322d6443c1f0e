"""Issue 26 §1: a game server's own callback, its secret, a test event, its deliveries and redelivery, and every
push an event envelope (docs/api.md, "Callbacks and events"), against a real local receiver, embedded mode."""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import SCOPES
from matchmaking import push
from matchmaking.events import event_push
from matchmaking.models import Delivery, ServerCallback, Ticket
from matchmaking.services import pools_run_due
from tests.db.matchmaking.conftest import another_server, ticket_body
from tests.db.matchmaking.receiver import receiver
from tests.db.matchmaking.test_push_security import fake_dns  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db(transaction=True)

CALLBACK = "/api/v1/callback/"
DELIVERIES = "/api/v1/deliveries/"
TICKETS = "/api/v1/matchmaking/tickets/"
ENVELOPE = {"id", "type", "created_at", "api_version", "data"}


def _by_hand(secret: str, header: str, body: bytes) -> bool:
    """The receiver's check written out, not Arena's ``push.verify``: HMAC-SHA256 of "<t>.<body>"."""
    parts = dict(part.split("=", 1) for part in header.split(",") if part.startswith("t="))
    wanted = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(wanted, part[3:]) for part in header.split(",") if part.startswith("v1="))


def test_put_creates_the_callback_with_its_secret_shown_once_then_changes_it(api):
    with receiver() as box:
        created = api.put(CALLBACK, {"url": box.url}, format="json")
        assert created.status_code == 201, created.json()
        assert created["Location"] == CALLBACK
        body = created.json()
        assert body["url"] == box.url and body["enabled"] is True and len(body["secret"]) >= 40
        assert body["secret"] == ServerCallback.objects.get().secret
        shown = api.get(CALLBACK).json()
        assert "secret" not in shown and shown["url"] == box.url
        changed = api.put(CALLBACK, {"url": box.url + "/v2", "enabled": False}, format="json")
        assert changed.status_code == 200 and "secret" not in changed.json()
        assert changed.json()["enabled"] is False
        assert ServerCallback.objects.get().secret == body["secret"]  # a PUT never changes the secret


def test_the_same_ssrf_rules_as_the_admin(api, settings, fake_dns):  # noqa: F811 - the fixture
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = False
    fake_dns["hooks.example.com"] = ["203.0.113.9", "10.0.0.7"]  # one private address among them is enough
    for url, why in (
        ("http://203.0.113.9/hook", "https"),
        ("https://127.0.0.1/hook", "loopback"),
        ("https://10.1.2.3/hook", "private"),
        ("https://169.254.169.254/latest", "link-local"),
        ("https://user:pw@203.0.113.9/", "user name"),
        ("https://hooks.example.com/", "private"),
    ):
        answer = api.put(CALLBACK, {"url": url}, format="json")
        assert answer.status_code == 400, url
        assert answer.json()["error"]["code"] == "invalid_input"
        assert why in answer.json()["error"]["fields"]["url"], (url, answer.json())
    assert not ServerCallback.objects.exists()
    unknown = api.put(CALLBACK, {"url": "https://203.0.113.9/", "secret": "mine"}, format="json")
    assert unknown.status_code == 400 and unknown.json()["error"]["fields"] == {"secret": "Unknown field."}


def test_no_callback_is_404_and_the_scope_is_matchmaking(api):
    assert api.get(CALLBACK).json()["error"]["code"] == "callback_not_found"
    assert api.delete(CALLBACK).status_code == 404
    assert api.post(CALLBACK + "ping/").json()["error"]["code"] == "callback_not_found"
    games_only = another_server(scopes=("games",))
    refused = games_only.get(DELIVERIES)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "missing_scope"
    assert "matchmaking" in SCOPES


def test_ping_is_a_signed_event_verified_with_the_shown_secret_and_listed_with_its_attempt(api):
    with receiver() as box:
        secret = api.put(CALLBACK, {"url": box.url}, format="json").json()["secret"]
        answer = api.post(CALLBACK + "ping/")
        assert answer.status_code == 202, answer.json()
        (got,) = box.wait_for(1)
    assert set(got.json) == ENVELOPE
    assert got.json["type"] == "ping" == got.headers["Arena-Event"]
    assert got.json["id"] == got.headers["X-Arena-Delivery"] == answer.json()["id"]
    assert got.json["data"] == {"callback": {"url": box.url}}
    assert _by_hand(secret, got.headers["X-Arena-Signature"], got.body)
    assert answer["Location"] == f"{DELIVERIES}{got.json['id']}/"
    listed = api.get(DELIVERIES).json()
    (delivery,) = listed["deliveries"]
    assert listed["next"] is None
    assert delivery["status"] == "delivered" and delivery["type"] == "ping"
    (attempt,) = delivery["attempts"]
    assert attempt["number"] == 1 and attempt["status_code"] == 200 and attempt["error"] is None
    assert isinstance(attempt["duration_ms"], int) and attempt["duration_ms"] >= 0
    assert api.get(answer["Location"]).json() == delivery


def test_rotation_shows_the_new_secret_once_and_both_sign_during_the_overlap(api):
    with receiver() as box:
        old = api.put(CALLBACK, {"url": box.url}, format="json").json()["secret"]
        rotated = api.post(CALLBACK + "rotate-secret/", {"previous_secret_expires_in": 3600}, format="json")
        assert rotated.status_code == 200
        new = rotated.json()["secret"]
        assert new != old and rotated.json()["previous_secret_active"] is True
        expires = timezone.datetime.fromisoformat(rotated.json()["previous_secret_expires_at"].replace("Z", "+00:00"))
        assert timedelta(minutes=59) < expires - timezone.now() <= timedelta(hours=1)
        assert "secret" not in api.get(CALLBACK).json()
        api.post(CALLBACK + "ping/")
        (got,) = box.wait_for(1)
        assert got.headers["X-Arena-Signature"].count("v1=") == 2
        assert _by_hand(new, got.headers["X-Arena-Signature"], got.body)
        assert _by_hand(old, got.headers["X-Arena-Signature"], got.body)
        # 0: the old secret stops at once; the next push carries one signature, the newest.
        newest = api.post(CALLBACK + "rotate-secret/", {"previous_secret_expires_in": 0}, format="json").json()
        assert newest["previous_secret_active"] is False
        api.post(CALLBACK + "ping/")
        got = box.wait_for(2)[1]
    assert got.headers["X-Arena-Signature"].count("v1=") == 1
    assert _by_hand(newest["secret"], got.headers["X-Arena-Signature"], got.body)
    assert not _by_hand(new, got.headers["X-Arena-Signature"], got.body)
    bad = api.post(CALLBACK + "rotate-secret/", {"previous_secret_expires_in": 8 * 24 * 3600}, format="json")
    assert bad.status_code == 400 and "previous_secret_expires_in" in bad.json()["error"]["fields"]


def test_the_deliveries_list_is_newest_first_by_cursor_and_only_the_servers_own(api, other_api):
    with receiver() as box:
        api.put(CALLBACK, {"url": box.url}, format="json")
        other_api.put(CALLBACK, {"url": box.url}, format="json")
        ids = [api.post(CALLBACK + "ping/").json()["id"] for _ in range(3)]
        theirs = other_api.post(CALLBACK + "ping/").json()["id"]
        box.wait_for(4)
    first = api.get(DELIVERIES, {"limit": 2}).json()
    assert [d["id"] for d in first["deliveries"]] == ids[::-1][:2] and first["next"]
    second = api.get(DELIVERIES, {"limit": 2, "cursor": first["next"]}).json()
    assert [d["id"] for d in second["deliveries"]] == [ids[0]] and second["next"] is None
    assert theirs not in {d["id"] for d in first["deliveries"] + second["deliveries"]}
    assert api.get(f"{DELIVERIES}{theirs}/").json()["error"]["code"] == "delivery_not_found"
    assert api.post(f"{DELIVERIES}{theirs}/redeliver/").status_code == 404
    assert api.get(DELIVERIES, {"cursor": "not-a-cursor"}).json()["error"]["fields"] == {
        "cursor": "Pass the previous page's `next` as it was."
    }
    assert api.get(DELIVERIES, {"limit": 101}).status_code == 400
    assert api.get(DELIVERIES, {"type": "ping"}).json()["deliveries"][0]["id"] == ids[-1]
    assert api.get(DELIVERIES, {"type": "table.formed"}).json()["deliveries"] == []


def test_redelivery_sends_the_same_event_again_after_failures(api, settings):
    settings.MATCHMAKING_PUSH_ATTEMPTS = 1
    with receiver(answers=[500]) as box:
        api.put(CALLBACK, {"url": box.url}, format="json")
        failed = api.post(CALLBACK + "ping/").json()
        box.wait_for(1)
        assert Delivery.objects.get(pk=failed["id"]).status == "failed"
        again = api.post(f"{DELIVERIES}{failed['id']}/redeliver/")
        assert again.status_code == 202, again.json()
        first, second = box.wait_for(2)
    assert first.body == second.body  # the same envelope: same id, same created_at, same data
    assert first.headers["X-Arena-Delivery"] == second.headers["X-Arena-Delivery"] == failed["id"]
    shown = api.get(f"{DELIVERIES}{failed['id']}/").json()
    assert shown["status"] == "delivered"
    assert [a["status_code"] for a in shown["attempts"]] == [500, 200]
    api.put(CALLBACK, {"url": box.url, "enabled": False}, format="json")
    assert api.post(f"{DELIVERIES}{failed['id']}/redeliver/").json()["error"]["code"] == "callback_disabled"


def test_cancelled_and_expired_tickets_are_pushed(api):
    with receiver() as box:
        api.put(CALLBACK, {"url": box.url}, format="json")
        cancelled = api.post(TICKETS, ticket_body("ann", request_id="r-ann"), format="json").json()
        api.delete(f"{TICKETS}{cancelled['id']}/")
        expiring = api.post(TICKETS, ticket_body("bo", game="wizard"), format="json").json()
        pools_run_due(now=timezone.now() + timedelta(minutes=11))  # past the 10 minutes a ticket may wait
        got = {r.json["type"]: r for r in box.wait_for(2)}
    assert Ticket.objects.get(pk=expiring["id"]).status == "expired"
    gone = got["ticket.cancelled"].json["data"]["ticket"]
    assert got["ticket.cancelled"].headers["Arena-Event"] == "ticket.cancelled"
    assert (gone["id"], gone["status"], gone["reason"], gone["request_id"], gone["player"]) == (
        cancelled["id"],
        "cancelled",
        "deleted",
        "r-ann",
        "ann",
    )
    late = got["ticket.expired"].json["data"]["ticket"]
    assert (late["id"], late["status"], late["game"], late["player"]) == (expiring["id"], "expired", "wizard", "bo")
    assert "reason" not in late and late["closed_at"].endswith("Z")


def test_another_app_pushes_an_event_through_event_push(api, server_key):
    with receiver() as box:
        secret = api.put(CALLBACK, {"url": box.url}, format="json").json()["secret"]
        delivery = event_push(server_key[0], "player.warned", {"player": "ann", "at": timezone.now()})
        (got,) = box.wait_for(1)
    assert got.json["id"] == str(delivery.pk) and got.json["type"] == "player.warned"
    assert got.json["data"]["player"] == "ann" and got.json["data"]["at"].endswith("Z")
    assert push.verify(secret, got.headers["X-Arena-Signature"], got.body)
    assert event_push(another_server().server, "player.warned", {}) is None  # no callback: nothing to push
    with pytest.raises(ValueError):
        event_push(server_key[0], "player.warnd", {})


def test_deleting_the_callback_abandons_pending_pushes(api, settings):
    settings.MATCHMAKING_PUSH_ATTEMPTS = 3
    with receiver(answers=[500]) as box:
        api.put(CALLBACK, {"url": box.url}, format="json")
        pinged = api.post(CALLBACK + "ping/").json()
        box.wait_for(1)
    assert Delivery.objects.get(pk=pinged["id"]).status == "pending"  # its retry is due later
    assert api.delete(CALLBACK).status_code == 204
    assert Delivery.objects.get(pk=pinged["id"]).status == "abandoned"
    assert api.get(CALLBACK).status_code == 404
