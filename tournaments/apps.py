from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Swiss tournaments (docs/tournaments.md): a sibling above ratings, beside matchmaking."""

    name = "tournaments"
