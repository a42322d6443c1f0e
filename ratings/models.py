"""Ratings per player and title, their full history, the Hanabot table and the per-title stage locks."""

from __future__ import annotations

from django.db import models

from arena.models import Game, Player


class Rating(models.Model):
    """A player's current standing in one title: the fold of that player's RatingChange rows."""

    # No index of its own: rating_unique_player_title (player, title) serves every lookup by player, and each
    # index costs the Elo stage a write per updated rating.
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings", db_index=False)
    title = models.CharField(max_length=32)
    elo = models.FloatField()
    games = models.PositiveIntegerField(default=0, help_text="Rated games played in this title.")
    last_game_at = models.DateTimeField(null=True, blank=True, help_text="finished_at of the last rated game.")
    ts_mu = models.FloatField(null=True, blank=True)
    ts_sigma = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "title"], name="rating_unique_player_title")]
        indexes = [
            models.Index(fields=["title", "-elo"], name="rating_by_title_elo"),
            # The database leaderboard (leaderboards/db_board.py): its order (elo desc, player) and filters
            # (games, last_game_at) from the index alone; partial, since most players never reach 5 games.
            models.Index(
                fields=["title", "-elo", "player", "last_game_at", "games"],
                name="rating_leaderboard",
                condition=models.Q(games__gte=5),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.title} {self.elo:.2f}"


class RatingChange(models.Model):
    """One applied change: a game's delta or a moderator's reset. Never edited; a rebuild rewrites them all."""

    class Kind(models.TextChoices):
        GAME = "game"
        RESET = "reset"

    seq = models.BigIntegerField(help_text="Order of application within the title.")
    title = models.CharField(max_length=32)
    # No index on player of its own: change_history (player, title, -seq) serves every lookup by player, and each
    # index costs the Elo stage a write per history row. The foreign keys stay checked by the database: history
    # is the source of every rating, so it must never point at nothing, even if that costs the batch some speed.
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, null=True, blank=True, related_name="rating_changes")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.GAME)
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    k = models.PositiveSmallIntegerField(null=True, blank=True)
    games_before = models.PositiveIntegerField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # Hanabi: the bot's rating the team faced. Kept because moderators edit the Hanabot table and an edit applies
    # only to games rated afterwards: a rebuild replays each game against the bot it actually met.
    opponent = models.FloatField(null=True, blank=True, help_text="Hanabi: Hanabot's rating for this game.")
    finished_at = models.DateTimeField(help_text="The game's finish, or the reset's time.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Exactly once: a game changes a player's rating at most once, whatever a redelivered task does.
            models.UniqueConstraint(
                fields=["game", "player"], name="change_once_per_game", condition=models.Q(kind="game")
            ),
        ]
        indexes = [models.Index(fields=["player", "title", "-seq"], name="change_history")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.title} {self.delta:+.2f}"


class HanabotRating(models.Model):
    """The Hanabot table: the bot's Elo per (variant class, team size, score); admins may tune it."""

    variant_class = models.CharField(max_length=4, choices=[("50", "50"), ("60", "60"), ("60m", "60m")])
    team_size = models.PositiveSmallIntegerField()
    score = models.PositiveSmallIntegerField()
    elo = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["variant_class", "team_size", "score"], name="hanabot_unique_key"),
        ]
        ordering = ["variant_class", "team_size", "score"]
        verbose_name = "Hanabot rating"

    def __str__(self) -> str:
        return f"Hanabot {self.variant_class}/{self.team_size}p/{self.score}: {self.elo:g}"


class RatingStage(models.Model):
    """One row per (title, stage): locked FOR UPDATE while a batch runs, so a title is rated one batch at a time."""

    class Stage(models.TextChoices):
        ELO = "elo"
        TRUESKILL = "trueskill"

    title = models.CharField(max_length=32)
    stage = models.CharField(max_length=10, choices=Stage.choices)
    last_seq = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["title", "stage"], name="stage_unique")]

    def __str__(self) -> str:
        return f"{self.title}/{self.stage}"


class Reputation(models.Model):
    """A player's recent outcomes across titles (``ratings.reputation``) and their quit cool-down.

    Written by the Elo stage, one statement per batch (the database appends the batch's outcomes); a moderator may
    lift a running cool-down (``lifted_at``), an audited action of moderation.
    """

    player = models.OneToOneField(Player, on_delete=models.CASCADE, primary_key=True, related_name="reputation")
    recent = models.CharField(
        max_length=200,
        default="",
        blank=True,
        help_text="Outcomes of the latest rated games, oldest first: f finished, q quit.",
    )
    cooldown_until = models.DateTimeField(null=True, blank=True)
    cooldown_seconds = models.PositiveIntegerField(default=0, help_text="Length of the latest cool-down.")
    cooldown_started_at = models.DateTimeField(null=True, blank=True)
    last_quit_at = models.DateTimeField(null=True, blank=True)
    lifted_at = models.DateTimeField(null=True, blank=True, help_text="When a moderator last lifted a cool-down.")

    def __str__(self) -> str:
        return f"reputation of {self.player_id}"


class LedgerDay(models.Model):
    """The rating ledger (docs/ratings.md, "Where rating points come from"): the points one source created and
    destroyed in one title on one UTC day. Added to (never rewritten) in the transaction of the change it counts:
    the Elo stage's batch, a reset, a rebuild after a void; the day is the day the change was applied."""

    title = models.CharField(max_length=32)
    day = models.DateField()
    source = models.CharField(max_length=16)
    created = models.FloatField(default=0.0, help_text="Sum of the positive parts.")
    destroyed = models.FloatField(default=0.0, help_text="Sum of the negative parts (a negative number).")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["title", "day", "source"], name="ledger_unique_day")]
        # The panel lists it by what its page shows (backoffice/admin/economy.py).
        verbose_name = verbose_name_plural = "rating economy"

    def __str__(self) -> str:
        return f"{self.title} {self.day} {self.source} {self.created:+.2f}/{self.destroyed:+.2f}"


class PopulationDay(models.Model):
    """A title's active players on one UTC day (rated within the boards' 90 days): count, mean and median Elo,
    as last taken that day (``ratings.economy.population_snapshot``, by beat); the ledger's other half."""

    title = models.CharField(max_length=32)
    day = models.DateField()
    active = models.PositiveIntegerField()
    mean = models.FloatField(null=True, blank=True)
    median = models.FloatField(null=True, blank=True)
    taken_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["title", "day"], name="population_unique_day")]

    def __str__(self) -> str:
        return f"{self.title} {self.day} {self.active} active"
