"""Mistakes the panel refuses and reopening (issue 27 §1; docs/moderation.md, "Mistakes the panel refuses").

A duplicate must share an account with the case it closes; the duplicate form offers only those; a case closed by
mistake is reopened, audited, its closing undone; a ban's length is never a default (tests/db/moderation/
test_admin_pages.py covers the ban form).
"""

from __future__ import annotations

import pytest
from django.test import Client

from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry, Flag, FlagFeeder, Report
from moderation.services import case_close_as_duplicate, case_reopen, flag_dismiss, report_dismiss
from moderation.services.reports import reporter_record
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player

pytestmark = pytest.mark.django_db


def _flag(beneficiary: str, feeder: str, title: str) -> Flag:
    flag = Flag.objects.create(beneficiary=player(beneficiary), title=title, score=5.0, evidence={}, game_ids=[])
    FlagFeeder.objects.create(
        flag=flag, feeder=player(feeder), shared_games=5, wins=5, win_share=1.0, concentration=1.0, elo_gained=50.0
    )
    return flag


@pytest.fixture
def rings() -> dict[str, Flag]:
    """kim fed by kim_alt in two titles (one ring, two flags); zed fed by zed_alt (an unrelated ring)."""
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    arena.game([("zed", fresh_ip()), ("zed_alt", fresh_ip())])
    return {
        "kim_tokaido": _flag("kim", "kim_alt", "tokaido"),
        "kim_nile": _flag("kim", "kim_alt", "nile"),
        "zed_nile": _flag("zed", "zed_alt", "nile"),
    }


def _client() -> tuple[Client, object]:
    mod = make_moderator("mod")
    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    return client, mod


def test_a_duplicate_of_an_unrelated_ring_is_refused_and_nothing_is_closed(rings):
    mod = make_moderator("mod")
    with pytest.raises(InvalidInput) as refused:
        case_close_as_duplicate(moderator=mod, obj=rings["kim_nile"], of=rings["zed_nile"].pk, note="typo")
    assert refused.value.code == "duplicate_of_unrelated"
    assert Flag.objects.get(pk=rings["kim_nile"].pk).status == "open" and not AuditEntry.objects.exists()


def test_the_duplicate_form_offers_only_the_related_cases_and_refuses_another(rings):
    client, _ = _client()
    url = f"/admin/moderation/flag/{rings['kim_nile'].pk}/duplicate/"
    shown = client.get(url).content.decode()
    tokaido = rings["kim_tokaido"].pk
    assert f'<option value="{tokaido}">#{tokaido}: kim in tokaido, score 5.0 (open)</option>' in shown
    assert f'value="{rings["zed_nile"].pk}"' not in shown
    assert '<option value="" selected>Choose a related case…</option>' in shown  # nothing preselected
    response = client.post(url, {"duplicate_of": rings["zed_nile"].pk, "note": "typo"})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert Flag.objects.get(pk=rings["kim_nile"].pk).status == "open"
    response = client.post(url, {"duplicate_of": tokaido, "note": "same ring"})
    assert response.status_code == 302
    assert Flag.objects.get(pk=rings["kim_nile"].pk).duplicate_of_id == tokaido


def test_reopening_a_duplicate_undoes_the_link_and_is_audited(rings):
    mod = make_moderator("mod")
    nile, tokaido = rings["kim_nile"], rings["kim_tokaido"]
    case_close_as_duplicate(moderator=mod, obj=nile, of=tokaido.pk, note="same ring")
    with pytest.raises(InvalidInput):
        case_reopen(moderator=mod, obj=nile, note="  ")
    entry = case_reopen(moderator=mod, obj=nile, note="different titles, judge apart")
    nile.refresh_from_db()
    assert (nile.status, nile.duplicate_of_id, nile.resolved_by, nile.note) == ("open", None, None, "")
    assert entry.action == "reopen" and entry.note == "different titles, judge apart"
    assert entry.details["was"] == "duplicate" and entry.details["duplicate_of"] == tokaido.pk
    assert entry.details["closing_note"] == "same ring" and entry.details["undone"] == ["status", "duplicate_of"]
    with pytest.raises(Conflict) as again:
        case_reopen(moderator=mod, obj=nile, note="twice")
    assert again.value.code == "not_closed"


def test_a_dismissed_flag_is_not_reopened_beside_a_newer_open_flag_of_the_title(rings):
    mod = make_moderator("mod")
    flag_dismiss(moderator=mod, flag=rings["kim_nile"], note="looks fine")
    _flag("kim", "kim_alt", "nile")  # detection raised it again
    with pytest.raises(Conflict) as refused:
        case_reopen(moderator=mod, obj=rings["kim_nile"], note="was wrong")
    assert refused.value.code == "open_flag_exists"


def test_reopening_a_dismissed_report_takes_it_out_of_the_reporters_record():
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    mod = make_moderator("mod")
    reports = [
        Report.objects.get(
            pk=arena.report(reporter="olga", accused=["kim"], reason="other", description=f"rude {n}")["id"]
        )
        for n in range(3)
    ]
    for report in reports:
        report_dismiss(moderator=mod, report=report, note="nothing there")
    dismissed_thrice = reporter_record(reporter=player("olga"))
    entry = case_reopen(moderator=mod, obj=reports[0], note="the chat log shows it")
    assert entry.details["undone"] == ["status", "reporter_track_record"]
    assert Report.objects.get(pk=reports[0].pk).status == "open"
    assert reporter_record(reporter=player("olga")) != dismissed_thrice


def test_the_reopen_page_is_offered_on_a_closed_flag_only(rings):
    client, mod = _client()
    url = f"/admin/moderation/flag/{rings['kim_nile'].pk}/reopen/"
    assert client.get(url).status_code == 302  # open: the page redirects with the reason
    flag_dismiss(moderator=mod, flag=rings["kim_nile"], note="looks fine")
    assert "Reopen this flag" in client.get(url).content.decode()
    response = client.post(url, {"note": "dismissed by mistake"})
    assert response.status_code == 302 and Flag.objects.get(pk=rings["kim_nile"].pk).status == "open"
    assert AuditEntry.objects.filter(action="reopen", flags=rings["kim_nile"]).count() == 1


def test_a_second_moderator_opening_a_claimed_flags_action_page_is_told_who_holds_it(rings):
    from moderation.services import case_claim

    ann = make_moderator("ann")
    case_claim(moderator=ann, obj=rings["kim_nile"])
    client, _ = _client()
    shown = client.get(f"/admin/moderation/flag/{rings['kim_nile'].pk}/dismiss/").content.decode()
    assert "ann holds this flag until " in shown and "they may be acting on it now." in shown
    ann_client = Client()
    assert ann_client.login(username="ann", password=PASSWORD)
    assert (
        "holds this flag"
        not in ann_client.get(f"/admin/moderation/flag/{rings['kim_nile'].pk}/dismiss/").content.decode()
    )  # one's own claim: no warning
