from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"

    def ready(self) -> None:
        """The boards follow the ratings and the players' status, both announced after commit below us; a board a
        reader found lost is copied by a worker (the task module hears it)."""
        import leaderboards.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from arena.announcements import BoardLost, PlayerStatusChanged, RatingsChanged, subscribe
        from leaderboards.services import on_player_status_changed, on_ratings_changed
        from leaderboards.tasks import on_board_lost

        subscribe(RatingsChanged, on_ratings_changed)
        subscribe(PlayerStatusChanged, on_player_status_changed)
        subscribe(BoardLost, on_board_lost)
