"""Arena's settings, all from the environment.

With nothing set, Arena runs embedded: a SQLite file, Celery tasks executed in-process and a local-memory cache.
Setting ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` switches to the scaled-out shape: Postgres, Redis as the
Celery broker and cache, real workers. The code path is the same in both.
"""
import os
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()

# =============================================================================
# Core
# =============================================================================
DEV_SECRET_KEY = "dev-only-secret-key-do-not-use-in-production"
DEV_IP_HASH_KEY = "dev-only-ip-hash-key-do-not-use-in-production"

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default=DEV_SECRET_KEY)
# Keyed hash for IPs and device fingerprints (docs/moderation.md): raw values are never stored.
IP_HASH_KEY = env.str("IP_HASH_KEY", default=DEV_IP_HASH_KEY)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])

if not DEBUG and (SECRET_KEY == DEV_SECRET_KEY or IP_HASH_KEY == DEV_IP_HASH_KEY):
    raise ImproperlyConfigured("DEBUG is off: set your own SECRET_KEY and IP_HASH_KEY, the dev defaults are public.")

INSTALLED_APPS = [
    "moderation.site.PanelAdminConfig",  # django.contrib.admin with the moderation dashboard as its index
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "arena",
    "ratings",
    "leaderboards",
    "matchmaking",
    "moderation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves admin and API-docs assets from the app itself, so gunicorn alone is a complete deployment.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
# Without DEBUG, run "manage.py collectstatic"; with it, whitenoise serves straight from the apps' folders.
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"

# =============================================================================
# Database: SQLite file by default, PostgreSQL via DATABASE_URL
# =============================================================================
VAR_DIR = Path(env.str("ARENA_VAR_DIR", default=str(BASE_DIR / "var")))
if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
    # Django turns prepared statements off for the sake of transaction-mode poolers; Arena's hot statements
    # (recording a game, rating batches) are long CTEs whose parsing and planning cost more than running them,
    # so they are prepared once per connection. Set DB_PREPARE_THRESHOLD=none behind a pooler without
    # prepared-statement support (PgBouncer < 1.21).
    _prepare = env.str("DB_PREPARE_THRESHOLD", default="5")
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        None if _prepare.lower() == "none" else int(_prepare)
    )
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
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
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
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
    "matchmaking-passes": {"task": "matchmaking.tasks.run_due_pools", "schedule": 1.0,
                           "options": {"expires": 5.0}},
    # Catches whatever the after-batch detection missed (a lost message, a worker restart): new games only.
    "detect-abuse": {"task": "moderation.tasks.detect", "schedule": 300.0},
    # A void's rebuild whose message was lost with a killed worker (acks_late: redelivered only after the
    # broker's visibility timeout, an hour) is queued again once it is a minute late (tests/faults found it).
    "resume-void-rebuilds": {"task": "moderation.tasks.resume_void_rebuilds", "schedule": 30.0},
}

# =============================================================================
# REST API
# =============================================================================
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["arena.api.auth.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["arena.api.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "arena.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"public": env.str("PUBLIC_THROTTLE_RATE", default="1200/min")},
    "UNAUTHENTICATED_USER": None,
    # How many reverse proxies stand in front: 0 trusts REMOTE_ADDR only, so a forged X-Forwarded-For cannot
    # buy a client a fresh throttle allowance. https://www.django-rest-framework.org/api-guide/throttling/
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Arena API",
    "DESCRIPTION": "Records finished games, rates players, serves leaderboards.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Served from our own static files: the docs page must work without reaching a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}
# Mounts /bench/bare/, the baseline endpoint of bench/recording_bench.py; never in production.
BENCH_ENDPOINTS = env.bool("BENCH_ENDPOINTS", default=False)
# A failing listener of an announcement (arena/announcements.py) is logged and the others still run; tests may
# set this to see the failure raised instead.
ANNOUNCEMENTS_RAISE = env.bool("ANNOUNCEMENTS_RAISE", default=False)
# Abuse detection takes at most this many new games per pass (one transaction each): a first run over a long
# history advances in steps instead of holding one transaction over all of it.
DETECTION_BATCH = env.int("DETECTION_BATCH", default=20_000)
# Largest batch a game server may send in one POST /api/v1/games/batch/.
GAMES_BATCH_MAX = 500
DATA_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024

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

# =============================================================================
# Matchmaking (docs/matchmaking.md; the rules' own constants are in matchmaking/engine.py)
# =============================================================================
# Embedded mode has no beat: a pass over the ticket's pool runs when a ticket is created or read.
MATCHMAKING_PASS_ON_REQUEST = env.bool("MATCHMAKING_PASS_ON_REQUEST", default=not REDIS_URL)
# Longest blocked list a player may keep: every pass reads it, for every waiting player.
MATCHMAKING_BLOCKED_MAX = 100
# Pushes of formed tables to game servers: attempts, first retry delay (doubling each time) and timeout.
MATCHMAKING_PUSH_ATTEMPTS = env.int("MATCHMAKING_PUSH_ATTEMPTS", default=8)
MATCHMAKING_PUSH_BACKOFF = env.float("MATCHMAKING_PUSH_BACKOFF", default=2.0)
MATCHMAKING_PUSH_TIMEOUT = env.float("MATCHMAKING_PUSH_TIMEOUT", default=5.0)

# =============================================================================
# Logging: request bodies are never logged (they carry raw IPs)
# =============================================================================
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
