"""The one place that decides Arena's mode, from the environment (docs/security.md, docs/architecture.md).

Production or development: without ``DEBUG=true`` Arena is production and fails closed (docs/security.md): it
refuses to start without its own keys and host names, and the other sections turn HTTPS, HSTS and secure cookies on.
Embedded or scaled out: with ``DEBUG=true`` and nothing else set, Arena runs embedded (a SQLite file, Celery tasks
executed in-process, a local-memory cache); ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` switch to the scaled-out
shape (Postgres, Redis as the Celery broker and cache, real workers). The settings that carry the shape
(``REDIS_URL``, ``CELERY_TASK_ALWAYS_EAGER``, ``MATCHMAKING_PASS_ON_REQUEST``) are derived here and read by
``infra/mode.py`` alone; every other section takes ``DEBUG`` and ``env`` from this module.
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()

# =============================================================================
# Production or development: DEBUG, the keys, the host names
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


def refuse(variable: str, why: str) -> None:
    """Production's refusal to start: one line that names the variable to fix (docs/security.md)."""
    raise ImproperlyConfigured(f"{variable} {why}; Arena runs as production without DEBUG=true and will not start.")


if not DEBUG:
    for _name, _value, _dev in (
        ("SECRET_KEY", SECRET_KEY, DEV_SECRET_KEY),
        ("IP_HASH_KEY", IP_HASH_KEY, DEV_IP_HASH_KEY),
    ):
        if not _value:
            refuse(_name, "is missing")
        if _value == _dev:
            refuse(_name, "is the public development value")
        if len(_value) < SECRET_MIN_LENGTH:
            refuse(_name, f"is shorter than {SECRET_MIN_LENGTH} characters")
    if not ALLOWED_HOSTS:
        refuse("ALLOWED_HOSTS", "is missing (comma-separated host names Arena answers to)")

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

# =============================================================================
# Embedded or scaled out: Redis, and what its absence means
# =============================================================================
REDIS_URL = env.str("REDIS_URL", default="")
# Embedded mode: no broker, so tasks run in-process when queued (after the commit that created their rows).
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
# Embedded mode has no beat: a pass over the ticket's pool runs when a ticket is created or read.
MATCHMAKING_PASS_ON_REQUEST = env.bool("MATCHMAKING_PASS_ON_REQUEST", default=not REDIS_URL)
