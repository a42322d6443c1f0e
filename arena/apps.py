from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena"

    def ready(self) -> None:
        """Beat's heartbeat gauge is read at scrape; the request line gets Arena's fields (docs/observability.md).

        The platform's HTTP toolkit (``infra/api/``) imports no domain app: here the core tells it who holds API keys,
        how the games' refusals read and what the contract adds for the games.
        """
        from arena.api.contract import contract_tables_register
        from arena.api.refusals import refusals_register
        from arena.models import SCOPES, GameServer
        from arena.servers import game_server_get_by_key
        from infra import beat  # noqa: F401
        from infra.api import request_log  # noqa: F401  (its receivers complete django-structlog's request line)
        from infra.api.auth import key_owner_register

        key_owner_register(GameServer, SCOPES, game_server_get_by_key)
        refusals_register()
        contract_tables_register()
