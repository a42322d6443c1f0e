from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"

    def ready(self) -> None:
        """The boards follow the ratings and the players' status, both announced after commit below us
        (``listeners.py``); a board a reader found lost is copied by a worker, the task module binding that
        hand-off (``infra.handoffs.hand_off``)."""
        import leaderboards.metrics  # noqa: F401  (registers its metrics and scrape-time gauges: docs/observability.md)
        from leaderboards import listeners, tasks  # noqa: F401  (subscribes; binds the hand-offs)
