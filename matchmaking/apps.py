from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "matchmaking"

    def ready(self) -> None:
        """A banned player's waiting tickets are cancelled once the core announces the committed ban; the
        tables the services announce as due are pushed by the task module, which the services never import."""
        import matchmaking.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from arena.announcements import PlayerStatusChanged, PushesDue, subscribe
        from matchmaking.services import on_player_status_changed
        from matchmaking.tasks import on_pushes_due

        subscribe(PlayerStatusChanged, on_player_status_changed)
        subscribe(PushesDue, on_pushes_due)
