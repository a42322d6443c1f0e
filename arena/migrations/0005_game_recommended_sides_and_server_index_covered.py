import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """``rec`` says what it is; the server's own index goes, as game_unique_server_table (server_id, table_id)
    leads with it: one index less to write per game, and a lookup by (server, table) cannot pick the wrong one."""

    dependencies = [
        ('arena', '0004_seat_hash_indexes_without_pattern_ops'),
    ]

    operations = [
        migrations.RenameField(model_name='game', old_name='rec', new_name='recommended_sides'),
        migrations.AlterField(
            model_name='game',
            name='recommended_sides',
            field=models.PositiveSmallIntegerField(
                help_text='Effective recommended number of sides (teams count as one); null if cooperative.',
                null=True),
        ),
        migrations.AlterField(
            model_name='game',
            name='title',
            field=models.CharField(help_text='What is played: wizard, hanabi, ... (the API\'s "game").', max_length=32),
        ),
        migrations.AlterField(
            model_name='game',
            name='server',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT,
                                    related_name='games', to='arena.gameserver'),
        ),
    ]
