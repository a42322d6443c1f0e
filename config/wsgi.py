"""WSGI entry point for gunicorn: ``gunicorn config.wsgi`` (and ``runserver``, through ``WSGI_APPLICATION``).

Each gunicorn worker imports this once, after its fork. Everything loaded by then (Django, the apps, and the URLconf
with every view, imported here rather than on the first request) lives as long as the process, so it is moved out
of the cyclic collector's sight (``infra.gc_pause.startup_heap_freeze``): otherwise each full collection, which a
batch of 500 games sets off several times, walks those few hundred thousand objects to find nothing
(docs/testing.md, the request path: a third of a batch's CPU).
"""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from infra.gc_pause import startup_heap_freeze

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# A web process starting: embedded (no beat), the timed bans' timer is set again, so a ban whose term ended while
# no process ran is lifted now and the others on time (docs/moderation.md, "Timed bans"). Scaled out it does nothing.
from moderation.tasks import ban_terms_resume  # noqa: E402  (after the apps are loaded)

ban_terms_resume()

get_resolver().url_patterns  # noqa: B018 - imports every view now, so it is frozen with the rest
startup_heap_freeze()
