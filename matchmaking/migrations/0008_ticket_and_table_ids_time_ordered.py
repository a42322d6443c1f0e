"""New tickets and tables get time-ordered ids (matchmaking/ids.py): the waiting tickets' primary-key entries share
the index's last pages instead of one page each among millions of closed tickets. Only the Python default changes:
no SQL, no lock, existing ids stay as they are (docs/operations.md, the deploy order)."""
import matchmaking.ids
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matchmaking', '0007_merge_min_reputation'),
    ]

    operations = [
        migrations.AlterField(
            model_name='table',
            name='id',
            field=models.UUIDField(default=matchmaking.ids.uuid7, editable=False, primary_key=True, serialize=False),
        ),
        migrations.AlterField(
            model_name='ticket',
            name='id',
            field=models.UUIDField(default=matchmaking.ids.uuid7, editable=False, primary_key=True, serialize=False),
        ),
    ]
