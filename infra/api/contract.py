"""The OpenAPI contract made to tell the truth (issue 16 §3): a drf-spectacular postprocessing hook.

The views' ``extend_schema`` say the shapes; this hook adds what drf-spectacular cannot derive, from the tables a
domain registers (``contract_register``; the core's are in ``arena/api/contract.py``, registered from
``ArenaConfig.ready``), so this module imports no domain app:

- **every status each operation can answer, with its error codes** (``Contract.errors``: one table per operation,
  each status with the codes it may carry; each response's schema then allows exactly those codes, so a fuzzer
  checking responses against the schema catches a code the table forgot);
- the domain's own component rewrites (each game's body as a ``oneOf``, request bodies closed);
- patterns and bounds of path and query parameters, ``Retry-After`` headers, and **OpenAPI links** that chain the
  calls.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

MAX_ID = 2**63 - 1

# Shared sets of codes, by what the operation is.
# A key lacking the operation's scope is 403 missing_scope (docs/security.md#game-server-keys-and-scopes).
KEY = {401: ("missing_api_key", "invalid_api_key"), 403: ("missing_scope",)}
# Refused on every path before any view (infra/http_guard.py, issue 25 §2): a NUL byte in the query string, more
# than 1,000 query parameters.
ANY = {400: ("invalid_query", "too_many_parameters"), 406: ("not_acceptable",)}
BODY = {
    400: ("invalid_input", "malformed_json", "body_too_complex", "duplicate_key"),
    413: ("body_too_large",),
    415: ("unsupported_media_type",),
}
# Writes are throttled per key (API_WRITE_THROTTLE_RATE, infra/api/throttles.py).
WRITE = {429: ("throttled",), 503: ("busy",)}
PUBLIC = {429: ("throttled",)}

Codes = dict[int, tuple[str, ...]]


def codes_merge(*tables: Codes) -> Codes:
    """One status -> codes table of several, each code once, statuses in order."""
    merged: dict[int, list[str]] = {}
    for table in tables:
        for status, codes in table.items():
            merged.setdefault(status, [])
            merged[status] += [code for code in codes if code not in merged[status]]
    return {status: tuple(codes) for status, codes in sorted(merged.items())}


@dataclass(frozen=True)
class Contract:
    """What a domain adds to the schema: by operation id (``errors``), by parameter, by response, by component."""

    errors: dict[str, Codes] = field(default_factory=dict)
    path_parameters: dict[str, dict[str, Any]] = field(default_factory=dict)
    query_parameters: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    links: dict[tuple[str, str], dict[str, dict[str, Any]]] = field(default_factory=dict)
    examples: dict[str, Any] = field(default_factory=dict)
    components: Callable[[dict[str, Any]], None] | None = None


_contracts: list[Contract] = []


def contract_register(contract: Contract) -> None:
    """Called once per domain at startup; registering the same contract again is a no-op."""
    if contract not in _contracts:
        _contracts.append(contract)


_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before sending the same request again.",
        "schema": {"type": "integer", "minimum": 0},
    }
}


def error_schema(codes: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string", "enum": list(codes)},
                    "message": {"type": "string"},
                    "fields": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                        "description": "The values at fault, by JSON path.",
                    },
                },
            }
        },
    }


def _operations(result: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                yield path, method, operation


def _operation(operation: dict[str, Any], contract: Contract) -> None:
    op_id = operation["operationId"]
    has_path_parameters = False
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "path" and parameter["name"] in contract.path_parameters:
            has_path_parameters = True
            parameter["schema"] = copy.deepcopy(contract.path_parameters[parameter["name"]])
        elif parameter.get("in") == "query" and (op_id, parameter["name"]) in contract.query_parameters:
            parameter["schema"] = copy.deepcopy(contract.query_parameters[(op_id, parameter["name"])])
    responses = operation.setdefault("responses", {})
    table = contract.errors.get(op_id, {})
    if has_path_parameters:
        # A path no endpoint matches (a parameter outside its pattern) is the API's JSON not_found.
        table = codes_merge(table, {404: ("not_found",)})
    for status, codes in table.items():
        response: dict[str, Any] = {
            "description": "Error codes: " + ", ".join(f"`{code}`" for code in codes) + " (docs/api.md).",
            "content": {"application/json": {"schema": error_schema(codes)}},
        }
        if status in (429, 503):
            response["headers"] = copy.deepcopy(_RETRY_AFTER)
        responses[str(status)] = response
    for status, response in responses.items():
        links = contract.links.get((op_id, status))
        if links:
            response["links"] = copy.deepcopy(links)


def postprocess(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's POSTPROCESSING_HOOKS entry (config/sections/api.py)."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    for contract in _contracts:
        if contract.components is not None:
            contract.components(components)
        for name, example in contract.examples.items():
            if name in components:
                components[name]["example"] = copy.deepcopy(example)
        for _path, _method, operation in _operations(result):
            _operation(operation, contract)
    return result
