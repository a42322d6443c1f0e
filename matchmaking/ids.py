"""Time-ordered ids (UUID version 7, RFC 9562) for tickets and tables: the newest rows sit together in the index.

The ticket table keeps a month of closed tickets (millions, matchmaking/history.py) beside the few thousand
waiting ones, and a pass finds each waiting ticket by its primary key twice (the load, then the conditional
update). With random (version 4) ids those keys are spread over every page of the primary-key index, so at
5 million closed tickets each lookup is a page the cache no longer holds. A version 7 id starts with the
millisecond it was made: the tickets waiting now, all made in the last ten minutes, share the index's last few
pages, which stay cached however long the history grows. The same holds for tables, which are never deleted.

The rest is random (74 bits), so ids are still unguessable and unique across processes; they tell when they
were made, which the ticket's own ``created_at`` tells anyway.
"""

from __future__ import annotations

import os
import time
import uuid


def _stamped(raw: bytearray) -> bytearray:
    """Version 7 and the RFC variant written into every 16-byte id of ``raw``."""
    raw[6::16] = bytes(b & 0x0F | 0x70 for b in raw[6::16])
    raw[8::16] = bytes(b & 0x3F | 0x80 for b in raw[8::16])
    return raw


def uuid7() -> uuid.UUID:
    """A new id: the current Unix time in milliseconds (48 bits, big-endian), then random bits."""
    millis = time.time_ns() // 1_000_000
    return uuid.UUID(bytes=bytes(_stamped(bytearray(millis.to_bytes(6, "big") + os.urandom(10)))))


def uuid7_texts(count: int) -> list[str]:
    """``count`` new ids as text, from one clock reading and one read of the random source (a pass forming
    25,000 tables felt an object per id)."""
    prefix = (time.time_ns() // 1_000_000).to_bytes(6, "big")
    noise = os.urandom(10 * count)
    text = _stamped(bytearray(b"".join(prefix + noise[i : i + 10] for i in range(0, 10 * count, 10)))).hex()
    return [
        "-".join(
            (text[i : i + 8], text[i + 8 : i + 12], text[i + 12 : i + 16], text[i + 16 : i + 20], text[i + 20 : i + 32])
        )
        for i in range(0, 32 * count, 32)
    ]
