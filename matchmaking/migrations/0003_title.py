"""What is played is a ``title`` in the code, as in ratings and moderation (docs/architecture.md#names); the API
keeps its word, ``game``. The columns are renamed in place; the two unique constraints over them are dropped and
made again (Django 5.2 renames no constraint, and its migration state would keep the old field name in them), the
open seats' one under a name without "game"."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("matchmaking", "0002_ticket_fillfactor")]

    operations = [
        migrations.RemoveConstraint(model_name="pool", name="pool_unique_key"),
        migrations.RemoveConstraint(model_name="openseat", name="mm_open_one_per_game"),
        migrations.RenameField(model_name="pool", old_name="game", new_name="title"),
        migrations.RenameField(model_name="table", old_name="game", new_name="title"),
        migrations.RenameField(model_name="openseat", old_name="game", new_name="title"),
        migrations.AddConstraint(
            model_name="pool",
            constraint=models.UniqueConstraint(fields=("title", "variant_key", "rated"), name="pool_unique_key"),
        ),
        migrations.AddConstraint(
            model_name="openseat",
            constraint=models.UniqueConstraint(fields=("player", "title"), name="mm_open_one_per_title"),
        ),
    ]
