"""What seasons keep (docs/seasons.md).

Live tables (the open season, written by the live stage): ``SeasonEntry`` (one per player who played or was
carried over; ``tier``/``score`` are the standings' order key, so a page is one indexed query) and ``SeasonLine``
(one per seat of a counted game: the points it gave and why).

Archive tables (a closed season, read-only but for corrections): ``SeasonFinal`` (the final standings) and
``SeasonCorrection`` (one line per player whose place, league or points a later void or late game changed). Reading a
closed season reads only these and ``Season`` itself, never the live tables.

``SeasonRollover``: the audit row of an operator's rollover (``manage.py season_rollover``).
"""
from __future__ import annotations

from django.db import models

from arena.models import Player


class Season(models.Model):
    """One season of one title. Open while ``closed_at`` is null (at most one per title, a partial unique)."""

    title = models.CharField(max_length=32)
    number = models.PositiveIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    cursor = models.BigIntegerField(default=0, help_text="The highest rating_seq the live stage has folded.")
    carry = models.JSONField(default=dict, blank=True, help_text="Player id -> league index carried over.")
    final_games = models.JSONField(default=list, blank=True, help_text="Closed: the game ids the archive counts.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["title", "number"], name="season_title_number"),
            models.UniqueConstraint(fields=["title"], condition=models.Q(closed_at__isnull=True),
                                    name="season_one_open_per_title"),
        ]

    def __str__(self) -> str:
        return f"{self.title} season {self.number}"


class SeasonEntry(models.Model):
    """A player's open season so far (``seasons.rules.Entry`` plus the season Elo)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    points = models.IntegerField(default=0)
    games = models.IntegerField(default=0)
    placement_left = models.IntegerField(default=0)
    league = models.SmallIntegerField(null=True)
    elo = models.FloatField()
    elo_games = models.IntegerField(default=0)
    tier = models.SmallIntegerField(help_text="league, or -1 in placement (seasons.rules.order_key)")
    score = models.FloatField(help_text="points, or the season Elo in the top league")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["season", "player"], name="season_entry_player")]
        indexes = [models.Index(fields=["season", "-tier", "-score", "player"], name="season_entry_order")]

    def __str__(self) -> str:
        return f"{self.season_id}: player {self.player_id}, {self.points} points"


class SeasonLine(models.Model):
    """One counted game for one player: the points it gave and why (``seasons.rules.GameLine``)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", db_index=False)
    game_id = models.BigIntegerField()
    finished_at = models.DateTimeField()
    place = models.SmallIntegerField()
    sides = models.SmallIntegerField()
    opponents = models.JSONField(help_text='[[league, "win"|"tie"|"loss", points], ...] per opposing side')
    points = models.IntegerField()
    league_after = models.SmallIntegerField(null=True)

    class Meta:
        indexes = [models.Index(fields=["season", "player", "id"], name="season_line_player")]

    def __str__(self) -> str:
        return f"game {self.game_id}: player {self.player_id} +{self.points}"


class SeasonFinal(models.Model):
    """A closed season's final standings line (the archive)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="finals", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    rank = models.IntegerField()
    league = models.SmallIntegerField(null=True)
    points = models.IntegerField()
    games = models.IntegerField()
    placement_left = models.IntegerField()
    season_elo = models.FloatField(null=True)
    relegation = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["season", "player"], name="season_final_player")]
        indexes = [models.Index(fields=["season", "rank", "player"], name="season_final_order")]

    def __str__(self) -> str:
        return f"{self.season_id}: #{self.rank} player {self.player_id}"


class SeasonCorrection(models.Model):
    """A change to a closed season's archive for one player, in words (docs/seasons.md "After the close")."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="corrections", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=300)
    game_ids = models.JSONField(default=list, help_text="The voided (or late) games that caused it.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["season", "id"], name="season_correction_order")]

    def __str__(self) -> str:
        return self.text


class SeasonRollover(models.Model):
    """An operator's rollover, written in the rollover's transaction."""

    title = models.CharField(max_length=32)
    closed_number = models.PositiveIntegerField()
    actor = models.CharField(max_length=150)
    reason = models.CharField(max_length=300, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.title} season {self.closed_number} closed by {self.actor}"
