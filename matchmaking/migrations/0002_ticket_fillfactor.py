"""Room on every ticket page for a pass's rewrite of the row: with no index on the columns a pass changes, the
rewrite then stays on the page and writes no index entry (a heap-only update). PostgreSQL only."""
from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE matchmaking_ticket SET (fillfactor = 45)")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE matchmaking_ticket RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [("matchmaking", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
