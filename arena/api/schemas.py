"""Serializers that describe the JSON bodies for the OpenAPI schema (drf-spectacular).

Parsing of game bodies is done by ``arena.api.game_payload`` for speed; these classes are the documentation of
the same shapes, and a test checks that the schema names every field the parser accepts.
Every component has a unique name (drf-spectacular merges same-named serializers).
"""

from rest_framework import serializers

from arena.models import PLAYER_ID_PATTERN


class GamePlayerIn(serializers.Serializer):
    player = serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z", help_text="The site's player id.")
    ip = serializers.IPAddressField(help_text="Stored only as a keyed hash.")
    device = serializers.CharField(required=False, max_length=256, help_text="Opaque fingerprint, hashed.")
    score = serializers.IntegerField(required=False, allow_null=True)
    quit = serializers.BooleanField(required=False, default=False, help_text="The first player to quit, if any.")
    team = serializers.CharField(required=False, max_length=32)
    achievements = serializers.IntegerField(required=False, help_text="Tokaido: achievement cards, 0..7.")
    errors = serializers.IntegerField(required=False, help_text="Railroad Ink: errors, >= 0.")
    crops = serializers.ListField(child=serializers.IntegerField(), required=False, help_text="Nile: crop piles.")


class GameIn(serializers.Serializer):
    table_id = serializers.CharField(max_length=64)
    game = serializers.CharField(help_text="wizard, hanabi, tokaido, spades, railroad_ink, nile")
    variant = serializers.DictField(required=False, help_text="Game options; see docs/games.md.")
    rated = serializers.BooleanField(required=False, default=True)
    finished_at = serializers.DateTimeField(required=False)
    players = GamePlayerIn(many=True)
    details = serializers.DictField(required=False, help_text="Round-by-round details used to check scores.")


class GameBatchIn(serializers.Serializer):
    games = GameIn(many=True, help_text="Up to 500 game bodies.")


class SameIpWarning(serializers.Serializer):
    code = serializers.CharField()
    players = serializers.ListField(child=serializers.CharField())


class RatingChangeOut(serializers.Serializer):
    player = serializers.CharField()
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()


class GameOut(serializers.Serializer):
    id = serializers.IntegerField()
    table_id = serializers.CharField()
    game = serializers.CharField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=["pending", "rated", "unrated", "void"])
    places = serializers.DictField(child=serializers.IntegerField())
    warnings = SameIpWarning(many=True)
    rating_changes = RatingChangeOut(many=True)


class GameBatchItemOut(serializers.Serializer):
    index = serializers.IntegerField()
    status_code = serializers.IntegerField()
    body = serializers.JSONField(help_text="The game (as GameOut) or an error body.")


class GameBatchOut(serializers.Serializer):
    results = GameBatchItemOut(many=True)


class ErrorDetail(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField(child=serializers.CharField(), required=False)


class ErrorOut(serializers.Serializer):
    error = ErrorDetail()
