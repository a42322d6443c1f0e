"""The core domain: players, the game servers that report to Arena, and the finished games they report."""

from __future__ import annotations

import re

from django.db import models

# The one definition of a site player id (docs/api.md): 1-64 letters, digits, "_", "." or "-". Matched whole
# (fullmatch): a "$" anchor would let a trailing newline through.
PLAYER_ID_PATTERN = r"[A-Za-z0-9_.\-]{1,64}"
_PLAYER_ID = re.compile(PLAYER_ID_PATTERN)


def is_player_id(value: object) -> bool:
    """Whether ``value`` can be a player id; anything else names no player, so lookups need not ask the database."""
    # "." and ".." are refused (issue 25 §2): a browser or a proxy rewrites /players/../ into another URL.
    return isinstance(value, str) and _PLAYER_ID.fullmatch(value) is not None and value not in (".", "..")


class Player(models.Model):
    """A site account, created on first sight in a game report; a ban is a state of the player."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        BANNED = "banned"

    handle = models.CharField(max_length=64, unique=True, help_text="The site's player id, as game servers send it.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # Banned players are few; the database boards list them to leave them out, and this keeps that a
            # scan of a tiny index at any number of players.
            models.Index(fields=["handle"], name="player_banned", condition=models.Q(status="banned")),
        ]

    def __str__(self) -> str:
        return self.handle

    @property
    def is_banned(self) -> bool:
        return self.status == self.Status.BANNED


# What a key may do (docs/security.md#game-server-keys-and-scopes). ``preferences`` is not a default: in a real site
# the account service sets players' matchmaking preferences, not a game server; nor is ``tournaments`` (a site
# chooses which server organises them). ``staff`` (an operator's key: the rating economy, docs/api.md) is not one
# either.
SCOPES = ("games", "matchmaking", "reports", "preferences", "tournaments", "staff")
DEFAULT_SCOPES = ("games", "matchmaking", "reports")


def default_scopes() -> str:
    return " ".join(DEFAULT_SCOPES)


class GameServer(models.Model):
    """A game server allowed to report results; its key is shown once and only a hash is kept."""

    name = models.CharField(max_length=100, unique=True)
    key_prefix = models.CharField(max_length=12, help_text="The key's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Space-separated, as OAuth writes scopes: read with the key on every request by one hand-written query.
    scopes = models.CharField(
        max_length=100,
        default=default_scopes,
        help_text="What the key may do: " + ", ".join(SCOPES) + " (docs/security.md).",
    )

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def scope_set(self) -> frozenset[str]:
        return frozenset(self.scopes.split())

    # DRF's IsAuthenticated asks the authenticated "user" this.
    is_authenticated = True


class Game(models.Model):
    """A finished table as a game server reported it, with what Arena derived from it (places, warnings)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RATED = "rated"
        UNRATED = "unrated"
        VOID = "void"

    # No index of its own: game_unique_server_table leads with server_id and serves every lookup by server.
    server = models.ForeignKey(GameServer, on_delete=models.PROTECT, related_name="games", db_index=False)
    table_id = models.CharField(max_length=64)
    title = models.CharField(max_length=32, help_text='What is played: wizard, hanabi, ... (the API\'s "game").')
    variant = models.JSONField(default=dict, help_text="Normalised: every option, defaults filled.")
    rated = models.BooleanField(help_text="As the game server asked.")
    finished_at = models.DateTimeField()
    accepted_at = models.DateTimeField(auto_now_add=True)
    details = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices)
    # Derived at recording so the rating workers need no rules module to read a game.
    recommended_sides = models.PositiveSmallIntegerField(
        null=True, help_text="Effective recommended number of sides (teams count as one); null if cooperative."
    )
    coop_score = models.SmallIntegerField(null=True, help_text="Cooperative games: the score that is rated.")
    warnings = models.JSONField(default=list, blank=True)
    same_ip = models.BooleanField(default=False)
    fingerprint = models.CharField(max_length=64, help_text="Keyed hash of the body as sent, to tell a resend.")
    # Order in which the Elo stage applied the game; the rebuild replays in this order. The TrueSkill stage
    # follows the same order and keeps how far it got in its own stage row (ratings.stages), not on the game:
    # a flag here cost every TrueSkill batch an update of each game row and of its six indexes.
    rating_seq = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["server", "table_id"], name="game_unique_server_table"),
        ]
        indexes = [
            models.Index(
                fields=["title", "id"],
                name="game_pending_by_title",
                condition=models.Q(status="pending"),
            ),
            models.Index(fields=["title", "rating_seq"], name="game_rated_order"),
            # GET /api/v1/games/?since=: a server's games in finished_at order, by cursor (arena/game_reads.py).
            # Partial on a predicate only that listing states, so the recording's prepared probe by (server,
            # table_id) can never pick it: on a never-analysed database the two indexes cost the same for that
            # probe and the planner took this one, reading every game of the server per table.
            models.Index(
                fields=["server", "finished_at", "id"],
                name="game_server_finished",
                condition=models.Q(finished_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} {self.table_id}"


class Seat(models.Model):
    """One player's result at one game."""

    # No index of its own on game: seat_unique_player (game, player) serves every lookup by game, and each index
    # is one more write per seat when games arrive.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField(help_text="Index in the reported players list.")
    score = models.IntegerField(null=True)
    quit = models.BooleanField(default=False)
    team = models.CharField(max_length=32, null=True, blank=True)
    side = models.PositiveSmallIntegerField(help_text="Index of the player's side, best side first.")
    place = models.PositiveSmallIntegerField(null=True, help_text="1 = best; null in cooperative games.")
    fields = models.JSONField(default=dict, blank=True, help_text="Game-specific result fields.")
    ip_hash = models.CharField(max_length=64)
    device_hash = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="seat_unique_player")]
        # Declared here rather than with db_index=True, which on PostgreSQL adds a second varchar_pattern_ops
        # index per column for LIKE queries: hashes are only ever compared whole, and every index is one more
        # write per seat recorded.
        indexes = [
            models.Index(fields=["ip_hash"], name="seat_ip_hash"),
            models.Index(fields=["device_hash"], name="seat_device_hash"),
        ]
        ordering = ["game", "position"]

    def __str__(self) -> str:
        return f"{self.player_id}@{self.game_id}"
