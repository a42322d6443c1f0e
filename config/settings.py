"""Arena's settings, all from the environment, in this one place.

Without ``DEBUG=true`` Arena is production and fails closed (docs/security.md): it refuses to start without its
own keys and host names, and turns HTTPS, HSTS and secure cookies on. With ``DEBUG=true`` and nothing else set,
Arena runs embedded: a SQLite file, Celery tasks executed in-process and a local-memory cache.
Setting ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` switches to the scaled-out shape: Postgres, Redis as the
Celery broker and cache, real workers. The code path is the same in both.
"""

import logging
import os
import warnings
from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from config import logs

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()

# =============================================================================
# Core
# =============================================================================
DEV_SECRET_KEY = "dev-only-secret-key-do-not-use-in-production"
DEV_IP_HASH_KEY = "dev-only-ip-hash-key-do-not-use-in-production"
# docs/security.md, the production checklist: without DEBUG in the environment Arena is production and refuses to
# start on anything a newcomer would leave at its default. Development is chosen explicitly with DEBUG=true
# (scripts/run, scripts/test, the README's embedded commands, and tests/settings.py for a bare `pytest`).
DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default=DEV_SECRET_KEY if DEBUG else "")
# Keyed hash for IPs and device fingerprints (docs/moderation.md): raw values are never stored.
IP_HASH_KEY = env.str("IP_HASH_KEY", default=DEV_IP_HASH_KEY if DEBUG else "")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else [])
# Shorter keys can be searched: an IPv4 hash under a guessable key is reversed by trying all 2^32 addresses.
SECRET_MIN_LENGTH = 32


def _refuse(variable: str, why: str) -> None:
    """Production's refusal to start: one line that names the variable to fix (docs/security.md)."""
    raise ImproperlyConfigured(f"{variable} {why}; Arena runs as production without DEBUG=true and will not start.")


if not DEBUG:
    for _name, _value, _dev in (
        ("SECRET_KEY", SECRET_KEY, DEV_SECRET_KEY),
        ("IP_HASH_KEY", IP_HASH_KEY, DEV_IP_HASH_KEY),
    ):
        if not _value:
            _refuse(_name, "is missing")
        if _value == _dev:
            _refuse(_name, "is the public development value")
        if len(_value) < SECRET_MIN_LENGTH:
            _refuse(_name, f"is shorter than {SECRET_MIN_LENGTH} characters")
    if not ALLOWED_HOSTS:
        _refuse("ALLOWED_HOSTS", "is missing (comma-separated host names Arena answers to)")

# =============================================================================
# HTTPS and the proxy in front (docs/security.md). On by default in production, so that
# `manage.py check --deploy --fail-level WARNING` is silent with only the four variables above set.
# =============================================================================
# "X-Forwarded-Proto,https": the header (as sent, or in Django's HTTP_X_FORWARDED_PROTO form) and the value the
# TLS-terminating proxy sets on HTTPS requests. Only when the proxy always sets or strips it.
_proxy_ssl_header = env.list("SECURE_PROXY_SSL_HEADER", default=[])
if _proxy_ssl_header:
    if len(_proxy_ssl_header) != 2:
        _refuse("SECURE_PROXY_SSL_HEADER", "must be HEADER,VALUE (for example X-Forwarded-Proto,https)")
    _header = _proxy_ssl_header[0].strip().upper().replace("-", "_")
    SECURE_PROXY_SSL_HEADER = (
        _header if _header.startswith("HTTP_") else f"HTTP_{_header}",
        _proxy_ssl_header[1].strip(),
    )
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# false behind a proxy that terminates TLS and speaks plain HTTP to Arena (it redirects to https itself).
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# Probes inside the network call these over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz/?$", r"^readyz/?$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
# How many reverse proxies stand in front: 0 trusts REMOTE_ADDR only, so a forged X-Forwarded-For cannot buy a
# client a fresh throttle allowance. Read by DRF (REST_FRAMEWORK below) to find the client's address.
NUM_PROXIES = env.int("NUM_PROXIES", default=0)

INSTALLED_APPS = [
    "backoffice.site.PanelAdminConfig",  # django.contrib.admin with the back office's dashboard as its index
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # The admin door (docs/security.md): login lockout, and TOTP two-factor for staff.
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "rest_framework",
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_structlog",
    "arena",
    "ratings",
    "leaderboards",
    "matchmaking",
    "moderation",
    "seasons",
    "tournaments",
    "doors",  # the top floor's listeners (a tournament round's pushes)
    "backoffice",  # the project-wide admin (docs/architecture.md): on top of every app
]

MIDDLEWARE = [
    "infra.api.metrics.RequestMetricsBefore",  # request metrics (django-prometheus): first and last
    # The request line (docs/observability.md): a client's X-Request-ID kept only if it is a plain token.
    "infra.api.request_log.RequestIdMiddleware",
    "django_structlog.middlewares.RequestMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # CSP and Permissions-Policy on every answer; NUL, too many parameters and oversized forms refused first
    # (infra/http_guard.py, issue 25).
    "infra.http_guard.HttpGuardMiddleware",
    # Serves admin and API-docs assets from the app itself, so gunicorn alone is a complete deployment.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before CommonMiddleware, as django-cors-headers asks: it answers preflights and marks the public reads.
    "corsheaders.middleware.CorsMiddleware",
    "infra.api.abuse.FailedAuthMiddleware",  # 401s counted per client network, 429 past API_FAILED_AUTH_RATE
    "infra.api.ratelimit.RateLimitHeadersMiddleware",  # RateLimit-Policy / RateLimit where a throttle counted
    # The admin's layers (session, login, TOTP, messages) run under /admin/ only; everywhere else they pass through
    # (infra/api/admin_layers.py: Django's and django-otp's own classes; docs/testing.md, the request path). CSRF
    # stays Django's own, by name, as `check --deploy` asks (security.W003); on DRF's exempt views it is a no-op.
    "infra.api.admin_layers.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "infra.api.admin_layers.AuthenticationMiddleware",
    "infra.api.admin_layers.OTPMiddleware",  # request.user.is_verified(): logged in with a TOTP code
    "infra.api.admin_layers.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A lost database connection outside DRF is a 503 page, not a 500 (docs/observability.md).
    "infra.api.errors.DatabaseUnavailableMiddleware",
    "infra.api.metrics.RequestMetricsAfter",
    # A chunked API body left unread until the view's parser asks, under its own cap (docs/security.md); after the
    # metrics, which would count the most it may read as the body's size.
    "infra.api.limits.ChunkedBodyMiddleware",
    # Last, as django-axes asks: turns a locked-out login's answer into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
# Messages live in the server-side session, never in a cookie: the admin shows one-time API keys in them.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
WSGI_APPLICATION = "config.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# Without DEBUG, run "manage.py collectstatic" (it creates STATIC_ROOT); with it, whitenoise serves the apps'
# folders, and its warning about the absent STATIC_ROOT (settings create no directory) says nothing.
WHITENOISE_USE_FINDERS = True
if DEBUG:
    warnings.filterwarnings("ignore", message=f"No directory at: {STATIC_ROOT}")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"

# =============================================================================
# The admin door (docs/security.md): lockout, passwords, two-factor, sessions
# =============================================================================
# django-axes first: a locked username is refused before its password is even checked.
AUTHENTICATION_BACKENDS = ["backoffice.admin_door.LockoutBackend", "django.contrib.auth.backends.ModelBackend"]
# Issue 25 §1.2: a username is locked *from one address* (10 failures), and an address is locked after 10
# failures whatever the usernames (the rate limit by address): someone elsewhere can no longer lock a moderator
# out. The "address" axes stores is a keyed pseudonym in fd00::/8, never the address (admin_door.client_pseudonym;
# docs/moderation.md keeps raw addresses out of the database). Failures during a lock are not counted, so a lock
# is never extended: it lifts an hour after the failure that set it, or at once by a superuser's "Unlock" action
# (Users, or Axes -> Access attempts); `manage.py axes_reset` remains for the worst case.
AXES_FAILURE_LIMIT = 10
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_CLIENT_IP_CALLABLE = "backoffice.admin_door.client_pseudonym"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# What axes writes into its varchar(255) username column: the typed name cut to 150 (issue 25 §1.4).
AXES_USERNAME_CALLABLE = "backoffice.admin_door.bounded_username"
AXES_COOLOFF_TIME = timedelta(hours=1)
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_CALLABLE = "backoffice.admin_door.lockout_response"  # a page in the admin's look
AXES_ENABLE_ACCESS_FAILURE_LOG = False
# Every account, moderators and superusers alike: Django's four validators, at least 12 characters.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Staff log in with a TOTP code (django-otp) in production; optional in development, where a code given is still
# checked. Without a confirmed authenticator a staff account reaches no panel page (backoffice/site.py).
ADMIN_REQUIRE_OTP = env.bool("ADMIN_REQUIRE_OTP", default=not DEBUG)
OTP_TOTP_ISSUER = "Arena"
# Sessions are the admin's only (the API authenticates by key): they end after 8 idle hours (every request
# renews the expiry) and at a password change (Django checks the session's password hash on every request).
SESSION_COOKIE_AGE = 8 * 3600
SESSION_SAVE_EVERY_REQUEST = True
# An unsafe or missing ?next= after the login lands on the admin's index, not on Django's /accounts/profile/ 404.
LOGIN_REDIRECT_URL = "/admin/"

# =============================================================================
# Database: SQLite file by default, PostgreSQL via DATABASE_URL
# =============================================================================
VAR_DIR = Path(env.str("ARENA_VAR_DIR", default=str(BASE_DIR / "var")))
if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
    # An unreachable host fails a request in seconds (a 503 unavailable) instead of holding a worker forever.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env.int("DB_CONNECT_TIMEOUT", default=5)
    )
    # Django turns prepared statements off for the sake of transaction-mode poolers; Arena's hot statements
    # (recording a game, rating batches) are long CTEs whose parsing and planning cost more than running them,
    # so they are prepared once per connection. Set DB_PREPARE_THRESHOLD=none behind a pooler without
    # prepared-statement support (PgBouncer < 1.21).
    _prepare = env.str("DB_PREPARE_THRESHOLD", default="5")
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        None if _prepare.lower() == "none" else int(_prepare)
    )
else:
    DATABASES = {
        "default": {
            # Django's SQLite backend, creating the file's folder when it first connects (not at import).
            "ENGINE": "config.sqlite",
            "NAME": VAR_DIR / "arena.sqlite3",
            # https://docs.djangoproject.com/en/5.2/ref/databases/#sqlite-transaction-behavior
            # IMMEDIATE takes the write lock at BEGIN, so two writers queue instead of failing with "locked".
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
IS_POSTGRES = DATABASES["default"]["ENGINE"].endswith("postgresql")

# =============================================================================
# Redis, cache and Celery
# =============================================================================
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    # infra/cache.py: Django's Redis cache, one redis-py client per pool rather than one per operation.
    CACHES = {"default": {"BACKEND": "infra.cache.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
# Embedded mode: no broker, so tasks run in-process when queued (after the commit that created their rows).
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_TASK_DEFAULT_QUEUE = "arena"
# Elo is fast and ordered; TrueSkill is ~60x slower and must never hold it back: separate queues.
CELERY_TASK_ROUTES = {
    "ratings.tasks.rate_elo": {"queue": "elo"},
    "ratings.tasks.rate_trueskill": {"queue": "trueskill"},
    # Matchmaking passes are short and due every second; pushes wait on game servers: neither may queue behind
    # the other or behind rating batches.
    "matchmaking.tasks.run_due_pools": {"queue": "matchmaking"},
    "matchmaking.tasks.deliver_table": {"queue": "pushes"},
    # Detection scans many games at a time: its own worker, so it never delays a rating batch (Procfile).
    "moderation.tasks.detect": {"queue": "detection"},
}
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_BEAT_SCHEDULE = {
    "sweep-pending-ratings": {"task": "ratings.tasks.sweep_pending", "schedule": 10.0},
    # Players whose last rated game turned 90 days old leave the Redis boards (reads also drop them at once).
    "prune-inactive-leaderboards": {"task": "leaderboards.tasks.prune_inactive", "schedule": 3600.0},
    # docs/matchmaking.md: a pass every second per pool; one task runs every pool that has tickets waiting.
    "matchmaking-passes": {"task": "matchmaking.tasks.run_due_pools", "schedule": 1.0, "options": {"expires": 5.0}},
    # Catches whatever the after-batch detection missed (a lost message, a worker restart): new games only.
    "detect-abuse": {"task": "moderation.tasks.detect", "schedule": 300.0},
    # Beat's heartbeat (infra/beat.py): the "no beat tick for 10 s" alert reads its time.
    "beat-heartbeat": {"task": "arena.tasks.beat_tick", "schedule": 1.0, "options": {"expires": 5.0}},
    # docs/moderation.md: a timed ban is lifted (an audited unban by the system) within a minute of its end.
    "lift-expired-bans": {"task": "moderation.tasks.lift_expired_bans", "schedule": 60.0},
}

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
# A failing listener (infra/announcements.py) or hand-off (infra/handoffs.py) is logged; tests may raise it.
ANNOUNCEMENTS_RAISE = env.bool("ANNOUNCEMENTS_RAISE", default=False)
# Abuse detection takes at most this many new games per pass (one transaction each): a first run over a long
# history advances in steps instead of holding one transaction over all of it.
DETECTION_BATCH = env.int("DETECTION_BATCH", default=20_000)
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
# Issue 25 §1.9: every non-API body (the admin's forms; the API's have the caps above) is refused over 256 KiB by
# its declared length before it is read (infra/http_guard.py), and Django refuses more fields than the largest
# admin form sends (an action on a full change-list page: 100 rows and a few controls).
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# =============================================================================
# Ratings (docs/ratings.md): every constant is a setting. The defaults are defined once, in ratings/elo.py and
# ratings/hanabi.py; ratings/config.py lists the settings that override them (ELO_INITIAL, ELO_K_NEW, ELO_K_MID,
# ELO_K_SETTLED, ELO_MID_FROM, ELO_SETTLED_FROM, ELO_QUIT_PENALTY, ELO_FLOOR, HANABOT_BELOW_THRESHOLD), and
# only what is set here or in the environment overrides.
# =============================================================================
if "ELO_INITIAL" in os.environ:
    ELO_INITIAL = env.float("ELO_INITIAL")
if "HANABOT_BELOW_THRESHOLD" in os.environ:
    # "tie_with_1000" (the later rule, the default) or "lose_to_weakest" (the 2014 rule).
    HANABOT_BELOW_THRESHOLD = env.str("HANABOT_BELOW_THRESHOLD")
RATING_BATCH_SIZE = env.int("RATING_BATCH_SIZE", default=2000)
# The rating economy (docs/ratings.md, "Where rating points come from"): a title's active median moving more than
# this many points in 30 days is drift (inflation or deflation); exposed as arena_rating_drift_threshold_points,
# which the ArenaRatingDrift rule of ops/alerts.yml compares with.
RATING_DRIFT_POINTS = env.float("RATING_DRIFT_POINTS", default=25.0)
# Beat takes each title's active population (count, mean, median) into today's row this often; a day keeps its last.
RATING_POPULATION_SECONDS = env.float("RATING_POPULATION_SECONDS", default=3600.0)
CELERY_BEAT_SCHEDULE["rating-population"] = {
    "task": "ratings.tasks.population_snapshot",
    "schedule": RATING_POPULATION_SECONDS,
}

# =============================================================================
# Matchmaking (docs/matchmaking.md; the rules' own constants are in matchmaking/engine/rules.py)
# =============================================================================
# Embedded mode has no beat: a pass over the ticket's pool runs when a ticket is created or read.
MATCHMAKING_PASS_ON_REQUEST = env.bool("MATCHMAKING_PASS_ON_REQUEST", default=not REDIS_URL)
# Longest blocked list a player may keep: every pass reads it, for every waiting player.
MATCHMAKING_BLOCKED_MAX = 100
# Most tickets one game server may keep waiting at once (429 too_many_tickets beyond): a leaked or buggy key
# cannot fill the pools. "none" lifts the bound.
_max_waiting = env.str("MATCHMAKING_MAX_WAITING_PER_SERVER", default="10000")
MATCHMAKING_MAX_WAITING_PER_SERVER = None if _max_waiting.lower() == "none" else int(_max_waiting)
# Pushes of formed tables to game servers: attempts, first retry delay (doubling each time) and timeout.
MATCHMAKING_PUSH_ATTEMPTS = env.int("MATCHMAKING_PUSH_ATTEMPTS", default=8)
MATCHMAKING_PUSH_BACKOFF = env.float("MATCHMAKING_PUSH_BACKOFF", default=2.0)
# One deadline per attempt (connect, TLS, send and read together), capped at 10 s (matchmaking/push_net.py).
MATCHMAKING_PUSH_TIMEOUT = min(env.float("MATCHMAKING_PUSH_TIMEOUT", default=5.0), 10.0)
# docs/security.md#pushes-to-game-servers: pushes go to https URLs on public addresses only. Development and tests
# may push to loopback/private receivers (over plain http too) with this; it follows DEBUG, so production is off.
PUSH_ALLOW_PRIVATE_NETWORKS = env.bool("PUSH_ALLOW_PRIVATE_NETWORKS", default=DEBUG)

# =============================================================================
# Logging (config/logs.py, docs/observability.md): one structured line per request and per task run, JSON by
# default in production, readable text with DEBUG. Request bodies, keys and raw IPs are never logged.
# =============================================================================
LOG_FORMAT = env.str("LOG_FORMAT", default=logs.default_format(debug=DEBUG))
LOGGING = logs.configure(log_format=LOG_FORMAT, level=env.str("LOG_LEVEL", default="INFO"))
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False  # django-structlog logs the client's address by default
DJANGO_STRUCTLOG_USER_ID_FIELD = None  # Arena names the game server itself, without loading a session's user
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = True  # X-Request-ID, when a plain token (infra.api.request_log)
DJANGO_STRUCTLOG_STATUS_START_LOG_LEVEL = logging.DEBUG  # one line per request: request_finished only
# Celery workers log through the same LOGGING, not a handler of their own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# =============================================================================
# Metrics (docs/observability.md): /metrics answers only "Authorization: Bearer <METRICS_TOKEN>" (404 otherwise,
# and always 404 while it is unset). PROMETHEUS_MULTIPROC_DIR (read by prometheus-client itself from the
# environment) is the directory every web and worker process writes its counters and histograms to, so the web's
# /metrics shows the workers' too; empty it before the processes start. Unset: this process's own figures only.
# =============================================================================
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
PROMETHEUS_MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")

# =============================================================================
# Error tracking (config/sentry.py): with SENTRY_DSN set, sentry-sdk reports the web's and the workers' errors,
# with personal data off (no body, no address, no key, no local variables).
# =============================================================================
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    from config import sentry

    sentry.init(
        dsn=SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="") or None,
        traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
    )

# =============================================================================
# Operations (issue 18; docs/operations.md): sweeps of work recorded in the database, ticket history, read replica
# =============================================================================
# A void's rebuilds are recorded on its audit entry; the sweep queues again those still pending this long after the
# void (a message lost with a killed worker would otherwise wait for Redis's one-hour visibility timeout).
VOID_REBUILD_SWEEP_SECONDS = env.float("VOID_REBUILD_SWEEP_SECONDS", default=60.0)
VOID_REBUILD_OVERDUE_SECONDS = env.float("VOID_REBUILD_OVERDUE_SECONDS", default=120.0)
# A lost Redis board (its "ready" marker missing) is asked for again this often, whatever became of its message.
LEADERBOARD_SWEEP_SECONDS = env.float("LEADERBOARD_SWEEP_SECONDS", default=60.0)
# Boards that list settled players only (docs/api.md, "Leaderboards"): titles, comma-separated. Empty by default: every
# board lists provisional players too, marked provisional: true (leaderboards/provisional.py).
LEADERBOARD_EXCLUDE_PROVISIONAL = env.list("LEADERBOARD_EXCLUDE_PROVISIONAL", default=[])
# Closed tickets (matched, cancelled, expired) are kept this many days, then deleted by beat in chunks of
# MATCHMAKING_TICKET_PURGE_CHUNK rows, one short transaction each, every MATCHMAKING_TICKET_PURGE_SECONDS.
MATCHMAKING_TICKET_RETENTION_DAYS = env.int("MATCHMAKING_TICKET_RETENTION_DAYS", default=30)
MATCHMAKING_TICKET_PURGE_CHUNK = env.int("MATCHMAKING_TICKET_PURGE_CHUNK", default=5000)
MATCHMAKING_TICKET_PURGE_SECONDS = env.float("MATCHMAKING_TICKET_PURGE_SECONDS", default=3600.0)
CELERY_BEAT_SCHEDULE.update(
    {
        "sweep-void-rebuilds": {"task": "moderation.tasks.sweep_void_rebuilds", "schedule": VOID_REBUILD_SWEEP_SECONDS},
        "sweep-lost-boards": {"task": "leaderboards.tasks.sweep_lost_boards", "schedule": LEADERBOARD_SWEEP_SECONDS},
        "purge-closed-tickets": {
            "task": "matchmaking.tasks.purge_closed_tickets",
            "schedule": MATCHMAKING_TICKET_PURGE_SECONDS,
        },
    }
)
# A streaming replica (PostgreSQL's own, e.g. pg_basebackup -R) for the public reads: player pages, history and
# the leaderboard's SQL fallback (infra/replica.py routes them). Writes and game servers' reads stay on the
# primary; while the replica does not answer, the primary serves those reads too.
DATABASE_REPLICA_URL = env.str("DATABASE_REPLICA_URL", default="")
# How long a replica found down is left alone before a read tries it again.
DATABASE_REPLICA_RETRY_SECONDS = env.float("DATABASE_REPLICA_RETRY_SECONDS", default=5.0)
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = {**env.db_url_config(DATABASE_REPLICA_URL), "TEST": {"MIRROR": "default"}}
    DATABASES["replica"].setdefault("CONN_MAX_AGE", DATABASES["default"].get("CONN_MAX_AGE", 0))
    DATABASES["replica"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["replica"].setdefault("OPTIONS", {}).update(
        {**DATABASES["default"].get("OPTIONS", {}), "connect_timeout": 3}
    )
    DATABASE_ROUTERS = ["infra.replica.ReplicaRouter"]
# Rotating SECRET_KEY (docs/operations.md): the old key listed here keeps signed sessions and tokens valid until
# they expire, so moderators are not all logged out at once. https://docs.djangoproject.com/en/5.2/ref/settings/
SECRET_KEY_FALLBACKS = env.list("SECRET_KEY_FALLBACKS", default=[])


# =============================================================================
# CORS: the site's own web pages may call the public reads from the browser (issue 19 #9)
# =============================================================================
# None by default. Only the public reads (player pages, their history, leaderboards): the regex stops short of
# /players/<p>/preferences/ and every other key-authenticated endpoint, which no browser page should call with a
# server's key. GET only, no cookies.
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_URLS_REGEX = r"^/api/v1/(players/[^/]+/(history/[^/]+/)?|leaderboards/[^/]+/)$"
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS")
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = ("ETag", "Retry-After")


# Seasons (docs/seasons.md): length in days (aligned UTC boundaries), placement games; beat closes a season at its
# end (and folds whatever a lost message left) every SEASON_ROLLOVER_SECONDS.
SEASON_LENGTH_DAYS = env.int("SEASON_LENGTH_DAYS", default=91)
SEASON_PLACEMENT_GAMES = env.int("SEASON_PLACEMENT_GAMES", default=3)
SEASON_ROLLOVER_SECONDS = env.float("SEASON_ROLLOVER_SECONDS", default=60.0)
CELERY_BEAT_SCHEDULE["season-rollover"] = {"task": "seasons.tasks.rollover_due", "schedule": SEASON_ROLLOVER_SECONDS}
CELERY_BEAT_SCHEDULE["tournaments-due"] = {"task": "tournaments.tasks.due", "schedule": 60.0}  # docs/tournaments.md
