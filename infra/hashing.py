"""Keyed hashing of IP addresses and device fingerprints (docs/moderation.md: raw values are personal data).

An IPv6 address is reduced to its /64 because one household or phone rotates through a whole /64; an
IPv4-mapped IPv6 address is the IPv4 address it carries, so one machine is one hash whichever stack it used.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress

from django.conf import settings


def _digest(kind: str, value: str, key: str | None = None) -> str:
    secret = (settings.IP_HASH_KEY if key is None else key).encode()
    return hmac.new(secret, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()


def ip_network(raw: str) -> str:
    """The network an address stands for; raises ValueError for anything that is not an IP address."""
    address = ipaddress.ip_address(raw.strip())
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def hash_ip(raw: str) -> str:
    """Raises ValueError for anything that is not an IP address."""
    return _hash_ip(settings.IP_HASH_KEY, raw)


@functools.lru_cache(maxsize=1 << 15)
def _hash_ip(key: str, raw: str) -> str:
    """Cached per process (about 10 MB when full): a player's address comes back game after game, and parsing
    it costs more than the HMAC. Keyed by the secret too, so a changed key never returns an old hash."""
    return _digest("ip", ip_network(raw), key)


def hash_device(raw: str) -> str:
    return _digest("device", raw)


def fingerprint(canonical_body: bytes) -> str:
    """A keyed hash of a request body, so a resend can be recognised without keeping its raw IPs."""
    return hmac.new(settings.IP_HASH_KEY.encode(), canonical_body, hashlib.sha256).hexdigest()


def hash_client_network(raw: str) -> str:
    """The public throttle's bucket (infra/api/throttles.py): a keyed hash of the client's network, the address
    for IPv4 and the /64 for IPv6, so no raw address is ever a cache key and an IPv6 client gets one bucket, not
    one per address. Its own domain ("client"), so a cache key cannot be matched against a stored IP hash."""
    try:
        network = ip_network(raw)
    except ValueError:  # not an address (a proxy's "unknown"): still hashed, never kept raw
        network = raw
    return _digest("client", network)
