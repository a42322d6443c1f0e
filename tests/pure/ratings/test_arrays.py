"""PostgreSQL's binary array format as ``ratings.store.arrays`` packs it, against bytes written out by hand from
the format (PostgreSQL's ``array_send``: dimensions, has-null flag, element oid, then per dimension its length
and lower bound, then each element as its size and its big-endian bytes). The round trip through a real server
is the stores' comparison in tests/db/ratings/test_store.py."""

from __future__ import annotations

import struct
from datetime import UTC, datetime, timedelta, timezone

import pytest

from ratings.store.arrays import ARRAY_OIDS, pack


def test_int8_elements_are_eight_bytes_twos_complement():
    expected = bytes.fromhex(
        "00000001"
        "00000000"
        "00000014"  # one dimension, no NULL, int8 (oid 20)
        "00000002"
        "00000001"  # two elements from index 1
        "00000008"
        "0000000000000001"
        "00000008"
        "fffffffffffffffe"
    )
    assert pack("int8", [1, -2]) == expected


def test_float8_int4_and_their_oids():
    assert pack("float8", [1.0]) == bytes.fromhex(
        "00000001 00000000 000002bd 00000001 00000001 00000008 3ff0000000000000"
    )
    assert pack("int4", [7]) == bytes.fromhex("00000001 00000000 00000017 00000001 00000001 00000004 00000007")
    assert ARRAY_OIDS == {"int8": 1016, "int4": 1007, "float8": 1022, "timestamptz": 1185}


def test_a_timestamp_is_microseconds_since_2000_in_utc_whatever_its_offset():
    one_and_a_half = datetime(2000, 1, 1, 0, 0, 1, 500_000, tzinfo=UTC)  # 1,500,000 = 0x16e360
    same_instant_elsewhere = datetime(2000, 1, 1, 2, 0, tzinfo=timezone(timedelta(hours=2)))  # 0
    before = datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)  # -1
    assert pack("timestamptz", [one_and_a_half, same_instant_elsewhere, before]) == bytes.fromhex(
        "00000001 00000000 000004a0 00000003 00000001"
        "00000008 000000000016e360 00000008 0000000000000000 00000008 ffffffffffffffff"
    )


def test_an_empty_array_has_no_dimension_and_a_null_is_refused():
    assert pack("int8", []) == bytes.fromhex("00000000 00000000 00000014")
    with pytest.raises(struct.error):
        pack("float8", [1.0, None])
