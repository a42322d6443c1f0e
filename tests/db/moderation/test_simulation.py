"""Detection measured against the truth ``simulate`` planted: precision and recall of flagged (beneficiary, title).

The populations are posted through the real API by the command itself, and rated and detected after every batch
as in production (the commit hooks run: embedded mode's in-process tasks), over several seeds and sizes: early
coincidences that later games undo must not be left in the queue. The default mix (households, a café) must flag
no household member at all.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from backoffice.admin.reads import flag_candidates
from moderation.models import Flag, FlagFeeder
from moderation.selectors import multiple_accounts_warnings
from tests.db.moderation.helpers import detect
from tests.db.ratings.helpers import rate_all

# Committed: each batch's commit hooks rate it and run detection, as the embedded mode does for a game server.
pytestmark = pytest.mark.django_db(transaction=True)

SMALL = {"players": 60, "households": 6, "rings": 4, "games": 800}
LARGE = {"players": 250, "households": 16, "rings": 12, "games": 3500}


@pytest.fixture
def simulate():
    def run(**options) -> dict:
        out = io.StringIO()
        call_command("simulate", no_progress=True, stdout=out, stderr=io.StringIO(), **options)
        truth = json.loads(out.getvalue())
        rate_all()  # no-ops when the hooks did their work; a broker (service runs) leaves it to this
        detect()
        return truth

    return run


def measured(truth: dict) -> tuple[float, float, set, set]:
    flagged = set(Flag.objects.filter(status=Flag.Status.OPEN).values_list("beneficiary__handle", "title"))
    planted = {tuple(p) for p in truth["planted"]}
    hits = flagged & planted
    precision = len(hits) / len(flagged) if flagged else 1.0
    recall = len(hits) / len(planted) if planted else 1.0
    return precision, recall, flagged, planted


@pytest.mark.parametrize(
    "options",
    [
        {"seed": 1},
        {"seed": 2},
        {"seed": 3},
        {"seed": 4, **SMALL},
        {"seed": 5, **LARGE},
    ],
    ids=["default-1", "default-2", "default-3", "small-4", "large-5"],
)
def test_precision_and_recall_at_least_90_percent(options, simulate):
    truth = simulate(**options)
    assert truth["posted"] == {"201": truth["games"]}
    precision, recall, flagged, planted = measured(truth)
    assert len(planted) >= 4
    assert precision >= 0.9, f"false flags: {sorted(flagged - planted)}"
    assert recall >= 0.9, f"missed rings: {sorted(planted - flagged)}"
    # The feeders the open flags name are planted alts of that main, and nearly all of them are named.
    alts = {(r["main"], a) for r in truth["rings"] for a in r["alts"]}
    found = set(
        FlagFeeder.objects.filter(flag__status=Flag.Status.OPEN).values_list(
            "flag__beneficiary__handle", "feeder__handle"
        )
    )
    assert len(found & alts) >= 0.9 * len(found) and len(found & alts) >= 0.9 * len(alts)
    # No household member and no café regular is a beneficiary or a feeder of any flag, open or withdrawn.
    members = {h for house in truth["households"] for h in house} | {h for cafe in truth["cafes"] for h in cafe}
    assert len(members) > 10
    involved = set(Flag.objects.values_list("beneficiary__handle", flat=True))
    involved |= set(FlagFeeder.objects.values_list("feeder__handle", flat=True))
    assert not involved & members
    # A planted ring is not its own crowd: no open flag's confirm page warns of a widely-shared hash, and no link
    # of its evidence is marked widely shared (issue 20 §1: warnings that can change a moderator's mind).
    for flag in Flag.objects.filter(status=Flag.Status.OPEN):
        warnings = multiple_accounts_warnings(accounts=flag_candidates(flag=flag))
        assert not [w for w in warnings if "tied only through" in w], (flag.beneficiary.handle, warnings)
        assert not [lk for f in flag.evidence["feeders"] for lk in f["links"] if lk["crowded"]]
