"""Players' reports, sent by game servers on the reporter's behalf (docs/api.md "Reports", docs/moderation.md).

A report whose only reason is ``same_ip`` is closed at once with the policy's answer: playing from one address is
allowed (seed 004), so a moderator never needs to read it. Every other report joins the queue, scored by the
reporter's track record so reliable reporters are read first.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.models import Game, GameServer, Player, Seat
from arena.selectors import player_not_found
from infra.errors import InvalidInput, NotFound
from moderation import rules
from moderation.models import Report

Reason = Report.Reason
# The reason a report is filed under when it gives several: the one that needs the most of a moderator.
_PRIORITY = [Reason.KINGMAKING, Reason.MULTIPLE_ACCOUNTS, Reason.OTHER, Reason.SAME_IP]


def reporter_record(*, reporter: Player) -> float:
    """The share of the reporter's resolved reports that were upheld (``rules.track_record``)."""
    counts = Report.objects.filter(reporter=reporter).aggregate(
        upheld=Count("pk", filter=Q(status=Report.Status.UPHELD)),
        dismissed=Count("pk", filter=Q(status=Report.Status.DISMISSED)),
    )
    return rules.track_record(counts["upheld"], counts["dismissed"])


def report_create(
    *,
    server: GameServer,
    reporter: str,
    accused: Sequence[str],
    reasons: Sequence[str],
    game_id: int | None = None,
    move: int | None = None,
    description: str = "",
) -> Report:
    """Check and store a report; the API has already checked the types.

    Refusals: unknown reporter or accused (404, with the field), a game this server did not record (404, as
    unknown as a missing one), kingmaking without game, move or description (400 listing each missing field),
    a reporter accusing themselves (400), an accused not at the cited kingmaking table (400).
    """
    wanted = list(dict.fromkeys([reporter, *accused]))
    found = {p.handle: p for p in Player.objects.filter(handle__in=wanted)}
    missing = {}
    if reporter not in found:
        missing["reporter"] = reporter
    for index, handle in enumerate(accused):
        if handle not in found:
            missing[f"accused.{index}"] = handle
    if missing:
        raise player_not_found(missing=missing, message="The reporter and every accused player must be known to Arena.")
    if reporter in accused:
        raise InvalidInput(
            "invalid_input", "A player cannot report themselves.", {"accused": "Must not include the reporter."}
        )
    game = None
    if game_id is not None:
        game = Game.objects.filter(pk=game_id, server=server).first()
        if game is None:
            raise NotFound(
                "game_not_found", f"No game {game_id} recorded by this game server.", {"game_id": "Unknown game."}
            )
    kinds = set(reasons)
    if Reason.KINGMAKING in kinds:
        needed = {"game_id": game_id is None, "move": move is None, "description": not description.strip()}
        lacking = {name: "Required for a kingmaking report." for name, absent in needed.items() if absent}
        if lacking:
            raise InvalidInput(
                "invalid_input",
                "A kingmaking report names the game, the move and why the move went against the player's own interest.",
                lacking,
            )
        seated = set(
            Seat.objects.filter(game=game, player__handle__in=accused).values_list("player__handle", flat=True)
        )
        absent = [h for h in accused if h not in seated]
        if absent:
            raise InvalidInput(
                "invalid_input",
                "Everyone accused of kingmaking must have played the cited game.",
                {"accused": f"Not at this table: {', '.join(absent)}."},
            )
    lead = next(r for r in _PRIORITY if r in kinds)
    closed = kinds == {Reason.SAME_IP}
    with transaction.atomic():
        record = reporter_record(reporter=found[reporter])
        report: Report = Report.objects.create(
            server=server,
            reporter=found[reporter],
            reason=lead,
            reasons=[r for r in _PRIORITY if r in kinds],
            game=game,
            move=move,
            description=description,
            status=Report.Status.CLOSED if closed else Report.Status.OPEN,
            score=0.0 if closed else rules.report_score(record=record, reason=lead),
            answer=rules.SAME_IP_ANSWER if closed else "",
            resolved_at=timezone.now() if closed else None,
        )
        report.accused.add(*(found[h] for h in dict.fromkeys(accused)))
    return report
