"""A game server's callback: created with a secret shown once, its secret rotated with an overlap, the old one
dropped when the superuser chooses (docs/security.md#rotating-keys-and-callback-secrets).

Each write locks the callback's row, so two superusers rotating at once cannot lose a secret between them.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from arena.models import GameServer
from matchmaking.models import ServerCallback, new_secret


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
def callback_rotate_secret(*, callback: ServerCallback, previous_expires_at: datetime | None = None
                           ) -> IssuedSecret:
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
    return bool(ServerCallback.objects.filter(pk=callback.pk).exclude(previous_secret="").update(
        previous_secret="", previous_secret_expires_at=None))
