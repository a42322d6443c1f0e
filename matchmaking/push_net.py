"""The network side of a push: which callback URLs and addresses are allowed, and one POST under one deadline.

docs/security.md#pushes-to-game-servers is the rule in words. Why each part:

- **Public addresses only** (unless ``PUSH_ALLOW_PRIVATE_NETWORKS``, development's loopback receivers): a callback
  URL is typed by a superuser but its host's DNS belongs to whoever owns the name, and a push aimed at loopback,
  the private networks or the cloud's metadata address (169.254.169.254) would make Arena a door into its own
  network. Every resolved address must be public, not just one: the connection may use any of them.
- **Pinned**: the addresses checked are the ones connected to. The host is resolved once per attempt, the socket
  connects to a checked address (and the peer it reached is checked again), while the ``Host`` header and TLS's
  SNI and certificate check keep the host name. A name that resolves to a public address for the check and to
  127.0.0.1 a moment later (DNS rebinding) gains nothing: there is no second lookup.
- **No redirects**: ``http.client`` follows none, so a 3xx is an answer like any other, a failed attempt recorded
  with its status; nothing, the signature least of all, is sent to where a receiver points.
- **One deadline per attempt** (connect, TLS, send and read together): a watchdog shuts the socket down when it
  passes, so a receiver that drips its answer a byte at a time cannot hold a push thread longer than that.
  A per-operation socket timeout alone would be restarted by every byte.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

# docs/security.md: an attempt never takes longer than this, whatever MATCHMAKING_PUSH_TIMEOUT says.
DEADLINE_CAP_SECONDS = 10.0
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")


def deadline_seconds() -> float:
    return max(0.1, min(float(settings.MATCHMAKING_PUSH_TIMEOUT), DEADLINE_CAP_SECONDS))


def private_networks_allowed() -> bool:
    """``PUSH_ALLOW_PRIVATE_NETWORKS``: development and tests may push to loopback receivers (and over plain http)."""
    return bool(getattr(settings, "PUSH_ALLOW_PRIVATE_NETWORKS", False))


def address_refusal(ip: str) -> str | None:
    """Why a push must not go to ``ip``, or None for a public address (docs/security.md#pushes-to-game-servers)."""
    try:
        address = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return f"{ip} is not an IP address"
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return f"{ip} is an IPv4-mapped IPv6 address"
        embedded = address.sixtofour or (address.teredo[1] if address.teredo else None)
        if embedded is not None and address_refusal(str(embedded)) is not None:
            return f"{ip} carries the non-public IPv4 address {embedded}"
        if address in _UNIQUE_LOCAL:
            return f"{ip} is an IPv6 unique-local address"
    checks = (
        (address.is_unspecified, "unspecified"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "link-local (the cloud metadata service lives there)"),
        (address.is_multicast, "multicast"),
        (address.version == 4 and address in _CGNAT, "in the shared CGNAT range 100.64.0.0/10"),
        (address.is_private, "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "not a public address"),
    )
    for refused, what in checks:
        if refused:
            return f"{ip} is {what}"
    return None


class PushRefused(Exception):
    """The URL or an address it leads to is not allowed: nothing was sent."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str


def parse_url(url: str) -> Target:
    """The parts of a callback URL, or PushRefused: https (http too with the development allowance), a host, no
    user name or password in it."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as bad:
        raise PushRefused(f"not a valid URL: {bad}") from None
    allowed = ("https", "http") if private_networks_allowed() else ("https",)
    if parts.scheme not in allowed:
        raise PushRefused("the URL must be https" if parts.scheme != "https" else "unsupported scheme")
    if not parts.hostname:
        raise PushRefused("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise PushRefused("the URL must not carry a user name or password")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path)


def resolve(target: Target) -> list[tuple[int, tuple]]:
    """Every (family, socket address) the host resolves to, each one checked: all public, or PushRefused."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as failure:
        raise PushRefused(f"{target.host} does not resolve: {failure}") from None
    if not infos:
        raise PushRefused(f"{target.host} does not resolve")
    found = [(family, sockaddr) for family, _, _, _, sockaddr in infos]
    if not private_networks_allowed():
        for _, sockaddr in found:
            refusal = address_refusal(str(sockaddr[0]))
            if refusal is not None:
                raise PushRefused(f"{target.host} resolves to {refusal}")
    return found


def callback_url_refusal(url: str) -> str | None:
    """Why this callback URL cannot be saved, or None: the rules of a send, checked when a superuser saves it."""
    try:
        resolve(parse_url(url))
    except PushRefused as refused:
        return str(refused)
    return None


@dataclass(frozen=True)
class Answer:
    status: int | None
    error: str


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP connection over a socket already connected (and checked): ``connect`` never resolves the host."""

    def __init__(self, host: str, port: int, sock: socket.socket, default_port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.sock = sock
        self.default_port = default_port  # "Host: name" without ":443" on https's own port

    def connect(self) -> None:  # pragma: no cover - the socket is given; a reconnect would bypass the pin
        raise http.client.CannotSendRequest("a pinned connection never reconnects")


def post(url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
    """One POST of ``body`` to ``url`` within ``deadline_seconds()`` in all: the receiver's status (a 3xx
    included, never followed), or why there is none. Raises nothing: refusals and failures are answers."""
    deadline = deadline_seconds()
    started = time.monotonic()
    try:
        target = parse_url(url)
        addresses = resolve(target)
    except PushRefused as refused:
        return Answer(None, f"refused: {refused}")
    family, sockaddr = addresses[0]
    raw = socket.socket(family, socket.SOCK_STREAM)
    guard = raw.dup()  # the watchdog shuts the connection down through its own descriptor, TLS or not
    cut = threading.Event()

    def watchdog() -> None:
        cut.set()
        with contextlib.suppress(OSError):
            guard.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(0.0, deadline - (time.monotonic() - started)), watchdog)
    timer.daemon = True
    timer.start()
    sock: socket.socket = raw
    try:
        raw.settimeout(_left(started, deadline))
        raw.connect(sockaddr)
        peer = str(raw.getpeername()[0])
        if not private_networks_allowed() and (refusal := address_refusal(peer)) is not None:
            return Answer(None, f"refused: connected to {refusal}")
        if target.scheme == "https":
            context = ssl.create_default_context()
            sock = context.wrap_socket(raw, server_hostname=target.host)  # SNI and certificate: the host name
        sock.settimeout(_left(started, deadline))
        connection = _PinnedConnection(
            target.host, target.port, sock, 443 if target.scheme == "https" else 80, _left(started, deadline)
        )
        connection.request("POST", target.path, body=body, headers=dict(headers))
        response = connection.getresponse()
        status = response.status
        response.close()
    except (OSError, http.client.HTTPException, ValueError) as failure:
        if cut.is_set():
            return Answer(None, f"no answer within the deadline of {deadline:g} s")
        return Answer(None, (str(failure) or type(failure).__name__)[:500])
    finally:
        timer.cancel()
        for each in (sock, raw, guard):
            with contextlib.suppress(OSError):
                each.close()
    if cut.is_set():
        return Answer(None, f"no answer within the deadline of {deadline:g} s")
    if 300 <= status < 400:
        return Answer(status, f"HTTP {status}: redirects are not followed")
    return Answer(status, "" if 200 <= status < 300 else f"HTTP {status}")


def _left(started: float, deadline: float) -> float:
    left = deadline - (time.monotonic() - started)
    if left <= 0:
        raise TimeoutError("the deadline passed")
    return left
