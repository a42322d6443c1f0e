"""The Moderators group sees tournaments and may cancel them (docs/tournaments.md#cancelling), as
moderation/moderators.py now lists. Written out here rather than calling moderation's sync: tournaments may not
import moderation (siblings); moderation's next sync sets the same list."""
from django.db import migrations

GROUP = "Moderators"


def grant(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    permission = apps.get_model("auth", "Permission")
    group_model = apps.get_model("auth", "Group")
    group, _ = group_model.objects.get_or_create(name=GROUP)
    ct, _ = content_type.objects.get_or_create(app_label="tournaments", model="tournament")
    view, _ = permission.objects.get_or_create(content_type=ct, codename="view_tournament",
                                               defaults={"name": "Can view tournament"})
    audit, _ = content_type.objects.get_or_create(app_label="moderation", model="auditentry")
    cancel, _ = permission.objects.get_or_create(content_type=audit, codename="cancel_tournament",
                                                 defaults={"name": "Can cancel a tournament (who and why kept on it)"})
    group.permissions.add(view, cancel)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_initial"),
        ("moderation", "0011_backoffice_case_model"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(grant, migrations.RunPython.noop)]
