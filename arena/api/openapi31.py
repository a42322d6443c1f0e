"""The schema as OpenAPI 3.1 says it, for generators (issue 26 §3): a drf-spectacular postprocessing hook that
runs after ``infra.api.contract.postprocess`` (which reads arena/api/contract.py's tables).

- **No 3.0 ``nullable``**: 3.1 is JSON Schema 2020-12, where a value that may be null has ``"null"`` among its
  types (``{"type": ["string", "null"]}``); a ``$ref`` or a composition that may be null becomes a ``oneOf`` with
  ``{"type": "null"}``, and an enum that may be null lists ``null``. drf-spectacular 0.28 still writes
  ``nullable: true`` under ``OAS_VERSION 3.1.0``; strict 3.1 validators refuse it.
- **One ``Error`` model**: every error response references ``#/components/schemas/Error`` (its ``code`` an enum of
  every code the API answers), and names the codes of that status in its description and in ``x-error-codes``.
  Before, each response carried its own inline copy, and a generated client had one model class per copy.
- **Tags by resource**: an operation's tag is the first word of its id (``games_explain`` is a ``games``
  operation, not a ``players`` one), the callback and its deliveries together as ``callbacks``; a generated
  client has one module per tag.
"""

from __future__ import annotations

from typing import Any

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def _denull(node: Any) -> None:
    if isinstance(node, dict):
        for value in node.values():
            _denull(value)
        if node.pop("nullable", False) is True:
            _allow_null(node)
    elif isinstance(node, list):
        for value in node:
            _denull(value)


def _allow_null(schema: dict[str, Any]) -> None:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list):
        if "null" not in kind:
            kind.append("null")
    elif any(key in schema for key in ("$ref", "allOf", "oneOf", "anyOf")):
        inner = {key: schema.pop(key) for key in ("$ref", "allOf", "oneOf", "anyOf") if key in schema}
        schema["oneOf"] = [inner, {"type": "null"}]
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"].append(None)


def _one_error_model(result: dict[str, Any]) -> None:
    codes: list[str] = []
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for response in operation.get("responses", {}).values():
                content = response.get("content", {}).get("application/json", {})
                schema = content.get("schema", {})
                code = schema.get("properties", {}).get("error", {}).get("properties", {}).get("code", {})
                if "enum" in code:
                    response["x-error-codes"] = list(code["enum"])
                    codes += [c for c in code["enum"] if c not in codes]
                    content["schema"] = dict(ERROR_REF)
                elif schema.get("$ref") == "#/components/schemas/ErrorOut":
                    content["schema"] = dict(ERROR_REF)
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components.pop("ErrorOut", None)
    components.pop("ErrorDetail", None)
    components["Error"] = {
        "type": "object",
        "required": ["error"],
        "additionalProperties": False,
        "description": 'Every error\'s one shape (docs/api.md, "Errors"): branch on `code`.',
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {
                        "type": "string",
                        "enum": sorted(codes),
                        "description": "Stable snake_case; each response lists its own in x-error-codes.",
                    },
                    "message": {"type": "string"},
                    "fields": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                        "description": "The values at fault, by JSON path.",
                    },
                    "status": {"type": "string", "description": "not_rated_yet, not_rated: the game's status."},
                    "retry_after": {"type": "integer", "description": "cooldown: seconds until all may queue."},
                },
            }
        },
    }


TAG_OF_WORD = {"callback": "callbacks", "deliveries": "callbacks"}


def _tags(result: dict[str, Any]) -> None:
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict) and "operationId" in operation:
                word = operation["operationId"].split("_", 1)[0]
                operation["tags"] = [TAG_OF_WORD.get(word, word)]


# Request bodies of issue 26's doors refuse unknown fields, as their views do.
CLOSED = ("CallbackInRequest", "RotateSecretInRequest")


def postprocess(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS, after the contract's: tags, one Error model, then every ``nullable`` as 3.1 has it."""
    _tags(result)
    for name in CLOSED:
        if name in result.get("components", {}).get("schemas", {}):
            result["components"]["schemas"][name]["additionalProperties"] = False
    _one_error_model(result)
    _denull(result)
    return result
