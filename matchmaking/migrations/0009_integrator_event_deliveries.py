"""Every push is an event (matchmaking/events.py): a delivery carries its event's type and, for an event that is
not a formed table, its data; the deliveries list reads a server's newest first.

Online (docs/operations.md, "Deploy order"): the added columns have constant defaults (no rewrite), dropping NOT
NULL is a catalogue change, and the index is built concurrently (``AddIndexOnline``, hence ``atomic = False``).
"""
import django.db.models.deletion
from django.db import migrations, models

from infra.migration_ops import AddIndexOnline


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("arena", "0006_gameserver_scopes"),
        ("matchmaking", "0008_ticket_and_table_ids_time_ordered"),
    ]

    operations = [
        migrations.AddField(
            model_name="delivery",
            name="data",
            field=models.JSONField(blank=True, help_text="The event's data, frozen when it happened; a table.formed "
                                                         "push reads its table at each send.", null=True),
        ),
        migrations.AddField(
            model_name="delivery",
            name="event_type",
            field=models.CharField(default="table.formed", max_length=40),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="table",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="deliveries", to="matchmaking.table"),
        ),
        AddIndexOnline(
            model_name="delivery",
            index=models.Index(fields=["server", "-created_at", "-id"], name="mm_delivery_server_recent"),
        ),
    ]
