"""PostgreSQL's binary array format, packed by ``struct`` in one call per column: the rating stores' array
parameters (``unnest(%b::int8[], ...)``, ``= ANY(%b::int8[])``).

Why: psycopg 3.2 dumps a list parameter in Python, element by element, after scanning the whole list twice to
choose the element type (``ListBinaryDumper``): for an Elo batch's 4,000-row columns that was about 2.5 ms per
column, a tenth of the batch's own Python (docs/testing.md, "Workers and pools"). Packing the same bytes with one
``struct.pack`` costs a fifth of it. The values are the same bits: a double is sent as its IEEE 754 bytes, an
integer as its two's complement, a timestamp as PostgreSQL's microseconds since 2000-01-01 UTC.

Framework-free: bytes in, bytes out; ``ratings.store.postgres`` gives them to psycopg with the array's type.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

# Element type -> (its oid, its array's oid, the struct code of one element, its size in bytes).
_TYPES = {
    "int8": (20, 1016, "q", 8),
    "int4": (23, 1007, "i", 4),
    "float8": (701, 1022, "d", 8),
    "timestamptz": (1184, 1185, "q", 8),
}
ARRAY_OIDS = {name: array_oid for name, (_, array_oid, _, _) in _TYPES.items()}
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def pack(kind: str, values: Sequence[object]) -> bytes:
    """One-dimensional array of ``kind`` without NULLs (a None raises ``struct.error``): header (dimensions, has-null
    flag, element oid), the dimension (length, lower bound 1), then each element as (size, bytes), big-endian."""
    oid, _, code, size = _TYPES[kind]
    if kind == "timestamptz":
        values = [(value - _PG_EPOCH) // _MICROSECOND for value in values]  # type: ignore[operator]
    n = len(values)
    if not n:
        return struct.pack(">iii", 0, 0, oid)
    body = [item for value in values for item in (size, value)]
    return struct.pack(">iiiii" + ("i" + code) * n, 1, 0, oid, n, 1, *body)
