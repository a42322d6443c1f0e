"""gunicorn's own settings (the Procfile's ``web``: ``gunicorn -c config/gunicorn.py config.wsgi``).

gunicorn writes two kinds of line of its own, and neither may break the rule that every line is one object in
``LOG_FORMAT`` (docs/observability.md, log lines):

- its access log stays off (``accesslog = None``, and its logger quiet in ``config.logs``): django-structlog's
  ``request_finished`` is already the one line per request, with the request id, route, status and duration;
- its error log (starting, listening, a worker booted, timed out or exiting, the signals it handles) goes through
  the same structlog formatter as Django's records, as ``logger: gunicorn.error``.

The master reads this file and never Django's settings: importing ``config.settings`` there would also start
sentry-sdk before the fork. So the three variables it needs are read here with the same names and defaults as in
``config/sections/observability.py`` (``config.logs.default_format`` is the one rule for the format).
"""

import environ

from config import logs

_env = environ.Env()

accesslog = None
# Slow clients (issue 25 item 1; docs/security.md): gthread, but a request's headers are read in the worker's event
# loop, never in a thread, and a client has HEADER_TIMEOUT seconds to send them (config/http_worker.py).
worker_class = "config.http_worker.HeaderBufferingWorker"
# gunicorn's own caps on what a request line and its headers may be (400 or 431 beyond): nginx's defaults'
# size (large_client_header_buffers 4 8k), and 50 header lines (a client sends a dozen; the proxy adds a few).
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190
# An idle keep-alive connection is held 75 s, longer than a client pool or a load balancer keeps one idle (nginx's
# 75 s, an AWS load balancer's 60 s): with gunicorn's 2 s, a client that sends every 2-3 s races the close and
# gets "connection reset" (the capacity run at 10 requests/s saw 152 of them; docs/testing.md). gthread keeps
# idle connections in its poller, not in a thread, and drops them at a graceful stop.
keepalive = 75
logconfig_dict = logs.configure(
    log_format=_env.str("LOG_FORMAT", default=logs.default_format(debug=_env.bool("DEBUG", default=False))),
    level=_env.str("LOG_LEVEL", default="INFO"),
)
