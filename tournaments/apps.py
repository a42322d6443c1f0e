from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Swiss tournaments (docs/tournaments.md): a sibling above ratings, beside matchmaking."""

    name = "tournaments"

    def ready(self) -> None:
        """Voids re-score the standings (``listeners.py``)."""
        from tournaments import listeners  # noqa: F401  (subscribes)
