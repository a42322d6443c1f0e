"""The two commands as an operator runs them: JSON on stdout, progress and summaries on stderr."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from arena.models import Game

pytestmark = pytest.mark.django_db


def run(name: str, **options) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(name, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def test_simulate_posts_through_the_api_and_prints_the_truth():
    out, err = run("simulate", seed=5, players=20, households=2, cafes=1, cafe_users=5, rings=2, games=100, batch=50)
    truth = json.loads(out)
    assert truth["games"] == Game.objects.count() > 100
    assert truth["posted"] == {"201": truth["games"]}
    assert [len(r["alts"]) in range(1, 5) for r in truth["rings"]] == [True, True]
    assert {r["link"] for r in truth["rings"]} == {"ip", "device"}
    assert len(truth["households"]) == 2 and len(truth["cafes"]) == 1
    assert "\r[" in err and f"{truth['games']}/{truth['games']} games" in err
    assert set(Game.objects.values_list("title", flat=True)) == {
        "wizard",
        "hanabi",
        "tokaido",
        "spades",
        "railroad_ink",
        "nile",
    }


def test_simulate_is_the_same_for_the_same_seed():
    first, _ = run("simulate", seed=8, players=10, households=1, rings=1, games=20, prefix="a", no_progress=True)
    second, _ = run("simulate", seed=8, players=10, households=1, rings=1, games=20, prefix="a2", no_progress=True)
    a, b = json.loads(first), json.loads(second)
    assert a["games"] == b["games"]
    assert [r["titles"] for r in a["rings"]] == [r["titles"] for r in b["rings"]]


def test_detect_abuse_prints_one_json_line_per_open_flag(api):
    from tests.db.moderation.helpers import duel, link, record

    record(
        api,
        link("b", "f")
        + [duel("b", "f") for _ in range(5)]
        + link("c", "g")
        + [duel("c", "g", title="nile") for _ in range(6)],
    )
    out, err = run("detect_abuse")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(x["game"], x["beneficiary"], x["feeders"]) for x in lines] == [
        ("nile", "c", ["g"]),
        ("tokaido", "b", ["f"]),
    ]
    assert all(set(x) == {"flag", "game", "beneficiary", "feeders", "score"} for x in lines)
    assert lines[0]["score"] > lines[1]["score"]
    assert "looked at 15 new games" in err and "and 11 newly rated" in err
    # A second run has nothing new but still lists the open flags.
    again, err = run("detect_abuse")
    assert again == out and "looked at 0 new games" in err and "and 0 newly rated" in err


@pytest.mark.parametrize("batch", [0, -1])
def test_detect_abuse_refuses_a_batch_below_one(batch):
    with pytest.raises(CommandError, match="--batch"):
        run("detect_abuse", batch=batch)
