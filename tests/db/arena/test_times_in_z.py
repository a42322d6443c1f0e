"""Times in one format everywhere (issue 26 §4; docs/api.md, "Times"): every time an answer carries, as a value or
inside a message, is ISO 8601 in UTC with ``Z``, never ``+00:00``.

The audit, kept as a test: an integrator's day of calls (a game with its ``finished_at``, a resend that conflicts
on it, the game read back and listed, the player page, the history with explanations, the explanation, the
board, a season, tickets opened, listed, read and cancelled, the callback set and pinged, the deliveries and their
attempts, a report), and every string of every JSON answer, at any depth, keys included, is searched for a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.models import SCOPES
from arena.servers import game_server_create
from tests.conftest import game_body, player
from tests.db.matchmaking.receiver import receiver
from tests.db.ratings.helpers import rate_all

TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|(?![\d.:]))")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif isinstance(node, str):
        yield node


def _times_not_in_z(answer: Any) -> list[str]:
    return [
        match.group(0) for text in _strings(answer) for match in TIME.finditer(text) if not match.group(0).endswith("Z")
    ]


def test_the_pattern_finds_each_spelling():
    found = _times_not_in_z(
        {
            "a": "2026-01-02T03:04:05+00:00",
            "b": ["at 2026-01-02 03:04 UTC"],
            "c": "2026-01-02T03:04:05.123Z",
            "d": "2026-01-02",
            "2026-01-02T03:04:05": 1,
        }
    )
    assert found == ["2026-01-02T03:04:05+00:00", "2026-01-02 03:04", "2026-01-02T03:04:05"]


@pytest.mark.django_db(transaction=True)
def test_every_time_in_every_answer_is_written_with_z(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.MATCHMAKING_PASS_ON_REQUEST = True
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='times', scopes=SCOPES).key}")
    answers: list[tuple[str, Any]] = []

    def call(method: str, path: str, body: Any = None) -> Any:
        response = getattr(api, method)(path, body, format="json") if body is not None else getattr(api, method)(path)
        assert response.status_code < 500, (path, response.content)
        data = response.json() if response.content else None
        answers.append((f"{method.upper()} {path} {response.status_code}", data))
        return data

    with receiver() as box:
        call("put", "/api/v1/callback/", {"url": box.url})
        game = game_body(
            "tokaido",
            [player("zed", 60, achievements=1), player("yan", 50, achievements=0)],
            finished_at="2026-11-30T12:00:00+01:00",
        )
        recorded = call("post", "/api/v1/games/", game)
        conflict = call("post", "/api/v1/games/", {**game, "finished_at": "2026-11-30T13:30:00+00:00"})
        assert conflict["error"]["code"] == "table_conflict" and "finished_at" in conflict["error"]["fields"]
        rate_all()
        call("get", f"/api/v1/games/{recorded['id']}/")
        call("get", f"/api/v1/games/?table_id={game['table_id']}")
        call("get", "/api/v1/games/?since=2026-11-01T00:00:00Z")
        call("get", "/api/v1/players/zed/")
        call("get", "/api/v1/players/zed/history/tokaido/?explain=true")
        call("get", f"/api/v1/games/{recorded['id']}/explain/")
        call("get", "/api/v1/leaderboards/tokaido/")
        call("get", "/api/v1/seasons/tokaido/")
        call("get", "/api/v1/players/zed/seasons/tokaido/")
        tickets = [
            call(
                "post",
                "/api/v1/matchmaking/tickets/",
                {"player": name, "ip": f"2001:db8:{i}::1", "game": "tokaido", "request_id": f"z-{i}"},
            )
            for i, name in enumerate(("ann", "ben"))
        ]
        for ticket in tickets:
            call("get", f"/api/v1/matchmaking/tickets/{ticket['id']}/")
        call("get", "/api/v1/matchmaking/tickets/?status=matched")
        lone = call(
            "post",
            "/api/v1/matchmaking/tickets/",
            {"player": "cid", "ip": "2001:db8:9::1", "game": "nile", "request_id": "z-9"},
        )
        call("get", "/api/v1/matchmaking/tickets/?status=waiting")
        call("delete", f"/api/v1/matchmaking/tickets/{lone['id']}/")
        call("post", "/api/v1/callback/ping/", {})
        call("post", "/api/v1/callback/rotate-secret/", {"previous_secret_expires_in": 3600})
        call("get", "/api/v1/callback/")
        box.wait_for(2)
        deliveries = call("get", "/api/v1/deliveries/")
        for delivery in deliveries["deliveries"][:3]:
            call("get", f"/api/v1/deliveries/{delivery['id']}/")
        report = call(
            "post",
            "/api/v1/reports/",
            {"reporter": "zed", "accused": ["yan"], "reason": "other", "description": "rude"},
        )
        call("get", f"/api/v1/reports/{report['id']}/")
    times = sum(1 for _, data in answers for text in _strings(data) for _ in TIME.finditer(text))
    assert times >= 20  # the walk met times: finished_at, created_at, attempts, seasons, the conflict's message
    wrong = [(where, _times_not_in_z(data)) for where, data in answers if _times_not_in_z(data)]
    assert not wrong, wrong
