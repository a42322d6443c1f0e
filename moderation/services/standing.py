"""A player's standing short of a ban: recorded warnings and private moderator notes (docs/moderation.md).

A warning is the first step short of a ban, as lichess's are: recorded, shown on the player's page and in the
audit log, so the next moderator sees it before deciding. A note is private (lichess's mod notes): context for
other moderators ("talked to them on the forum"), kept in the audit log and listed on the player's page. Both
are audit entries and nothing else: no second table to keep in step with the log.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from arena.models import Player
from infra.announcements import PlayerWarned, announce
from moderation.models import AuditEntry
from moderation.services.action_steps import audit_write, note_required


def player_warn(*, moderator: AbstractBaseUser | None, player: Player, note: str) -> AuditEntry:
    """Record a warning to ``player``; the note says what they were warned about (required), and is what the
    player is shown: after the commit ``PlayerWarned`` is announced, and the back office pushes ``player.warned``
    to the game servers the player plays on (``backoffice/listeners.py``)."""
    note = note_required(note)
    with transaction.atomic():
        entry = audit_write(moderator=moderator, action=AuditEntry.Action.WARN, note=note, players=[player])
        announce(PlayerWarned(player_id=player.pk, entry_id=entry.pk))
        return entry


def player_note_add(*, moderator: AbstractBaseUser | None, player: Player, note: str) -> AuditEntry:
    """Keep a private moderator note about ``player`` (required text)."""
    note = note_required(note)
    with transaction.atomic():
        return audit_write(moderator=moderator, action=AuditEntry.Action.NOTE, note=note, players=[player])
