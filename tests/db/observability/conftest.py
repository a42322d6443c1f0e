"""The observability tests' shared fixture: the log lines as production's JSON formatter writes them."""

from __future__ import annotations

import io
import json
import logging

import pytest
import structlog

from config import logs


@pytest.fixture
def lines():
    """The JSON lines logged during the test, as production's formatter writes them."""
    spec = logs.configure(log_format="json", level="INFO")["formatters"]["structured"]
    formatter = structlog.stdlib.ProcessorFormatter(
        processors=spec["processors"], foreign_pre_chain=spec["foreign_pre_chain"]
    )
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.addHandler(handler)
    yield lambda: (stream.getvalue(), [json.loads(line) for line in stream.getvalue().splitlines()])
    root.removeHandler(handler)
