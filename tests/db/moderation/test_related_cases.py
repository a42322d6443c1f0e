"""One step closes a case (issue 27 §2; docs/moderation.md, "One step closes a case"): confirming a ring or
banning an account offers, with ticked boxes, every other open flag and report it settles, and closes the ticked
ones in the same transaction as resolved by that action; opening an action's page claims the case.

The ring: kim fed by kim_alt, flagged in tokaido and in nile. Reports by olga: one against kim_alt (settled by
the ring), one against kim (settled), one against kim_alt and zed (zed is not in the ring: not settled).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from infra.errors import Conflict
from moderation.models import AuditEntry, Flag, FlagFeeder, Report
from moderation.services import covered_open_cases, multiple_accounts_confirm, player_ban
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player

pytestmark = pytest.mark.django_db


def _flag(beneficiary: str, feeder: str, title: str) -> Flag:
    flag = Flag.objects.create(beneficiary=player(beneficiary), title=title, score=5.0, evidence={}, game_ids=[])
    FlagFeeder.objects.create(
        flag=flag, feeder=player(feeder), shared_games=5, wins=5, win_share=1.0, concentration=1.0, elo_gained=50.0
    )
    return flag


@pytest.fixture
def case() -> dict:
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip()), ("olga", fresh_ip()), ("zed", fresh_ip())])
    arena.game([("zed", fresh_ip()), ("zed_alt", fresh_ip())])

    def report(*accused: str) -> Report:
        return Report.objects.get(
            pk=arena.report(reporter="olga", accused=list(accused), reason="other", description="alts")["id"]
        )

    return {
        "tokaido": _flag("kim", "kim_alt", "tokaido"),
        "nile": _flag("kim", "kim_alt", "nile"),
        "zed": _flag("zed", "zed_alt", "nile"),
        "alt": report("kim_alt"),
        "main": report("kim"),
        "mixed": report("kim_alt", "zed"),
    }


def _login(username: str) -> Client:
    make_moderator(username)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def test_the_cases_a_ring_settles_are_its_other_flag_and_the_reports_about_it_alone(case):
    found = covered_open_cases(accounts={player("kim").pk, player("kim_alt").pk}, exclude=case["tokaido"])
    assert found == [case["nile"], case["alt"], case["main"]]  # not zed's flag, not the report naming zed too
    assert covered_open_cases(accounts={player("kim_alt").pk}) == [case["alt"]]  # kim is not banned: flags stay


def test_confirming_closes_the_ticked_cases_in_the_same_step_as_resolved_by_it(case):
    mod = make_moderator("mod")
    entry = multiple_accounts_confirm(
        moderator=mod,
        primary=player("kim"),
        flag=case["tokaido"],
        note="one person",
        close_cases=[case["nile"], case["alt"], case["main"]],
    )
    nile, alt, main, mixed = (
        type(c).objects.get(pk=c.pk) for c in (case["nile"], case["alt"], case["main"], case["mixed"])
    )
    assert (nile.status, alt.status, main.status, mixed.status) == ("confirmed", "upheld", "upheld", "open")
    assert nile.note == "Resolved with the confirmation of kim, kim_alt as one person. one person"
    assert nile.resolved_by == mod and alt.resolved_by == mod
    assert entry.details["closed_with"] == {"flags": [nile.pk], "reports": [alt.pk, main.pk]}
    assert set(entry.flags.values_list("pk", flat=True)) == {case["tokaido"].pk, nile.pk}
    assert AuditEntry.objects.count() == 1  # one action, one entry


def test_a_ticked_case_the_action_does_not_settle_refuses_the_whole_action(case):
    mod = make_moderator("mod")
    with pytest.raises(Conflict) as refused:
        multiple_accounts_confirm(
            moderator=mod,
            primary=player("kim"),
            flag=case["tokaido"],
            note="x",
            close_cases=[case["nile"], case["mixed"]],
        )
    assert refused.value.code == "related_case_not_covered"
    assert Flag.objects.get(pk=case["tokaido"].pk).status == "open"
    assert Flag.objects.get(pk=case["nile"].pk).status == "open"
    assert player("kim_alt").status == "active" and not AuditEntry.objects.exists()


def test_the_confirm_page_offers_them_ticked_and_closes_only_those_left_ticked(case):
    client = _login("mod")
    url = f"/admin/moderation/flag/{case['tokaido'].pk}/confirm/"
    shown = client.get(url).content.decode()
    ticked = set(re.findall(r'<input type="checkbox" name="close_cases" value="([^"]+)"[^>]*checked>', shown))
    assert ticked == {f"flag:{case['nile'].pk}", f"report:{case['alt'].pk}", f"report:{case['main'].pk}"}
    assert f'report:{case["mixed"].pk}"' not in shown and f'flag:{case["zed"].pk}"' not in shown
    response = client.post(
        url,
        {
            "primary": player("kim").pk,
            "note": "one person",
            "close_cases": [f"flag:{case['nile'].pk}", f"report:{case['alt'].pk}"],
        },
    )
    assert response.status_code == 302
    assert Flag.objects.get(pk=case["nile"].pk).status == "confirmed"
    assert Report.objects.get(pk=case["alt"].pk).status == "upheld"
    assert Report.objects.get(pk=case["main"].pk).status == "open"  # unticked: left for the moderator


def test_banning_an_account_closes_the_reports_about_it_alone(case):
    client = _login("mod")
    url = f"/admin/arena/player/{player('kim_alt').pk}/ban/"
    shown = client.get(url).content.decode()
    assert f'value="report:{case["alt"].pk}"' in shown and f'flag:{case["nile"].pk}"' not in shown
    response = client.post(url, {"duration": 0, "note": "alt account", "close_cases": [f"report:{case['alt'].pk}"]})
    assert response.status_code == 302
    report = Report.objects.get(pk=case["alt"].pk)
    assert report.status == "upheld" and report.note == "Resolved with the ban of kim_alt. alt account"
    entry = AuditEntry.objects.get(action="ban")
    assert entry.details["closed_with"] == {"flags": [], "reports": [report.pk]}


def test_a_stale_tick_on_a_case_closed_meanwhile_refuses_the_ban(case):
    mod = make_moderator("mod")
    Report.objects.filter(pk=case["alt"].pk).update(status="dismissed")
    with pytest.raises(Conflict) as refused:
        player_ban(moderator=mod, player=player("kim_alt"), note="alt", close_cases=[case["alt"]])
    assert refused.value.code == "related_case_closed" and player("kim_alt").status == "active"


def test_opening_an_action_page_claims_the_case_and_the_next_moderator_is_warned(case):
    ann = _login("ann")
    ann.get(f"/admin/moderation/flag/{case['nile'].pk}/dismiss/")
    flag = Flag.objects.get(pk=case["nile"].pk)
    assert flag.claimed_by.username == "ann"
    assert not AuditEntry.objects.exists()  # a notice, not an action: no audit entry
    bob = _login("bob")
    shown = bob.get(f"/admin/moderation/flag/{flag.pk}/dismiss/").content.decode()
    assert "ann holds this flag until " in shown
    assert Flag.objects.get(pk=flag.pk).claimed_by.username == "ann"  # bob's look took nothing from ann
