"""What the dashboard shows: the queues a moderator works through and how far behind the raters are.

Each block is read only when the user may see it (a staff user without moderation rights gets the rating lag
alone), and each is one query, bounded by ``QUEUE_ROWS``, so the index stays quick at any size of the queues.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count
from django.utils import timezone

from moderation.detection import detection_lag
from moderation.models import AuditEntry, Flag, Report
from ratings.selectors import rating_lag

QUEUE_ROWS = 15
RECENT_ACTIONS = 10


def rating_lag_rows(*, now: datetime | None = None) -> list[dict[str, Any]]:
    """Ratings' own reading of its lag (``ratings.selectors.rating_lag``, the same as the ``arena_rating_*``
    gauges), per title with games waiting for the Elo stage, as a moderator reads it."""
    return [
        {"title": row.title, "pending": row.pending, "oldest": row.oldest, "age": age_text(row.age)}
        for row in rating_lag(now=now)
    ]


def age_text(age: timedelta) -> str:
    """A wait as a moderator reads it: "42 s", "7 min", "3 h 5 min", "2 d 4 h"."""
    seconds = int(age.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} h {minutes % 60} min"
    return f"{hours // 24} d {hours % 24} h"


def dashboard_context(*, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any]:
    """The blocks this user may see; a block the user may not see is None (the template leaves it out)."""
    out: dict[str, Any] = {
        "rating_lag": rating_lag_rows(),
        "detection_lag": detection_lag(),
        "flags": None,
        "reports": None,
        "actions": None,
    }
    if user.has_perm("moderation.view_flag"):
        flags = Flag.objects.filter(status=Flag.Status.OPEN)
        out["flags"] = list(
            flags.select_related("beneficiary", "claimed_by")
            .annotate(n_feeders=Count("feeders"))
            .order_by("-score", "id")[:QUEUE_ROWS]
        )
        out["flags_open"] = flags.count()
    if user.has_perm("moderation.view_report"):
        reports = Report.objects.filter(status=Report.Status.OPEN)
        out["reports"] = list(
            reports.select_related("reporter", "claimed_by")
            .prefetch_related("accused")
            .order_by("created_at", "id")[:QUEUE_ROWS]
        )
        out["reports_open"] = reports.count()
    if user.has_perm("moderation.view_auditentry"):
        out["actions"] = list(
            AuditEntry.objects.select_related("moderator")
            .prefetch_related("players", "flags", "reports", "games")
            .order_by("-created_at", "-id")[:RECENT_ACTIONS]
        )
    now = timezone.now()
    for case in [*(out["flags"] or []), *(out["reports"] or [])]:
        # Who holds each case now (a lapsed claim is nobody's): the queue says who is working what.
        case.holder = (
            case.claimed_by.get_username()
            if case.claimed_by and case.claimed_until and case.claimed_until > now
            else ""
        )
    return out
