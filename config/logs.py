"""Logging: one structured line per event through structlog, JSON in production, readable text in development.

``LOG_FORMAT`` picks the renderer (``json`` by default without DEBUG, ``console`` with it). Every logger goes
through the same processors, so Django's, Celery's and the libraries' records come out in the same shape as
Arena's own. What is never logged (docs/observability.md): API keys, request bodies, raw IP addresses. The
request line names the route, never the body; tracebacks are rendered as text without local variables (which
may hold a key or an address).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import structlog

FORMATS = ("json", "console")


def default_format(*, debug: bool) -> str:
    """Machine-readable unless developing: production's lines are read by a log shipper, not a person."""
    return "console" if debug else "json"


# gunicorn's "Invalid request from ip=203.0.113.9: ..." (a malformed request: 431, a request line too long, a NUL
# in a header, Content-Length with Transfer-Encoding) names the client's raw address (issue 25, item 6). The address
# is what follows "ip=" up to the ": " before the reason (an IPv6 address has colons of its own, never ": ").
_GUNICORN_ADDRESS = re.compile(r"\bip=\[?[0-9A-Fa-f.:]+?\]?(?=: |\s|$)")
MASKED = "ip=<masked>"


def mask_client_addresses(logger: Any, method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """gunicorn's own lines without the client's raw address: never a raw address in a log (docs/observability.md)."""
    event = event_dict.get("event")
    if isinstance(event, str) and "ip=" in event and str(event_dict.get("logger", "")).startswith("gunicorn"):
        event_dict["event"] = _GUNICORN_ADDRESS.sub(MASKED, event)
    return event_dict


def _shared() -> list[Any]:
    return [
        structlog.contextvars.merge_contextvars,  # request_id, and a recording's game ids
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.stdlib.PositionalArgumentsFormatter(),  # "%s" arguments of the standard library's records
        mask_client_addresses,
    ]


class RefusedHostFilter(logging.Filter):
    """Django logs a request for a host outside ``ALLOWED_HOSTS`` at ERROR with its traceback: a scanner's every
    probe would read as Arena's bug (and fire error alerts). It is the client's mistake, refused with a 400: one
    WARNING line, without the traceback (issue 25 §2)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def configure(*, log_format: str, level: str) -> dict[str, Any]:
    """Configure structlog and return Django's ``LOGGING`` dict that renders every record in ``log_format``."""
    if log_format not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {log_format!r}")
    if log_format == "json":
        renderer: list[Any] = [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        # A plain traceback, never rich's with locals: reading a frame's locals evaluates lazy objects (the
        # request's user queries the database: a log line of a lost connection raised again) and prints secrets.
        renderer = [structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback)]
    structlog.configure(
        processors=[
            *_shared(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    # Python's warnings as records too (logger py.warnings), not bare text on stderr: a library's UserWarning at
    # startup would otherwise be the one line of the web's output a log shipper cannot parse.
    logging.captureWarnings(True)
    quiet = {"level": "WARNING"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"refused_host": {"()": RefusedHostFilter}},
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "processors": [structlog.stdlib.ProcessorFormatter.remove_processors_meta, *renderer],
                "foreign_pre_chain": _shared(),
            }
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # django-structlog's request_finished is the one line per request; Django's own "Bad Request: ..."
            # and "Internal Server Error: ..." would say it a second time (the failure's stack is in
            # django-structlog's request_failed).
            "django.request": {"level": "CRITICAL"},
            "django.security.DisallowedHost": {"level": "WARNING", "filters": ["refused_host"]},
            # infra.task_log's task_finished is the one line per task run; Celery's "received" and "succeeded"
            # lines would double it (its failures, at ERROR with their stack, still come through).
            "celery.app.trace": quiet,
            "celery.worker.strategy": quiet,
            # gunicorn (config/gunicorn.py): its error log through the formatter above, its access log never (the
            # request_finished line is the one per request). Named here so that Django's own configuration of the
            # worker, which comes after gunicorn's, keeps them so.
            "gunicorn.error": {"level": level, "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False},
        },
    }
