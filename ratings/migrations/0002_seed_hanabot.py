"""Seed the Hanabot table from ratings/data/hanabot.csv (the spec's default values)."""
import csv
from pathlib import Path

from django.db import migrations

CSV = Path(__file__).resolve().parent.parent / "data" / "hanabot.csv"


def seed(apps, schema_editor):
    HanabotRating = apps.get_model("ratings", "HanabotRating")
    with CSV.open(newline="") as handle:
        rows = [
            HanabotRating(
                variant_class=row["variant_class"], team_size=int(row["team_size"]),
                score=int(row["score"]), elo=float(row["hanabot_elo"]),
            )
            for row in csv.DictReader(handle)
        ]
    HanabotRating.objects.bulk_create(rows, ignore_conflicts=True)


def unseed(apps, schema_editor):
    apps.get_model("ratings", "HanabotRating").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
