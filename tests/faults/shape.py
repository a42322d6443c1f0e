"""The production shape, started from the root ``Procfile`` (the very commands a site runs), one process each.

Every Procfile line becomes one process in its own session (so a SIGKILL of its group takes the prefork pool's
children with it, as a crashed machine would), with ``bash -c 'exec ...'`` expanding ``${VAR:-default}`` as
honcho does. The environment is a production one: DEBUG unset-equivalent ``false``, generated keys, the
private database and Redis. A process can be killed and started again under the same name.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests
from honcho.environ import parse_procfile

from tests.process_groups import groups_stop

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def procfile(path: Path = ROOT / "Procfile") -> dict[str, str]:
    """Process name -> command, as honcho reads the file."""
    return dict(parse_procfile(path.read_text(encoding="utf-8")).processes)


def production_env(*, database_url: str, redis_url: str, var_dir: Path, bind: str, **extra: str) -> dict[str, str]:
    """What a site sets: production (no DEBUG), its own keys (>= 32 characters, not the dev ones), the hosts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST", "DEBUG"))}
    env.update(
        {
            "PATH": f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}",
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(48),
            "IP_HASH_KEY": secrets.token_urlsafe(48),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "ARENA_VAR_DIR": str(var_dir),
            "ARENA_BIND": bind,
            "PYTHONUNBUFFERED": "1",
            # Plain HTTP on loopback: no TLS redirect; the pushes' receivers listen on loopback (docs/security.md).
            "SECURE_SSL_REDIRECT": "false",
            "PUSH_ALLOW_PRIVATE_NETWORKS": "true",
            # A void's rebuilds lost with a killed worker are swept again within a bound a test can wait for.
            "VOID_REBUILD_SWEEP_SECONDS": "15",
            "VOID_REBUILD_OVERDUE_SECONDS": "45",
        }
    )
    env.update(extra)
    return env


@dataclass
class Shape:
    """The Procfile's processes against one environment; logs in ``logs``."""

    env: dict[str, str]
    logs: Path
    commands: dict[str, str] = field(default_factory=procfile)
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    starts: dict[str, int] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://{self.env['ARENA_BIND']}"

    def start(self, name: str) -> None:
        self.starts[name] = self.starts.get(name, 0) + 1
        log = open(self.logs / f"{name}-{self.starts[name]}.log", "wb")  # noqa: SIM115 - owned by the child
        command = self.commands[name]
        if name == "beat":
            # A SIGKILLed beat may leave its schedule file half written: each start gets its own, as a new
            # container would.
            command = command.replace("celerybeat-schedule", f"celerybeat-schedule-{self.starts[name]}")
        line = command if command.startswith("exec ") else f"exec {command}"  # the Procfile's lines exec already
        self.processes[name] = subprocess.Popen(
            ["bash", "-c", line], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def start_all(self) -> None:
        for name in self.commands:
            self.start(name)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        process = self.processes.pop(name, None)
        if process is None:
            return
        groups_stop([process], sig)
        if sig != signal.SIGKILL:
            # Whatever a graceful stop left behind (a pool child) goes too.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

    def stop_all(self) -> None:
        for name in list(self.processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.processes[name].pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for name in list(self.processes):
            process = self.processes.pop(name)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)

    def wait_pool(self, name: str, timeout: float = 60.0) -> None:
        """Until the process has forked its pool (a prefork worker's children exist): it is taking tasks."""
        process = self.processes[name]
        deadline = time.monotonic() + timeout
        while not Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split():
            if time.monotonic() > deadline or process.poll() is not None:
                raise AssertionError(f"{name} did not start its pool:\n{self.log_tail(name)}")
            time.sleep(0.1)

    def group(self, name: str) -> list[int]:
        """Every process of ``name``'s session (the worker and its pool's children)."""
        sid = self.processes[name].pid
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            if int(fields[3]) == sid:  # the process group id: the session leader's pid
                pids.append(int(stat.parent.name))
        return pids

    def client_ports(self, name: str) -> set[int]:
        """Local TCP ports of ``name``'s open sockets: PostgreSQL sees its connections coming from them."""
        inodes = set()
        for pid in self.group(name):
            for fd in Path(f"/proc/{pid}/fd").glob("*"):
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
        ports = set()
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                ports.add(int(fields[1].split(":")[1], 16))
        return ports

    def dead(self) -> list[str]:
        """Processes that exited on their own (a fault test restarts only what it killed)."""
        return [name for name, p in self.processes.items() if p.poll() is not None]

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.logs / f"{name}-{self.starts.get(name, 1)}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Seconds until ``/readyz`` answers 200 (the database and Redis both answer)."""
        started = time.monotonic()
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return time.monotonic() - started
            if time.monotonic() - started > timeout:
                raise AssertionError(f"not ready after {timeout:.0f}s:\n{self.log_tail('web')}")
            time.sleep(0.1)


def manage(env: dict[str, str], *args: str, stdin: str | None = None, timeout: float = 120) -> str:
    """``manage.py ARGS`` in the site's environment; its standard output (fails with its error output)."""
    done = subprocess.run(
        [str(BIN / "python"), "manage.py", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return done.stdout
