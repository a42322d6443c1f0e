"""One migrated PostgreSQL database per version of the migrations, cloned wherever a test needs a fresh schema.

Running every migration takes a minute or more on this two-core machine (hundreds of small DDL statements, each a
round trip and a catalogue write), and the PostgreSQL pass used to do it about ten times: once per xdist worker
for the test database, once for the benches' scratch database, once for the recording bench, and once in each
private cluster (the replica, the outage). A ``CREATE DATABASE ... TEMPLATE`` copies the files instead, in well under
a second, and a private cluster takes a ``pg_dump`` of the same database in a few seconds (docs/testing.md, "The
suite's passes").

The template is named after a hash of every migration file Django would apply (the project's and the installed
packages', through Django's own loader) and the pinned requirements, so a changed migration makes a new template
and a stale one is never cloned; the older ones are dropped. It is made once, under a PostgreSQL advisory lock
(xdist workers and parallel runs wait for the first), by the real ``manage.py migrate``, and renamed into place
only when complete: a migration that fails leaves no template. The migrations themselves are still proved in
place: ``tests/services/test_runbook.py`` runs ``migrate --check`` on a restored copy, and ``tests/db`` runs every
migration on SQLite.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
_LOCK = 0x4152454E41  # "ARENA": the advisory lock the template's maker holds


def _migration_files() -> list[Path]:
    """Every migration module of every installed app, found the way Django finds them (an app's ``migrations``
    package), plus the requirements that pin the packages' own migrations."""
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()
    files = [ROOT / "requirements.txt"]
    for config in apps.get_app_configs():
        folder = Path(config.path) / "migrations"
        files += sorted(folder.glob("*.py"))
    return files


def fingerprint() -> str:
    digest = hashlib.sha256()
    for path in _migration_files():
        digest.update(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def server_url(database_url: str, name: str = "postgres") -> str:
    """The same server and credentials as ``database_url``, another database."""
    parts = urlsplit(database_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def _prefix() -> str:
    """Templates belong to the database the run was given (``DATABASE_URL``: the suite's test databases are named
    after it), so two checkouts testing on one server, each with its own database, never drop each other's."""
    configured = os.environ.get("DATABASE_URL", "")
    return f"{urlsplit(configured).path.lstrip('/') or 'arena'}_tpl_"


def template(database_url: str) -> str:
    """The name of the migrated template on ``database_url``'s server, made if missing."""
    prefix = _prefix()
    name = prefix + fingerprint()
    with psycopg.connect(server_url(database_url), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [_LOCK])
        try:
            rows = conn.execute("SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [prefix])
            existing = [row[0] for row in rows]
            if name not in existing:
                building = f"{name}_building"
                conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{building}"')
                _migrate(server_url(database_url, building))
                conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
            for stale in existing:
                if stale != name:
                    conn.execute(f'DROP DATABASE IF EXISTS "{stale}" WITH (FORCE)')
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [_LOCK])
    return name


def _migrate(url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_REPLICA_URL")}
    env.update(DATABASE_URL=url, DEBUG="true", DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode:
        raise RuntimeError(f"migrating the template failed:\n{done.stderr[-4000:]}")


def clone(database_url: str, name: str) -> str:
    """A fresh database ``name`` on ``database_url``'s server, a copy of the migrated template; its URL."""
    source = template(database_url)
    with psycopg.connect(server_url(database_url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
    return server_url(database_url, name)


def dump(database_url: str) -> Path:
    """The template as a plain SQL file, for a private cluster to restore (kept per fingerprint in the temporary
    directory; written to a side file and renamed, so a reader never sees half of one)."""
    source = template(database_url)
    path = Path(tempfile.gettempdir()) / f"{source}.sql"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.part")
        subprocess.run(
            ["pg_dump", "--no-owner", "--no-privileges", "-f", str(partial), server_url(database_url, source)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        partial.replace(path)
    return path


def restore(sql: Path, database_url: str) -> None:
    """Load a dump made by ``dump`` into an empty database (a private cluster's)."""
    subprocess.run(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(sql), database_url],
        check=True,
        capture_output=True,
        timeout=300,
    )


def url_of(settings_dict: dict) -> str:
    """A Django database's settings as a URL (the server's; the name is the settings' own)."""
    from urllib.parse import quote

    credentials = quote(settings_dict["USER"] or "") + (
        f":{quote(settings_dict['PASSWORD'])}" if settings_dict.get("PASSWORD") else ""
    )
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgres://{credentials}@{settings_dict['HOST'] or 'localhost'}{port}/{settings_dict['NAME']}"
