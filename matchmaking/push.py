"""Pushing a formed table to a game server: a signed POST, each attempt recorded, retried with backoff.

The signature follows the common webhook shape (Stripe, GitHub): ``X-Arena-Signature: t=<unix>,v1=<hex>``
where ``hex`` is HMAC-SHA256 under the server's secret of ``"<t>.<body>"``. The timestamp is inside the signed
text, so a receiver that refuses old timestamps refuses replays; ``X-Arena-Delivery`` carries the delivery id,
the same on every attempt, so a receiver drops a duplicate (a push is delivered at least once). While a rotated
secret overlaps the new one, the header carries one ``v1=`` per valid secret, newest first, so a receiver checking
either secret accepts it (docs/security.md#rotating-keys-and-callback-secrets). The body and headers are described
in docs/matchmaking.md and the schema's ``webhooks``.

Where it goes and how long it may take is ``push_net``'s: public addresses only, pinned, no redirects, one deadline.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from matchmaking import events, metrics, push_net
from matchmaking.models import Delivery, DeliveryAttempt, ServerCallback, Ticket
from matchmaking.selectors import table_present

SIGNATURE_HEADER = "X-Arena-Signature"
DELIVERY_HEADER = "X-Arena-Delivery"


def _digest(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def sign(secrets: str | Sequence[str], timestamp: int, body: bytes) -> str:
    """The header value for ``body`` sent at ``timestamp``: one ``v1=`` per secret, in the order given (what a
    receiver recomputes and compares). Refuses an empty secret: a push is never signed with one."""
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    if not keys or not all(keys):
        raise ValueError("a push is never signed with an empty or missing secret")
    return ",".join([f"t={timestamp}", *(f"v1={_digest(key, timestamp, body)}" for key in keys)])


def verify(
    secrets: str | Sequence[str], header: Any, body: bytes, *, now: float | None = None, tolerance: float = 300.0
) -> bool:
    """What a receiver does: True when a ``v1=`` of the header is the HMAC of ``"<t>.<body>"`` under one of
    ``secrets`` (one, or a list while a rotation overlaps) and ``t`` is within ``tolerance`` seconds of now.

    The reference for game-server developers (docs/matchmaking.md), used by the tests. Constant-time compares;
    never raises: a malformed, non-ASCII or missing header, a non-numeric or repeated ``t``, an empty secret or a
    body that is not bytes are all just False.
    """
    try:
        keys = [secrets] if isinstance(secrets, str) else list(secrets)
        if isinstance(header, bytes):
            header = header.decode("ascii")
        if not isinstance(header, str) or not isinstance(body, bytes) or not header.isascii():
            return False
        timestamp: int | None = None
        signatures: list[str] = []
        for part in header.split(","):
            name, equals, value = part.strip().partition("=")
            if not equals:
                return False
            if name == "t":
                if timestamp is not None or not value.isdigit() or len(value) > 12:
                    return False
                timestamp = int(value)
            elif name == "v1":
                signatures.append(value)
        if timestamp is None or not signatures:
            return False
        if abs((now if now is not None else time.time()) - timestamp) > tolerance:
            return False
        matched = False
        for key in keys:
            if not isinstance(key, str) or not key:
                continue
            expected = _digest(key, timestamp, body)
            for signature in signatures:
                matched |= hmac.compare_digest(expected, signature)  # every pair compared: no early exit
        return matched
    except Exception:  # a verifier answers False to anything it cannot read, never raises
        return False


def signing_secrets(callback: ServerCallback, *, now: datetime | None = None) -> list[str]:
    """The secrets a push is signed with now: the current one, and the previous one until it is dropped or its
    time passes. Empty ones never count."""
    moment = now or timezone.now()
    keys = [callback.secret] if callback.secret else []
    expires = callback.previous_secret_expires_at
    if callback.previous_secret and (expires is None or expires > moment):
        keys.append(callback.previous_secret)
    return keys


def event_data(delivery: Delivery) -> Any:
    """The event's ``data``: a ``table.formed`` is the table and which of the server's own tickets it seats, each
    with the server's ``request_id`` (docs/matchmaking.md "Pushes"), read at the send; any other event keeps the
    data it was created with (matchmaking/events.py)."""
    if delivery.event_type != events.TABLE_FORMED or delivery.table_id is None:
        return delivery.data
    ids = list(delivery.tickets)
    request_ids = dict(Ticket.objects.filter(pk__in=ids).values_list("pk", "request_id"))
    tickets = [{"id": str(ticket_id), "request_id": request_ids.get(uuid.UUID(str(ticket_id)))} for ticket_id in ids]
    return {"table": table_present(table=delivery.table), "tickets": tickets}


def payload(delivery: Delivery) -> bytes:
    """The body: the event envelope (``events.envelope``) around the event's data; times as the API writes them
    (ISO 8601, ``T`` and ``Z``), by the API's own encoder."""
    body = events.envelope(
        event_id=str(delivery.pk),
        event_type=delivery.event_type,
        created_at=delivery.created_at,
        data=event_data(delivery),
    )
    return json.dumps(body, separators=(",", ":"), cls=JSONEncoder, ensure_ascii=False).encode()


@dataclass(frozen=True)
class AttemptOutcome:
    delivered: bool
    retry_in: float | None  # seconds until the next attempt, None when there is none


def backoff(attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: the base delay doubled per failed attempt (2, 4, 8, ... s)."""
    return settings.MATCHMAKING_PUSH_BACKOFF * 2 ** (attempt - 1)


def delivery_attempt(*, delivery_id: Any) -> AttemptOutcome:
    """One POST of the delivery, recorded; a delivery already done or given up is left alone.

    A server revoked, a callback disabled or removed: the push is abandoned, never sent. No secret to sign with:
    nothing is sent, and the attempt is recorded as failed (docs/security.md#pushes-to-game-servers).
    """
    delivery = (
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING)
        .select_related("table", "server")
        .first()
    )
    if delivery is None:
        return AttemptOutcome(True, None)
    callback = ServerCallback.objects.filter(server_id=delivery.server_id).first()
    stop = (
        "server revoked"
        if delivery.server.revoked_at is not None
        else "callback removed"
        if callback is None
        else "callback disabled"
        if not callback.enabled
        else None
    )
    if stop is not None:
        Delivery.objects.filter(pk=delivery.pk, status=Delivery.Status.PENDING).update(
            status=Delivery.Status.ABANDONED, next_attempt_at=None, last_error=stop
        )
        return AttemptOutcome(False, None)
    assert callback is not None
    if callback.url != delivery.url:  # corrected in the admin: the next attempt goes to the URL saved now
        Delivery.objects.filter(pk=delivery.pk).update(url=callback.url)
    keys = signing_secrets(callback)
    started = time.perf_counter()
    if not keys:
        answer = push_net.Answer(None, "no secret to sign with: nothing sent")
    else:
        body = payload(delivery)
        answer = push_net.post(
            callback.url,
            body,
            {
                "Content-Type": "application/json",
                "User-Agent": "Arena-Matchmaker/1",
                SIGNATURE_HEADER: sign(keys, int(time.time()), body),
                DELIVERY_HEADER: str(delivery.pk),
                events.EVENT_HEADER: delivery.event_type,
            },
        )
    elapsed = int((time.perf_counter() - started) * 1000)
    delivered = answer.status is not None and 200 <= answer.status < 300
    return _record(delivery, answer.status, answer.error, elapsed, delivered)


def _record(delivery: Delivery, code: int | None, error: str, elapsed: int, delivered: bool) -> AttemptOutcome:
    now = timezone.now()
    with transaction.atomic():
        locked = Delivery.objects.select_for_update().get(pk=delivery.pk)
        # ``attempts`` counts every attempt, as the history's ``number`` does, so the page's count is the rows'; the
        # limit and the backoff count those since ``round_start`` (an admin's retry moves it up). Numbered under the
        # delivery's row lock, so concurrent attempts never share a number.
        number = (DeliveryAttempt.objects.filter(delivery=locked).aggregate(last=Max("number"))["last"] or 0) + 1
        DeliveryAttempt.objects.create(
            delivery=locked, number=number, at=now, status_code=code, error=error, duration_ms=elapsed
        )
        locked.attempts += 1
        this_round = locked.attempts - locked.round_start
        retry_in = None
        if delivered:
            locked.status, locked.delivered_at, locked.next_attempt_at, locked.last_error = (
                Delivery.Status.DELIVERED,
                now,
                None,
                "",
            )
        elif locked.status != Delivery.Status.PENDING:
            pass  # a concurrent attempt succeeded meanwhile, or the push was abandoned (its server revoked)
        elif this_round >= settings.MATCHMAKING_PUSH_ATTEMPTS:
            locked.status, locked.next_attempt_at, locked.last_error = Delivery.Status.FAILED, None, error
        else:
            retry_in = backoff(this_round)
            locked.next_attempt_at = now + timezone.timedelta(seconds=retry_in)
            locked.last_error = error
        locked.save(update_fields=["attempts", "status", "delivered_at", "next_attempt_at", "last_error"])
    outcome = "delivered" if delivered else ("failed" if retry_in is not None else "given_up")
    metrics.PUSH_ATTEMPTS.labels(outcome=outcome).inc()
    return AttemptOutcome(delivered, retry_in)
