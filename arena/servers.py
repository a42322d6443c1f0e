"""Game servers and their API keys: created with a key shown once, scoped, revoked for good by an admin.

docs/security.md#game-server-keys-and-scopes says what each scope opens; #rotating-keys-and-callback-secrets why a
revoked key is never brought back by a rotation.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from arena.models import DEFAULT_SCOPES, SCOPES, GameServer
from infra.announcements import ServerRevoked, announce_within
from infra.db import fetch_one

KEY_PREFIX_LENGTH = 8


def api_key_hash(key: str) -> str:
    """SHA-256 suffices: keys are 256 random bits, so there is nothing to brute-force that a slow hash would slow."""
    return hashlib.sha256(key.encode()).hexdigest()


_SERVER = GameServer._meta.db_table


def game_server_get_by_key(key: str) -> GameServer | None:
    """The active server holding this key, or None.

    Every API request asks this, so it is one hand-written query (the ORM would spend longer composing it
    than the database spends answering); looked up each time, so a revocation or a change of scopes holds from
    the next request.
    """
    row = fetch_one(
        f"SELECT id, name, key_prefix, created_at, scopes FROM {_SERVER} WHERE key_hash = %s AND revoked_at IS NULL",
        [key_hash := api_key_hash(key)],
    )
    if row is None:
        return None
    server_id, name, prefix, created_at, scopes = row
    return GameServer(
        id=server_id, name=name, key_prefix=prefix, key_hash=key_hash, created_at=created_at, scopes=scopes
    )


def scopes_text(scopes: Iterable[str]) -> str:
    """The stored form of a set of scopes: known names only, in the documented order; refuses an unknown one."""
    wanted = set(scopes)
    unknown = sorted(wanted - set(SCOPES))
    if unknown:
        raise ValueError(f"Unknown scope(s) {', '.join(unknown)}; the scopes are {', '.join(SCOPES)}.")
    return " ".join(scope for scope in SCOPES if scope in wanted)


class ServerRevokedError(Exception):
    """A revoked server was to be given a new key: refused, a revocation is for good."""


@dataclass(frozen=True)
class IssuedKey:
    server: GameServer
    key: str


@transaction.atomic
def game_server_create(*, name: str, scopes: Iterable[str] = DEFAULT_SCOPES) -> IssuedKey:
    key = secrets.token_urlsafe(32)
    server = GameServer.objects.create(
        name=name, key_prefix=key[:KEY_PREFIX_LENGTH], key_hash=api_key_hash(key), scopes=scopes_text(scopes)
    )
    return IssuedKey(server=server, key=key)


@transaction.atomic
def game_server_key_rotate(*, server: GameServer) -> IssuedKey:
    """A new key replaces the old one at once (the old one stops working). A revoked server stays revoked: a
    rotation is refused (ServerRevokedError), since it would otherwise bring back a server an admin shut out."""
    locked = GameServer.objects.select_for_update().get(pk=server.pk)
    if locked.revoked_at is not None:
        raise ServerRevokedError(
            f"{locked.name}'s key was revoked; a revoked server is never given a new key. "
            "Create a new game server instead."
        )
    key = secrets.token_urlsafe(32)
    locked.key_prefix, locked.key_hash = key[:KEY_PREFIX_LENGTH], api_key_hash(key)
    locked.save(update_fields=["key_prefix", "key_hash"])
    server.key_prefix, server.key_hash = locked.key_prefix, locked.key_hash
    return IssuedKey(server=locked, key=key)


@transaction.atomic
def game_server_scopes_set(*, server: GameServer, scopes: Iterable[str]) -> GameServer:
    """The key's scopes, from its next request (the admin's page, the demo command). A revoked key keeps what it
    had: it opens nothing any more, and its page shows the scopes it held when it was revoked."""
    server.scopes = scopes_text(scopes)
    GameServer.objects.filter(pk=server.pk, revoked_at__isnull=True).update(scopes=server.scopes)
    return server


@transaction.atomic
def game_server_revoke(*, server: GameServer) -> bool:
    """Revokes the key for good; False if it was revoked already. In the same transaction the higher apps end
    what they hold for the server (``ServerRevoked``: matchmaking cancels its waiting tickets with the reason
    ``server_revoked`` and abandons its pending pushes), so no pass can seat, and no worker push, for a server
    that is gone."""
    revoked = bool(GameServer.objects.filter(pk=server.pk, revoked_at__isnull=True).update(revoked_at=timezone.now()))
    if revoked:
        announce_within(ServerRevoked(server.pk))
    return revoked
