"""``manage.py create_moderator NAME``: a staff account in the "Moderators" group, nothing more.

The password is asked twice on a terminal (or read from ``--password-env VAR`` for scripts), never taken on the
command line, where it would land in shell history and the process list. It must pass the project's password
validators (Django's four, at least 12 characters; config/sections/security.py).

The moderator's two-factor enrolment comes with it (docs/security.md, the admin door): an unconfirmed TOTP
device whose ``otpauth://`` URI is printed for the moderator's authenticator app; the first login with one of its
codes confirms it. An account that already has a confirmed authenticator keeps it and gets no new URI.
"""

from __future__ import annotations

import getpass
import os

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice.admin_door import totp_enrol
from moderation.moderators import GROUP, sync_moderators_group


class Command(BaseCommand):
    help = 'Create (or promote) a staff user in the "Moderators" group.'

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument("--password-env", metavar="VAR", help="Read the password from this environment variable.")

    def handle(self, *args, username: str, email: str, password_env: str | None, **options) -> None:
        users = get_user_model()
        user = users.objects.filter(username=username).first()
        if password_env:
            password = os.environ.get(password_env, "")
            if not password:
                raise CommandError(f"${password_env} is empty.")
        elif user is None:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("The passwords differ.")
        else:
            password = ""
        if user is None:
            user = users(username=username, email=email)
        if password:
            try:
                validate_password(password, user)
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from error
            user.set_password(password)
        user.is_staff = True
        user.save()
        sync_moderators_group(apps)  # the migration made it; this restores it if someone edited it since
        user.groups.add(Group.objects.get(name=GROUP))
        self.stdout.write(f"{username} is a moderator: log in at /admin/.")
        from django_otp.plugins.otp_totp.models import TOTPDevice

        if TOTPDevice.objects.filter(user=user, confirmed=True).exists():
            self.stdout.write("Their authenticator is already enrolled.")
            return
        uri = totp_enrol(user)
        self.stdout.write(
            "Add this to the moderator's authenticator app (the first login with a code confirms it; keep it secret):"
        )
        self.stdout.write(uri)
