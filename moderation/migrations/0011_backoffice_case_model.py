# The case model (issue 23): Flag and Report share an abstract Case (no table changes, every row kept); the audit
# log gains the "reopen" action (issue 27).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('moderation', '0010_audit_actions_of_both_branches'),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('confirm_multiple_accounts', 'Confirm Multiple Accounts'), ('void_games', 'Void Games'), ('dismiss_flag', 'Dismiss Flag'), ('dismiss_report', 'Dismiss Report'), ('uphold_report', 'Uphold Report'), ('ban', 'Ban'), ('unban', 'Unban'), ('reset', 'Reset'), ('lift_cooldown', 'Lift Cooldown'), ('admin_edit', 'Admin Edit'), ('warn', 'Warn'), ('note', 'Note'), ('close_duplicate', 'Close Duplicate'), ('claim', 'Claim'), ('reopen', 'Reopen')], max_length=32),
        ),
    ]
