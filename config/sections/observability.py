"""Logs, metrics and error tracking (docs/observability.md)."""

import logging
import os

from config import logs
from config.sections.mode import DEBUG, env

# =============================================================================
# Logging (config/logs.py, docs/observability.md): one structured line per request and per task run, JSON by
# default in production, readable text with DEBUG. Request bodies, keys and raw IPs are never logged.
# =============================================================================
LOG_FORMAT = env.str("LOG_FORMAT", default=logs.default_format(debug=DEBUG))
LOGGING = logs.configure(log_format=LOG_FORMAT, level=env.str("LOG_LEVEL", default="INFO"))
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False  # django-structlog logs the client's address by default
DJANGO_STRUCTLOG_USER_ID_FIELD = None  # Arena names the game server itself, without loading a session's user
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = True  # X-Request-ID, when a plain token (infra.api.request_log)
DJANGO_STRUCTLOG_STATUS_START_LOG_LEVEL = logging.DEBUG  # one line per request: request_finished only
# Celery workers log through the same LOGGING, not a handler of their own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# =============================================================================
# Metrics (docs/observability.md): /metrics answers only "Authorization: Bearer <METRICS_TOKEN>" (404 otherwise,
# and always 404 while it is unset). PROMETHEUS_MULTIPROC_DIR (read by prometheus-client itself from the
# environment) is the directory every web and worker process writes its counters and histograms to, so the web's
# /metrics shows the workers' too; empty it before the processes start. Unset: this process's own figures only.
# =============================================================================
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
PROMETHEUS_MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")

# =============================================================================
# Error tracking (config/sentry.py): with SENTRY_DSN set, sentry-sdk reports the web's and the workers' errors,
# with personal data off (no body, no address, no key, no local variables).
# =============================================================================
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    from config import sentry

    sentry.init(
        dsn=SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="") or None,
        traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
    )
