"""``Authorization: Api-Key <key>`` for game servers; only a hash of the key is stored."""
from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from arena.models import GameServer
from arena.servers import game_server_by_key

KEYWORD = "Api-Key"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: HttpRequest) -> tuple[GameServer, str] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, key = header.partition(" ")
        if scheme != KEYWORD or not key.strip():
            raise exceptions.AuthenticationFailed("Use the header 'Authorization: Api-Key <key>'.")
        server = game_server_by_key(key.strip())
        if server is None:
            raise exceptions.AuthenticationFailed("This API key is unknown or revoked.")
        return server, key

    def authenticate_header(self, request: HttpRequest) -> str:
        # Makes DRF answer 401 (not 403) when the key is missing.
        return KEYWORD


class ApiKeyScheme(OpenApiAuthenticationExtension):
    """Tells the schema (and /api/docs/'s Authorize button) how game servers authenticate."""

    target_class = ApiKeyAuthentication
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": f"`{KEYWORD} <key>`, the key printed once by `manage.py create_game_server NAME`."}
