"""``manage.py enrol_totp USERNAME``: a TOTP authenticator for a staff account (a superuser, or a moderator again).

Prints the ``otpauth://`` URI of a new unconfirmed device (any earlier unconfirmed one is dropped); the first
admin login with one of its codes confirms it (backoffice/admin_door.py). A confirmed device already in use stays
until a superuser deletes it in the admin, so a lost phone is: delete its device there, then run this again.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice.admin_door import totp_enrol


class Command(BaseCommand):
    help = "Enrol a TOTP authenticator for a staff account; prints the otpauth:// URI to scan."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: object, username: str, **options: object) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        if not user.is_staff:
            raise CommandError(f"{username} is not staff: only staff log in to the admin.")
        self.stdout.write(
            "Add this to the authenticator app (the first login with a code confirms it; keep it secret):"
        )
        self.stdout.write(totp_enrol(user))
