"""``/metrics``: the Prometheus scrape, behind a bearer token, and the request metrics' middleware.

Not public: the figures tell how busy the site is and where it hurts. Without ``METRICS_TOKEN`` set, or with any
other token, the answer is a plain 404, the same as for a path that does not exist, so a scanner learns nothing.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django_prometheus.conf import NAMESPACE, PROMETHEUS_LATENCY_BUCKETS
from django_prometheus.middleware import Metrics, PrometheusAfterMiddleware, PrometheusBeforeMiddleware
from django_prometheus.utils import TimeSince
from prometheus_client import CONTENT_TYPE_LATEST, Histogram

from infra.metrics import exposition


def _authorized(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    sent = request.headers.get("Authorization", "")
    scheme, _, value = sent.partition(" ")
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


def metrics(request: HttpRequest) -> HttpResponse:
    if not _authorized(request):
        return HttpResponseNotFound("Not found.\n", content_type="text/plain")
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)


class RequestMetrics(Metrics):  # type: ignore[misc]  # django-prometheus has no type stubs: its classes are Any
    """django-prometheus's request metrics, plus the latency by route and status (its own is by route and
    method): the latency of the 5xx answers is what an operator looks at first."""

    _instance = None  # its own singleton: both middlewares below share it, so each metric is registered once

    def register(self) -> None:
        super().register()
        self.requests_latency_by_view_status = self.register_metric(
            Histogram,
            "django_http_requests_latency_seconds_by_view_status",
            "Histogram of request processing time labelled by view and status.",
            ["view", "status"],
            buckets=PROMETHEUS_LATENCY_BUCKETS,
            namespace=NAMESPACE,
        )


class RequestMetricsBefore(PrometheusBeforeMiddleware):  # type: ignore[misc]  # django-prometheus has no type stubs: its classes are Any
    """First in MIDDLEWARE: counts every request and its time through every middleware."""

    metrics_cls = RequestMetrics


class RequestMetricsAfter(PrometheusAfterMiddleware):  # type: ignore[misc]  # django-prometheus has no type stubs: its classes are Any
    """Last in MIDDLEWARE: by route (the URL pattern's name) and status."""

    metrics_cls = RequestMetrics

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        response = super().process_response(request, response)
        started = getattr(request, "prometheus_after_middleware_event", None)
        if started is not None:
            self.metrics.requests_latency_by_view_status.labels(
                view=self._get_view_name(request), status=str(response.status_code)
            ).observe(TimeSince(started))
        return response
