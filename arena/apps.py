from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena"

    def ready(self) -> None:
        """Beat's heartbeat gauge is read at scrape (docs/observability.md)."""
        import arena.beat  # noqa: F401
