"""game_server_finished made partial (``finished_at IS NOT NULL``), so only the listing that states the predicate
can use it and the recording's probe by (server, table_id) keeps game_unique_server_table on a never-analysed
database (arena/models.py). Both steps concurrent (docs/operations.md, "Deploy order")."""
from django.db import migrations, models

from infra.migration_ops import AddIndexOnline, RemoveIndexOnline


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("arena", "0007_integrator_game_server_finished"),
    ]

    operations = [
        RemoveIndexOnline(model_name="game", name="game_server_finished"),
        AddIndexOnline(
            model_name="game",
            index=models.Index(condition=models.Q(finished_at__isnull=False), fields=["server", "finished_at", "id"],
                               name="game_server_finished"),
        ),
    ]
