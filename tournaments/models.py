"""A tournament's rows: the tournament, its entries, its rounds, their tables (seats in seat order) and byes.

docs/tournaments.md. The rows are the record the rules replay: the standings are never stored, they are computed
from the tables' places, the byes and the voided entries (``tournaments/standings.py``), so a void or a late
result can never leave a stored total behind. Players are the core's ``Player`` rows; a table's game is the core's
``Game`` row the server recorded naming the table (``tournament_table``).
"""

from __future__ import annotations

from django.db import models

from arena.models import Game, GameServer, Player


class Tournament(models.Model):
    """One tournament (Swiss, or single elimination at two-seat tables), created by a game server with the
    ``tournaments`` scope."""

    SWISS = "swiss"
    ELIMINATION = "elimination"  # docs/tournaments.md#elimination

    class Status(models.TextChoices):
        REGISTERING = "registering"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    server = models.ForeignKey(GameServer, on_delete=models.PROTECT, related_name="tournaments")
    name = models.CharField(max_length=100)
    title = models.CharField(max_length=32, help_text='What is played (the API\'s "game").')
    format = models.CharField(max_length=16, default="swiss")
    rounds = models.PositiveSmallIntegerField()
    table_size = models.PositiveSmallIntegerField()
    round_minutes = models.PositiveIntegerField(default=60, help_text="Each round's deadline after its pairing.")
    starts_at = models.DateTimeField()
    min_reputation = models.FloatField(null=True, blank=True)
    rating_min = models.FloatField(null=True, blank=True)
    rating_max = models.FloatField(null=True, blank=True)
    max_players = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERING)
    round = models.PositiveSmallIntegerField(default=0, help_text="The round being played (0 before the start).")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The changes voids made, listed on the tournament (docs/tournaments.md#voids): [{"player", "game", "at",
    # "changes": [{"player", "before", "after"}]}].
    voids = models.JSONField(default=list, blank=True)
    # A moderator's cancellation, kept on the row it changed (the audit of docs/tournaments.md#cancelling).
    cancelled_by = models.CharField(max_length=150, blank=True, default="")
    cancel_reason = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_by_status_start")]

    def __str__(self) -> str:
        return f"{self.name} ({self.title})"


class Entry(models.Model):
    """A player's registration; ``status`` says whether they still play."""

    class Status(models.TextChoices):
        REGISTERED = "registered"
        WITHDRAWN = "withdrawn"
        REMOVED = "removed"  # failed a gate at the start (``reason`` says which)
        VOIDED = "voided"  # their games were voided: out of the standings (docs/tournaments.md#voids)

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournament_entries")
    ip_hash = models.CharField(max_length=64, blank=True, default="")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    reason = models.CharField(max_length=200, blank=True, default="")
    start_elo = models.FloatField(null=True, blank=True, help_text="The title's Elo when the tournament started.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="entry_once_per_tournament")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.tournament_id}"


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_rows")
    number = models.PositiveSmallIntegerField()
    paired_at = models.DateTimeField()
    deadline = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    repeats = models.PositiveIntegerField(default=0)
    exact = models.BooleanField(default=False, help_text="The search proved the pairing the best there is.")
    notes = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_once_per_number")]
        indexes = [
            models.Index(fields=["deadline"], name="round_open_deadline", condition=models.Q(closed_at__isnull=True))
        ]

    def __str__(self) -> str:
        return f"round {self.number} of {self.tournament_id}"


class Table(models.Model):
    """One table of a round: seats in ``TableSeat`` (seat order), the recorded game once there is one."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    board = models.PositiveSmallIntegerField()
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.PROTECT, related_name="tournament_table")
    no_show = models.BooleanField(default=False, help_text="No result by the round's deadline: every seat scores 0.")
    explanation = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"table {self.pk} (board {self.board})"


class TableSeat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournament_seats")
    position = models.PositiveSmallIntegerField(help_text="0 = seat 1, the rules' first player.")
    place = models.PositiveSmallIntegerField(null=True, blank=True, help_text="From the recorded game.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "position"], name="tableseat_once_per_position")]

    def __str__(self) -> str:
        return f"seat {self.position + 1} of table {self.table_id}"


class Bye(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="byes")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournament_byes")

    def __str__(self) -> str:
        return f"bye for {self.player_id} in round {self.round_id}"
