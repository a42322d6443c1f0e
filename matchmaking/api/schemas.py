"""Serializers that document the matchmaking bodies for the OpenAPI schema; parsing is ``payload``'s.

Every component has its own name (drf-spectacular merges same-named serializers).
"""

from rest_framework import serializers

from arena.api.schemas import SameIpWarning
from arena.models import PLAYER_ID_PATTERN


class PartyMemberIn(serializers.Serializer):
    player = serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z")
    ip = serializers.IPAddressField(help_text="Stored only as a keyed hash.")
    min_reputation = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text="The least reputation (%) this friend accepts at the table.",
    )


class TicketIn(serializers.Serializer):
    player = serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z", help_text="The site's player id.")
    ip = serializers.IPAddressField(help_text="Stored only as a keyed hash.")
    game = serializers.CharField(help_text="wizard, hanabi, tokaido, spades, railroad_ink, nile")
    variant = serializers.DictField(required=False, help_text="Game options; the pool is (game, variant, rated).")
    rated = serializers.BooleanField(required=False, default=True)
    min_players = serializers.IntegerField(required=False, help_text="Smallest table accepted (game's by default).")
    max_players = serializers.IntegerField(required=False, help_text="Largest table accepted (game's by default).")
    party = PartyMemberIn(many=True, required=False, help_text="Up to 3 friends seated together or not at all.")
    request_id = serializers.CharField(
        required=False, max_length=64, help_text="Your own id: sending it again returns the same ticket (200)."
    )
    min_reputation = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text="Never seat a player whose reputation (%) is below this; a "
        "party's minimum is the strictest of its players'.",
    )
    avoid_provisional = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Never seat a player whose rating in this game is provisional (docs/ratings.md).",
    )


class StakeOut(serializers.Serializer):
    player = serializers.CharField()
    rating = serializers.FloatField(help_text="Elo at formation, unrounded.")
    games = serializers.IntegerField(help_text="Rated games at formation (decides K).")
    k = serializers.IntegerField()
    if_first = serializers.FloatField(required=False, help_text="Change if this seat places first alone.")
    if_last = serializers.FloatField(required=False, help_text="Change if this seat places last alone.")
    at_threshold = serializers.FloatField(required=False, help_text="Hanabi: change at the threshold score.")
    at_perfect = serializers.FloatField(required=False, help_text="Hanabi: change at a perfect score.")
    provisional = serializers.BooleanField(
        help_text='docs/ratings.md, "How settled is a rating", from the games at formation.'
    )
    band = serializers.FloatField(help_text="± points, one standard deviation, as of the seat's last game.")
    games_to_settle = serializers.IntegerField(help_text="Rated games until not provisional.")


class MatchTableOut(serializers.Serializer):
    id = serializers.CharField()
    game = serializers.CharField()
    variant = serializers.DictField()
    rated = serializers.BooleanField()
    players = serializers.ListField(child=serializers.CharField())
    warnings = SameIpWarning(many=True)  # the same warning a recorded game carries
    formed_at = serializers.DateTimeField()
    stakes = StakeOut(many=True, allow_null=True, help_text="Per seat, what the table puts at stake; null unrated.")


class TicketWaitOut(serializers.Serializer):
    seconds = serializers.FloatField(help_text="How long the ticket has waited.")
    elo_tolerance = serializers.FloatField(help_text="The Elo gap it accepts now: 150 + 10 per second, up to 800.")
    pool_waiting = serializers.IntegerField(help_text="Tickets waiting in its pool, this one included.")
    expires_in = serializers.FloatField(help_text="Seconds until it expires (10 minutes of waiting).")
    min_reputation = serializers.DictField(
        required=False,
        help_text="With a minimum: {minimum, excludes, holding}: how many waiting tickets it keeps away.",
    )


class RecordedGameLinkOut(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="/api/v1/games/{id}/")


class TicketOut(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=["waiting", "matched", "cancelled", "expired"])
    player = serializers.CharField()
    party = serializers.ListField(child=serializers.CharField())
    game = serializers.CharField()
    variant = serializers.DictField()
    rated = serializers.BooleanField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    request_id = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    min_reputation = serializers.FloatField(allow_null=True)
    avoid_provisional = serializers.BooleanField()
    waiting = TicketWaitOut(required=False, help_text="Only while waiting.")
    table = MatchTableOut(required=False, help_text="Only when matched.")
    recorded_game = RecordedGameLinkOut(
        required=False,
        allow_null=True,
        help_text="Only when matched: the game you recorded under the table's id "
        "(table_id = table.id), once there is one; null until then.",
    )
    reason = serializers.ChoiceField(
        choices=["deleted", "player_banned", "server_revoked"],
        required=False,
        help_text="Only when cancelled: by the server's DELETE, a ban, or the server's key revoked.",
    )


class PreferencesIn(serializers.Serializer):
    refuse_same_ip = serializers.BooleanField(required=False, default=False)
    blocked = serializers.ListField(child=serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z"), required=False)


class PreferencesPatchIn(serializers.Serializer):
    refuse_same_ip = serializers.BooleanField(required=False)
    blocked = serializers.ListField(child=serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z"), required=False)


class PreferencesOut(serializers.Serializer):
    player = serializers.CharField()
    refuse_same_ip = serializers.BooleanField()
    blocked = serializers.ListField(child=serializers.CharField())


class PushTicketOut(serializers.Serializer):
    id = serializers.UUIDField(help_text="One of your tickets seated at this table.")
    request_id = serializers.CharField(allow_null=True, help_text="The request_id you sent with it, or null.")


class PushBodyOut(serializers.Serializer):
    """What Arena POSTs to a game server's callback URL when a table seats its tickets (docs/matchmaking.md)."""

    delivery = serializers.UUIDField(help_text="The delivery's id, as in X-Arena-Delivery: the same on every retry.")
    table = MatchTableOut(help_text="The table, as a matched ticket's GET shows it (times in ISO 8601, UTC, Z).")
    tickets = PushTicketOut(many=True, help_text="Your own tickets at the table, by id.")
