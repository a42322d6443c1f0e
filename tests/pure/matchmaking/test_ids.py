"""Ticket and table ids (matchmaking/ids.py): RFC 9562 version 7, led by the millisecond they were made."""

from __future__ import annotations

import time
import uuid

from matchmaking.ids import uuid7, uuid7_texts


def _millis(value: uuid.UUID) -> int:
    return int(value.hex[:12], 16)


def test_an_id_is_version_7_and_starts_with_the_millisecond_it_was_made():
    before = time.time_ns() // 1_000_000
    made = uuid7()
    after = time.time_ns() // 1_000_000
    assert made.version == 7 and made.variant == uuid.RFC_4122
    assert before <= _millis(made) <= after


def test_ids_made_in_later_milliseconds_sort_after_earlier_ones():
    first = uuid7()
    time.sleep(0.003)
    second = uuid7()
    assert str(first) < str(second) and first.bytes < second.bytes


def test_a_batch_of_texts_are_distinct_version_7_ids_of_one_millisecond():
    before = time.time_ns() // 1_000_000
    texts = uuid7_texts(5000)
    after = time.time_ns() // 1_000_000
    parsed = [uuid.UUID(text) for text in texts]
    assert [str(p) for p in parsed] == texts  # canonical text form, as the pass sends it
    assert len(set(texts)) == 5000
    assert {p.version for p in parsed} == {7} and {p.variant for p in parsed} == {uuid.RFC_4122}
    assert len({_millis(p) for p in parsed}) == 1 and before <= _millis(parsed[0]) <= after
    assert uuid7_texts(0) == []


def test_the_random_part_varies():
    # 74 random bits: two ids of the same millisecond agree on the clock and nowhere else beyond chance.
    texts = uuid7_texts(200)
    tails = {text[15:] for text in texts}
    assert len(tails) == 200
