"""Run as a script by test_sentry.py: Django configured from the environment (SENTRY_DSN pointing at the test's
receiver), one request whose view raises, sent with a key, a client address, forwarded addresses and a body of
raw player addresses (all given in PROBE_* variables); then the events are flushed. ``pii`` as argument
re-initialises sentry-sdk with personal data on, the test's guard that the receiver would see them."""

from __future__ import annotations

import io
import os
import sys
import types

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

import sentry_sdk  # noqa: E402
from django.test import override_settings  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402

from config.wsgi import application  # noqa: E402

KEY, CLIENT, FORWARDED, PLAYER = (os.environ[f"PROBE_{name}"] for name in ("KEY", "CLIENT", "FORWARDED", "PLAYER"))


@csrf_exempt  # as every API view: the API authenticates by key
def broken(request):
    secret_local = KEY  # a local variable holding the key: frames must not carry it
    raise RuntimeError(f"the view broke ({len(secret_local)})")


urls = types.ModuleType("probe_urls")
urls.urlpatterns = [path("api/v1/games/", broken)]
sys.modules["probe_urls"] = urls

if sys.argv[1:] == ["pii"]:
    sentry_sdk.init(dsn=os.environ["SENTRY_DSN"], send_default_pii=True, max_request_body_size="always")

body = f'{{"players": [{{"player": "a", "ip": "{PLAYER}"}}]}}'.encode()
environ = {
    "REQUEST_METHOD": "POST",
    "PATH_INFO": "/api/v1/games/",
    "SERVER_NAME": "testserver",
    "SERVER_PORT": "80",
    "HTTP_HOST": "testserver",
    "wsgi.url_scheme": "http",
    "wsgi.input": io.BytesIO(body),
    "CONTENT_TYPE": "application/json",
    "CONTENT_LENGTH": str(len(body)),
    "HTTP_AUTHORIZATION": f"Api-Key {KEY}",
    "REMOTE_ADDR": CLIENT,
    "HTTP_X_FORWARDED_FOR": FORWARDED,
    "HTTP_X_REAL_IP": FORWARDED,
    "HTTP_X_FORWARDED_PROTO": "https",
    "wsgi.errors": sys.stderr,
    "wsgi.multithread": False,
    "wsgi.multiprocess": False,
    "wsgi.run_once": False,
    "wsgi.version": (1, 0),
}
statuses = []
with override_settings(ROOT_URLCONF="probe_urls"):
    # The WSGI application gunicorn serves, called as gunicorn calls it.
    b"".join(application(environ, lambda status, headers, *_: statuses.append(status)))
assert statuses[0].startswith("500"), statuses
sentry_sdk.flush(timeout=10)
print("sent")
