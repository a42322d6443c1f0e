"""Room on every reputation page for the Elo stage's rewrite of the row (each batch appends to every player's
outcomes): with no index on the columns it changes, the rewrite stays on the page and writes no index entry (a
heap-only update), as matchmaking's tickets do. PostgreSQL only."""
from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE ratings_reputation SET (fillfactor = 50)")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE ratings_reputation RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [("ratings", "0006_reputation_and_cooldown")]
    operations = [migrations.RunPython(forwards, backwards)]
