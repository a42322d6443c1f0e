"""Serializers that document the callback, deliveries and event bodies for the OpenAPI schema (docs/api.md,
"Callbacks and events"); parsing is the views' and the services'. Every component has its own name."""

from rest_framework import serializers

from matchmaking import events
from matchmaking.api.schemas import MatchTableOut, PushTicketOut
from matchmaking.models import Delivery


class CallbackIn(serializers.Serializer):
    url = serializers.URLField(max_length=500, help_text="https, on a public address (docs/security.md).")
    enabled = serializers.BooleanField(required=False, default=True, help_text="false: no pushes, none lost.")


class CallbackOut(serializers.Serializer):
    url = serializers.CharField()
    enabled = serializers.BooleanField()
    previous_secret_active = serializers.BooleanField(help_text="A rotated secret still signs beside the new one.")
    previous_secret_expires_at = serializers.DateTimeField(allow_null=True)
    secret = serializers.CharField(required=False, help_text="Only in the answer that issued it: shown once.")


class RotateSecretIn(serializers.Serializer):
    previous_secret_expires_in = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=7 * 24 * 3600,
        default=24 * 3600,
        help_text="Seconds the old secret keeps signing beside the new one (0: stops now).",
    )


class AttemptOut(serializers.Serializer):
    number = serializers.IntegerField()
    at = serializers.DateTimeField()
    status_code = serializers.IntegerField(allow_null=True, help_text="Your answer's status; null: no answer.")
    duration_ms = serializers.IntegerField()
    error = serializers.CharField(allow_null=True, help_text="Why it failed, when it did.")


class DeliveryOut(serializers.Serializer):
    id = serializers.UUIDField(help_text="The event's id, in X-Arena-Delivery and the envelope's id.")
    type = serializers.ChoiceField(choices=list(events.EVENT_TYPES))
    status = serializers.ChoiceField(choices=list(Delivery.Status.values))
    url = serializers.CharField()
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField(allow_null=True)
    table_id = serializers.UUIDField(allow_null=True, help_text="table.formed: the table pushed.")
    attempts = AttemptOut(many=True)


class DeliveriesOut(serializers.Serializer):
    deliveries = DeliveryOut(many=True)
    next = serializers.CharField(allow_null=True, help_text="Pass as ?cursor= for the older ones; null: the end.")


# The events' data, one component each; the webhooks wrap them in the envelope.
class TableFormedData(serializers.Serializer):
    table = MatchTableOut(help_text="The table, as a matched ticket's GET shows it.")
    tickets = PushTicketOut(many=True, help_text="Your own tickets at the table.")


class TicketClosedTicket(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["expired", "cancelled"])
    player = serializers.CharField()
    party = serializers.ListField(child=serializers.CharField())
    game = serializers.CharField()
    variant = serializers.DictField()
    rated = serializers.BooleanField()
    request_id = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField()
    reason = serializers.ChoiceField(
        choices=["deleted", "player_banned"], required=False, help_text="ticket.cancelled: by your DELETE or a ban."
    )


class TicketClosedData(serializers.Serializer):
    ticket = TicketClosedTicket()


class TournamentPushHead(serializers.Serializer):
    id = serializers.IntegerField(help_text="The tournament's id (GET /api/v1/tournaments/{id}/).")
    name = serializers.CharField()
    game = serializers.CharField(help_text="The title played.")


class TournamentPushTable(serializers.Serializer):
    id = serializers.IntegerField(help_text='Name it as "tournament_table" when you record the game.')
    board = serializers.IntegerField(min_value=1, help_text="1: the leaders' table.")
    seats = serializers.ListField(child=serializers.CharField(), help_text="The players' ids in seat order.")
    seat_1 = serializers.CharField(help_text="Who plays first (the first of seats).")


class TournamentTableFormedData(serializers.Serializer):
    """What tournaments push per table (docs/tournaments.md, "Rounds, results and deadlines"); matchmaking carries
    it without importing tournaments, so the shape is described here, beside the other events'."""

    tournament = TournamentPushHead()
    round = serializers.IntegerField(min_value=1)
    deadline = serializers.DateTimeField(help_text="After it, a table without a game scores 0 for every seat.")
    table = TournamentPushTable()


class PingData(serializers.Serializer):
    callback = serializers.DictField(help_text='{"url"}: where this ping was sent.')


def envelope_serializer(name: str, event_type: str, data: serializers.Field) -> type[serializers.Serializer]:
    """One envelope component per event type: ``type`` is that event's, ``data`` its own shape."""
    fields = {
        "id": serializers.UUIDField(help_text="The event's id, the same on every retry and redelivery."),
        "type": serializers.ChoiceField(choices=[event_type]),
        "created_at": serializers.DateTimeField(),
        "api_version": serializers.ChoiceField(choices=[events.API_VERSION]),
        "data": data,
    }
    return type(name, (serializers.Serializer,), {**fields, "__doc__": f"The {event_type} event's envelope."})


_ANY = serializers.DictField
ENVELOPES = {
    events.TABLE_FORMED: envelope_serializer("TableFormedEvent", events.TABLE_FORMED, TableFormedData()),
    events.TICKET_EXPIRED: envelope_serializer("TicketExpiredEvent", events.TICKET_EXPIRED, TicketClosedData()),
    events.TICKET_CANCELLED: envelope_serializer("TicketCancelledEvent", events.TICKET_CANCELLED, TicketClosedData()),
    events.PLAYER_WARNED: envelope_serializer(
        "PlayerWarnedEvent", events.PLAYER_WARNED, _ANY(help_text="The warning, as the moderation docs describe it.")
    ),
    events.TOURNAMENT_TABLE_FORMED: envelope_serializer(
        "TournamentTableFormedEvent", events.TOURNAMENT_TABLE_FORMED, TournamentTableFormedData()
    ),
    events.PING: envelope_serializer("PingEvent", events.PING, PingData()),
}
