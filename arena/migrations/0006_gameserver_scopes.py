import arena.models
from django.db import migrations, models


class Migration(migrations.Migration):
    """Keys carry scopes (docs/security.md). Servers that exist get the default three, not ``preferences``: before
    this any key could rewrite any player's block list; a superuser grants it in the admin where it is meant."""

    dependencies = [
        ('arena', '0005_game_recommended_sides_and_server_index_covered'),
    ]

    operations = [
        migrations.AddField(
            model_name='gameserver',
            name='scopes',
            field=models.CharField(
                default=arena.models.default_scopes,
                help_text='What the key may do: games, matchmaking, reports, preferences (docs/security.md).',
                max_length=100),
        ),
    ]
