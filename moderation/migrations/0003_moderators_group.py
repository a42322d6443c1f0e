"""The "Moderators" group with exactly the rights docs/moderation.md gives (moderation/moderators.py)."""
from django.db import migrations

from moderation.moderators import ACTION_MODEL, ACTIONS, GROUP, sync_moderators_group


def forwards(apps, schema_editor):
    sync_moderators_group(apps)


def backwards(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()
    apps.get_model("auth", "Permission").objects.filter(
        content_type__app_label=ACTION_MODEL[0], content_type__model=ACTION_MODEL[1], codename__in=list(ACTIONS)
    ).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0002_flag_withdrawn"),
        ("arena", "0004_seat_hash_indexes_without_pattern_ops"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
