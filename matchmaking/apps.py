from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "matchmaking"

    def ready(self) -> None:
        """A banned player's waiting tickets are cancelled once the core announces the committed ban."""
        from arena.announcements import PlayerStatusChanged, subscribe
        from matchmaking.services import on_player_status_changed

        subscribe(PlayerStatusChanged, on_player_status_changed)
