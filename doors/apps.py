from django.apps import AppConfig


class DoorsConfig(AppConfig):
    """The composite API answers and the top floor's listeners (docs/architecture.md): no tables of its own."""

    name = "doors"

    def ready(self) -> None:
        """A tournament's paired round reaches matchmaking's pushes through here (``doors/tournament_pushes.py``)."""
        from doors.tournament_pushes import subscribe_all

        subscribe_all()
