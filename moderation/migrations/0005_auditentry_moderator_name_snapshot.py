"""The audit entry keeps the moderator's username as it was at the time (issue 14 §2); old rows get the name the
account has now, the best record left of it."""
from django.db import migrations, models


def fill_names(apps, schema_editor):
    entry = apps.get_model("moderation", "AuditEntry")
    user = apps.get_model("auth", "User")
    names = dict(user.objects.filter(pk__in=entry.objects.exclude(moderator=None).values("moderator_id"))
                 .values_list("pk", "username"))
    for moderator_id, name in names.items():
        entry.objects.filter(moderator_id=moderator_id, moderator_name="").update(moderator_name=name)


class Migration(migrations.Migration):

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("moderation", "0004_detection_rating_cursors"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditentry",
            name="moderator_name",
            field=models.CharField(blank=True, default="", help_text="The moderator's username at the time of the action.", max_length=150),
        ),
        migrations.RunPython(fill_names, migrations.RunPython.noop),
    ]
