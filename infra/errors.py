"""Domain errors: what a service refuses, with a machine-readable code; the API turns them into one error shape."""

from __future__ import annotations


class ArenaError(Exception):
    """A refusal the caller can act on: ``code`` is stable snake_case, ``message`` a sentence for humans."""

    status = 400

    def __init__(
        self,
        code: str,
        message: str,
        fields: dict[str, str] | None = None,
        status: int | None = None,
        extra: dict[str, object] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields or {}
        # Further machine-readable members of the error object, beside code and message (e.g. ``status`` of a game
        # not rated yet, ``retry_after`` of a cool-down): docs/api.md lists them per code.
        self.extra = extra or {}
        if status is not None:
            self.status = status


class InvalidInput(ArenaError):
    status = 400


class NotFound(ArenaError):
    status = 404


class Conflict(ArenaError):
    status = 409


class Forbidden(ArenaError):
    status = 403
