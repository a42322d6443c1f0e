"""The read-only matchmaking admin lists tables, pools and tickets by title (what is played) and filters by it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

from tests.db.matchmaking.conftest import ticket_body

TICKETS = "/api/v1/matchmaking/tickets/"


def test_tables_pools_and_tickets_are_listed_and_filtered_by_title(api):
    bodies = [api.post(TICKETS, ticket_body(f"tok_{name}"), format="json").json() for name in "abcd"]
    assert bodies[-1]["status"] == "matched", bodies[-1]
    waiting = api.post(TICKETS, ticket_body("nile_alone", game="nile"), format="json").json()
    assert waiting["status"] == "waiting", waiting
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))

    tokaido_tables = client.get("/admin/matchmaking/table/?title=tokaido")
    assert tokaido_tables.status_code == 200 and "tok_a" in tokaido_tables.content.decode()
    nile_tables = client.get("/admin/matchmaking/table/?title=nile")
    assert nile_tables.status_code == 200 and "tok_a" not in nile_tables.content.decode()

    pools = client.get("/admin/matchmaking/pool/").content.decode()
    assert "tokaido" in pools and "nile" in pools

    nile_tickets = client.get("/admin/matchmaking/ticket/?pool__title=nile").content.decode()
    assert waiting["id"] in nile_tickets and bodies[0]["id"] not in nile_tickets
    tokaido_tickets = client.get("/admin/matchmaking/ticket/?pool__title=tokaido").content.decode()
    assert bodies[0]["id"] in tokaido_tickets and waiting["id"] not in tokaido_tickets


def test_the_ticket_search_takes_a_player_id_or_its_start_or_a_request_id(api):
    """Through the handle's index (a start, never ``LIKE '%x%'``), or a ticket's exact ``request_id``."""
    ids = {
        name: api.post(TICKETS, ticket_body(name, game="nile", request_id=f"req-{name}"), format="json").json()["id"]
        for name in ("alice", "malice", "bob")
    }
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))

    def found(term: str) -> set[str]:
        page = client.get("/admin/matchmaking/ticket/", {"q": term})
        assert page.status_code == 200
        return {name for name, ticket_id in ids.items() if ticket_id in page.content.decode()}

    assert found("ali") == {"alice"}  # not malice: a start, not a substring
    assert found("alice") == {"alice"}
    assert found("req-bob") == {"bob"}
    assert found("req-b") == set()  # a request id is matched whole
    assert found("a b") == set()  # no player id, no request id
    assert found("") == {"alice", "malice", "bob"}
