"""A bare DRF endpoint, mounted only when BENCH_ENDPOINTS is set: the baseline the recording benchmark beats.

It parses a JSON body and answers with a small JSON object through the same DRF stack (renderer, parser,
exception handler) and nothing else: no key check, no database.
"""

from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class BareApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    schema = None

    def post(self, request: Request) -> Response:
        return Response({"ok": True, "size": len(request.data)}, status=201)
