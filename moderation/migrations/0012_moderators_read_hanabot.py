"""The Moderators group may read the Hanabot table (issue 27 §4): the group's rights synced to
``moderation.moderators`` again (docs/moderation.md, "The Moderators group")."""
from django.db import migrations


def sync(apps, schema_editor):
    from moderation.moderators import sync_moderators_group

    sync_moderators_group(apps)


class Migration(migrations.Migration):

    dependencies = [
        ("moderation", "0011_backoffice_case_model"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
