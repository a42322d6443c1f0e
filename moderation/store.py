"""Moderation's storage statements that differ by database: the one module here that asks the vendor.

Detection and the services say what to write; where PostgreSQL has a faster statement than the ORM's (one
``INSERT ... SELECT unnest(...)`` for thousands of links) it is chosen here, with the ORM's same meaning elsewhere.
"""

from __future__ import annotations

import json

from django.db import connection
from django.utils import timezone

from moderation.detection.base import CHUNK, chunks
from moderation.models import Link


def links_insert(links: list[Link]) -> None:
    """New links in as few statements as possible: on PostgreSQL one ``INSERT ... SELECT unnest(...)`` per chunk of
    arrays (a crowded address's tables make tens of thousands at once, and ``bulk_create`` builds a row of
    placeholders per link and returns every id, which nobody reads here); elsewhere ``bulk_create``."""
    if connection.vendor != "postgresql":
        Link.objects.bulk_create(links, batch_size=CHUNK)
        return
    now = timezone.now()
    table = connection.ops.quote_name(Link._meta.db_table)
    with connection.cursor() as cur:
        for chunk in chunks(links, 10 * CHUNK):
            cur.execute(
                f"INSERT INTO {table} (player_a_id, player_b_id, kind, keys, key_digests, first_seen, last_seen, "
                "crowd, updated_at) SELECT a, b, k, n, d::jsonb, f, l, c, %s FROM unnest(%s::bigint[], "
                "%s::bigint[], %s::text[], %s::int[], %s::text[], %s::timestamptz[], %s::timestamptz[], %s::int[]) "
                "AS t(a, b, k, n, d, f, l, c)",
                [
                    now,
                    [x.player_a_id for x in chunk],
                    [x.player_b_id for x in chunk],
                    [x.kind for x in chunk],
                    [x.keys for x in chunk],
                    [json.dumps(x.key_digests) for x in chunk],
                    [x.first_seen for x in chunk],
                    [x.last_seen for x in chunk],
                    [x.crowd for x in chunk],
                ],
            )
