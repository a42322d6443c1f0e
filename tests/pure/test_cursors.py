"""The one cursor of the paged lists (infra/api/cursors.py): what it encodes, what it refuses."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from infra.api.cursors import cursor_make, cursor_read, integer_key
from infra.errors import InvalidInput

# base64url of "2026-12-01T00:00:00+00:00|7" without padding (computed with coreutils' base64).
MIDNIGHT_7 = "MjAyNi0xMi0wMVQwMDowMDowMCswMDowMHw3"
MIDNIGHT = datetime(2026, 12, 1, tzinfo=UTC)


def test_a_cursor_is_the_time_and_key_in_base64url_without_padding():
    assert cursor_make(MIDNIGHT, 7) == MIDNIGHT_7
    assert cursor_read(MIDNIGHT_7, integer_key) == (MIDNIGHT, 7)


def test_a_cursor_given_before_the_one_helper_still_reads():
    # The games list wrote its times with "Z" ("2026-12-01T00:00:00Z|7", padded "=="): a client may hold one.
    assert cursor_read("MjAyNi0xMi0wMVQwMDowMDowMFp8Nw", integer_key) == (MIDNIGHT, 7)


def test_microseconds_and_uuid_keys_survive_the_round_trip():
    moment, key = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC), uuid.UUID(int=5)
    assert cursor_read(cursor_make(moment, key), uuid.UUID) == (moment, key)


@pytest.mark.parametrize(
    "cursor",
    [
        "MjAyNi0xMi0wMVQwMDowMDowMCswMDowMHwrNw",  # key "+7": int() would take it
        cursor_make(MIDNIGHT, " 7"),
        cursor_make(MIDNIGHT, "\u0667"),  # a space; an Arabic-Indic seven
        "not base64!",
        "",
        "bm90IGEgdGltZXw3",  # "not a time|7"
    ],
)
def test_a_cursor_the_list_did_not_give_is_refused_on_its_field(cursor):
    with pytest.raises(InvalidInput) as refused:
        cursor_read(cursor, integer_key)
    assert refused.value.code == "invalid_input"
    assert set(refused.value.fields) == {"cursor"}
