"""Every admin URL, as an anonymous visitor, as staff outside the Moderators group and as a moderator.

The URLs come from the admin site's own resolver (every registered model's changelist, add, change, delete,
history, object redirect and custom pages, the site's own pages) and the actions from each ModelAdmin, so a
model or page added later is tried too: an unknown one fails ``test_every_admin_url_is_classified``. What a
moderator may reach is docs/moderation.md ("view players, games, flags, reports and the audit log, and take the
actions; nothing else"), as moderation/moderators.py grants it; everything else is refused: 403 for staff, the
login page for anonymous visitors (the admin's answer to "not logged in"), 404 for an app with nothing to show.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import URLPattern, URLResolver
from django.utils import timezone

from arena.models import Game
from arena.players import player_status_ban
from backoffice.admin_door import totp_enrol
from matchmaking.models import Delivery, Pool, ServerCallback, Table, Ticket
from moderation.models import AuditEntry, Flag, Report
from moderation.moderators import GROUP
from ratings.models import HanabotRating, LedgerDay
from seasons.models import Season
from tests.db.moderation.panel_helpers import PASSWORD, Arena, build_ring, make_moderator, player, settle
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

# docs/moderation.md, by hand: the models a moderator views, and the pages of the actions on each.
MODERATED = {
    "arena.player",
    "arena.game",
    "moderation.flag",
    "moderation.report",
    "moderation.auditentry",
    "ratings.hanabotrating",  # issue 27 §4: moderators read the Hanabot table (never edit it)
    "tournaments.tournament",
    "seasons.season",
    "ratings.ledgerday",
}  # read-only pages: the seasons, the rating economy
ACTION_PAGES = {
    "ratings.ledgerday": {"title"},  # a title's economy page
    "arena.player": {"ban", "unban", "reset", "warn", "note", "lift_cooldown"},
    "arena.game": {"void"},
    "moderation.flag": {"confirm", "dismiss", "duplicate", "reopen", "void", "claim", "release"},
    "moderation.report": {"uphold", "confirm", "dismiss", "duplicate", "reopen", "claim", "release"},
    "tournaments.tournament": {"cancel"},
}
CHANGELIST_ACTIONS = {"arena.game": {"void_selected"}}  # the only bulk action a moderator takes
SITE_PAGES_FOR_ANY_STAFF = {"index", "password_change", "password_change_done", "jsi18n"}
KNOWN_SUFFIXES = {"changelist", "add", "change", "delete", "history", "password_change", "config", "qrcode"}


def _walk(patterns, prefix: str = "") -> Iterator[tuple[str, str | None]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.name


def admin_routes() -> list[tuple[str, str | None]]:
    return list(_walk(admin.site.urls[0]))


@pytest.fixture
def objects() -> dict[str, object]:
    """One row of every registered model, so that no URL is refused merely because its object is missing."""
    arena = Arena()
    build_ring(arena, main="kim", alts=("kim_alt",), games=6)
    settle()
    player_status_ban(player=player("kim_alt"))
    server = arena.server
    root = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    now = timezone.now()
    pool = Pool.objects.create(title="tokaido", variant={}, variant_key="{}", rated=True)
    table = Table.objects.create(pool=pool, title="tokaido", rated=True, players=["kim", "ann"], formed_at=now)
    report = Report.objects.create(
        server=server, reporter=player("kim"), reason=Report.Reason.OTHER, reasons=["other"], description="d"
    )
    report.accused.add(player("kim_alt"))
    totp_enrol(root)
    base = {
        "user_agent": "ua",
        "ip_address": None,
        "username": "someone",
        "http_accept": "*/*",
        "path_info": "/admin/login/",
    }
    return {
        "arena.player": player("kim"),
        "arena.game": Game.objects.order_by("pk").first(),
        "moderation.flag": Flag.objects.first(),
        "moderation.report": report,
        "moderation.auditentry": AuditEntry.objects.create(moderator=root, action=AuditEntry.Action.BAN, note="x"),
        "arena.gameserver": server,
        "ratings.hanabotrating": HanabotRating.objects.first(),
        "matchmaking.pool": pool,
        "matchmaking.table": table,
        "matchmaking.ticket": Ticket.objects.create(
            server=server,
            pool=pool,
            player=player("kim"),
            fingerprint="f",
            min_players=2,
            max_players=5,
            created_at=now,
        ),
        "matchmaking.servercallback": ServerCallback.objects.create(server=server, url="https://example.com/hook"),
        "matchmaking.delivery": Delivery.objects.create(
            server=server, table=table, url="https://example.com/hook", created_at=now
        ),
        "auth.user": root,
        "auth.group": Group.objects.get(name=GROUP),
        "axes.accessattempt": AccessAttempt.objects.create(**base, get_data="", post_data="", failures_since_start=1),
        "axes.accesslog": AccessLog.objects.create(**base),
        "axes.accessfailurelog": AccessFailureLog.objects.create(**base),
        "otp_totp.totpdevice": root.totpdevice_set.first(),
        # The ring's rated games may have opened their title's season and written its ledger already.
        "seasons.season": Season.objects.get_or_create(
            title="tokaido", number=1, defaults={"starts_at": now, "ends_at": now}
        )[0],
        "ratings.ledgerday": LedgerDay.objects.get_or_create(title="tokaido", day=now.date(), source="duel")[0],
        "tournaments.tournament": Tournament.objects.create(
            server=server, name="Cup", title="tokaido", rounds=3, table_size=4, starts_at=now
        ),
    }


def _model_of(name: str | None) -> tuple[str | None, str | None]:
    """``arena_player_change`` -> ("arena.player", "change"), from the admin's own naming of its URLs."""
    if not name:
        return None, None
    for model in admin.site._registry:
        prefix = f"{model._meta.app_label}_{model._meta.model_name}_"
        if name.startswith(prefix):
            return model._meta.label_lower, name[len(prefix) :]
    return None, name


def _concrete(route: str, label: str | None, objects: dict) -> str | None:
    """The route with its parameters filled from ``objects``; None for the catch-all and regex routes."""
    if route.startswith("^") or route.startswith("(?P<url>"):
        return None
    obj = objects.get(label) if label else None
    pk = str(obj.pk) if obj is not None else ""
    content_type = ContentType.objects.get_for_model(type(objects["arena.player"]))
    route = route.replace("<path:content_type_id>", str(content_type.pk))
    route = route.replace("<path:object_id>", pk if label else str(objects["arena.player"].pk))
    route = re.sub(r"<(int:)?(pk|id)>", pk, route)
    route = route.replace("<str:game>", "tokaido")  # a title's page (the rating economy)
    assert "<" not in route, route
    return "/admin/" + route


def _every_url(objects: dict) -> list[tuple[str, str | None, str | None]]:
    """(path, model label or None, page) for every admin URL, plus the app index of each app."""
    urls = []
    for route, name in admin_routes():
        label, page = _model_of(name)
        if name is None and route.endswith("<path:object_id>/"):  # the bare object URL, redirecting to change
            label = next(
                m._meta.label_lower
                for m in admin.site._registry
                if route.startswith(f"{m._meta.app_label}/{m._meta.model_name}/")
            )
            page = "object"
        path = _concrete(route, label, objects)
        if path is not None:
            urls.append((path, label, page))
    for app in sorted({m._meta.app_label for m in admin.site._registry}):
        urls.append((f"/admin/{app}/", None, f"app_list:{app}"))
    return urls


def _moderator_may(label: str | None, page: str | None) -> bool:
    if label is None:
        return page in SITE_PAGES_FOR_ANY_STAFF or page in (
            "app_list:arena",
            "app_list:moderation",
            "app_list:ratings",
            "app_list:tournaments",
            "app_list:seasons",
        )
    if label not in MODERATED:
        return False
    return page in {"changelist", "change", "history", "object"} | ACTION_PAGES.get(label, set())


def _staff_may(label: str | None, page: str | None) -> bool:
    return label is None and page in SITE_PAGES_FOR_ANY_STAFF


def _refused_answer(response, *, anonymous: bool, page: str | None) -> bool:
    if anonymous:
        return response.status_code == 302 and response["Location"].startswith("/admin/login/")
    if page and page.startswith("app_list:"):
        return response.status_code == 404
    if page == "autocomplete":
        return response.status_code == 403
    if page == "view_on_site":  # no model here has a public page: nothing to redirect to, for anyone
        return response.status_code == 404
    return response.status_code == 403


def test_every_admin_url_is_classified(objects):
    """A registered model or a page this file does not know fails here, so none is forgotten."""
    for path, label, page in _every_url(objects):
        if label is None:
            assert page in SITE_PAGES_FOR_ANY_STAFF | {"login", "logout", "autocomplete", "view_on_site"} or (
                page or ""
            ).startswith("app_list:"), (path, page)
        else:
            known = KNOWN_SUFFIXES | {"object"} | ACTION_PAGES.get(label, set())
            assert page in known, (path, label, page)
    registered = {m._meta.label_lower for m in admin.site._registry}
    assert registered >= MODERATED and set(objects) == registered


@pytest.fixture
def outsider() -> User:
    return User.objects.create_user("staff", "staff@example.com", PASSWORD, is_staff=True)


def _as(user: User | None) -> Client:
    client = Client()
    if user is not None:
        assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize("who", ["anonymous", "outsider", "moderator"])
def test_every_admin_url_refuses_all_but_what_docs_grant(objects, outsider, who):
    user = {"anonymous": None, "outsider": outsider, "moderator": make_moderator("ann")}[who]
    may = {"anonymous": lambda label, page: False, "outsider": _staff_may, "moderator": _moderator_may}[who]
    client = _as(user)
    checked = 0
    for path, label, page in _every_url(objects):
        if page in ("login", "logout"):
            continue  # the door itself; logging out is no resource
        response = client.get(path)
        if page == "object" and response.status_code == 302 and response["Location"] == f"{path}change/":
            # The bare object URL is Django's plain redirect to the change page, for anyone: judge the target.
            response = client.get(response["Location"])
            page_judged = "change"
        else:
            page_judged = page
        if may(label, page):
            if page in ACTION_PAGES.get(label or "", set()) and response.status_code == 302:
                # An action that does not apply to this object now (unban an active player) sends the moderator
                # back to the object's page with a message: reached, not refused.
                assert response["Location"] == path.rsplit("/", 2)[0] + "/change/", (who, path)
            else:
                assert response.status_code == 200, (who, path, page_judged, response.status_code)
        else:
            assert _refused_answer(response, anonymous=user is None, page=page_judged), (
                who,
                path,
                page_judged,
                response.status_code,
            )
            if page in ("add", "change", "delete") or page in ACTION_PAGES.get(label or "", set()):
                posted = client.post(path, {"note": "n", "post": "yes"})
                assert _refused_answer(posted, anonymous=user is None, page=page), (who, "POST", path)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("who", ["anonymous", "outsider", "moderator"])
def test_every_changelist_action_is_refused_but_the_moderators_own(objects, outsider, who):
    user = {"anonymous": None, "outsider": outsider, "moderator": make_moderator("ann")}[who]
    client = _as(user)
    counts = {label: type(obj)._default_manager.count() for label, obj in objects.items() if obj is not None}
    for model, model_admin in admin.site._registry.items():
        label = model._meta.label_lower
        obj = objects[label]
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        for _, name, _ in model_admin._get_base_actions():
            granted = who == "moderator" and name in CHANGELIST_ACTIONS.get(label, set())
            # A refused action is sent as confirmed ("post": "yes"); the granted one only asks for its page.
            data = {"action": name, "_selected_action": [str(obj.pk)], **({} if granted else {"post": "yes"})}
            response = client.post(url, data)
            if granted:
                assert response.status_code == 200 and b"Void" in response.content, (who, label, name)
            elif who == "moderator" and label in MODERATED:
                # The changelist is the moderator's, the action is not offered: nothing happens.
                assert response.status_code in (200, 302), (who, label, name, response.status_code)
            else:
                assert _refused_answer(response, anonymous=user is None, page="changelist"), (who, label, name)
    assert counts == {label: type(obj)._default_manager.count() for label, obj in objects.items() if obj is not None}
    assert not AuditEntry.objects.exclude(note="x").exists()
