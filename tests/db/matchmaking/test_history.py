"""Ticket history: closed tickets older than the retention go, in chunks, with their seats; waiting tickets and
recent ones stay (matchmaking/history.py)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import GameServer, Player
from matchmaking.history import tickets_purge_closed
from matchmaking.models import Pool, Ticket, TicketSeat

pytestmark = pytest.mark.django_db


def make(pool, server, player, status, days_ago, closed_days_ago=None):
    created = timezone.now() - timedelta(days=days_ago)
    closed = None if status == "waiting" else timezone.now() - timedelta(days=closed_days_ago or days_ago)
    ticket = Ticket.objects.create(
        id=uuid.uuid4(),
        server=server,
        pool=pool,
        player=player,
        fingerprint="f",
        min_players=2,
        max_players=4,
        status=status,
        created_at=created,
        closed_at=closed,
    )
    TicketSeat.objects.create(ticket=ticket, player=player, position=0, ip_hash="h")
    return ticket


def test_closed_tickets_past_the_retention_are_deleted_in_chunks(settings):
    settings.MATCHMAKING_TICKET_RETENTION_DAYS = 30
    server = GameServer.objects.create(name="s", key_prefix="p", key_hash="h")
    pool = Pool.objects.create(title="tokaido", variant={}, variant_key="{}", rated=True)
    player = Player.objects.create(handle="alice")
    old = [make(pool, server, player, status, 31) for status in ("matched", "cancelled", "expired") for _ in range(3)]
    keep = [
        make(pool, server, player, "matched", 29),  # inside the retention
        make(pool, server, player, "waiting", 40),  # never closed: a stalled matchmaker's ticket stays
        make(pool, server, player, "expired", 31, 29),  # created before the cutoff, closed after it
    ]
    # 9 old tickets in chunks of 4: 4 + 4 + 1, the short chunk ends the run.
    purged = tickets_purge_closed(chunk=4)
    assert (purged.tickets, purged.chunks) == (9, 3)
    assert set(Ticket.objects.values_list("pk", flat=True)) == {t.pk for t in keep}
    assert not TicketSeat.objects.filter(ticket_id__in=[t.pk for t in old]).exists()
    assert TicketSeat.objects.count() == 3
    assert tickets_purge_closed(chunk=4).tickets == 0  # run again: nothing more


def test_a_run_is_bounded(settings):
    server = GameServer.objects.create(name="s", key_prefix="p", key_hash="h")
    pool = Pool.objects.create(title="tokaido", variant={}, variant_key="{}", rated=True)
    player = Player.objects.create(handle="bob")
    for _ in range(5):
        make(pool, server, player, "matched", 60)
    assert tickets_purge_closed(chunk=2, max_chunks=2).tickets == 4  # the rest waits for the next run
    assert Ticket.objects.count() == 1
