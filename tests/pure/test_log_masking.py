"""gunicorn's "Invalid request from ip=..." lines lose the client's address (issue 25 item 6; config/logs.py)."""

from __future__ import annotations

import pytest

from config.logs import mask_client_addresses


@pytest.mark.parametrize(
    ("event", "masked"),
    [
        (
            "Invalid request from ip=203.0.113.9: Invalid HTTP request line: ''",
            "Invalid request from ip=<masked>: Invalid HTTP request line: ''",
        ),
        (
            "Invalid request from ip=2001:db8::7: Invalid HTTP Header: 'X-NUL'",
            "Invalid request from ip=<masked>: Invalid HTTP Header: 'X-NUL'",
        ),
        (
            "Invalid request from ip=::1: Request Header Fields Too Large",
            "Invalid request from ip=<masked>: Request Header Fields Too Large",
        ),
        ("Invalid request from ip=::ffff:192.0.2.44: No more data", "Invalid request from ip=<masked>: No more data"),
    ],
)
def test_the_address_in_gunicorns_invalid_request_line_is_masked(event, masked):
    assert mask_client_addresses(None, "warning", {"event": event, "logger": "gunicorn.error"})["event"] == masked


def test_other_loggers_and_lines_are_left_as_they_are():
    own = {"event": "request_finished", "logger": "django_structlog.middlewares.request", "path": "/x?ip=1.2.3.4"}
    assert mask_client_addresses(None, "info", dict(own)) == own
    boot = {"event": "Booting worker with pid: 42", "logger": "gunicorn.error"}
    assert mask_client_addresses(None, "info", dict(boot)) == boot
