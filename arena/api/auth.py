"""``Authorization: Api-Key <key>`` for game servers; only a hash of the key is stored."""
from __future__ import annotations

from django.http import HttpRequest
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
