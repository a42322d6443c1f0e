"""Context on every case page and working the queue: related flags, duplicates, claims, a reporter's history and
the links between the accused and the reporter (issue 20 §4)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry, Flag, FlagFeeder, Report
from moderation.services import case_claim, case_close_as_duplicate, case_release, claim_holder
from moderation.services.reports import reporter_record
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def arena() -> Arena:
    return Arena()


def client_for(username: str) -> Client:
    make_moderator(username)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.fixture
def two_flags(arena) -> tuple[Flag, Flag]:
    """One ring seen in two titles: kim fed by kim_alt in Tokaido (#a) and in Nile (#b), as detection files it."""
    arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    flags = []
    for title in ("tokaido", "nile"):
        flag = Flag.objects.create(beneficiary=player("kim"), title=title, score=5.0, evidence={}, game_ids=[])
        FlagFeeder.objects.create(
            flag=flag,
            feeder=player("kim_alt"),
            shared_games=5,
            wins=5,
            win_share=1.0,
            concentration=1.0,
            elo_gained=50.0,
        )
        flags.append(flag)
    return flags[0], flags[1]


def test_a_flag_names_the_other_open_flags_of_its_accounts(two_flags):
    first, second = two_flags
    shown = page(client_for("mod"), f"/admin/moderation/flag/{first.pk}/change/")
    assert f'<a href="/admin/moderation/flag/{second.pk}/change/">flag #{second.pk}</a>: kim in nile' in shown
    # Breadcrumbs and headings name the handle, never a database id.
    assert f"flag #{first.pk}: kim in tokaido" in shown


def test_a_flag_closed_as_a_duplicate_of_another(two_flags):
    first, second = two_flags
    mod = make_moderator("mod")
    with pytest.raises(InvalidInput):
        case_close_as_duplicate(moderator=mod, obj=second, of=second.pk)
    with pytest.raises(InvalidInput):
        case_close_as_duplicate(moderator=mod, obj=second, of=999_999)
    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    response = client.post(
        f"/admin/moderation/flag/{second.pk}/duplicate/", {"duplicate_of": first.pk, "note": "same ring"}
    )
    assert response.status_code == 302
    second.refresh_from_db()
    assert (second.status, second.duplicate_of_id, second.resolved_by.username) == ("duplicate", first.pk, "mod")
    entry = AuditEntry.objects.get(action="close_duplicate")
    assert entry.details == {"duplicate_of": first.pk} and set(entry.flags.all()) == {first, second}
    shown = page(client, f"/admin/moderation/flag/{second.pk}/change/")
    assert f'Closed as a duplicate of <a href="/admin/moderation/flag/{first.pk}/change/">#{first.pk}</a>' in shown
    # The first flag lists no other open flag any more.
    assert (
        "flag #" + str(second.pk)
        not in page(client, f"/admin/moderation/flag/{first.pk}/change/")
        .split("Other open flags")[1]
        .split("</section>")[0]
    )


def test_a_claim_shows_who_holds_the_case_refuses_others_and_lapses_after_an_hour(two_flags):
    first, _ = two_flags
    anna, bert = make_moderator("anna"), make_moderator("bert")
    started = timezone.now()
    entry = case_claim(moderator=anna, obj=first)
    first.refresh_from_db()
    assert claim_holder(first) == anna
    assert started + timedelta(hours=1) <= first.claimed_until <= timezone.now() + timedelta(hours=1)
    assert entry.details["until"] == first.claimed_until.isoformat()
    bert_client = Client()
    assert bert_client.login(username="bert", password=PASSWORD)
    assert "Held by <strong>anna</strong>" in page(bert_client, f"/admin/moderation/flag/{first.pk}/change/")
    assert "anna" in page(bert_client, "/admin/moderation/flag/")  # the queue's "held by" column
    refused = bert_client.post(f"/admin/moderation/flag/{first.pk}/claim/", {}).content.decode()
    assert "This flag is held by anna until" in refused
    with pytest.raises(Conflict):
        case_release(moderator=bert, obj=first)
    Flag.objects.filter(pk=first.pk).update(claimed_until=timezone.now() - timedelta(seconds=1))
    first.refresh_from_db()
    assert claim_holder(first) is None
    case_claim(moderator=bert, obj=first)
    first.refresh_from_db()
    assert claim_holder(first) == bert
    case_release(moderator=bert, obj=first)
    first.refresh_from_db()
    assert claim_holder(first) is None and first.claimed_by is None


def test_resolving_a_case_ends_its_claim(two_flags):
    first, second = two_flags
    anna = make_moderator("anna")
    case_claim(moderator=anna, obj=second)
    case_close_as_duplicate(moderator=anna, obj=second, of=first.pk)
    second.refresh_from_db()
    assert second.claimed_by is None and claim_holder(second) is None


def test_a_report_shows_links_between_accused_and_reporter_and_the_reporters_real_history(arena):
    arena.game([("kim", "203.0.113.50"), ("olga", "203.0.113.50")])  # kim and olga share an address
    arena.game([("kim", fresh_ip()), ("zed", fresh_ip())])
    settle()
    report = arena.report(
        reporter="olga", accused=["kim", "zed"], reason="multiple_accounts", description="same person"
    )
    shown = page(client_for("mod"), f"/admin/moderation/report/{report['id']}/change/")
    assert '<span id="reporter-history">no history</span>' in shown and "50 %" not in shown
    assert '<tr class="with-reporter"><td>kim – olga</td><td>ip</td>' in shown
    assert "zed" not in shown.split('id="report-links"')[1].split("</table>")[0]  # no link to zed


def test_a_report_closed_as_a_duplicate_counts_for_no_track_record(arena):
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    first = arena.report(reporter="olga", accused=["kim"], reason="other", description="rude")
    second = arena.report(reporter="olga", accused=["kim"], reason="other", description="rude again")
    mod = make_moderator("mod")
    case_close_as_duplicate(moderator=mod, obj=Report.objects.get(pk=second["id"]), of=first["id"])
    assert Report.objects.get(pk=second["id"]).status == "duplicate"
    assert reporter_record(reporter=player("olga")) == 0.5  # still neutral: nothing upheld or dismissed
