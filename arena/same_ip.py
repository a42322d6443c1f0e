"""Who shares an address: the one grouping behind a recorded game's and a formed table's ``same_ip`` warnings.

Pure: it sees only (player, ip_hash) pairs, never a raw address (docs/moderation.md: IPs are stored only as
keyed hashes). Playing from one address is allowed; the other players have a right to know, so each address
shared by two or more players becomes one warning, its players in the order given.
"""

from __future__ import annotations

from collections.abc import Iterable


def shared_addresses(seats: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The players of each IP hash used by two or more of ``seats`` ((player, ip_hash) pairs), first seen first."""
    by_ip: dict[str, list[str]] = {}
    for player, ip_hash in seats:
        by_ip.setdefault(ip_hash, []).append(player)
    return [tuple(players) for players in by_ip.values() if len(players) > 1]
