from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        """Ratings listen to the core: a recorded game wakes its game's Elo stage (docs/architecture.md)."""
        import ratings.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from arena.announcements import GamesRecorded, subscribe
        from ratings.tasks import wake_raters

        subscribe(GamesRecorded, wake_raters)
