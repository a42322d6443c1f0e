"""Matchmaking endpoints (docs/api.md, Matchmaking and Players preferences), mounted under /api/v1/."""

from django.urls import path

from matchmaking.api.callbacks import (
    CallbackApi,
    CallbackPingApi,
    CallbackRotateApi,
    DeliveriesApi,
    DeliveryDetailApi,
    DeliveryRedeliverApi,
)
from matchmaking.api.ticket_reads import TicketsApi
from matchmaking.api.views import PreferencesApi, TicketDetailApi

urlpatterns = [
    path("matchmaking/tickets/", TicketsApi.as_view(), name="matchmaking-tickets"),
    path("matchmaking/tickets/<str:ticket_id>/", TicketDetailApi.as_view(), name="matchmaking-ticket"),
    path("players/<str:player>/preferences/", PreferencesApi.as_view(), name="players-preferences"),
    path("callback/", CallbackApi.as_view(), name="callback"),
    path("callback/rotate-secret/", CallbackRotateApi.as_view(), name="callback-rotate-secret"),
    path("callback/ping/", CallbackPingApi.as_view(), name="callback-ping"),
    path("deliveries/", DeliveriesApi.as_view(), name="deliveries"),
    path("deliveries/<str:delivery_id>/", DeliveryDetailApi.as_view(), name="deliveries-detail"),
    path("deliveries/<str:delivery_id>/redeliver/", DeliveryRedeliverApi.as_view(), name="deliveries-redeliver"),
]
