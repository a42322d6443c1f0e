"""Matchmaking endpoints (docs/api.md, Matchmaking and Players preferences), mounted under /api/v1/."""
from django.urls import path

from matchmaking.api.views import PreferencesApi, TicketCreateApi, TicketDetailApi

urlpatterns = [
    path("matchmaking/tickets/", TicketCreateApi.as_view(), name="matchmaking-tickets"),
    path("matchmaking/tickets/<str:ticket_id>/", TicketDetailApi.as_view(), name="matchmaking-ticket"),
    path("players/<str:player>/preferences/", PreferencesApi.as_view(), name="players-preferences"),
]
