"""The README's API tour and moderator's tour, step by step, against a live server (issue 19: "a test that reads
like the tour"), so the README cannot drift from what Arena does.

The commands are read from README.md itself: every ``curl`` of the API tour (and of "A ticket's life") is run with
the real ``curl`` against pytest-django's ``live_server``, with only the host, ``$KEY`` and the ticket id put in;
the status a README comment announces (``# 201 {...}``) is checked, and what the prose around it promises is
checked by hand below. The moderator's tour runs its ``manage.py`` commands in-process (``runserver`` is the live
server; ``create_moderator`` reads its password from the environment instead of a terminal), then logs in as the
moderator over HTTP and opens the pages the tour names.

If the README gains, loses or reorders a command, ``test_the_readme_commands_are_the_ones_this_test_knows``
fails first: update the tour and this test together.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import shlex
import shutil
import subprocess
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from arena.models import SCOPES, Player
from arena.servers import game_server_create
from ratings.models import HanabotRating
from tests.db.matchmaking.receiver import receiver
from tests.db.ratings.helpers import ensure_hanabot_table

README = Path(__file__).resolve().parents[3] / "README.md"
PASSWORD = "tour-password-not-a-real-one-8271"

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="the tour runs the README's curl commands")


@pytest.fixture(autouse=True)
def _embedded(settings):
    """The tour is the embedded mode's (scripts/run): tasks run in-process on commit, a ticket's read runs a pass.
    On PostgreSQL and Redis (the service-backed phase) the same holds, with Redis keeping the boards."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.MATCHMAKING_PASS_ON_REQUEST = True


@dataclass
class Step:
    """One command of a README code block and the comment lines that follow it (its announced answer)."""

    argv: list[str]
    answer: list[str] = field(default_factory=list)

    @property
    def announced_status(self) -> int | None:
        match = re.match(r"#\s*(\d{3})\b", self.answer[0]) if self.answer else None
        return int(match.group(1)) if match else None


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end, text.index(start))]


def _steps(section: str) -> list[Step]:
    """The commands of every ``sh`` block of a README section: a command may go on over lines (a trailing
    backslash, or a quote still open), a comment line after it is its answer."""
    steps: list[Step] = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S):
        pending = ""
        for line in block.splitlines():
            if not pending and line.lstrip().startswith("#"):
                if steps:
                    steps[-1].answer.append(line.strip())
                continue
            pending = f"{pending}\n{line}" if pending else line
            if pending.endswith("\\"):
                pending = pending[:-1]
                continue
            try:
                argv = shlex.split(pending, comments=True)
            except ValueError:  # a quote still open: the command goes on
                continue
            pending = ""
            if argv:
                steps.append(Step(argv))
    return steps


def _readme() -> str:
    return README.read_text()


def api_steps() -> list[Step]:
    text = _readme()
    return _steps(_section(text, "## API tour", "## Moderator's tour"))


def moderator_steps() -> list[Step]:
    text = _readme()
    return _steps(_section(text, "## Moderator's tour", "## Benchmarks"))


def explanation_example() -> dict[str, Any]:
    """The README's explanation of the tour's first game (the ``json`` block after the API tour's commands)."""
    section = _section(_readme(), "## API tour", "### A ticket's life")
    (block,) = re.findall(r"```json\n(.*?)```", section, flags=re.S)
    return json.loads(block)


def _shows(shown: Any, answer: Any) -> bool:
    """``shown`` is ``answer`` trimmed: its keys a subset at every level, lists of the same length, values equal."""
    if isinstance(shown, dict):
        return isinstance(answer, dict) and all(k in answer and _shows(v, answer[k]) for k, v in shown.items())
    if isinstance(shown, list):
        return (
            isinstance(answer, list)
            and len(shown) == len(answer)
            and all(_shows(a, b) for a, b in zip(shown, answer, strict=True))
        )
    return shown == answer


def _curl(step: Step, base: str, key: str, ticket: str | None, **put_in: str) -> tuple[int, Any]:
    """The README's curl, as written, aimed at the live server: (status, JSON body). ``put_in`` replaces the
    README's stand-ins (a delivery's id, the callback's example URL) with this run's values."""
    argv = []
    for arg in step.argv:
        arg = arg.replace("localhost:8000", base).replace("$KEY", key)
        if ticket is not None:
            arg = arg.replace("5f0c...", ticket)
        for stand_in, value in put_in.items():
            arg = arg.replace(stand_in, value)
        argv.append(arg)
    assert argv[0] == "curl"
    done = subprocess.run([*argv, "-w", "\n%{http_code}"], capture_output=True, text=True, timeout=60, check=True)
    body, _, status = done.stdout.rpartition("\n")
    return int(status), json.loads(body) if body else None


def test_the_readme_commands_are_the_ones_this_test_knows():
    shapes = [(s.argv[0], s.argv[s.argv.index("-X") + 1] if "-X" in s.argv else "GET") for s in api_steps()]
    assert shapes == [
        ("KEY=...", "GET"),
        ("curl", "POST"),
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),  # the games read back: by table id, since a time
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),  # the season: standings, the player's, a closed one
        ("curl", "POST"),
        ("curl", "GET"),
        ("curl", "DELETE"),
        ("curl", "GET"),
        ("curl", "PUT"),
        ("curl", "PATCH"),
        ("curl", "PUT"),
        ("curl", "POST"),
        ("curl", "GET"),
        ("curl", "POST"),  # callback, ping, deliveries, again
        # the tournament: create, two registrations, start, the table's game, then three reads
        ("curl", "POST"),
        ("curl", "POST"),
        ("curl", "POST"),
        ("curl", "POST"),
        ("curl", "POST"),
        ("curl", "GET"),
        ("curl", "GET"),
        ("curl", "GET"),
    ]
    setup, *commands = moderator_steps()
    assert setup.argv == ["export", "DEBUG=true"]  # production is the default: the tour says development first
    assert [s.argv[2:3] for s in commands] == [["migrate"], ["create_moderator"], ["simulate"], ["runserver"]]


@pytest.mark.django_db(transaction=True, reset_sequences=True)  # the tour reads game 1: ids start at 1 here too
@pytest.mark.embedded_pass  # the README's tour runs on the development default, as the README runs it
def test_the_api_tour_step_by_step(live_server, empty_tokaido_board):
    base = live_server.url.removeprefix("http://")
    key = game_server_create(name="tour", scopes=SCOPES).key  # "the demo key has all six" scopes
    steps = [s for s in api_steps() if s.argv[0] == "curl"]
    (
        record,
        game,
        page,
        history,
        board,
        explain,
        by_table,
        since,
        season,
        season_player,
        season_closed,
        ticket_new,
        ticket_get,
        ticket_delete,
        ticket_list,
        put,
        patch,
        callback,
        ping,
        deliveries,
        redeliver,
        *tournament,
    ) = steps

    # Record the game as written: 201, the places the tour shows.
    status, created = _curl(record, base, key, None)
    assert status == record.announced_status == 201
    assert created["places"] == {"alice": 1, "bob": 2} and created["warnings"] == []
    assert created["status"] in ("pending", "rated")
    assert created["id"] == 1, "the tour reads game 1 next"

    # "Resending the same body returns 200 with the stored game and changes nothing."
    status, again = _curl(record, base, key, None)
    assert (status, again["id"]) == (200, created["id"])

    status, read = _curl(game, base, key, None)
    assert status == 200 and read["id"] == 1 and read["status"] == "rated"  # embedded: rated on commit
    assert {c["player"] for c in read["rating_changes"]} == {"alice", "bob"}

    status, alice = _curl(page, base, key, None)
    tokaido = alice["ratings"]["tokaido"]
    assert status == 200 and tokaido["games"] == 1 and tokaido["rank"] is None
    assert tokaido["not_ranked"]["reason"] == "too_few_games"  # "the player page's not_ranked says why"

    status, changes = _curl(history, base, key, None)
    assert status == 200 and [e["game_id"] for e in changes["entries"]] == [1]

    # "The leaderboard stays empty after this first game ... Record four more tables with the same players
    # (new table_ids) and both appear."
    status, empty = _curl(board, base, key, None)
    assert (status, empty["total"], empty["entries"]) == (200, 0, [])

    # "The explanation of that first game ..., trimmed": every value the README shows is the answer's.
    status, explained = _curl(explain, base, key, None)
    assert status == 200
    shown = explanation_example()
    assert shown["game"] == 1 and _shows(shown, explained), (shown, explained)
    for seat in explained["seats"]:  # "delta is always the sum of the terms plus quit_penalty"
        assert seat["delta"] == pytest.approx(sum(t["term"] for t in seat["terms"]) + seat["quit_penalty"])
    for n in range(2, 6):
        more = Step([arg.replace('"T-1"', f'"T-{n}"') for arg in record.argv])
        assert _curl(more, base, key, None)[0] == 201
    status, full = _curl(board, base, key, None)
    assert status == 200 and [e["player"] for e in full["entries"]] == ["alice", "bob"]

    # The games read back as recorded: by the server's own table id, and every game since a time, oldest first.
    status, found = _curl(by_table, base, key, None)
    assert status == 200 and [(g["id"], g["table_id"]) for g in found["games"]] == [(1, "T-1")]
    assert {p["player"]: p["place"] for p in found["games"][0]["players"]} == {"alice": 1, "bob": 2}
    status, listed = _curl(since, base, key, None)
    assert status == 200 and [g["table_id"] for g in listed["games"]] == ["T-1", "T-2", "T-3", "T-4", "T-5"]
    assert listed["next"] is None and all(g["finished_at"].endswith("Z") for g in listed["games"])

    # The season (docs/seasons.md): the five games count for the current one; none has closed yet.
    status, current = _curl(season, base, key, None)
    assert status == 200 and {row["player"] for row in current["standings"]} == {"alice", "bob"}
    status, mine = _curl(season_player, base, key, None)
    assert status == 200 and mine["games"] == 5
    status, closed = _curl(season_closed, base, key, None)
    assert (status, closed["error"]["code"]) == (404, "season_not_found")

    # A ticket's life: created (201) and waiting, the same request_id again is the same ticket (200).
    status, ticket = _curl(ticket_new, base, key, None)
    assert status == ticket_new.announced_status == 201
    assert ticket["status"] in ("waiting", "matched") and ticket["party"] == ["bob"]
    if ticket["status"] == "waiting":
        waited = ticket["waiting"]["seconds"]  # "the Elo gap it accepts now (150 + 10 per second, up to 800)"
        assert ticket["waiting"]["elo_tolerance"] == pytest.approx(150 + 10 * waited, abs=1.0)  # each rounded to 0.1
        assert ticket["waiting"]["expires_in"] == pytest.approx(600 - waited, abs=0.2)
    status, same = _curl(ticket_new, base, key, None)
    assert (status, same["id"]) == (200, ticket["id"])
    status, polled = _curl(ticket_get, base, key, ticket["id"])
    assert status == 200 and polled["id"] == ticket["id"]
    status, cancelled = _curl(ticket_delete, base, key, ticket["id"])
    if polled["status"] == "waiting":
        assert (status, cancelled["status"]) == (200, "cancelled")
    else:  # a party of two filled a table of two at once: only a waiting ticket can be cancelled
        assert (status, cancelled["error"]["code"]) == (409, "ticket_not_waiting")
    status, mine = _curl(ticket_list, base, key, None)
    expected = [ticket["id"]] if polled["status"] == "waiting" else []
    assert status == 200 and [t["id"] for t in mine["tickets"]] == expected and mine["next"] is None

    # "(scope preferences: the demo key has it; a key from create_game_server does not, unless --scope gives it)"
    status, refused = _curl(put, base, game_server_create(name="tour-default").key, None)
    assert (status, refused["error"]["code"], refused["error"]["fields"]) == (
        403,
        "missing_scope",
        {"scope": "preferences"},
    )
    status, prefs = _curl(put, base, key, None)
    assert (status, prefs) == (200, {"player": "alice", "refuse_same_ip": True, "blocked": ["mallory"]})
    status, prefs = _curl(patch, base, key, None)
    announced = json.loads(patch.answer[0].lstrip("# ").split("   ")[0])
    assert status == 200 and prefs == announced == {"player": "alice", "refuse_same_ip": False, "blocked": ["mallory"]}
    _tournament_tour(tournament, base, key)
    _callback_tour([callback, ping, deliveries, redeliver], base, key)


def _tournament_tour(steps: list[Step], base: str, key: str) -> None:
    """ "A tournament (Swiss)": each command's announced status, and the answers the README shows, trimmed."""
    for step in steps:
        status, answer = _curl(step, base, key, None)
        if step.announced_status is not None:
            assert status == step.announced_status, (step.argv, answer)
            shown = step.answer[0].split(" ", 2)[2].split("   ")[0].strip()
            if shown.endswith("}"):
                shown = shown.replace(", ...}", "}").replace(", ...", "")
                assert _shows(json.loads(shown), answer), (shown, answer)
        else:
            assert status == 200, (step.argv, answer)
    explained = answer
    assert explained["points"]["total"] == sum(t["points"] for t in explained["points"]["terms"]) == 2


def _callback_tour(steps: list[Step], base: str, key: str) -> None:
    """ "Push instead of polling": the callback set through the API (the README's example URL is this run's
    receiver), a signed ping received and listed with its attempt, and redelivered under the same id."""
    callback, ping, deliveries, redeliver = steps
    with receiver() as box:
        example = "https://game.example.com/arena-events"
        status, hook = _curl(callback, base, key, None, **{example: box.url})
        assert status == callback.announced_status == 201 and hook["url"] == box.url and hook["secret"]
        status, pinged = _curl(ping, base, key, None)
        assert status == ping.announced_status == 202 and pinged["type"] == "ping"
        (first,) = box.wait_for(1)
        assert first.headers["X-Arena-Delivery"] == pinged["id"] and first.headers["Arena-Event"] == "ping"
        status, sent = _curl(deliveries, base, key, None)
        (delivery,) = sent["deliveries"]
        assert status == 200 and delivery["id"] == pinged["id"] and delivery["status"] == "delivered"
        assert [a["status_code"] for a in delivery["attempts"]] == [200] and sent["next"] is None
        status, again = _curl(redeliver, base, key, None, **{"d41c...": pinged["id"]})
        assert status == redeliver.announced_status == 202 and again["id"] == pinged["id"]
        second = box.wait_for(2)[1]
        assert second.headers["X-Arena-Delivery"] == pinged["id"]


class _Browser:
    """A cookie-keeping HTTP client that logs into the Django admin like a person does (CSRF token included)."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def login(self, username: str, password: str) -> str:
        _, form = self.get("/admin/login/?next=/admin/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        data = urllib.parse.urlencode(
            {"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/admin/"}
        ).encode()
        request = urllib.request.Request(
            self.base + "/admin/login/?next=/admin/", data=data, headers={"Referer": self.base + "/admin/login/"}
        )
        with self.opener.open(request, timeout=60) as response:
            return response.read().decode()


@pytest.mark.embedded_pass  # the README's tour runs on the development default, as the README runs it
def test_the_moderators_tour_step_by_step(live_server, monkeypatch):
    monkeypatch.setenv("TOUR_PASSWORD", PASSWORD)
    setup, *commands = moderator_steps()
    for assignment in setup.argv[1:]:  # "export DEBUG=true": development, as this test run already is
        name, _, value = assignment.partition("=")
        assert (name, value) == ("DEBUG", "true")
        monkeypatch.setenv(name, value)
    for step in commands:
        assert step.argv[:2] == [".venv/bin/python", "manage.py"]
        name, *args = step.argv[2:]
        if name == "runserver":
            continue  # the live server is the one running
        if name == "migrate":
            # Already migrated; the live server's database is flushed between tests, which drops the rows the data
            # migrations wrote (the Hanabot table), so they are written again as migrate wrote them.
            ensure_hanabot_table()
        if name == "create_moderator":
            args += ["--password-env", "TOUR_PASSWORD"]  # "asks for a password": given here without a terminal
        if name == "simulate":
            args += ["--no-progress"]
        call_command(name, *args, stdout=open("/dev/null", "w"))  # noqa: SIM115

    ann = _Browser(live_server.url)
    dashboard = ann.login("ann", PASSWORD)
    # "The dashboard lists open flags by score, open reports oldest first, the latest moderator actions and the
    # rating queue's lag per game."
    for words in ("flag", "report", "action"):
        assert words in dashboard.lower(), words
    flag = re.search(r'href="(/admin/moderation/flag/\d+/change/)"', dashboard)
    assert flag, "the planted rings are flagged, so the dashboard lists flags"
    status, flag_page = ann.get(flag.group(1))
    assert status == 200 and "<svg" in flag_page  # "a picture of the ring"
    assert "Confirm multiple accounts" in flag_page and "Dismiss" in flag_page

    player = re.search(r'href="(/admin/arena/player/\d+/change/)"', flag_page)
    assert player, "the flag links its players"
    status, player_page = ann.get(player.group(1))
    assert status == 200 and "<svg" in player_page  # the rating history plotted
    for action in ("Ban", "Reset ratings"):
        assert action in player_page, action

    handle = Player.objects.get(pk=re.search(r"/(\d+)/change/", player.group(1)).group(1)).handle
    status, games = ann.get(f"/admin/arena/game/?q={handle}")
    assert status == 200  # "The Games list searches by player id."
    game = re.search(r'href="(/admin/arena/game/\d+/change/)', games)
    assert game and ann.get(game.group(1))[0] == 200
    assert ann.get("/admin/moderation/auditentry/")[0] == 200
    # "view ... the Hanabot table, ... nothing else (no editing ratings, no deleting games, no keys, no editing the
    # Hanabot table)"
    assert ann.get("/admin/arena/gameserver/")[0] == 403
    assert ann.get("/admin/ratings/hanabotrating/")[0] == 200
    read_only = ann.get(f"/admin/ratings/hanabotrating/{HanabotRating.objects.first().pk}/change/")
    assert read_only[0] == 200 and 'name="_save"' not in read_only[1]  # no Save: test_admin_permissions posts
