"""Liveness and readiness for load balancers and orchestrators."""
from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    """Ready when the database answers and, where configured, Redis does too."""
    checks: dict[str, str] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # any failure means not ready; the reason helps the operator
        checks["database"] = f"error: {exc.__class__.__name__}"
    if settings.REDIS_URL:
        try:
            from arena.redis import redis_client

            redis_client().ping()
            checks["redis"] = "ok"
        except Exception as exc:
            checks["redis"] = f"error: {exc.__class__.__name__}"
    ready = all(v == "ok" for v in checks.values())
    return JsonResponse({"status": "ready" if ready else "unavailable", "checks": checks}, status=200 if ready else 503)
