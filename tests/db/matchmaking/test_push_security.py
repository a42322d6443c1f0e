"""Pushes that cannot be steered inward (docs/security.md#pushes-to-game-servers), against real local receivers.

Nothing here ever sends a packet off the loopback, even if the code under test is wrong: the test host names
resolve through a stub (``fake_dns``) to the addresses a test needs, and ``no_outside_connections`` makes any
connection attempt to an address outside 127.0.0.0/8 or ::1 fail the test at once (and records it, in case the
code under test swallowed the failure).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from arena.servers import game_server_revoke
from matchmaking import push, push_net
from matchmaking.callbacks import callback_drop_previous_secret, callback_rotate_secret
from matchmaking.models import Delivery, DeliveryAttempt, ServerCallback
from matchmaking.services import pools_run_due
from tests.db.matchmaking.conftest import ticket_body
from tests.db.matchmaking.receiver import receiver

pytestmark = pytest.mark.django_db(transaction=True)

TICKETS = "/api/v1/matchmaking/tickets/"
_real_getaddrinfo = socket.getaddrinfo


def _table_of_four(api, names="abcd"):
    bodies = [api.post(TICKETS, ticket_body(name), format="json").json() for name in names]
    assert bodies[-1]["status"] == "matched", bodies[-1]
    return bodies


# ---------------------------------------------------------------------------------------------------------------
# Guards: a stub resolver, and no connection ever leaving the loopback
# ---------------------------------------------------------------------------------------------------------------


def _loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    try:
        return ipaddress.ip_address(str(host).split("%", 1)[0]).is_loopback
    except ValueError:
        return False  # a name: a connection by name would resolve outside the stub


@pytest.fixture
def no_outside_connections(monkeypatch) -> list[object]:
    """Fails the test at the first attempt to connect anywhere but 127.0.0.0/8 or ::1."""
    attempts: list[object] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_create = socket.create_connection

    def guarded(real):
        def connect(self, address):
            if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address):
                attempts.append(address)
                pytest.fail(f"a connection to {address} was attempted", pytrace=False)
            return real(self, address)

        return connect

    def create_connection(address, *args, **kwargs):
        if not _loopback(address):
            attempts.append(address)
            pytest.fail(f"a connection to {address} was attempted", pytrace=False)
        return real_create(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded(real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(real_connect_ex))
    monkeypatch.setattr(socket, "create_connection", create_connection)
    return attempts


@pytest.fixture
def fake_dns(monkeypatch) -> dict[str, list[str]]:
    """``fake_dns[name] = [addresses]``: names resolve only through this table (lookups are counted in
    ``fake_dns["@lookups"]``); IP literals resolve as themselves; any other name does not resolve."""
    table: dict[str, list[str]] = {"@lookups": []}

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        name = host.decode() if isinstance(host, bytes) else str(host)
        try:
            ipaddress.ip_address(name)
        except ValueError:
            pass
        else:
            return _real_getaddrinfo(name, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        table["@lookups"].append(name)
        if name not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                socket.IPPROTO_TCP,
                "",
                (a, int(port or 0), 0, 0) if ":" in a else (a, int(port or 0)),
            )
            for a in table[name]
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table


@pytest.fixture
def production_pushes(settings) -> None:
    """The development allowance off, as in production: https and public addresses only."""
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = False


# ---------------------------------------------------------------------------------------------------------------
# Where a push may go
# ---------------------------------------------------------------------------------------------------------------

REFUSED_ADDRESSES = [
    "127.0.0.1",
    "127.8.9.10",
    "::1",  # loopback
    "10.0.0.5",
    "172.16.0.1",
    "192.168.1.1",  # private
    "169.254.169.254",
    "fe80::1",  # link-local (the cloud metadata service)
    "100.64.0.1",
    "100.127.255.254",  # CGNAT
    "224.0.0.1",
    "ff02::1",  # multicast
    "240.0.0.1",
    "255.255.255.255",  # reserved
    "0.0.0.0",
    "::",  # unspecified
    "fc00::1",
    "fd12:3456::1",  # IPv6 unique-local
    "::ffff:10.0.0.5",
    "::ffff:8.8.8.8",  # IPv4-mapped, even of a public address
    "2002:a00:5::1",  # 6to4 carrying 10.0.0.5
    "192.0.2.1",
    "2001:db8::1",  # documentation ranges: nobody's server
]
PUBLIC_ADDRESSES = ["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700::1111", "2a00:1450:4001::200e"]


@pytest.mark.parametrize("address", REFUSED_ADDRESSES)
def test_a_non_public_address_is_refused(address):
    assert push_net.address_refusal(address) is not None


@pytest.mark.parametrize("address", PUBLIC_ADDRESSES)
def test_a_public_address_is_allowed(address):
    assert push_net.address_refusal(address) is None


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://tables.example.test/arena", "https"),
        ("ftp://tables.example.test/arena", "https"),
        ("https://user:pw@tables.example.test/arena", "user name or password"),
        ("https:///arena", "no host"),
        ("https://unknown.example.test/arena", "does not resolve"),
        ("https://metadata.example.test/latest", "169.254.169.254"),
        ("https://split.example.test/arena", "10.0.0.5"),  # one public address and one private: refused
        ("https://[::ffff:127.0.0.1]/arena", "IPv4-mapped"),
    ],
)
def test_a_callback_url_is_refused_when_saved(
    production_pushes, fake_dns, no_outside_connections, server_key, url, why
):
    fake_dns.update(
        {
            "tables.example.test": ["93.184.216.34"],
            "metadata.example.test": ["169.254.169.254"],
            "split.example.test": ["93.184.216.34", "10.0.0.5"],
        }
    )
    with pytest.raises(ValidationError) as refused:
        ServerCallback(server=server_key[0], url=url).full_clean()
    assert why in str(refused.value)
    ServerCallback(server=server_key[0], url="https://tables.example.test/arena").full_clean()  # public: fine
    assert no_outside_connections == []


def test_the_admin_refuses_to_save_a_callback_to_the_metadata_address(
    production_pushes, fake_dns, no_outside_connections, server_key
):
    fake_dns["metadata.example.test"] = ["169.254.169.254"]
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))
    page = client.post(
        "/admin/matchmaking/servercallback/add/",
        {"server": server_key[0].pk, "url": "https://metadata.example.test/", "enabled": "on"},
    )
    assert page.status_code == 200 and "169.254.169.254 is link-local" in page.content.decode()
    assert not ServerCallback.objects.exists()


@pytest.mark.parametrize("address", ["10.0.0.5", "169.254.169.254"])
def test_a_push_to_a_host_resolving_to_a_private_address_is_refused_and_never_connects(
    production_pushes, fake_dns, no_outside_connections, api, server_key, address
):
    """The URL was fine when saved (a public address), the name now resolves inward: refused at the send."""
    fake_dns["tables.example.test"] = ["93.184.216.34"]
    ServerCallback(server=server_key[0], url="https://tables.example.test/arena").full_clean()
    ServerCallback.objects.create(server=server_key[0], url="https://tables.example.test/arena")
    fake_dns["tables.example.test"] = [address]  # rebound
    _table_of_four(api)
    (attempt,) = DeliveryAttempt.objects.all()
    assert attempt.status_code is None and f"resolves to {address} is" in attempt.error
    assert Delivery.objects.get().status == "pending"  # failed, retried later (and refused again)
    assert no_outside_connections == []


def test_a_rebinding_name_cannot_reach_a_loopback_receiver(
    production_pushes, fake_dns, no_outside_connections, api, server_key
):
    """Public for the save, 127.0.0.1 at the send: the receiver on 127.0.0.1 never sees the push."""
    with receiver() as box:
        port = box.url.split(":")[2].split("/")[0]
        url = f"https://rebind.example.test:{port}/arena/tables"
        fake_dns["rebind.example.test"] = ["93.184.216.34"]
        ServerCallback(server=server_key[0], url=url).full_clean()
        ServerCallback.objects.create(server=server_key[0], url=url)
        fake_dns["rebind.example.test"] = ["127.0.0.1"]
        _table_of_four(api)
        time.sleep(0.2)
        assert box.received == []
    (attempt,) = DeliveryAttempt.objects.all()
    assert "127.0.0.1 is a loopback address" in attempt.error
    assert no_outside_connections == []


def test_the_connection_is_pinned_to_the_one_checked_lookup_and_keeps_the_host_name(
    fake_dns, no_outside_connections, api, server_key
):
    """With the development allowance (loopback allowed), a name resolving to 127.0.0.1: one lookup per
    attempt, the connection to that address, and the Host header the name (not the address)."""
    with receiver() as box:
        port = box.url.split(":")[2].split("/")[0]
        fake_dns["pinned.example.test"] = ["127.0.0.1"]
        ServerCallback.objects.create(server=server_key[0], url=f"http://pinned.example.test:{port}/arena/tables")
        fake_dns["@lookups"].clear()
        _table_of_four(api)
        (got,) = box.wait_for(1)
    assert got.headers["Host"] == f"pinned.example.test:{port}"
    assert fake_dns["@lookups"] == ["pinned.example.test"]  # no second lookup to rebind
    assert Delivery.objects.get().status == "delivered"


def test_plain_http_is_refused_in_production_even_to_a_public_address(
    production_pushes, fake_dns, no_outside_connections, api, server_key
):
    fake_dns["tables.example.test"] = ["93.184.216.34"]
    ServerCallback.objects.create(server=server_key[0], url="http://tables.example.test/arena")
    _table_of_four(api)
    (attempt,) = DeliveryAttempt.objects.all()
    assert "must be https" in attempt.error and attempt.status_code is None
    assert no_outside_connections == []


# ---------------------------------------------------------------------------------------------------------------
# Redirects, deadline
# ---------------------------------------------------------------------------------------------------------------


@contextmanager
def redirecting_to(target: str) -> Iterator[list[bytes]]:
    """A receiver on 127.0.0.1 answering every POST with 302 to ``target``; yields the requests it read."""
    seen: list[bytes] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                seen.append(conn.recv(65536))
                conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n".encode())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield seen, f"http://127.0.0.1:{listener.getsockname()[1]}/arena/tables"
    finally:
        listener.close()
        thread.join(timeout=5)


def test_a_302_is_a_failed_attempt_and_its_target_never_sees_a_request(api, server_key, no_outside_connections):
    with receiver() as second, redirecting_to(second.url) as (seen, url):
        ServerCallback.objects.create(server=server_key[0], url=url)
        _table_of_four(api)
        time.sleep(0.3)
        assert len(seen) == 1 and b"X-Arena-Signature" in seen[0]
        assert second.received == []
    (attempt,) = DeliveryAttempt.objects.all()
    assert attempt.status_code == 302 and "not followed" in attempt.error
    delivery = Delivery.objects.get()
    assert delivery.status == "pending" and delivery.last_error.startswith("HTTP 302")
    assert no_outside_connections == []


@contextmanager
def dripping() -> Iterator[str]:
    """A receiver that reads the request, then sends its status line and drips a header a byte every 0.1 s for
    ten seconds: every socket read gets a byte in time, so only an overall deadline cuts it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                for _ in range(100):
                    if stop.wait(0.1):
                        return
                    conn.sendall(b"a")
            except OSError:
                return  # Arena cut the connection: the point

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/arena/tables"
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=5)


def test_a_receiver_dripping_its_headers_is_cut_at_the_deadline(api, server_key, settings):
    settings.MATCHMAKING_PUSH_TIMEOUT = 1.0
    with dripping() as url:
        ServerCallback.objects.create(server=server_key[0], url=url)
        started = time.monotonic()
        _table_of_four(api)
        elapsed = time.monotonic() - started
    (attempt,) = DeliveryAttempt.objects.all()
    assert attempt.status_code is None and "deadline of 1 s" in attempt.error
    assert 900 <= attempt.duration_ms < 2500, attempt.duration_ms  # not the receiver's ten seconds
    assert elapsed < 8
    assert Delivery.objects.get().status == "pending"


def test_the_deadline_is_capped_at_ten_seconds(settings):
    settings.MATCHMAKING_PUSH_TIMEOUT = 60.0
    assert push_net.deadline_seconds() == 10.0
    settings.MATCHMAKING_PUSH_TIMEOUT = 2.5
    assert push_net.deadline_seconds() == 2.5


# ---------------------------------------------------------------------------------------------------------------
# Secrets: never empty, rotated with an overlap
# ---------------------------------------------------------------------------------------------------------------


def test_a_callback_without_a_secret_is_never_sent_to(api, server_key):
    with receiver() as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url, secret="")
        _table_of_four(api)
        time.sleep(0.2)
        assert box.received == []
    (attempt,) = DeliveryAttempt.objects.all()
    assert "no secret" in attempt.error
    with pytest.raises(ValueError):
        push.sign("", 1_700_000_000, b"{}")
    with pytest.raises(ValueError):
        push.sign(["good", ""], 1_700_000_000, b"{}")


def test_rotation_both_secrets_verify_during_the_overlap_then_only_the_new(api, server_key):
    with receiver() as box:
        callback = ServerCallback.objects.create(server=server_key[0], url=box.url)
        old = callback.secret
        new = callback_rotate_secret(callback=callback).secret
        assert new != old
        _table_of_four(api, "abcd")
        (first,) = box.wait_for(1)
        header = first.headers["X-Arena-Signature"]
        assert header.count("v1=") == 2
        assert push.verify(old, header, first.body) and push.verify(new, header, first.body)
        assert push.verify([new, old], header, first.body)
        assert not push.verify("some-other-secret", header, first.body)

        assert callback_drop_previous_secret(callback=callback)
        _table_of_four(api, "efgh")
        second = box.wait_for(2)[1]
        header = second.headers["X-Arena-Signature"]
        assert header.count("v1=") == 1
        assert push.verify(new, header, second.body) and not push.verify(old, header, second.body)


def test_the_previous_secret_stops_signing_at_the_time_the_superuser_chose(api, server_key):
    with receiver() as box:
        callback = ServerCallback.objects.create(server=server_key[0], url=box.url)
        old = callback.secret
        new = callback_rotate_secret(callback=callback, previous_expires_at=timezone.now() - timedelta(seconds=1))
        _table_of_four(api)
        (got,) = box.wait_for(1)
    header = got.headers["X-Arena-Signature"]
    assert header.count("v1=") == 1 and push.verify(new.secret, header, got.body)
    assert not push.verify(old, header, got.body)


def test_verify_answers_false_and_never_raises_on_what_it_cannot_read():
    body = b'{"table": 1}'
    good = push.sign("s3cret", 1_700_000_000, body)
    now = 1_700_000_010
    assert push.verify("s3cret", good, body, now=now)
    assert push.verify(["other", "s3cret"], good, body, now=now)
    assert push.verify("s3cret", good.encode(), body, now=now)  # a header read as bytes
    assert push.verify("s3cret", good, body, now=1_700_000_300)  # 300 s: still fine
    assert not push.verify("s3cret", good, body, now=1_700_000_301)  # older: a replay
    for header in [
        "",
        "garbage",
        "t=,v1=",
        "t=abc,v1=00",
        "v1=00",
        "t=1700000000",
        good + ",t=1700000001",
        "t=1700000000,v1=é",
        "t=１７００００００００,v1=00",
        good.replace("t=", "t=é"),
        None,
        12,
        b"\xff\xfe",
        "t=1700000000,v1",
    ]:
        assert push.verify("s3cret", header, body, now=now) is False, header
    assert push.verify([], good, body, now=now) is False
    assert push.verify(["", None], good, body, now=now) is False
    assert push.verify("s3cret", good, "not bytes", now=now) is False


# ---------------------------------------------------------------------------------------------------------------
# A disabled callback, a revoked server: no push
# ---------------------------------------------------------------------------------------------------------------


def test_a_disabled_callback_gets_no_push_and_its_pending_ones_are_abandoned(api, server_key):
    with receiver(answers=[500]) as box:
        callback = ServerCallback.objects.create(server=server_key[0], url=box.url)
        _table_of_four(api)
        box.wait_for(1)
        assert Delivery.objects.get().status == "pending"
        callback.enabled = False
        callback.save()
        pools_run_due(now=timezone.now() + timedelta(seconds=5))  # the retry is due: it is not sent
        time.sleep(0.2)
        assert len(box.received) == 1
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.last_error) == ("abandoned", "callback disabled")
    assert DeliveryAttempt.objects.count() == 1


def test_revoking_abandons_pending_pushes_and_the_retry_never_sends_them(api, server_key):
    with receiver(answers=[500]) as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        _table_of_four(api)
        box.wait_for(1)
        assert game_server_revoke(server=server_key[0])
        delivery = Delivery.objects.get()
        assert (delivery.status, delivery.last_error, delivery.next_attempt_at) == ("abandoned", "server revoked", None)
        pools_run_due(now=timezone.now() + timedelta(seconds=5))
        from matchmaking.services import deliveries_retry

        assert deliveries_retry(delivery_ids=[delivery.pk]) == 0  # not even by hand
        time.sleep(0.2)
        assert len(box.received) == 1
    assert Delivery.objects.get().status == "abandoned"
