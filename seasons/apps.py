from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "seasons"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Seasons follow the ratings and the players' status, announced after commit below us (``listeners.py``)."""
        from seasons import listeners  # noqa: F401  (subscribes)
