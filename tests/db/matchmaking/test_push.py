"""Pushing formed tables to a real local HTTP receiver, embedded mode (the push runs in-process after commit)."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone

from matchmaking import push
from matchmaking.models import Delivery, DeliveryAttempt, ServerCallback
from matchmaking.services import deliveries_retry, pools_run_due
from tests.db.matchmaking.conftest import another_server, ticket_body
from tests.db.matchmaking.receiver import receiver

# Committed data: pushes are queued on commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)

TICKETS = "/api/v1/matchmaking/tickets/"


def _table_of_four(api, names="abcd"):
    bodies = [api.post(TICKETS, ticket_body(name), format="json").json() for name in names]
    assert bodies[-1]["status"] == "matched", bodies[-1]
    return bodies


def test_a_formed_table_is_pushed_signed_with_a_delivery_id(api, server_key):
    server = server_key[0]
    with receiver() as box:
        callback = ServerCallback.objects.create(server=server, url=box.url)
        tickets = _table_of_four(api)
        (got,) = box.wait_for(1)
    delivery = Delivery.objects.get()
    assert delivery.status == "delivered" and delivery.attempts == 1
    # The event envelope (docs/api.md, "Events"): its id is the delivery's, its type also in Arena-Event.
    assert got.headers["X-Arena-Delivery"] == str(delivery.pk) == got.json["id"]
    assert got.json["type"] == "table.formed" == got.headers["Arena-Event"]
    assert got.json["api_version"] == "v1" and got.json["created_at"].endswith("Z")
    assert push.verify(callback.secret, got.headers["X-Arena-Signature"], got.body)
    data = got.json["data"]
    assert data["table"]["players"] == ["a", "b", "c", "d"]
    assert data["table"]["id"] == tickets[-1]["table"]["id"]
    # Each of the server's tickets with its own request_id (none sent here); the time as the API writes it.
    assert data["tickets"] == [{"id": t["id"], "request_id": None} for t in sorted(tickets, key=lambda t: t["id"])]
    assert data["table"]["formed_at"] == tickets[-1]["table"]["formed_at"]
    assert "T" in data["table"]["formed_at"] and data["table"]["formed_at"].endswith("Z")
    (attempt,) = DeliveryAttempt.objects.all()
    assert attempt.status_code == 200 and attempt.number == 1


def test_the_signature_binds_body_and_time():
    body = b'{"table": 1}'
    header = push.sign("s3cret", 1_700_000_000, body)
    assert push.verify("s3cret", header, body, now=1_700_000_010)
    assert not push.verify("s3cret", header, body + b" ", now=1_700_000_010)  # body changed
    assert not push.verify("other", header, body, now=1_700_000_010)  # wrong secret
    assert not push.verify("s3cret", header, body, now=1_700_000_000 + 301)  # a replay, 5 minutes late
    forged = header.replace("t=1700000000", "t=1700000300")  # a fresh timestamp on an old signature
    assert not push.verify("s3cret", forged, body, now=1_700_000_300)


def test_each_server_is_pushed_only_its_own_tickets_and_servers_without_a_url_nothing(api, server_key):
    other = another_server()
    silent = another_server()
    with receiver() as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        ServerCallback.objects.create(server=other.server, url=box.url)
        mine = [api.post(TICKETS, ticket_body(n), format="json").json() for n in "ab"]
        theirs = other.post(TICKETS, ticket_body("c"), format="json").json()
        silent.post(TICKETS, ticket_body("d"), format="json")
        received = box.wait_for(2)
    assert len(received) == 2
    by_delivery = {r.headers["X-Arena-Delivery"]: r.json for r in received}
    servers = dict(Delivery.objects.values_list("pk", "server_id"))
    tickets = {servers[uuid.UUID(k)]: [t["id"] for t in v["data"]["tickets"]] for k, v in by_delivery.items()}
    assert tickets[server_key[0].pk] == sorted(t["id"] for t in mine)
    assert tickets[other.server.pk] == [theirs["id"]]


@override_settings(MATCHMAKING_PUSH_BACKOFF=2.0)
def test_a_failed_push_is_retried_with_backoff_and_the_same_delivery_id(api, server_key):
    with receiver(answers=[500, 503]) as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        _table_of_four(api)
        box.wait_for(1)
        delivery = Delivery.objects.get()
        assert (delivery.status, delivery.attempts, delivery.last_error) == ("pending", 1, "HTTP 500")
        first_retry = delivery.next_attempt_at - DeliveryAttempt.objects.get(number=1).at
        assert first_retry == timedelta(seconds=2)  # 2 s, then 4 s: doubling
        pools_run_due()  # not due yet: nothing sent
        assert len(box.received) == 1
        pools_run_due(now=timezone.now() + timedelta(seconds=2.1))
        delivery.refresh_from_db()
        assert delivery.attempts == 2 and delivery.next_attempt_at - DeliveryAttempt.objects.get(
            number=2
        ).at == timedelta(seconds=4)
        pools_run_due(now=timezone.now() + timedelta(seconds=4.1))
        received = box.wait_for(3)
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 3
    assert [a.status_code for a in DeliveryAttempt.objects.order_by("number")] == [500, 503, 200]
    assert len({r.headers["X-Arena-Delivery"] for r in received}) == 1  # the receiver can drop duplicates


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/"


@override_settings(MATCHMAKING_PUSH_ATTEMPTS=3, MATCHMAKING_PUSH_BACKOFF=0.0)
def test_a_push_that_never_gets_through_fails_visibly_after_its_attempts(api, server_key):
    ServerCallback.objects.create(server=server_key[0], url=_closed_port())
    _table_of_four(api)
    for _ in range(5):
        pools_run_due()
    delivery = Delivery.objects.get()
    assert delivery.status == "failed" and delivery.attempts == 3
    assert delivery.last_error  # "Connection refused", as the admin shows it
    assert all(a.status_code is None for a in DeliveryAttempt.objects.all())


@override_settings(MATCHMAKING_PUSH_ATTEMPTS=3, MATCHMAKING_PUSH_BACKOFF=0.0)
def test_the_admin_retry_starts_a_failed_push_afresh_sends_it_after_the_commit_and_numbers_on(api, server_key):
    ServerCallback.objects.create(server=server_key[0], url=_closed_port())
    _table_of_four(api)
    for _ in range(5):
        pools_run_due()
    delivery = Delivery.objects.get()
    assert delivery.status == "failed" and DeliveryAttempt.objects.count() == 3
    with transaction.atomic():
        assert deliveries_retry(delivery_ids=[delivery.pk]) == 1
        # Pending again with a fresh allowance from attempt 3 on, and nothing sent yet: the task waits for the commit.
        assert Delivery.objects.values_list("status", "attempts", "round_start").get() == ("pending", 3, 3)
        assert DeliveryAttempt.objects.count() == 3
    # After the commit the (eager) task tried once more: a fourth attempt row, and the count says 4 beside it
    # (issue 19: the page read "Attempts: 1" beside two rows).
    assert Delivery.objects.get().attempts == 4 == DeliveryAttempt.objects.count()
    assert Delivery.objects.get().status == "pending"  # 1 of the fresh 3: retried again later
    # The history keeps counting across the retry, so the admin reads 1, 2, 3, 4 (not a second "attempt 1").
    assert list(DeliveryAttempt.objects.order_by("at", "pk").values_list("number", flat=True)) == [1, 2, 3, 4]
    Delivery.objects.filter(pk=delivery.pk).update(status="delivered")
    assert deliveries_retry(delivery_ids=[delivery.pk]) == 0  # a delivered push is not sent again
    assert Delivery.objects.get().status == "delivered" and DeliveryAttempt.objects.count() == 4


def test_polling_keeps_working_when_pushes_fail(api, server_key):
    ServerCallback.objects.create(server=server_key[0], url=_closed_port())
    tickets = _table_of_four(api)
    assert api.get(f"{TICKETS}{tickets[0]['id']}/").json()["status"] == "matched"


def test_only_superusers_manage_callback_urls_and_see_deliveries_with_their_attempts(api, server_key):
    ServerCallback.objects.create(server=server_key[0], url=_closed_port())
    _table_of_four(api)
    staff = User.objects.create_user("mod", password="pw", is_staff=True)
    admin = User.objects.create_superuser("root", password="pw")
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/matchmaking/servercallback/").status_code == 403
    client.force_login(admin)
    page = client.get("/admin/matchmaking/servercallback/")
    assert page.status_code == 200 and server_key[0].name in page.content.decode()
    deliveries = client.get("/admin/matchmaking/delivery/?status__exact=pending")
    assert deliveries.status_code == 200
    detail = client.get(f"/admin/matchmaking/delivery/{Delivery.objects.get().pk}/change/")
    assert "refused" in detail.content.decode().lower()


@override_settings(MATCHMAKING_PUSH_BACKOFF=1.0)
def test_embedded_retries_come_on_time_with_no_request_and_no_admin_action(api, server_key, retry_timers):
    """Issue 19: with no beat, a failed push waited for traffic. Now its retries come 1 s and 2 s later (the
    doubling backoff) from the embedded mode's timer, while nothing else happens: no request, no admin."""
    with receiver(answers=[500, 503]) as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        _table_of_four(api)
        stamps = []
        deadline = time.monotonic() + 15
        while len(stamps) < 3 and time.monotonic() < deadline:
            if len(box.received) > len(stamps):
                stamps.append(time.monotonic())
            time.sleep(0.005)
        assert len(stamps) == 3, f"{len(box.received)} attempt(s) arrived"
        # Wait for the timer thread to record the last attempt before reading (SQLite: one writer at a time).
        while any(t.name.startswith("arena-push-retry-") for t in threading.enumerate()):
            time.sleep(0.01)
    first_gap, second_gap = stamps[1] - stamps[0], stamps[2] - stamps[1]
    assert 1.0 <= first_gap < 3.0 and 2.0 <= second_gap < 4.0, (first_gap, second_gap)
    delivery = Delivery.objects.get()
    assert delivery.status == "delivered" and delivery.attempts == 3
    assert [a.status_code for a in DeliveryAttempt.objects.order_by("number")] == [500, 503, 200]
    assert len({r.headers["X-Arena-Delivery"] for r in box.received}) == 1


def test_the_push_body_and_headers_are_the_schemas_webhook(api, server_key, anon):
    """Issue 19: the body was undocumented. What a receiver gets validates against the schema's 3.1 webhook, and
    the webhook names both headers."""
    import jsonschema

    schema = anon.get("/api/schema/?format=json").json()
    operation = schema["webhooks"]["table.formed"]["post"]
    assert {p["name"] for p in operation["parameters"] if p["in"] == "header"} == {
        "X-Arena-Signature",
        "X-Arena-Delivery",
        "Arena-Event",
    }
    body_ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    with receiver() as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        bodies = [
            api.post(TICKETS, ticket_body(name, request_id=f"req-{name}"), format="json").json() for name in "abcd"
        ]
        (got,) = box.wait_for(1)
    jsonschema.Draft202012Validator({"$ref": body_ref, "components": schema["components"]}).validate(got.json)
    assert sorted(got.json["data"]["tickets"], key=lambda t: t["request_id"]) == [
        {"id": body["id"], "request_id": f"req-{name}"} for name, body in zip("abcd", bodies, strict=True)
    ]
    assert set(got.json) == {"id", "type", "created_at", "api_version", "data"}
    assert set(got.json["data"]) == {"table", "tickets"}
