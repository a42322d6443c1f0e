"""The REST API: DRF and the OpenAPI document, the body limits and the throttles (docs/api.md, docs/security.md)."""

from config.sections.mode import env
from config.sections.security import NUM_PROXIES

# =============================================================================
# REST API
# =============================================================================
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["infra.api.auth.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["infra.api.auth.HasScope"],  # a key and the scope the view names
    # DRF's JSON, written by orjson (infra/api/renderers.py; docs/testing.md, the request path).
    "DEFAULT_RENDERER_CLASSES": ["infra.api.renderers.OrjsonRenderer"],
    "DEFAULT_PARSER_CLASSES": ["infra.api.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "infra.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"public": env.str("PUBLIC_THROTTLE_RATE", default="1200/min")},
    # Views that name no throttle (every key-authenticated endpoint) count their writes per key.
    "DEFAULT_THROTTLE_CLASSES": ["infra.api.throttles.WriteThrottle"],
    "UNAUTHENTICATED_USER": None,
    # https://www.django-rest-framework.org/api-guide/throttling/ (the client's address behind NUM_PROXIES)
    "NUM_PROXIES": NUM_PROXIES,
}
SPECTACULAR_SETTINGS = {
    # A game's status appears in the recording answer and the read-back (GameOut, RecordedGameOut): one enum.
    "ENUM_NAME_OVERRIDES": {"GameStatusEnum": ["pending", "rated", "unrated", "void"]},
    "TITLE": "Arena API",
    "DESCRIPTION": "Records finished games, rates players, serves leaderboards.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Served from our own static files: the docs page must work without reaching a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The push of a formed table to a game server, as an OpenAPI 3.1 webhook (matchmaking/api/webhooks.py):
    # webhooks exist from 3.1 on.
    "OAS_VERSION": "3.1.0",
    "WEBHOOKS": [
        f"matchmaking.api.webhooks.{name}"
        for name in (
            "table_formed",
            "ticket_expired",
            "ticket_cancelled",
            "player_warned",
            "tournament_table_formed",
            "ping",
        )
    ],
    # infra/api/contract.py, with arena/api/contract.py's tables: every status and its codes, bodies, links (issue 16).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "infra.api.contract.postprocess",
        "arena.api.openapi31.postprocess",  # 3.1 null types, one Error model
        "matchmaking.api.webhooks.with_push_headers",
    ],
}
# Mounts /bench/bare/, the baseline endpoint of bench/recording_bench.py; never in production.
BENCH_ENDPOINTS = env.bool("BENCH_ENDPOINTS", default=False)
# Largest batch a game server may send in one POST /api/v1/games/batch/.
GAMES_BATCH_MAX = 500
# docs/security.md, the limits: the API's parser caps a body before reading it whole (DATA_UPLOAD_MAX_MEMORY_SIZE
# never applies: DRF reads the stream); 413 body_too_large beyond. A game is kilobytes, a batch of 500 megabytes.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=256 * 1024)
# Issue 25 §1.3: 4 MiB holds 500 real games (about 0.3 MiB for 500 six-player games), and what a body expands to
# is bounded before it is decoded (infra/api/json_budget.py): JSON values per body (a batch's own budget, 500 per
# game on average) and nesting (a game's own 32 levels, docs/api.md, inside the batch's two); 400
# body_too_complex beyond. Each game of a batch is held to API_MAX_JSON_VALUES, like a game sent alone.
API_MAX_BATCH_BODY_BYTES = env.int("API_MAX_BATCH_BODY_BYTES", default=4 * 1024 * 1024)
API_MAX_JSON_VALUES = env.int("API_MAX_JSON_VALUES", default=20_000)
API_MAX_BATCH_JSON_VALUES = env.int("API_MAX_BATCH_JSON_VALUES", default=250_000)
API_MAX_JSON_DEPTH = 40
# Writes (POST, PUT, DELETE) per game-server key, in PUBLIC_THROTTLE_RATE's syntax; "none" lifts it. 429
# throttled with Retry-After beyond. A batch is one write.
API_WRITE_THROTTLE_RATE = env.str("API_WRITE_THROTTLE_RATE", default="6000/min")
if API_WRITE_THROTTLE_RATE.lower() == "none":
    API_WRITE_THROTTLE_RATE = None
# Issue 25 §2 (infra/api/abuse.py): a history page with ?explain=true costs ~30 ms of CPU, so it has its own lower
# rate per client network; and failed API authentications (401) per client network, past which an API request
# carrying a key is 429 before any lookup. "none" lifts either.
PUBLIC_EXPLAIN_THROTTLE_RATE = env.str("PUBLIC_EXPLAIN_THROTTLE_RATE", default="120/min")
API_FAILED_AUTH_RATE = env.str("API_FAILED_AUTH_RATE", default="60/min")
PUBLIC_EXPLAIN_THROTTLE_RATE = None if PUBLIC_EXPLAIN_THROTTLE_RATE.lower() == "none" else PUBLIC_EXPLAIN_THROTTLE_RATE
API_FAILED_AUTH_RATE = None if API_FAILED_AUTH_RATE.lower() == "none" else API_FAILED_AUTH_RATE
