"""WSGI entry point for gunicorn: ``gunicorn config.wsgi`` (and ``runserver``, through ``WSGI_APPLICATION``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# A web process starting: embedded (no beat), the timed bans' timer is set again, so a ban whose term ended while
# no process ran is lifted now and the others on time (docs/moderation.md, "Timed bans"). Scaled out it does nothing.
from moderation.tasks import ban_terms_resume  # noqa: E402  (after the apps are loaded)

ban_terms_resume()
