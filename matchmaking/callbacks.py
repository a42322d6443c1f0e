"""A game server's callback: created with a secret shown once, its secret rotated with an overlap, the old one
dropped when the superuser chooses (docs/security.md#rotating-keys-and-callback-secrets).

Each write locks the callback's row, so two superusers rotating at once cannot lose a secret between them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena.models import GameServer
from infra import handoffs
from infra.errors import Conflict, InvalidInput, NotFound
from matchmaking import events, push_net
from matchmaking.models import Delivery, ServerCallback, new_secret


@dataclass(frozen=True)
class IssuedSecret:
    callback: ServerCallback
    secret: str


@transaction.atomic
def callback_create(*, server: GameServer, url: str, enabled: bool = True) -> IssuedSecret:
    """A new callback with a fresh secret, returned this once for the superuser to copy."""
    secret = new_secret()
    callback = ServerCallback.objects.create(server=server, url=url, enabled=enabled, secret=secret)
    return IssuedSecret(callback, secret)


@transaction.atomic
def callback_rotate_secret(*, callback: ServerCallback, previous_expires_at: datetime | None = None) -> IssuedSecret:
    """A new secret alongside the current one, which becomes the previous: both sign until the previous is
    dropped (by hand, or at ``previous_expires_at``). A previous secret still overlapping is replaced."""
    locked = ServerCallback.objects.select_for_update().get(pk=callback.pk)
    secret = new_secret()
    locked.previous_secret, locked.secret = locked.secret, secret
    locked.previous_secret_expires_at = previous_expires_at
    locked.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at"])
    return IssuedSecret(locked, secret)


@transaction.atomic
def callback_drop_previous_secret(*, callback: ServerCallback) -> bool:
    """The previous secret stops signing now; False if there was none."""
    return bool(
        ServerCallback.objects.filter(pk=callback.pk)
        .exclude(previous_secret="")
        .update(previous_secret="", previous_secret_expires_at=None)
    )


# ----------------------------------------------------------------------------------------------------
# The game server's own doors (docs/api.md, "Callbacks and events"): the same rules as the superuser's admin page.
# ----------------------------------------------------------------------------------------------------

# A rotation through the API keeps the previous secret signing this long unless told otherwise (Stripe's default
# overlap is a day), and at most a week: long enough to roll the new secret out, short enough to end a leak.
ROTATION_OVERLAP_DEFAULT = 24 * 3600
ROTATION_OVERLAP_MAX = 7 * 24 * 3600


@dataclass(frozen=True)
class CallbackSet:
    callback: ServerCallback
    created: bool
    secret: str | None  # the new secret, only when the callback was created (shown once)


def callback_url_check(url: Any) -> str:
    """The URL a push may go to, or ``InvalidInput`` naming ``url``: https on a public address, no credentials, at
    most 500 characters (docs/security.md#pushes-to-game-servers); every send checks the address again."""
    if not isinstance(url, str) or not 1 <= len(url) <= 500:
        raise InvalidInput(
            "invalid_input",
            "The callback needs a URL of at most 500 characters.",
            {"url": "Required: an https URL of at most 500 characters."},
        )
    refusal = push_net.callback_url_refusal(url)
    if refusal is not None:
        raise InvalidInput(
            "invalid_input",
            f"Arena will not push to this URL: {refusal}.",
            {"url": f"Arena will not push here: {refusal}."},
        )
    return url


def callback_get(*, server: GameServer) -> ServerCallback:
    found = ServerCallback.objects.filter(server=server).first()
    if found is None:
        raise NotFound("callback_not_found", "This game server has no callback: PUT /api/v1/callback/ sets one.")
    return found


def callback_set(*, server: GameServer, url: Any, enabled: bool = True) -> CallbackSet:
    """PUT: the server's callback created (with a fresh secret, returned this once) or its URL and switch replaced.
    The row is locked, so two PUTs at once leave one callback and one secret."""
    checked = callback_url_check(url)
    with transaction.atomic():
        GameServer.objects.select_for_update().filter(pk=server.pk).first()  # one creator at a time
        existing = ServerCallback.objects.select_for_update().filter(server=server).first()
        if existing is None:
            issued = callback_create(server=server, url=checked, enabled=enabled)
            return CallbackSet(issued.callback, True, issued.secret)
        existing.url, existing.enabled = checked, enabled
        existing.save(update_fields=["url", "enabled"])
        return CallbackSet(existing, False, None)


def callback_delete(*, server: GameServer) -> None:
    """DELETE: no more pushes; the pending ones are abandoned (listed, never sent), as the admin's removal does."""
    with transaction.atomic():
        deleted, _ = ServerCallback.objects.filter(server=server).delete()
        if not deleted:
            raise NotFound("callback_not_found", "This game server has no callback.")
        Delivery.objects.filter(server=server, status=Delivery.Status.PENDING).update(
            status=Delivery.Status.ABANDONED, next_attempt_at=None, last_error="callback removed"
        )


def callback_rotate_for_server(
    *, server: GameServer, overlap_seconds: int = ROTATION_OVERLAP_DEFAULT, now: datetime | None = None
) -> IssuedSecret:
    """POST rotate-secret: a new secret (shown once); the old one keeps signing for ``overlap_seconds`` (0: stops
    now), so a receiver rolling the new one out misses no push."""
    callback = callback_get(server=server)
    moment = now or timezone.now()
    issued = callback_rotate_secret(callback=callback, previous_expires_at=moment + timedelta(seconds=overlap_seconds))
    if overlap_seconds == 0:
        callback_drop_previous_secret(callback=issued.callback)
        issued.callback.refresh_from_db()
    return issued


def _pushing_callback(server: GameServer) -> ServerCallback:
    callback = callback_get(server=server)
    if not callback.enabled:
        raise Conflict("callback_disabled", 'The callback is disabled: PUT it with "enabled": true first.')
    return callback


def callback_ping(*, server: GameServer) -> Delivery:
    """POST ping: a signed ``ping`` event, pushed like any other (listed in the deliveries, retried)."""
    callback = _pushing_callback(server)
    delivery = events.event_push(server, events.PING, {"callback": {"url": callback.url}})
    if delivery is None:  # pragma: no cover - the callback was removed between the check and the write
        raise NotFound("callback_not_found", "This game server has no callback.")
    return delivery


def delivery_redeliver(*, server: GameServer, delivery_id: Any, now: datetime | None = None) -> Delivery:
    """POST redeliver: the same event (same id, same body for a frozen event) sent again, to the URL the callback
    has now, with a fresh allowance of attempts; a delivered one too (a receiver that lost it asks again)."""
    delivery = delivery_for_server(server=server, delivery_id=delivery_id)
    _pushing_callback(server)
    moment = now or timezone.now()
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.PENDING,
            round_start=F("attempts"),
            next_attempt_at=moment,
            delivered_at=None,
            last_error="",
        )
        handoffs.hand_off(events.tables_push, (str(delivery.pk),))
    delivery.refresh_from_db()
    return delivery


def delivery_for_server(*, server: GameServer, delivery_id: Any) -> Delivery:
    try:
        key = uuid.UUID(str(delivery_id))
    except ValueError:
        key = None
    found = Delivery.objects.filter(pk=key, server=server).first() if key is not None else None
    if found is None:
        raise NotFound("delivery_not_found", f"No delivery {str(delivery_id)[:64]} to this game server.")
    return found
