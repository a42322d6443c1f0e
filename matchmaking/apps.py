from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "matchmaking"

    def ready(self) -> None:
        """A banned player's waiting tickets are cancelled once the core announces the committed ban; the
        tables the services announce as due are pushed by the task module, which the services never import; a revoked
        server's tickets and pushes end in the revoking transaction."""
        import matchmaking.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from arena.announcements import PlayerStatusChanged, PushesDue, ServerRevoked, subscribe
        from matchmaking.services import on_player_status_changed, on_server_revoked
        from matchmaking.tasks import on_pushes_due

        subscribe(PlayerStatusChanged, on_player_status_changed)
        # Heard inside the revoking transaction (announce_within): tickets and pushes end with the key.
        subscribe(ServerRevoked, on_server_revoked)
        subscribe(PushesDue, on_pushes_due)
