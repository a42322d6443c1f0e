"""Bodies of the player reads, for the OpenAPI schema (drf-spectacular) and for parsing the history query.

Every component has a unique name: drf-spectacular merges same-named serializers.
"""

from rest_framework import serializers

# RatingChange.seq is a BigIntegerField: a larger cursor could not even be sent to the database.
_MAX_SEQ = 2**63 - 1


class HistoryQueryIn(serializers.Serializer):
    limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=200)
    before = serializers.IntegerField(required=False, min_value=0, max_value=_MAX_SEQ)
    explain = serializers.BooleanField(required=False, default=False)


class NotRankedOut(serializers.Serializer):
    reason = serializers.ChoiceField(
        choices=["no_leaderboard", "banned", "too_few_games", "provisional", "inactive", "catching_up"]
    )
    message = serializers.CharField()
    games = serializers.IntegerField(help_text="Rated games so far in this game.")
    games_needed = serializers.IntegerField(
        help_text="Rated games a ranked player has at least: 5, or 20 on a board that lists settled players only."
    )
    last_rated_game_at = serializers.DateTimeField(allow_null=True, help_text="finished_at of the last rated game.")
    window_days = serializers.IntegerField(help_text="A ranked player's last rated game is this recent: 90 days.")


class SettledOut(serializers.Serializer):
    """docs/ratings.md, "How settled is a rating": three fields beside every shown rating, computed when read."""

    provisional = serializers.BooleanField(help_text="True while the band is above 110.")
    band = serializers.FloatField(
        help_text="± rating points, one standard deviation: 3 × K of the next game, grown "
        "by the days since the last rated game (cap 180)."
    )
    games_to_settle = serializers.IntegerField(allow_null=True, help_text="Rated games until not provisional.")


class PlayerRatingOut(SettledOut):
    elo = serializers.FloatField(help_text="Current Elo, rounded to 2 decimals.")
    level = serializers.ChoiceField(
        choices=["Beginner", "Apprentice", "Average", "Good", "Strong", "Expert", "Master"],
        help_text="From floor(elo - R0) of the unrounded rating, R0 = 1500 (docs/ratings.md).",
    )
    games = serializers.IntegerField(help_text="Rated games played in this game.")
    rank = serializers.IntegerField(allow_null=True, help_text="Leaderboard rank; null when not on it (Hanabi never).")
    not_ranked = NotRankedOut(required=False, help_text="Only when rank is null: why (docs/api.md).")


class ReputationOut(serializers.Serializer):
    percent = serializers.FloatField(
        allow_null=True, help_text="Share of the last 100 rated games (any game) not quit, in %; null under 10 games."
    )
    games = serializers.IntegerField(help_text="Games counted (at most 100).")
    quits = serializers.IntegerField()


class CooldownOut(serializers.Serializer):
    until = serializers.DateTimeField()
    retry_after = serializers.IntegerField(help_text="Seconds left; a ticket is refused (403 cooldown) until then.")


class PlayerOut(serializers.Serializer):
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "banned"])
    ratings = serializers.DictField(child=PlayerRatingOut(), help_text="One entry per game the player is rated in.")
    reputation = ReputationOut()
    cooldown = CooldownOut(allow_null=True, help_text="A running quit cool-down (docs/matchmaking.md), else null.")


class HistoryEntryOut(SettledOut):
    game_id = serializers.IntegerField(allow_null=True, help_text="Null for a reset.")
    finished_at = serializers.DateTimeField(help_text="The game's finish, or the time of the reset.")
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()
    place = serializers.IntegerField(allow_null=True, help_text="1 = best; null for resets and cooperative games.")
    kind = serializers.ChoiceField(choices=["game", "reset"])
    explanation = serializers.DictField(
        required=False,
        allow_null=True,
        help_text="With ?explain=true: this player's seat of GET /games/{id}/explain/ "
        "with the game-wide figures beside it; null for a reset.",
    )


class HistoryOut(serializers.Serializer):
    entries = HistoryEntryOut(many=True, help_text="Newest first.")
    next = serializers.IntegerField(allow_null=True, help_text="Pass as `before` for older entries; null at the end.")


# ---- Explanations (docs/ratings.md, "Reading an explanation") -------------------------------------------------


class ExplanationTermOut(serializers.Serializer):
    against = serializers.CharField(
        help_text="The opposing side: a player, a team's players joined by ' & ', or Hanabot."
    )
    against_players = serializers.ListField(child=serializers.CharField(), help_text="Empty for Hanabot.")
    rating = serializers.FloatField(help_text="The opposing side's rating before the game (a team's mean).")
    expected = serializers.FloatField(help_text="E(own side, opposing side).")
    score = serializers.FloatField(help_text="S: 1 placed better, 0.5 tied, 0 worse (Hanabi: the duel's outcome).")
    term = serializers.FloatField(help_text="K · P(n) · (S − E); Hanabi K · (S − E).")


class ShownOut(serializers.Serializer):
    before = serializers.FloatField(help_text="before, rounded to 2 decimals as the game and history show it.")
    delta = serializers.FloatField(help_text="delta, rounded to 2 decimals: the game's rating_changes delta.")


class ExplanationSeatOut(serializers.Serializer):
    player = serializers.CharField()
    before = serializers.FloatField()
    k = serializers.IntegerField()
    k_reason = serializers.CharField()
    games_before = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    quit = serializers.BooleanField()
    side_rating = serializers.FloatField(help_text="The side's rating as the rules compute it (a team's mean).")
    team = serializers.ListField(child=serializers.CharField(), help_text="Teammates with the player; empty alone.")
    terms = ExplanationTermOut(many=True)
    quit_penalty = serializers.FloatField()
    floor = serializers.FloatField(help_text="What ELO_FLOOR gave back; 0 without a floor.")
    delta = serializers.FloatField(help_text="The stored change: terms_sum + quit_penalty + floor.")
    terms_sum = serializers.FloatField(
        help_text="math.fsum of the terms: equals delta - quit_penalty - floor to "
        "about 1e-12 (the last digits of two float sums)."
    )
    shown = ShownOut(help_text="The display precision (2 decimals); the unrounded numbers are the ones that add up.")
    rules = serializers.ListField(child=serializers.CharField())


class HanabotRowOut(serializers.Serializer):
    variant = serializers.CharField()
    variant_class = serializers.CharField()
    team_size = serializers.IntegerField()
    score = serializers.IntegerField(help_text="The rating score (0 after three strikes).")
    threshold = serializers.IntegerField()
    max_score = serializers.IntegerField()
    rule = serializers.ChoiceField(
        choices=["table", "below_threshold_tie_with_1000", "below_threshold_lose_to_weakest"]
    )
    rating = serializers.FloatField(help_text="Hanabot's rating the team met.")
    perfect_score_rule = serializers.BooleanField()


class RefundOut(serializers.Serializer):
    player = serializers.CharField()
    before = serializers.FloatField(allow_null=True)
    after = serializers.FloatField(allow_null=True)
    delta = serializers.FloatField()
    sources = serializers.DictField(
        child=serializers.FloatField(),
        help_text=(
            'The refund by ledger source (docs/ratings.md, "Where rating points come from"): void_refund, what the '
            "voided games had changed given back, and rebuild, the rest of the move; empty for a void written before "
            "sources were kept."
        ),
    )


class VoidOut(serializers.Serializer):
    voided_at = serializers.DateTimeField()
    games = serializers.ListField(child=serializers.IntegerField(), help_text="Every game voided with this one.")
    pending = serializers.BooleanField(help_text="The rebuild has not written the refunds yet.")
    refunds = RefundOut(many=True)


class ExplanationOut(serializers.Serializer):
    game = serializers.IntegerField()
    title = serializers.CharField(help_text="What was played (the API's `game` elsewhere).")
    status = serializers.ChoiceField(choices=["rated", "void"])
    sides = serializers.IntegerField(required=False)
    recommended_sides = serializers.IntegerField(required=False, allow_null=True)
    multiplier = serializers.FloatField(required=False, allow_null=True, help_text="P(n); null for Hanabi.")
    rules = serializers.ListField(child=serializers.CharField(), required=False)
    seats = ExplanationSeatOut(many=True, required=False)
    team_rating = serializers.FloatField(required=False, help_text="Hanabi only.")
    hanabot = HanabotRowOut(required=False, help_text="Hanabi only.")
    void = VoidOut(required=False, allow_null=True, help_text="A void game only.")
