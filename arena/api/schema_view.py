"""/api/schema/, generated once per process (docs/security.md, the limits).

drf-spectacular walks every endpoint and serializer on each request (about 44 ms); the schema only changes with
the code, so a public, unauthenticated endpoint that regenerates it on every call is a cheap way to load the
web workers. The first request of each process (per API version asked for) builds it; later ones reuse it.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response


class CachedSpectacularAPIView(SpectacularAPIView):
    _schemas: ClassVar[dict[Any, Any]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def _get_schema_response(self, request: Request) -> Response:
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, self.urlconf, self.serve_public)
        schema = self._schemas.get(key)
        if schema is None:
            with self._lock:
                schema = self._schemas.get(key)
                if schema is None:
                    generator = self.generator_class(urlconf=self.urlconf, api_version=version, patterns=self.patterns)
                    schema = self._schemas[key] = generator.get_schema(request=request, public=self.serve_public)
        return Response(
            data=schema, headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, version)}"'}
        )
