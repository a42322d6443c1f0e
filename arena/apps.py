from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena"

    def ready(self) -> None:
        """Beat's heartbeat gauge is read at scrape; the request line gets Arena's fields (docs/observability.md)."""
        from arena.api import request_log  # noqa: F401  (its receivers complete django-structlog's request line)
        from infra import beat  # noqa: F401
