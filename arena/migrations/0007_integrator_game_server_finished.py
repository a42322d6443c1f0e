"""A server's games in ``finished_at`` order (GET /api/v1/games/?since=, arena/game_reads.py), built concurrently
(docs/operations.md, "Deploy order")."""
from django.db import migrations, models

from infra.migration_ops import AddIndexOnline


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("arena", "0006_gameserver_scopes"),
    ]

    operations = [
        AddIndexOnline(
            model_name="game",
            index=models.Index(fields=["server", "finished_at", "id"], name="game_server_finished"),
        ),
    ]
