from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = "Moderation"

    def ready(self) -> None:
        """Detection follows rating batches (``RatingsChanged`` with cause ``batch``); ratings never call us."""
        from arena.announcements import RatingsChanged, subscribe
        from moderation.tasks import on_ratings_changed

        subscribe(RatingsChanged, on_ratings_changed)
