"""What seasons keep (docs/seasons.md).

Live tables (the open season, written by the live stage): ``SeasonEntry`` (one per player who played or was
carried over; ``tier``/``score`` are the standings' order key, so a page is one indexed query) and ``SeasonGame``
(one per counted game: its seats' leagues before it, from which a player's page rebuilds the points and why; a closed
season keeps them: they are the games its archive counts).

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
    version = models.BigIntegerField(
        default=0, help_text="Bumped by every write to the entries: the Redis copy of the standings holds one."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["title", "number"], name="season_title_number"),
            models.UniqueConstraint(
                fields=["title"], condition=models.Q(closed_at__isnull=True), name="season_one_open_per_title"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} season {self.number}"


class SeasonEntry(models.Model):
    """A player's season so far (``seasons.rules.Entry`` plus the season Elo). ``carried``: the league the previous
    season's close carried the player into (set at the rollover, never changed after: a replay starts from it).

    No database foreign keys (the ORM's relations and cascades stay): a rollover writes a million entries in one
    statement, and checking each against its player and season at commit would cost more than the write; every
    row is written by this app from rows it has just read."""

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="entries", db_index=False, db_constraint=False
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False)
    carried = models.SmallIntegerField(null=True)
    points = models.IntegerField(default=0)
    games = models.IntegerField(default=0)
    placement_left = models.IntegerField(default=0)
    league = models.SmallIntegerField(null=True)
    elo = models.FloatField()
    elo_games = models.IntegerField(default=0)
    tier = models.SmallIntegerField(help_text="league, or -1 in placement (seasons.rules.order_key)")
    score = models.FloatField(help_text="points, or the season Elo in the top league")

    class Meta:
        # No index on the order key (tier, score): it changes with every game, so each upsert of the live stage
        # would write a new index entry, and no update could stay on its page (HOT). Scaled out, pages are read
        # from the Redis copy; the database sorts the season's entries when it answers (embedded, or a lost copy).
        constraints = [models.UniqueConstraint(fields=["season", "player"], name="season_entry_player")]

    def __str__(self) -> str:
        return f"{self.season_id}: player {self.player_id}, {self.points} points"


class SeasonGame(models.Model):
    """One counted game of a season: its seats' leagues before it, one character a seat in seat order
    (``seasons.rules.leagues_code``). With the game's seats this rebuilds each player's points and why
    (``seasons.rules.player_lines``), so the live stage writes one short row a game, not a line a seat."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False)
    game_id = models.BigIntegerField()
    seq = models.BigIntegerField(help_text="The game's rating_seq: a player's games are listed in this order.")
    leagues = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["season", "game_id"], name="season_game_once")]

    def __str__(self) -> str:
        return f"{self.season_id}: game {self.game_id}"


class SeasonFinal(models.Model):
    """A closed season's final standings line (the archive). No database foreign keys, as ``SeasonEntry``."""

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="finals", db_index=False, db_constraint=False
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False)
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
