"""Serializers that document the matchmaking bodies for the OpenAPI schema; parsing is ``payload``'s.

Every component has its own name (drf-spectacular merges same-named serializers).
"""
from rest_framework import serializers

from arena.api.schemas import SameIpWarning
from arena.models import PLAYER_ID_PATTERN


class PartyMemberIn(serializers.Serializer):
    player = serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z")
    ip = serializers.IPAddressField(help_text="Stored only as a keyed hash.")


class TicketIn(serializers.Serializer):
    player = serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z", help_text="The site's player id.")
    ip = serializers.IPAddressField(help_text="Stored only as a keyed hash.")
    game = serializers.CharField(help_text="wizard, hanabi, tokaido, spades, railroad_ink, nile")
    variant = serializers.DictField(required=False, help_text="Game options; the pool is (game, variant, rated).")
    rated = serializers.BooleanField(required=False, default=True)
    min_players = serializers.IntegerField(required=False, help_text="Smallest table accepted (game's by default).")
    max_players = serializers.IntegerField(required=False, help_text="Largest table accepted (game's by default).")
    party = PartyMemberIn(many=True, required=False, help_text="Up to 3 friends seated together or not at all.")
    request_id = serializers.CharField(required=False, max_length=64,
                                       help_text="Your own id: sending it again returns the same ticket (200).")


class MatchTableOut(serializers.Serializer):
    id = serializers.CharField()
    game = serializers.CharField()
    variant = serializers.DictField()
    rated = serializers.BooleanField()
    players = serializers.ListField(child=serializers.CharField())
    warnings = SameIpWarning(many=True)  # the same warning a recorded game carries
    formed_at = serializers.DateTimeField()


class TicketWaitOut(serializers.Serializer):
    seconds = serializers.FloatField(help_text="How long the ticket has waited.")
    elo_tolerance = serializers.FloatField(help_text="The Elo gap it accepts now: 150 + 10 per second, up to 800.")
    pool_waiting = serializers.IntegerField(help_text="Tickets waiting in its pool, this one included.")
    expires_in = serializers.FloatField(help_text="Seconds until it expires (10 minutes of waiting).")


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
    waiting = TicketWaitOut(required=False, help_text="Only while waiting.")
    table = MatchTableOut(required=False, help_text="Only when matched.")


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
