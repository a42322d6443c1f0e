"""URL map: admin, the v1 API, the schema and health checks."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from arena.api import health
from arena.api.schema_view import CachedSpectacularAPIView
from doors.game_read import GameReadApi, GamesApi
from doors.games import GameBatchApi
from infra.api import metrics
from infra.api.errors import endpoint_not_found

api_v1 = [
    path("games/", GamesApi.as_view(), name="games-create"),  # POST records, GET lists (doors/game_read.py)
    path("games/batch/", GameBatchApi.as_view(), name="games-batch"),
    path("games/<int:game_id>/", GameReadApi.as_view(), name="games-detail"),
    path("", include("doors.players")),
    path("", include("ratings.api.players")),
    path("", include("ratings.api.economy")),
    path("", include("doors.explain")),
    path("", include("leaderboards.api")),
    path("", include("matchmaking.api")),
    path("", include("moderation.api")),
    path("", include("seasons.api")),
    path("", include("tournaments.api")),
    re_path(r"^(?P<unmatched>.*)$", endpoint_not_found),  # last: whatever no endpoint above claimed
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    # Generated once per process (arena/api/schema_view.py).
    path(
        "api/schema/", CachedSpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]), name="schema"
    ),
    # The split view serves Swagger UI's start-up script as a file: the page runs under a CSP without inline
    # scripts (infra/http_guard.py).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", authentication_classes=[], permission_classes=[]),
        name="docs",
    ),
    # With or without the trailing slash: probes are configured by hand, and both spellings are common.
    re_path(r"^healthz/?$", health.healthz, name="healthz"),
    re_path(r"^readyz/?$", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),  # Prometheus; needs the bearer METRICS_TOKEN
]

handler500 = "infra.api.errors.server_error"

if settings.BENCH_ENDPOINTS:
    from arena.api.bench import BareApi

    urlpatterns.append(path("bench/bare/", BareApi.as_view()))
