"""Liveness and readiness for load balancers and orchestrators."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse

from infra import mode


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
    if mode.redis_configured():  # the mode decides whether Redis belongs; infra/redis.py connects
        try:
            from infra.redis import redis_client

            redis_client().ping()
            checks["redis"] = "ok"
        except Exception as exc:
            checks["redis"] = f"error: {exc.__class__.__name__}"
    down = sorted(name for name, state in checks.items() if state != "ok")
    if not down:
        return JsonResponse({"status": "ready", "checks": checks})
    # Named, so a probe's log says which dependency is missing; /healthz stays 200 meanwhile (no restart helps).
    return JsonResponse(
        {"status": "unavailable", "unavailable": down, "checks": checks}, status=503, headers={"Retry-After": "5"}
    )
