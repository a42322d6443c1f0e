from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"

    def ready(self) -> None:
        """The boards follow the ratings and the players' status: both are announced after commit below us."""
        from arena.announcements import PlayerStatusChanged, RatingsChanged, subscribe
        from leaderboards.services import on_player_status_changed, on_ratings_changed

        subscribe(RatingsChanged, on_ratings_changed)
        subscribe(PlayerStatusChanged, on_player_status_changed)
