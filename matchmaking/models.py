"""Tickets waiting in pools, the tables formed from them, players' preferences and the pushes to game servers.

Why these shapes:

- **Pool** is one row per (title, variant, rated): the row a pass locks, so two matchmaker processes never run the
  same pool at once, and the list the beat task walks to find pools with work.
- **TicketSeat** holds every player a ticket brings (the owner at position 0, then the party), never changed.
- **OpenSeat** is the same players while the ticket waits: "one open ticket per player and game" is its unique
  (player, title), so the rule holds for party members too and under concurrent requests, not only when a
  read-then-write happens to see the other request. Closing a ticket deletes its rows: a pass closes thousands
  of tickets at once, and a delete costs the database far less than an update (no new row, no index entries).
- **Preferences** and **ServerCallback** live here, keyed one-to-one by the core's Player and GameServer: the core
  knows nothing of matchmaking (docs/architecture.md).
"""

from __future__ import annotations

import secrets
import uuid

from django.core.exceptions import ValidationError
from django.db import models

from arena.models import GameServer, Player
from matchmaking.ids import uuid7
from matchmaking.push_net import callback_url_refusal


class Pool(models.Model):
    """Where tickets of one (title, variant, rated) wait; locked FOR UPDATE by the pass that runs it."""

    # What is played (wizard, hanabi, ...): the house's word, as in ratings and moderation; the API says "game".
    title = models.CharField(max_length=32)
    variant = models.JSONField(default=dict, help_text="Normalised: every option, defaults filled.")
    # The variant as canonical JSON (sorted keys, no spaces): what makes two variants the same pool.
    variant_key = models.CharField(max_length=255)
    rated = models.BooleanField()
    last_pass_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["title", "variant_key", "rated"], name="pool_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.title} {self.variant_key} {'rated' if self.rated else 'unrated'}"


class Table(models.Model):
    """A table the matchmaker formed: its players longest-waiting ticket first, and same-IP warnings."""

    # Time-ordered (matchmaking/ids.py), as the pass makes them: tables are never deleted.
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    # No index of its own: nothing looks tables up by pool, and a pass inserts thousands at once.
    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="tables", db_index=False)
    title = models.CharField(max_length=32)
    variant = models.JSONField(default=dict)
    rated = models.BooleanField()
    players = models.JSONField(default=list, help_text="Handles, in seating order.")
    warnings = models.JSONField(default=list, blank=True)
    formed_at = models.DateTimeField()
    # [elo, rated games] of each player at formation, in seating order: what the stakes are computed from
    # (docs/matchmaking.md, "Stakes"), so a table's GET and its pushes quote the same figures whenever they are read.
    standings = models.JSONField(default=list, blank=True)

    class Meta:
        indexes = [models.Index(fields=["formed_at"], name="mm_table_formed")]

    def __str__(self) -> str:
        return f"{self.title} table {self.id}"


class Ticket(models.Model):
    """A game server's request, on a player's behalf, to be seated at a table of ``pool``."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        MATCHED = "matched"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    class CancelReason(models.TextChoices):
        """Why a cancelled ticket was cancelled (its GET's ``reason``)."""

        DELETED = "deleted"  # the game server's DELETE
        PLAYER_BANNED = "player_banned"  # a moderator banned a player of the ticket
        SERVER_REVOKED = "server_revoked"  # the game server's key was revoked

    # Only the primary key and the request index, neither on a column a pass changes: a pass rewrites every ticket
    # it seats, and so each rewrite is a heap-only update (no index entry written; the table keeps free room on
    # each page for it, see the migration). The waiting tickets of a pool or a player are found through OpenSeat,
    # then by this key: time-ordered (matchmaking/ids.py), so the waiting ones share the index's last pages however
    # many closed tickets the history keeps (a partial index on the waiting ones would name status, see above).
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    server = models.ForeignKey(GameServer, on_delete=models.PROTECT, related_name="tickets", db_index=False)
    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="tickets", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tickets", db_index=False)
    request_id = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        help_text="The game server's own id for the request: a retry returns this ticket.",
    )
    fingerprint = models.CharField(max_length=64, help_text="Keyed hash of the request, to tell a retry.")
    min_players = models.PositiveSmallIntegerField()
    max_players = models.PositiveSmallIntegerField()
    # The least reputation (percent) accepted at the table: the strictest its players asked; null for any.
    min_reputation = models.FloatField(null=True, blank=True)
    # No provisional player at the table (docs/matchmaking.md, "Avoiding provisional players"); a database default
    # too, so the bulk writers that name their columns (COPY in the benches) need not know it.
    avoid_provisional = models.BooleanField(default=False, db_default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    created_at = models.DateTimeField(help_text="When the ticket started waiting.")
    closed_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(max_length=20, choices=CancelReason.choices, blank=True, default="")
    # No index: the pass sets it on thousands of tickets at once, and pushes carry their tickets' ids instead.
    # No database constraint either: checked at commit, each row would lock its table's row for key share, four
    # tickets to a row (multixacts), which cost a 100,000-ticket pass ten seconds. The pass writes the table and
    # its tickets in one transaction, and tables are never deleted (PROTECT), so the reference cannot dangle.
    table = models.ForeignKey(
        Table,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tickets",
        db_index=False,
        db_constraint=False,
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["server", "request_id"],
                name="mm_ticket_unique_request",
                condition=models.Q(request_id__isnull=False),
            ),
        ]
        # The history purge's way to the oldest tickets (matchmaking/history.py). On created_at, which no pass
        # changes, so a pass's rewrites stay heap-only; a partial index on the closed ones would name status, which
        # every pass changes. Built CONCURRENTLY (migration 0004): the table is hot.
        indexes = [models.Index(fields=["created_at"], name="mm_ticket_created")]

    def __str__(self) -> str:
        return f"ticket {self.id} ({self.status})"


class TicketSeat(models.Model):
    """A player a ticket brings: the owner (position 0) or a party member, with the IP hash they came from."""

    # Served by the unique (ticket, position) index below: no index of its own.
    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="seats", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="ticket_seats", db_index=False)
    position = models.PositiveSmallIntegerField()
    ip_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ticket", "position"], name="mm_seat_unique_position")]
        ordering = ["ticket", "position"]

    def __str__(self) -> str:
        return f"{self.player_id}@{self.ticket_id}"


class OpenSeat(models.Model):
    """A player of a waiting ticket, in its title: at most one per player and title. Deleted when the ticket closes,
    so these rows are exactly the waiting tickets' players: a pass loads its pool from here."""

    # Served by mm_open_one_per_title (player first): no index of its own.
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="open_seats", db_index=False)
    title = models.CharField(max_length=32)
    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="open_seats")
    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="open_seats")
    position = models.PositiveSmallIntegerField()
    ip_hash = models.CharField(max_length=64)
    # The ticket's server, so that MATCHMAKING_MAX_WAITING_PER_SERVER counts a server's waiting tickets in its
    # own small index (the owners' seats only) instead of through every waiting ticket: open seats are inserted
    # and deleted, never updated, so the index costs a pass nothing. Null only for rows older than the column.
    server = models.ForeignKey(
        GameServer, on_delete=models.CASCADE, null=True, blank=True, db_index=False, related_name="+"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "title"], name="mm_open_one_per_title")]
        indexes = [models.Index(fields=["server"], condition=models.Q(position=0), name="mm_open_server_owner")]

    def __str__(self) -> str:
        return f"{self.player_id} waits in {self.title}"


class Preferences(models.Model):
    """What a player refuses at a table: same-IP table-mates, and the players they blocked (by handle)."""

    player = models.OneToOneField(
        Player, on_delete=models.CASCADE, primary_key=True, related_name="matchmaking_preferences"
    )
    refuse_same_ip = models.BooleanField(default=False)
    # Handles rather than a many-to-many: a pass reads every waiting player's list in the one query that loads
    # the pool, and handles never change (the site's player id).
    blocked = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"preferences of {self.player_id}"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


class ServerCallback(models.Model):
    """Where to push a game server's formed tables, and the secrets the pushes are signed with (superusers only).

    Rotation in Stripe's style (docs/security.md#rotating-keys-and-callback-secrets): a new ``secret`` is issued and
    the old one kept in ``previous_secret`` until ``previous_secret_expires_at`` (or until a superuser drops it);
    meanwhile every push carries one ``v1=`` per valid secret. Secrets are kept as they are (a signature needs
    them), shown once when issued and never again.
    """

    server = models.OneToOneField(
        GameServer, on_delete=models.CASCADE, primary_key=True, related_name="matchmaking_callback"
    )
    url = models.URLField(max_length=500, help_text="https, on a public address (docs/security.md).")
    secret = models.CharField(
        max_length=64,
        default=new_secret,
        help_text="HMAC-SHA256 key of the X-Arena-Signature header; shown once when issued.",
    )
    previous_secret = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="The secret before the last rotation, still signing until dropped.",
    )
    previous_secret_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="When the previous secret stops signing; empty: until dropped by hand."
    )
    enabled = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"callback of {self.server_id}"

    def clean(self) -> None:
        """The send's rules, checked when a superuser saves the URL (every send checks them again)."""
        if self.url and (refusal := callback_url_refusal(self.url)) is not None:
            raise ValidationError({"url": f"Arena will not push here: {refusal}."})


class Delivery(models.Model):
    """One table pushed to one game server: retried until it succeeds or the attempts run out.

    Its id travels in ``X-Arena-Delivery``, so a receiver that gets it twice (at least once means perhaps twice)
    can drop the duplicate.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"
        ABANDONED = "abandoned"  # never to be sent: its server was revoked or its callback disabled or removed

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    server = models.ForeignKey(GameServer, on_delete=models.CASCADE, related_name="deliveries")
    # Null for an event that is not a formed table (matchmaking/events.py): its ``data`` is kept instead.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="deliveries", null=True, blank=True)
    event_type = models.CharField(max_length=40, default="table.formed")
    data = models.JSONField(
        null=True,
        blank=True,
        help_text="The event's data, frozen when it happened; a table.formed push reads its table at each send.",
    )
    url = models.URLField(max_length=500)
    tickets = models.JSONField(default=list, help_text="The server's own tickets at the table.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # Every attempt ever made (as many as the attempt rows); an admin's retry gives ``round_start`` = attempts, so
    # the limit and the backoff count the attempts since then.
    attempts = models.PositiveSmallIntegerField(default=0)
    round_start = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField()
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [models.UniqueConstraint(fields=["table", "server"], name="mm_delivery_once")]
        indexes = [
            models.Index(fields=["next_attempt_at"], name="mm_delivery_due", condition=models.Q(status="pending")),
            # The deliveries list (GET /api/v1/deliveries/): a server's newest first, by cursor.
            models.Index(fields=["server", "-created_at", "-id"], name="mm_delivery_server_recent"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One POST of a delivery: what the receiver answered, or why it could not be reached."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"
