"""Pushing a formed table to a game server: a signed POST, each attempt recorded, retried with backoff.

The signature follows the common webhook shape (Stripe, GitHub): ``X-Arena-Signature: t=<unix>,v1=<hex>``
where ``hex`` is HMAC-SHA256 under the server's secret of ``"<t>.<body>"``. The timestamp is inside the signed
text, so a receiver that refuses old timestamps refuses replays; ``X-Arena-Delivery`` carries the delivery id,
the same on every attempt, so a receiver drops a duplicate (a push is delivered at least once).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from matchmaking import metrics
from matchmaking.models import Delivery, DeliveryAttempt, ServerCallback
from matchmaking.selectors import table_present

SIGNATURE_HEADER = "X-Arena-Signature"
DELIVERY_HEADER = "X-Arena-Delivery"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The header value for ``body`` sent at ``timestamp`` (what a receiver recomputes and compares)."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(secret: str, header: str, body: bytes, *, now: float | None = None, tolerance: float = 300.0) -> bool:
    """What a receiver does (used by the tests, and a reference for game-server developers)."""
    try:
        parts = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs((now if now is not None else time.time()) - timestamp) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), header)


def payload(delivery: Delivery) -> bytes:
    """The body: the table, and which of the server's own tickets it seats."""
    tickets = delivery.tickets
    body: dict[str, Any] = {"delivery": str(delivery.pk), "table": table_present(table=delivery.table),
                            "tickets": tickets}
    return json.dumps(body, separators=(",", ":"), default=str).encode()


@dataclass(frozen=True)
class AttemptOutcome:
    delivered: bool
    retry_in: float | None  # seconds until the next attempt, None when there is none


def backoff(attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: the base delay doubled per failed attempt (2, 4, 8, ... s)."""
    return settings.MATCHMAKING_PUSH_BACKOFF * 2 ** (attempt - 1)


def delivery_attempt(*, delivery_id: Any) -> AttemptOutcome:
    """One POST of the delivery, recorded; a delivery already done or given up is left alone."""
    delivery = (Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING)
                .select_related("table").first())
    if delivery is None:
        return AttemptOutcome(True, None)
    secret = (ServerCallback.objects.filter(server_id=delivery.server_id).values_list("secret", flat=True).first()
              or "")
    body = payload(delivery)
    request = urllib.request.Request(delivery.url, data=body, method="POST", headers={
        "Content-Type": "application/json",
        "User-Agent": "Arena-Matchmaker/1",
        SIGNATURE_HEADER: sign(secret, int(time.time()), body),
        DELIVERY_HEADER: str(delivery.pk),
    })
    started = time.perf_counter()
    code: int | None = None
    error = ""
    try:
        with urllib.request.urlopen(request, timeout=settings.MATCHMAKING_PUSH_TIMEOUT) as response:
            code = response.status
    except urllib.error.HTTPError as refused:
        code, error = refused.code, f"HTTP {refused.code}"
    except (urllib.error.URLError, OSError, ValueError) as failure:
        error = str(getattr(failure, "reason", failure))[:500] or type(failure).__name__
    elapsed = int((time.perf_counter() - started) * 1000)
    delivered = code is not None and 200 <= code < 300
    return _record(delivery, code, error, elapsed, delivered)


def _record(delivery: Delivery, code: int | None, error: str, elapsed: int, delivered: bool) -> AttemptOutcome:
    now = timezone.now()
    with transaction.atomic():
        locked = Delivery.objects.select_for_update().get(pk=delivery.pk)
        # Two counts: ``attempts`` is this round's (the limit and the backoff; the admin's retry starts it again
        # from 0), the history's ``number`` never restarts, so after a retry the admin reads attempts 1..n+1, not
        # a second "attempt 1". Numbered under the delivery's row lock, so concurrent attempts never share one.
        number = (DeliveryAttempt.objects.filter(delivery=locked).aggregate(last=Max("number"))["last"] or 0) + 1
        DeliveryAttempt.objects.create(delivery=locked, number=number, at=now, status_code=code, error=error,
                                       duration_ms=elapsed)
        locked.attempts += 1
        retry_in = None
        if delivered:
            locked.status, locked.delivered_at, locked.next_attempt_at, locked.last_error = (
                Delivery.Status.DELIVERED, now, None, "")
        elif locked.status == Delivery.Status.DELIVERED:
            pass  # a concurrent attempt succeeded meanwhile
        elif locked.attempts >= settings.MATCHMAKING_PUSH_ATTEMPTS:
            locked.status, locked.next_attempt_at, locked.last_error = Delivery.Status.FAILED, None, error
        else:
            retry_in = backoff(locked.attempts)
            locked.next_attempt_at = now + timezone.timedelta(seconds=retry_in)
            locked.last_error = error
        locked.save(update_fields=["attempts", "status", "delivered_at", "next_attempt_at", "last_error"])
    outcome = "delivered" if delivered else ("failed" if retry_in is not None else "given_up")
    metrics.PUSH_ATTEMPTS.labels(outcome=outcome).inc()
    return AttemptOutcome(delivered, retry_in)
