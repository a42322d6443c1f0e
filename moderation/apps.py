from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = "Moderation"

    def ready(self) -> None:
        """Detection follows rating batches (``RatingsChanged`` with cause ``batch``, ``listeners.py``); ratings never
        call us. A void's rebuild is the void's hand-off, bound by the task module, so the service queues no task."""
        import moderation.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from moderation import listeners, tasks  # noqa: F401  (subscribes; binds the hand-offs)
