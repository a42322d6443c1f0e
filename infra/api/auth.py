"""``Authorization: Api-Key <key>`` for game servers; only a hash of the key is stored.

The platform checks the header and the scope; who holds keys is the core's to say: ``ArenaConfig.ready`` calls
``key_owner_register`` with the owner's class, its scopes and the function that finds an owner by key
(``arena.servers.game_server_get_by_key``), so this module imports no domain app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from infra.errors import Forbidden

KEYWORD = "Api-Key"
# Generated clients send ``Bearer`` whatever the schema declares (openapi-python-client's fixed default; most
# others leave the header to the caller and show Bearer): the same key under that word is accepted too, as Stripe
# accepts its keys (docs/api.md, "Generated clients"). Nothing else differs: the same lookup, limits and refusals.
ALIASES = frozenset({KEYWORD, "Bearer"})


class KeyOwner(Protocol):
    """What a key's holder answers: its name (on the request line) and the scopes it was granted."""

    name: str

    @property
    def scope_set(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class _Owners:
    kind: type
    scopes: tuple[str, ...]
    by_key: Callable[[str], Any]


_owners: list[_Owners] = []


def key_owner_register(kind: type, scopes: tuple[str, ...], by_key: Callable[[str], Any]) -> None:
    """The one holder of API keys: ``by_key(key)`` is the owner or None (unknown or revoked)."""
    _owners[:] = [_Owners(kind, tuple(scopes), by_key)]


def _registered() -> _Owners:
    if not _owners:
        raise RuntimeError("No API key owner registered (ArenaConfig.ready calls key_owner_register).")
    return _owners[0]


def key_owner_of(user: object) -> KeyOwner | None:
    """The request's user when it is a key's holder (not a panel user, not anonymous)."""
    return user if _owners and isinstance(user, _owners[0].kind) else None  # type: ignore[return-value]


class ApiKeyAuthentication(authentication.BaseAuthentication):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    def authenticate(self, request: HttpRequest) -> tuple[Any, str] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, key = header.partition(" ")
        if scheme not in ALIASES or not key.strip():
            raise exceptions.AuthenticationFailed("Use the header 'Authorization: Api-Key <key>'.")
        server = _registered().by_key(key.strip())
        if server is None:
            raise exceptions.AuthenticationFailed("This API key is unknown or revoked.")
        return server, key

    def authenticate_header(self, request: HttpRequest) -> str:
        # Makes DRF answer 401 (not 403) when the key is missing.
        return KEYWORD


class HasScope(permissions.BasePermission):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    """The default permission of every key-authenticated view: a key, and the scope the view names in
    ``required_scope`` (docs/security.md#game-server-keys-and-scopes).

    Without a key DRF answers 401 ``missing_api_key`` (this says False, as IsAuthenticated does); with a key
    that lacks the scope, 403 ``missing_scope`` naming it. A view that names no scope is refused to every key:
    a new endpoint is closed until someone decides who may call it (and the access-matrix test lists it).
    """

    def has_permission(self, request: Any, view: Any) -> bool:
        server = key_owner_of(request.user)
        if server is None:
            return False
        scope = getattr(view, "required_scope", None)
        if scope not in _registered().scopes:
            raise Forbidden("missing_scope", "This endpoint is open to no key (it names no scope).")
        if scope not in server.scope_set:
            raise Forbidden(
                "missing_scope",
                f"This API key lacks the scope {scope!r}, which this endpoint needs; a superuser grants "
                "scopes in the admin (Game servers).",
                {"scope": scope},
            )
        return True


# drf-spectacular registers an extension in its unannotated __init_subclass__.
class ApiKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Tells the schema (and /api/docs/'s Authorize button) how game servers authenticate."""

    target_class = ApiKeyAuthentication
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": f"`{KEYWORD} <key>` (or `Bearer <key>`, what generated clients send by default), the key "
            "printed once by `manage.py create_game_server NAME`.",
        }
