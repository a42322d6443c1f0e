"""URL map: admin, the v1 API, the schema and health checks."""
from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerView

from arena.api import health
from arena.api.errors import endpoint_not_found
from arena.api.schema_view import CachedSpectacularAPIView
from arena.api.views import GameBatchApi, GameCreateApi, GameDetailApi
from infra.api import metrics

api_v1 = [
    path("games/", GameCreateApi.as_view(), name="games-create"),
    path("games/batch/", GameBatchApi.as_view(), name="games-batch"),
    path("games/<int:game_id>/", GameDetailApi.as_view(), name="games-detail"),
    path("", include("ratings.api.players")),
    path("", include("ratings.api.explain")),
    path("", include("leaderboards.api")),
    path("", include("matchmaking.api")),
    path("", include("moderation.api")),
    path("", include("seasons.api")),
    re_path(r"^(?P<unmatched>.*)$", endpoint_not_found),  # last: whatever no endpoint above claimed
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    # Generated once per process (arena/api/schema_view.py).
    path("api/schema/", CachedSpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]),
         name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema", authentication_classes=[],
                                                     permission_classes=[]), name="docs"),
    # With or without the trailing slash: probes are configured by hand, and both spellings are common.
    re_path(r"^healthz/?$", health.healthz, name="healthz"),
    re_path(r"^readyz/?$", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),  # Prometheus; needs the bearer METRICS_TOKEN
]

handler500 = "arena.api.errors.server_error"

if settings.BENCH_ENDPOINTS:
    from arena.api.bench import BareApi

    urlpatterns.append(path("bench/bare/", BareApi.as_view()))
