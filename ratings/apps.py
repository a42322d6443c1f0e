from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        """Ratings listen to the core: a recorded game wakes its game's Elo stage (``listeners.py``,
        docs/architecture.md)."""
        import ratings.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from ratings import listeners, tasks  # noqa: F401  (subscribes; tasks registers the Celery tasks)
