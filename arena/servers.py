"""Game servers and their API keys: created with a key shown once, revoked by an admin."""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from arena.db import fetch_one
from arena.models import GameServer

KEY_PREFIX_LENGTH = 8


def hash_key(key: str) -> str:
    """SHA-256 suffices: keys are 256 random bits, so there is nothing to brute-force that a slow hash would slow."""
    return hashlib.sha256(key.encode()).hexdigest()


_SERVER = GameServer._meta.db_table


def game_server_by_key(key: str) -> GameServer | None:
    """The active server holding this key, or None.

    Every API request asks this, so it is one hand-written query (the ORM would spend longer composing it
    than the database spends answering); looked up each time, so a revocation holds from the next request.
    """
    row = fetch_one(
        f"SELECT id, name, key_prefix, created_at FROM {_SERVER} WHERE key_hash = %s AND revoked_at IS NULL",
        [key_hash := hash_key(key)],
    )
    if row is None:
        return None
    server_id, name, prefix, created_at = row
    return GameServer(id=server_id, name=name, key_prefix=prefix, key_hash=key_hash, created_at=created_at)


@dataclass(frozen=True)
class IssuedKey:
    server: GameServer
    key: str


@transaction.atomic
def game_server_create(*, name: str) -> IssuedKey:
    key = secrets.token_urlsafe(32)
    server = GameServer.objects.create(name=name, key_prefix=key[:KEY_PREFIX_LENGTH], key_hash=hash_key(key))
    return IssuedKey(server=server, key=key)


@transaction.atomic
def game_server_rotate_key(*, server: GameServer) -> IssuedKey:
    """A new key replaces the old one at once (the old one stops working)."""
    key = secrets.token_urlsafe(32)
    server.key_prefix, server.key_hash, server.revoked_at = key[:KEY_PREFIX_LENGTH], hash_key(key), None
    server.save(update_fields=["key_prefix", "key_hash", "revoked_at"])
    return IssuedKey(server=server, key=key)


def game_server_revoke(*, server: GameServer) -> None:
    GameServer.objects.filter(pk=server.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
