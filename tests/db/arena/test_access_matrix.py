"""Who may call what (docs/security.md#game-server-keys-and-scopes), for every URL pattern the resolver knows.

The patterns are walked from the resolver itself, so a new endpoint cannot be forgotten: a pattern (or a method
of its view) without an entry in ``MATRIX`` fails ``test_every_pattern_and_method_has_an_entry``. The admin's
URLs (``admin/``) have their own matrix (every admin URL as anonymous, staff and moderator), kept apart because
the admin authenticates by session, not by key.

For each keyed endpoint and method, six callers that must be refused, then the key's owner:

- no key: 401 ``missing_api_key``; a malformed header or an unknown key: 401 ``invalid_api_key``;
- a revoked key (which held every scope): 401 ``invalid_api_key``;
- a key holding every scope but the one needed: 403 ``missing_scope`` naming it;
- another server's key with every scope: what docs/api.md says for another tenant (404 for its games and
  tickets, 409 ``open_ticket`` without the ticket's id, its own new rows for creations);
- the owner: the documented success, so that none of the refusals above was a failure for another reason.

Every refusal writes nothing (row counts checked). The expected values are typed from docs/api.md, not read
from the code.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from arena.models import SCOPES, Game
from arena.servers import game_server_create, game_server_revoke
from matchmaking.models import Delivery, Preferences, ServerCallback, Ticket
from moderation.models import Report
from tests.conftest import game_body, player
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db

# Session-authenticated and covered by the admin matrix (docs/moderation.md), not by keys.
ADMIN_PREFIX = "admin/"
_bodies = itertools.count(1)


def walk(patterns: list, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(full route as written in the URLconf, the view callback) for every pattern, depth first."""
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from walk(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.callback


def methods_of(callback: Any) -> set[str]:
    """The HTTP methods a view answers (OPTIONS and HEAD aside: DRF's metadata and GET's twin)."""
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view is None:
        return {"*"}  # a plain function view: answers any method the same way
    return {m.upper() for m in view.http_method_names if m not in ("options", "head") and hasattr(view, m)}


@dataclass
class World:
    """What the callers act on: the owner's game and ticket, a known player, and every kind of key."""

    owner: APIClient
    other: APIClient
    keys: dict[str, str] = field(default_factory=dict)
    game_id: int = 0
    ticket_id: str = ""
    report_id: int = 0
    delivery_id: str = ""
    tournament_id: int = 0


Body = Callable[[World], Any]


@dataclass(frozen=True)
class Keyed:
    """A key-authenticated endpoint: the scope it needs, the owner's and another server's documented answers."""

    scope: str
    owner: tuple[int, str | None]
    other: tuple[int, str | None]
    body: Body | None = None
    rows: tuple[type, ...] = ()


@dataclass(frozen=True)
class Public:
    """No key needed and any key header ignored: the same answer for every caller."""

    status: int
    code: str | None = None


def _game(world: World) -> dict[str, Any]:
    n = next(_bodies)
    return game_body(
        "tokaido",
        [player("alice", score=61, achievements=3), player("bob", score=40, achievements=1)],
        table_id=f"matrix-{n}",
    )


def _batch(world: World) -> dict[str, Any]:
    return {"games": [_game(world)]}


def _ticket_for_waiting_player(world: World) -> dict[str, Any]:
    """The owner's waiting player again: a new ticket for the owner would be 409 with the id, another server's
    409 without it."""
    return {"player": "waiting", "ip": "203.0.113.7", "game": "spades"}


def _fresh_ticket(world: World) -> dict[str, Any]:
    return {"player": f"fresh-{next(_bodies)}", "ip": "203.0.113.8", "game": "spades"}


def _preferences(world: World) -> dict[str, Any]:
    return {"refuse_same_ip": True, "blocked": ["mallory"]}


def _preferences_patch(world: World) -> dict[str, Any]:
    return {"refuse_same_ip": False}


def _callback(world: World) -> dict[str, Any]:
    return {"url": "http://127.0.0.1:9/matrix"}


def _tournament(world: World) -> dict[str, Any]:
    return {"name": "Matrix Swiss", "game": "tokaido", "rounds": 3, "starts_at": "2030-01-01T00:00:00Z"}


def _registration(world: World) -> dict[str, Any]:
    return {"player": f"entrant-{next(_bodies)}", "ip": "203.0.113.9"}


def _report(world: World) -> dict[str, Any]:
    return {"reporter": "alice", "accused": ["bob"], "reason": "other", "description": "Rude in the chat."}


# Every pattern of config/urls.py below /admin/: route as written -> {method: expected}. "*" is a function
# view answering every method alike. Keep in step with docs/api.md and docs/security.md.
MATRIX: dict[str, dict[str, Keyed | Public]] = {
    "api/v1/games/": {
        "POST": Keyed("games", owner=(201, None), other=(201, None), body=_game, rows=(Game,)),
        # Each server lists its own games (docs/api.md "Reading games back"): another's list is its own, 200.
        "GET": Keyed("games", owner=(200, None), other=(200, None)),
    },
    "api/v1/games/batch/": {
        "POST": Keyed("games", owner=(200, None), other=(200, None), body=_batch, rows=(Game,)),
    },
    "api/v1/games/<int:game_id>/": {
        "GET": Keyed("games", owner=(200, None), other=(404, "game_not_found")),
    },
    # Public like the player pages (docs/api.md): the owner's game, recorded but not rated yet in this world (no
    # rating worker runs here), is the same 409 not_rated_yet to every caller, key or none.
    "api/v1/games/<int:game_id>/explain/": {"GET": Public(409, "not_rated_yet")},
    "api/v1/players/<str:player>/": {"GET": Public(200)},
    "api/v1/players/<str:player>/history/<str:game>/": {"GET": Public(200)},
    "api/v1/leaderboards/<str:game>/": {"GET": Public(200)},
    # An operator's read of a title's rating ledger (docs/api.md, "The rating economy"): no tenant owns it.
    "api/v1/titles/<str:game>/economy/": {"GET": Keyed("staff", owner=(200, None), other=(200, None))},
    "api/v1/seasons/<str:game>/": {"GET": Public(200)},
    "api/v1/seasons/<str:game>/<int:season>/": {"GET": Public(404, "season_not_found")},
    "api/v1/players/<str:player>/seasons/<str:game>/": {"GET": Public(200)},
    "api/v1/matchmaking/tickets/": {
        "POST": Keyed(
            "matchmaking",
            owner=(201, None),
            other=(409, "open_ticket"),
            body=_ticket_for_waiting_player,
            rows=(Ticket,),
        ),
        "GET": Keyed("matchmaking", owner=(200, None), other=(200, None)),
    },
    "api/v1/matchmaking/tickets/<str:ticket_id>/": {
        "GET": Keyed("matchmaking", owner=(200, None), other=(404, "ticket_not_found")),
        "DELETE": Keyed("matchmaking", owner=(200, None), other=(404, "ticket_not_found"), rows=(Ticket,)),
    },
    # Players' preferences are the account service's (scope preferences), for any player: no tenant owns one.
    "api/v1/players/<str:player>/preferences/": {
        "GET": Keyed("preferences", owner=(200, None), other=(200, None)),
        "PUT": Keyed("preferences", owner=(200, None), other=(200, None), body=_preferences, rows=(Preferences,)),
        "PATCH": Keyed(
            "preferences", owner=(200, None), other=(200, None), body=_preferences_patch, rows=(Preferences,)
        ),
    },
    "api/v1/reports/": {
        "POST": Keyed("reports", owner=(201, None), other=(201, None), body=_report, rows=(Report,)),
    },
    # Only the server that filed a report reads it back; another server's is 404 (docs/api.md "Reports").
    "api/v1/reports/<int:report_id>/": {
        "GET": Keyed("reports", owner=(200, None), other=(404, "report_not_found")),
    },
    # A server's own callback and pushes (docs/api.md "Callbacks and events"); the other server has none.
    "api/v1/callback/": {
        "GET": Keyed("matchmaking", owner=(200, None), other=(404, "callback_not_found")),
        "PUT": Keyed("matchmaking", owner=(200, None), other=(201, None), body=_callback, rows=(ServerCallback,)),
        "DELETE": Keyed("matchmaking", owner=(204, None), other=(404, "callback_not_found"), rows=(ServerCallback,)),
    },
    "api/v1/callback/rotate-secret/": {
        "POST": Keyed("matchmaking", owner=(200, None), other=(404, "callback_not_found")),
    },
    "api/v1/callback/ping/": {
        "POST": Keyed("matchmaking", owner=(202, None), other=(404, "callback_not_found"), rows=(Delivery,)),
    },
    "api/v1/deliveries/": {"GET": Keyed("matchmaking", owner=(200, None), other=(200, None))},
    "api/v1/deliveries/<str:delivery_id>/": {
        "GET": Keyed("matchmaking", owner=(200, None), other=(404, "delivery_not_found")),
    },
    "api/v1/deliveries/<str:delivery_id>/redeliver/": {
        "POST": Keyed("matchmaking", owner=(202, None), other=(404, "delivery_not_found")),
    },
    # A server's own tournaments (docs/tournaments.md): the owner's, registering with alice alone, is another's 404.
    "api/v1/tournaments/": {
        "POST": Keyed("tournaments", owner=(201, None), other=(201, None), body=_tournament, rows=(Tournament,)),
    },
    "api/v1/tournaments/<int:tournament_id>/": {
        "GET": Keyed("tournaments", owner=(200, None), other=(404, "tournament_not_found")),
    },
    "api/v1/tournaments/<int:tournament_id>/start/": {
        "POST": Keyed(
            "tournaments", owner=(409, "too_few_players"), other=(404, "tournament_not_found"), rows=(Tournament,)
        ),
    },
    "api/v1/tournaments/<int:tournament_id>/players/": {
        "POST": Keyed(
            "tournaments", owner=(201, None), other=(404, "tournament_not_found"), body=_registration, rows=(Entry,)
        ),
    },
    "api/v1/tournaments/<int:tournament_id>/players/<str:player>/": {
        "DELETE": Keyed("tournaments", owner=(204, None), other=(404, "tournament_not_found")),
    },
    "api/v1/tournaments/<int:tournament_id>/rounds/<int:number>/": {
        "GET": Keyed("tournaments", owner=(404, "round_not_found"), other=(404, "tournament_not_found")),
    },
    "api/v1/tournaments/<int:tournament_id>/standings/<str:player>/explain/": {
        "GET": Keyed("tournaments", owner=(404, "standing_not_found"), other=(404, "tournament_not_found")),
    },
    "api/v1/^(?P<unmatched>.*)$": {"*": Public(404, "not_found")},
    "api/schema/": {"GET": Public(200)},
    "api/docs/": {"GET": Public(200)},
    "^healthz/?$": {"*": Public(200)},
    "^readyz/?$": {"*": Public(200)},
    # Prometheus's scrape: no API key opens it, only its own bearer METRICS_TOKEN (docs/observability.md, tested in
    # tests/db/observability/test_metrics.py); to every key, and without the token, a plain 404 with no error code.
    "metrics": {"*": Public(404)},
}


def concrete(route: str, world: World) -> str:
    """A URL for the route, naming the owner's objects."""
    url = (
        route.replace("<int:game_id>", str(world.game_id))
        .replace("<str:ticket_id>", world.ticket_id)
        .replace("<int:report_id>", str(world.report_id))
        .replace("<int:tournament_id>", str(world.tournament_id))
        .replace("<int:number>", "1")
        .replace("<str:delivery_id>", world.delivery_id)
        .replace("<str:player>", "alice")
        .replace("<str:game>", "tokaido")
        .replace("<int:season>", "1")
        .replace("^(?P<unmatched>.*)$", "no-such-endpoint/")
        .replace("^healthz/?$", "healthz/")
        .replace("^readyz/?$", "readyz/")
    )
    assert "<" not in url and "^" not in url, f"add a sample value for {route}"
    return "/" + url


def test_every_pattern_and_method_has_an_entry():
    """A new endpoint (or a new method on one) must be given its row above before anything else passes."""
    found = {
        route: methods_of(callback)
        for route, callback in walk(get_resolver().url_patterns)
        if not route.startswith(ADMIN_PREFIX)
    }
    assert any(route.startswith(ADMIN_PREFIX) for route, _ in walk(get_resolver().url_patterns))
    missing = {
        route: sorted(methods - set(MATRIX.get(route, {})))
        for route, methods in found.items()
        if methods - set(MATRIX.get(route, {}))
    }
    assert missing == {}, f"URL patterns or methods without an entry in MATRIX: {missing}"
    stale = sorted(set(MATRIX) - set(found))
    assert stale == [], f"MATRIX entries for patterns that no longer exist: {stale}"


def _client(header: str | None) -> APIClient:
    client = APIClient()
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)
    return client


@pytest.fixture
def world(db, settings) -> World:
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = True  # the owner's callback points at the loopback (nothing is sent)
    owner_issued = game_server_create(name="matrix-owner", scopes=SCOPES)
    other_issued = game_server_create(name="matrix-other", scopes=SCOPES)
    revoked = game_server_create(name="matrix-revoked", scopes=SCOPES)
    game_server_revoke(server=revoked.server)
    world = World(owner=_client(f"Api-Key {owner_issued.key}"), other=_client(f"Api-Key {other_issued.key}"))
    world.keys = {"owner": owner_issued.key, "other": other_issued.key, "revoked": revoked.key}
    for scope in SCOPES:
        issued = game_server_create(name=f"matrix-without-{scope}", scopes=[s for s in SCOPES if s != scope])
        world.keys[f"without:{scope}"] = issued.key
    recorded = world.owner.post("/api/v1/games/", _game(world), format="json")
    assert recorded.status_code == 201, recorded.content
    world.game_id = recorded.json()["id"]
    waiting = world.owner.post("/api/v1/matchmaking/tickets/", _ticket_for_waiting_player(world), format="json")
    assert waiting.status_code == 201, waiting.content
    world.ticket_id = waiting.json()["id"]
    filed = world.owner.post("/api/v1/reports/", _report(world), format="json")
    assert filed.status_code == 201, filed.content
    world.report_id = filed.json()["id"]
    assert world.owner.put("/api/v1/callback/", _callback(world), format="json").status_code == 201
    pinged = world.owner.post("/api/v1/callback/ping/")
    assert pinged.status_code == 202, pinged.content
    world.delivery_id = pinged.json()["id"]
    created = world.owner.post("/api/v1/tournaments/", _tournament(world), format="json")
    assert created.status_code == 201, created.content
    world.tournament_id = created.json()["id"]
    entered = world.owner.post(
        f"/api/v1/tournaments/{world.tournament_id}/players/", {"player": "alice", "ip": "203.0.113.9"}, format="json"
    )
    assert entered.status_code == 201, entered.content
    return world


def _send(client: APIClient, method: str, url: str, body: Any) -> Any:
    call = getattr(client, method.lower())
    return call(url, body, format="json") if body is not None else call(url)


def _code(response: Any) -> str | None:
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def _rows(models: tuple[type, ...]) -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in models}


REFUSED = [
    ("no key", None, 401, "missing_api_key"),
    ("malformed key", "Bearer abc", 401, "invalid_api_key"),
    ("malformed key, empty", "Api-Key ", 401, "invalid_api_key"),
    ("wrong key", "Api-Key " + "x" * 43, 401, "invalid_api_key"),
    ("revoked key", "revoked", 401, "invalid_api_key"),
]


def _keyed_entries() -> list[tuple[str, str, Keyed]]:
    return [
        (route, method, entry)
        for route, methods in MATRIX.items()
        for method, entry in methods.items()
        if isinstance(entry, Keyed)
    ]


@pytest.mark.parametrize(
    ("route", "method", "entry"), _keyed_entries(), ids=[f"{m} {r}" for r, m, _ in _keyed_entries()]
)
def test_a_keyed_endpoint_refuses_every_wrong_caller_and_answers_its_owner(world, route, method, entry):
    url = concrete(route, world)
    body = entry.body(world) if entry.body else None
    before = _rows(entry.rows)
    for label, header, status, code in REFUSED:
        if header == "revoked":
            header = f"Api-Key {world.keys['revoked']}"
        response = _send(_client(header), method, url, body)
        assert (response.status_code, _code(response)) == (status, code), (label, response.content)
    without = _client(f"Api-Key {world.keys['without:' + entry.scope]}")
    response = _send(without, method, url, body)
    assert (response.status_code, _code(response)) == (403, "missing_scope"), response.content
    assert response.json()["error"]["fields"] == {"scope": entry.scope}
    assert repr(entry.scope) in response.json()["error"]["message"]
    assert _rows(entry.rows) == before, "a refused request wrote something"

    response = _send(world.other, method, url, body)
    assert (response.status_code, _code(response)) == entry.other, ("another server", response.content)
    if entry.other == (409, "open_ticket"):
        # Only the owner learns the open ticket's id (docs/api.md).
        assert world.ticket_id not in response.content.decode()
        assert "ticket" not in response.json()["error"]["fields"]
    if entry.other[0] >= 400:
        assert _rows(entry.rows) == before, "another server's refused request wrote something"

    if entry.body is _ticket_for_waiting_player:
        body = _fresh_ticket(world)  # the owner's own 409 is docs' open_ticket with the id: a new player instead
        again = _send(world.owner, method, url, _ticket_for_waiting_player(world))
        assert (again.status_code, _code(again)) == (409, "open_ticket")
        assert again.json()["error"]["fields"]["ticket"] == world.ticket_id
    response = _send(world.owner, method, url, body)
    assert (response.status_code, _code(response)) == entry.owner, ("owner", response.content)


def _public_entries() -> list[tuple[str, str, Public]]:
    return [
        (route, method, entry)
        for route, methods in MATRIX.items()
        for method, entry in methods.items()
        if isinstance(entry, Public)
    ]


@pytest.mark.parametrize(
    ("route", "method", "entry"), _public_entries(), ids=[f"{m} {r}" for r, m, _ in _public_entries()]
)
def test_a_public_endpoint_answers_alike_whatever_key_is_sent(world, route, method, entry):
    url = concrete(route, world)
    methods = ["GET", "POST", "DELETE"] if method == "*" else [method]
    headers = [
        None,
        "Bearer abc",
        "Api-Key " + "x" * 43,
        f"Api-Key {world.keys['revoked']}",
        f"Api-Key {world.keys['without:games']}",
        f"Api-Key {world.keys['other']}",
        f"Api-Key {world.keys['owner']}",
    ]
    for verb in methods:
        if route.startswith("^") and verb != "GET":
            continue  # health probes: GET is what they are asked (any method answers the same)
        for header in headers:
            response = _send(_client(header), verb, url, None)
            assert response.status_code == entry.status, (verb, header, response.content[:300])
            if entry.code is not None:
                assert _code(response) == entry.code


def test_every_app_with_an_api_is_in_the_matrix():
    """The matrix's own sanity: each app's API door has rows (a door mounted under another prefix would show here)."""
    doors = {
        "arena": "api/v1/games/",
        "ratings": "api/v1/players/<str:player>/",
        "leaderboards": "api/v1/leaderboards/<str:game>/",
        "matchmaking": "api/v1/matchmaking/tickets/",
        "moderation": "api/v1/reports/",
        "seasons": "api/v1/seasons/<str:game>/",
        "tournaments": "api/v1/tournaments/",
    }
    assert all(apps.is_installed(app) for app in doors)
    assert set(doors.values()) <= set(MATRIX)
