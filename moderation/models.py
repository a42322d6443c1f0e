"""What moderation keeps: links between accounts, flags of suspected boosting, players' reports, the audit log.

The shapes, for whoever reads or draws them (docs/moderation.md):

- ``Link``: one row per unordered pair of accounts and kind (``ip`` or ``device``): the two used the same hash
  within ``rules.LINK_WINDOW`` of each other. ``player_a`` has the lower id. ``keys`` counts distinct shared
  hashes, ``first_seen``/``last_seen`` bound the shared uses, ``crowd`` is the most accounts ever seen on one of
  those hashes (a school, a café: the score weighs such a link less, ``rules.link_weight``). Raw values are
  never stored; ``key_digests`` holds short digests of the (already keyed) hashes only so re-runs can merge.
- ``Flag``: one per (beneficiary, title) while open (a partial unique constraint). ``status`` open, dismissed,
  confirmed (a moderator's verdict) or withdrawn (detection found the pattern gone on later games);
  ``score`` sorts the queue (higher first); ``evidence`` is JSON::

      {"game": slug,
       "beneficiary": {"id", "handle", "status", "created_at", "first_game_at", "age_days", "games"},
                                                        # games: rated, all titles; age from the first rated game
       "window": {"from": iso, "to": iso},                                            # the 90 days looked at
       "feeders": [{"id", "handle", "status", "created_at", "first_game_at", "age_days", "games",
                    "shared_games", "wins", "win_share",         # in this title, in the window; wins = B above F
                    "shared_any", "rated_games_in_window",       # any title: F's games with B, all F's games
                    "concentration",                             # shared_any / rated_games_in_window
                    "elo_gained",                                # B's Elo from the shared games of this title
                    "elo_share",                                 # the same, a game shared by n feeders split n ways
                    "weight",                                    # how much F's links count (rules.link_weight)
                    "links": [{"kind", "keys", "first_seen", "last_seen", "crowd", "crowded", "weight"}],
                    "game_ids": [...]}],
       "elo_gained": total, "game_ids": [...all shared games of the title...]}

  ``game_ids`` (column) is the set of games the flag was last raised on: a dismissed or confirmed flag is
  raised again (as a new row) only when a suspect game outside that set arrives.
- ``FlagFeeder``: the feeders of a flag as rows (for the ring picture and for lookups by player), mirroring
  ``evidence["feeders"]``.
- ``Report``: a player's report sent by a game server. ``reason`` is the leading reason, ``reasons`` all of
  them; ``status`` open, upheld, dismissed or closed (closed at once: ``same_ip`` alone, with ``answer``).
  ``score`` sorts the queue and rises with the reporter's track record.
- ``AuditEntry``: every moderator action: who (``moderator``, and ``moderator_name``, their username at the time,
  which a later rename leaves as it was), when, ``action`` (typed), targets (players, games,
  flags, reports), ``note``, and ``details`` JSON. ``void_games``: ``{"titles": [...], "pending_titles": [...]
  (emptied as the worker rebuilds each), "refunds": {title: [{"player", "handle", "before", "after", "delta"}]},
  "rebuilt_at": iso}`` (``after`` null when the player has no game left in the title). ``confirm_multiple_accounts``:
  ``{"primary", "secondaries", "banned", "resets": [{"title", "before", "after"}]}``; ``reset``: ``{"resets"}``.
- ``DetectionState``: where incremental detection stands (one row): the id watermark and the rating cursors.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.models import Game, GameServer, Player


class Link(models.Model):
    """Two accounts that used the same IP hash or device hash within 30 days of each other."""

    class Kind(models.TextChoices):
        IP = "ip"
        DEVICE = "device"

    player_a = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", db_index=False)
    player_b = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    keys = models.PositiveIntegerField(default=0, help_text="Distinct shared hashes.")
    key_digests = models.JSONField(default=list, blank=True, help_text="Short digests of the shared hashes.")
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    crowd = models.PositiveIntegerField(default=2, help_text="Most accounts seen on one of the shared hashes.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player_a", "player_b", "kind"], name="link_unique_pair_kind"),
            models.CheckConstraint(condition=models.Q(player_a__lt=models.F("player_b")), name="link_ordered_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.player_a_id}~{self.player_b_id} ({self.kind})"


class Case(models.Model):
    """What a flag and a report share as cases in the queue (docs/moderation.md, "Working the queue").

    Abstract: each keeps its own table and its own ``Status`` (a flag is confirmed, a report upheld), and the queue's
    services (``moderation.services.queue``) work on either through these fields: who closed it and when, the
    moderator's note, the case it duplicates, and the claim (Discourse-style: a moderator takes the case, others see
    who holds it; a claim lapses at ``claimed_until``, an hour after it was taken, without anyone releasing it).
    """

    score = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True, default="")
    duplicate_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Closed as the same case as this one.",
    )
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class Flag(Case):
    """Suspected boosting of one beneficiary in one title by one or more linked feeders; never a punishment."""

    class Status(models.TextChoices):
        OPEN = "open"
        DISMISSED = "dismissed"
        CONFIRMED = "confirmed"
        # Detection itself closed it: re-evaluated on later games, no feeder meets the thresholds any more (an
        # early run of luck that evened out). Not a verdict; raised again as a new flag if the pattern returns.
        WITHDRAWN = "withdrawn"
        # A moderator closed it as the same case as another flag (``duplicate_of``): not a verdict on anyone.
        DUPLICATE = "duplicate"

    beneficiary = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="flags")
    title = models.CharField(max_length=32)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    evidence = models.JSONField(default=dict)
    game_ids = models.JSONField(default=list, help_text="The suspect games the flag was last raised on.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["beneficiary", "title"], name="flag_one_open_per_title", condition=models.Q(status="open")
            ),
        ]
        indexes = [models.Index(fields=["status", "-score"], name="flag_queue")]
        ordering = ["-score", "id"]

    def __str__(self) -> str:
        """Handles, not database ids: this is the breadcrumb a moderator reads."""
        return f"flag #{self.pk}: {self.beneficiary.handle} in {self.title} ({self.status})"


class FlagFeeder(models.Model):
    """One feeder of a flag, with the figures of the evidence that concern them."""

    flag = models.ForeignKey(Flag, on_delete=models.CASCADE, related_name="feeders")
    feeder = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="fed_flags")
    shared_games = models.PositiveIntegerField()
    wins = models.PositiveIntegerField()
    win_share = models.FloatField()
    concentration = models.FloatField(help_text="Share of the feeder's rated games (any title) played with B.")
    elo_gained = models.FloatField(help_text="Elo the beneficiary gained in the shared games of this title.")
    link_kinds = models.JSONField(default=list)
    weight = models.FloatField(default=1.0, help_text="How much the links count (less through a crowded hash).")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["flag", "feeder"], name="flag_feeder_unique")]

    def __str__(self) -> str:
        return f"{self.feeder_id} feeds flag {self.flag_id}"


class Report(Case):
    """A player's report about other players, sent by a game server on the reporter's behalf."""

    class Reason(models.TextChoices):
        KINGMAKING = "kingmaking"
        MULTIPLE_ACCOUNTS = "multiple_accounts"
        SAME_IP = "same_ip"
        OTHER = "other"

    class Status(models.TextChoices):
        OPEN = "open"
        UPHELD = "upheld"
        DISMISSED = "dismissed"
        CLOSED = "closed"
        DUPLICATE = "duplicate"  # the same case as another report (``duplicate_of``): counts for no track record

    server = models.ForeignKey(GameServer, on_delete=models.PROTECT, related_name="reports")
    reporter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="reports_made")
    accused = models.ManyToManyField(Player, related_name="reports_against")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    reasons = models.JSONField(default=list)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports")
    move = models.PositiveIntegerField(null=True, blank=True)
    description = models.TextField(blank=True, default="", help_text="Player-supplied: hostile, always escaped.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    answer = models.TextField(blank=True, default="", help_text="What the reporter was told when closed at once.")

    class Meta:
        indexes = [
            models.Index(fields=["status", "-score", "created_at"], name="report_queue"),
            models.Index(fields=["reporter", "status"], name="report_by_reporter"),
        ]
        ordering = ["-score", "created_at"]

    def __str__(self) -> str:
        return f"report #{self.pk} by {self.reporter.handle}: {self.reason} ({self.status})"


class AuditEntry(models.Model):
    """One moderator action; written in the same transaction as the action, never edited."""

    class Action(models.TextChoices):
        CONFIRM_MULTIPLE_ACCOUNTS = "confirm_multiple_accounts"
        VOID_GAMES = "void_games"
        DISMISS_FLAG = "dismiss_flag"
        DISMISS_REPORT = "dismiss_report"
        UPHOLD_REPORT = "uphold_report"
        BAN = "ban"
        UNBAN = "unban"
        RESET = "reset"
        LIFT_COOLDOWN = "lift_cooldown"
        # A superuser's edit of a table rating or detection reads (Hanabot table, callbacks, game servers):
        # details {"model", "object", "object_repr", "operation": add|change|delete, "changes": {field: {before,
        # after}}} (backoffice.admin.rules_audit).
        ADMIN_EDIT = "admin_edit"
        # A recorded warning to a player, the first step short of a ban (shown on their page).
        WARN = "warn"
        # A moderator's private note about a player (lichess's mod notes): never shown to the player.
        NOTE = "note"
        # A flag or report closed as the same case as another (details {"duplicate_of": id}).
        CLOSE_DUPLICATE = "close_duplicate"
        # A moderator takes a flag or report (details {"until": iso}), or gives it back (details {"released": true}).
        CLAIM = "claim"
        # A closed flag or report opened again (a mistaken duplicate, dismissal or verdict): details {"was": status,
        # "duplicate_of": id | null, "undone": [...]} (what the reopening undid, moderation.services.queue).
        REOPEN = "reopen"
        # A tournament stopped where it was (the panel's Tournament page): details {"tournament": id, "name", "game",
        # "round": the round it stopped at}; the note is the reason, also kept on the tournament.
        CANCEL_TOURNAMENT = "cancel_tournament"

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="moderation_actions"
    )
    # The moderator's username as it was when they acted: renaming the account later does not rewrite history.
    moderator_name = models.CharField(
        max_length=150, blank=True, default="", help_text="The moderator's username at the time of the action."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=32, choices=Action.choices)
    players = models.ManyToManyField(Player, blank=True, related_name="audit_entries")
    games = models.ManyToManyField(Game, blank=True, related_name="audit_entries")
    flags = models.ManyToManyField(Flag, blank=True, related_name="audit_entries")
    reports = models.ManyToManyField(Report, blank=True, related_name="audit_entries")
    note = models.TextField(blank=True, default="")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}"


class BanTerm(models.Model):
    """When a timed ban ends: a banned player with a term is unbanned by the beat (``lift_expired_bans``) once
    ``until`` is past, as an audited action. A ban without a term lasts until a moderator lifts it."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, primary_key=True, related_name="ban_term")
    until = models.DateTimeField(db_index=True)
    entry = models.ForeignKey(
        AuditEntry, on_delete=models.PROTECT, related_name="+", help_text="The ban that set this term."
    )

    def __str__(self) -> str:
        return f"ban of {self.player_id} until {self.until:%Y-%m-%d %H:%M}"


class DetectionState(models.Model):
    """Where incremental detection stands: games with a larger id have not been looked at yet (their links), and
    per title, games rated with a larger ``rating_seq`` have not been looked at as rated (who sat together).

    Two cursors because the two facts arrive at different times: a game's seats are there when it is recorded,
    its rating when the rating stage gets to it (or never). Neither cursor waits for the other.
    """

    name = models.CharField(max_length=16, unique=True, default="default")
    last_game_id = models.BigIntegerField(default=0)
    rated_seqs = models.JSONField(
        default=dict, blank=True, help_text="Per title, the last rating_seq looked at as rated."
    )
    last_run_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"detection up to game {self.last_game_id}"
