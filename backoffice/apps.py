from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    """The back office (docs/architecture.md, "The back office"): the project-wide admin on the top floor.

    It owns no table; it shows every app's (players, games, ratings, flags, reports, callbacks) and calls their
    services. Its ``admin`` package is found by the admin's autodiscovery like any app's.
    """

    name = "backoffice"
    verbose_name = "Back office"

    def ready(self) -> None:
        from backoffice import listeners  # noqa: F401 - subscribes to the announcements it hears
