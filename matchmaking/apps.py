from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "matchmaking"

    def ready(self) -> None:
        """A banned player's waiting tickets are cancelled once the core announces the committed ban, and a revoked
        server's tickets and pushes end in the revoking transaction (``listeners.py``); the task module does the
        services' hand-offs (a table's push, ``infra.handoffs.hand_off``), so the services never import it."""
        import matchmaking.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from matchmaking import listeners, tasks  # noqa: F401  (subscribes; binds the hand-offs)
