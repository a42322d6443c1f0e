"""The index the closed-ticket purge walks (oldest first), built without blocking the pass's writes: the ticket
table is the hottest matchmaking table, so CONCURRENTLY on PostgreSQL (infra/migration_ops.py)."""
from django.db import migrations, models

from infra.migration_ops import AddIndexOnline


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("matchmaking", "0003_title")]

    operations = [
        AddIndexOnline(model_name="ticket", index=models.Index(fields=["created_at"], name="mm_ticket_created")),
    ]
