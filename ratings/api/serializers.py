"""Bodies of the player reads, for the OpenAPI schema (drf-spectacular) and for parsing the history query.

Every component has a unique name: drf-spectacular merges same-named serializers.
"""
from rest_framework import serializers

# RatingChange.seq is a BigIntegerField: a larger cursor could not even be sent to the database.
_MAX_SEQ = 2**63 - 1


class HistoryQueryIn(serializers.Serializer):
    limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=200)
    before = serializers.IntegerField(required=False, min_value=0, max_value=_MAX_SEQ)


class NotRankedOut(serializers.Serializer):
    reason = serializers.ChoiceField(choices=["no_leaderboard", "banned", "too_few_games", "inactive", "catching_up"])
    message = serializers.CharField()
    games = serializers.IntegerField(help_text="Rated games so far in this game.")
    games_needed = serializers.IntegerField(help_text="Rated games a ranked player has at least: 5.")
    last_rated_game_at = serializers.DateTimeField(allow_null=True, help_text="finished_at of the last rated game.")
    window_days = serializers.IntegerField(help_text="A ranked player's last rated game is this recent: 90 days.")


class PlayerRatingOut(serializers.Serializer):
    elo = serializers.FloatField(help_text="Current Elo, rounded to 2 decimals.")
    level = serializers.ChoiceField(
        choices=["Beginner", "Apprentice", "Average", "Good", "Strong", "Expert", "Master"],
        help_text="From floor(elo - R0) of the unrounded rating, R0 = 1500 (docs/ratings.md).",
    )
    games = serializers.IntegerField(help_text="Rated games played in this game.")
    rank = serializers.IntegerField(allow_null=True, help_text="Leaderboard rank; null when not on it (Hanabi never).")
    not_ranked = NotRankedOut(required=False, help_text="Only when rank is null: why (docs/api.md).")


class PlayerOut(serializers.Serializer):
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "banned"])
    ratings = serializers.DictField(child=PlayerRatingOut(), help_text="One entry per game the player is rated in.")


class HistoryEntryOut(serializers.Serializer):
    game_id = serializers.IntegerField(allow_null=True, help_text="Null for a reset.")
    finished_at = serializers.DateTimeField(help_text="The game's finish, or the time of the reset.")
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()
    place = serializers.IntegerField(allow_null=True, help_text="1 = best; null for resets and cooperative games.")
    kind = serializers.ChoiceField(choices=["game", "reset"])


class HistoryOut(serializers.Serializer):
    entries = HistoryEntryOut(many=True, help_text="Newest first.")
    next = serializers.IntegerField(allow_null=True, help_text="Pass as `before` for older entries; null at the end.")
