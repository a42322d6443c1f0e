"""The "Moderators" group: exactly the rights docs/moderation.md gives, nothing else.

"A Moderators group can view players, games, flags and reports and take the actions above, and nothing else (no
editing ratings by hand, no deleting games, no key management)." So: the view permissions of those models and of
the audit log (a moderator reads what others did), plus one permission per action. The action permissions hang
off the audit log's content type, because every action is exactly one kind of audit entry.

``sync_moderators_group`` takes an app registry so the migration can call it with its historical models and a
test (whose transactional flush empties the tables) with the live ones. It sets the group's permissions to this
list exactly, removing anything granted by hand since.
"""

from __future__ import annotations

from typing import Any

GROUP = "Moderators"

# (app_label, model, codename): what a moderator may see.
VIEW = [
    ("arena", "player", "view_player"),
    ("arena", "game", "view_game"),
    ("moderation", "flag", "view_flag"),
    ("moderation", "report", "view_report"),
    ("moderation", "auditentry", "view_auditentry"),
    # The Hanabot table decides Hanabi ratings: a moderator reads it (issue 27 §4), only a superuser edits it.
    ("ratings", "hanabotrating", "view_hanabotrating"),
    ("tournaments", "tournament", "view_tournament"),  # docs/tournaments.md#cancelling
]

# codename -> name: what a moderator may do, each through its service (moderation/services).
ACTIONS = {
    "confirm_multiple_accounts": "Can confirm multiple accounts (ban the secondaries, reset the primary)",
    "void_games": "Can void games played with a banned account",
    "dismiss": "Can dismiss flags and reports",
    "uphold_report": "Can uphold reports",
    "ban_player": "Can ban a player",
    "unban_player": "Can unban a player",
    "reset_rating": "Can reset a player's ratings",
    "lift_cooldown": "Can lift a player's quit cool-down",
    "warn_player": "Can warn a player (recorded, shown on their page)",
    "note_player": "Can write private moderator notes on a player",
    "claim": "Can claim flags and reports (others see who holds them)",
    "cancel_tournament": "Can cancel a tournament (who and why kept on it)",
}
ACTION_MODEL = ("moderation", "auditentry")


def perm(codename: str) -> str:
    """The ``app_label.codename`` a ``has_perm`` check takes for one of ``ACTIONS``."""
    return f"{ACTION_MODEL[0]}.{codename}"


def _verbose(model: str) -> str:
    return {"auditentry": "audit entry", "hanabotrating": "hanabot rating"}.get(model, model)


def sync_moderators_group(apps: Any) -> None:
    """Create the group and any missing permission row; leave the group with exactly these permissions.

    Content types and the standard view permissions do not exist yet on a fresh database when migrations run
    (Django adds them after the last migration), so both are created here if missing, with Django's own names.
    """
    content_type = apps.get_model("contenttypes", "ContentType")
    permission = apps.get_model("auth", "Permission")
    group_model = apps.get_model("auth", "Group")
    wanted = []
    for app_label, model, codename in VIEW:
        ct, _ = content_type.objects.get_or_create(app_label=app_label, model=model)
        row, _ = permission.objects.get_or_create(
            content_type=ct, codename=codename, defaults={"name": f"Can view {_verbose(model)}"}
        )
        wanted.append(row)
    ct, _ = content_type.objects.get_or_create(app_label=ACTION_MODEL[0], model=ACTION_MODEL[1])
    for codename, name in ACTIONS.items():
        row, _ = permission.objects.get_or_create(content_type=ct, codename=codename, defaults={"name": name})
        wanted.append(row)
    group, _ = group_model.objects.get_or_create(name=GROUP)
    group.permissions.set(wanted)
