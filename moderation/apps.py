from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = "Moderation"

    def ready(self) -> None:
        """Detection follows rating batches (``RatingsChanged`` with cause ``batch``); ratings never call us. A
        void's rebuild follows the void (``GamesVoided``), so the service queues no task itself."""
        import moderation.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from arena.announcements import GamesVoided, RatingsChanged, subscribe
        from moderation.tasks import on_games_voided, on_ratings_changed

        subscribe(RatingsChanged, on_ratings_changed)
        subscribe(GamesVoided, on_games_voided)
