"""The rating bench's timed paths: the real stages, each beside the baseline it is judged against in the same run.

Baseline and stage take turns batch by batch (which goes first alternates), so both see the same machine load and
table sizes; the figures are kept in wall and in CPU seconds (bench/cpu_clock.py) for bench/rating_report.py.
"""

from __future__ import annotations

import time

import trueskill
from django.db import transaction

from arena.models import Game, Seat
from bench.cpu_clock import Clock, spent
from bench.rating_floor import Floor
from bench.rating_games import BASE_TITLE, FLOOR_TITLE, TITLE
from ratings import elo_batch
from ratings.config import elo_config
from ratings.elo import Standing, rate_sides
from ratings.elo_batch import elo_stage_run
from ratings.models import Rating, RatingChange, RatingStage
from ratings.trueskill_batch import trueskill_stage_run
from seasons.services import season_follow

# --season: the season stage's total time after our batches (``season_follow``), and whether it runs.
SEASON = {"on": False, "seconds": 0.0}


def season_after_batch() -> None:
    if SEASON["on"]:
        started = time.perf_counter()
        season_follow(title=TITLE)
        SEASON["seconds"] += time.perf_counter() - started


# Per batch pair (with, without reputation): the ratios of their times. Their median is the steadier figure on a
# shared machine, where a load spike during one batch moves the totals.
PAIR_RATIOS: list[float] = []


# CPU seconds (this process and its PostgreSQL backend) of the floor, our batches and the batches without
# reputation, beside their wall times.
CPU = {"floor": 0.0, "batch": 0.0, "base": 0.0}


def elo_runs(layout: list, batch: int, floor_first_id: int) -> tuple[int, float, float, float]:
    """Floor batch i, then our batch i and the same batch without reputation (in turns: which goes first
    alternates), so all three see the same machine load and table sizes."""
    floor = Floor(layout, batch, floor_first_id)
    RatingStage.objects.create(title=FLOOR_TITLE, stage=RatingStage.Stage.ELO)
    clock = Clock()
    floor_time, batch_time, base_time = [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]
    done = 0
    real_fold = elo_batch.reputations_fold

    def without_reputation() -> float:
        elo_batch.reputations_fold = lambda games: None
        try:
            started = clock.now()
            assert elo_stage_run(title=BASE_TITLE, limit=batch).games
            return spent(clock, started, base_time)
        finally:
            elo_batch.reputations_fold = real_fold

    for index in range(len(floor.prepared)):
        started = clock.now()
        floor.run(index)
        spent(clock, started, floor_time)
        base = without_reputation() if index % 2 else 0.0
        started = clock.now()
        done += elo_stage_run(title=TITLE, limit=batch).games
        real = spent(clock, started, batch_time)
        season_after_batch()
        if not index % 2:
            base = without_reputation()
        PAIR_RATIOS.append(real / base)
    assert elo_stage_run(title=TITLE, limit=batch).games == 0
    assert elo_stage_run(title=BASE_TITLE, limit=batch).games == 0
    CPU.update(floor=floor_time[1], batch=batch_time[1], base=base_time[1])
    return done, floor_time[0], batch_time[0], base_time[0]


def naive_run(title: str) -> tuple[int, float]:
    """One game per transaction through the ORM: how a first version would do it."""
    config = elo_config()
    ids = list(Game.objects.filter(title=title, status=Game.Status.PENDING).order_by("id").values_list("id", flat=True))
    start_time = time.perf_counter()
    seq = 0
    for game_id in ids:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            if game.status != Game.Status.PENDING:
                continue
            seats = list(Seat.objects.filter(game=game).order_by("position"))
            ratings = {}
            for seat in seats:
                ratings[seat.player_id], _ = Rating.objects.get_or_create(
                    player_id=seat.player_id, title=title, defaults={"elo": config.initial, "games": 0}
                )
            sides = [[] for _ in range(1 + max(s.side for s in seats))]
            places = [0] * len(sides)
            for seat in seats:
                rating = ratings[seat.player_id]
                sides[seat.side].append((seat.player_id, Standing(rating.elo, rating.games)))
                places[seat.side] = seat.place
            changes = rate_sides(sides, places, game.recommended_sides, None, config)
            seq += 1
            for seat in seats:
                change = changes[seat.player_id]
                rating = ratings[seat.player_id]
                RatingChange.objects.create(
                    seq=seq,
                    title=title,
                    player_id=seat.player_id,
                    game=game,
                    before=change.before,
                    after=change.after,
                    delta=change.delta,
                    k=change.k,
                    games_before=change.games_before,
                    place=seat.place,
                    finished_at=game.finished_at,
                )
                rating.elo = change.after
                rating.games += 1
                rating.last_game_at = max(filter(None, [rating.last_game_at, game.finished_at]))
                rating.save()
            game.status = Game.Status.RATED
            game.rating_seq = seq
            game.save(update_fields=["status", "rating_seq"])
    return len(ids), time.perf_counter() - start_time


def skill_runs(layout: list, count: int, batch: int) -> tuple[int, float, float]:
    """The TrueSkill stage batch by batch, each followed by the bare ``trueskill.rate`` loop over the same games.

    The benchmark games were rated in id order, so the stage takes them in ``layout`` order too.
    """
    env = trueskill.TrueSkill()
    default = env.create_rating()
    beliefs: dict[int, trueskill.Rating] = {}
    clock = Clock()
    stage, bare = [0.0, 0.0], [0.0, 0.0]
    done = 0
    while done < count:
        started = clock.now()
        games = trueskill_stage_run(title=TITLE, limit=min(batch, count - done)).games
        middle = clock.now()
        stage[0] += middle[0] - started[0]
        stage[1] += middle[1] - started[1]
        for table in layout[done : done + games]:
            sides = 1 + max(seat[1] for seat in table)
            groups: list[list] = [[] for _ in range(sides)]
            keys: list[list] = [[] for _ in range(sides)]
            ranks = [0] * sides
            for player_id, side, place in table:
                groups[side].append(beliefs.get(player_id, default))
                keys[side].append(player_id)
                ranks[side] = place
            rated = env.rate([tuple(group) for group in groups], ranks=ranks)
            for members, new in zip(keys, rated, strict=True):
                for player_id, belief in zip(members, new, strict=True):
                    beliefs[player_id] = belief
        spent(clock, middle, bare)
        if not games:
            break
        done += games
    stored = dict(Rating.objects.filter(title=TITLE, ts_mu__isnull=False).values_list("player_id", "ts_mu"))
    # Same maths: trueskill keeps a precision and a precision-adjusted mean inside its Rating, while the stage
    # stores (mu, sigma) and rebuilds the Rating from them, so the two agree to the last bits, not bit for bit.
    assert stored.keys() == beliefs.keys()
    assert all(abs(stored[p] - r.mu) < 1e-9 for p, r in beliefs.items()), "TrueSkill stage differs from the bare loop"
    CPU.update(stage=stage[1], bare=bare[1])
    return done, stage[0], bare[0]
