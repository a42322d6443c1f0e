"""The apps' own settings: detection, ratings, matchmaking, the sweeps, seasons (each app's docs page).

Their periodic jobs are in beat's one table (config/sections/workers.py), which reads the intervals set here.
"""

import os

from config.sections.mode import DEBUG, env

# A failing listener (infra/announcements.py) or hand-off (infra/handoffs.py) is logged; tests may raise it.
ANNOUNCEMENTS_RAISE = env.bool("ANNOUNCEMENTS_RAISE", default=False)
# Abuse detection takes at most this many new games per pass (one transaction each): a first run over a long
# history advances in steps instead of holding one transaction over all of it.
DETECTION_BATCH = env.int("DETECTION_BATCH", default=20_000)

# =============================================================================
# Ratings (docs/ratings.md): every constant is a setting. The defaults are defined once, in ratings/elo.py and
# ratings/hanabi.py; ratings/config.py lists the settings that override them (ELO_INITIAL, ELO_K_NEW, ELO_K_MID,
# ELO_K_SETTLED, ELO_MID_FROM, ELO_SETTLED_FROM, ELO_QUIT_PENALTY, ELO_FLOOR, HANABOT_BELOW_THRESHOLD), and
# only what is set here or in the environment overrides.
# =============================================================================
if "ELO_INITIAL" in os.environ:
    ELO_INITIAL = env.float("ELO_INITIAL")
if "HANABOT_BELOW_THRESHOLD" in os.environ:
    # "tie_with_1000" (the later rule, the default) or "lose_to_weakest" (the 2014 rule).
    HANABOT_BELOW_THRESHOLD = env.str("HANABOT_BELOW_THRESHOLD")
RATING_BATCH_SIZE = env.int("RATING_BATCH_SIZE", default=2000)
# The rating economy (docs/ratings.md, "Where rating points come from"): a title's active median moving more than
# this many points in 30 days is drift (inflation or deflation); exposed as arena_rating_drift_threshold_points,
# which the ArenaRatingDrift rule of ops/alerts.yml compares with.
RATING_DRIFT_POINTS = env.float("RATING_DRIFT_POINTS", default=25.0)
# Beat takes each title's active population (count, mean, median) into today's row this often; a day keeps its last.
RATING_POPULATION_SECONDS = env.float("RATING_POPULATION_SECONDS", default=3600.0)

# =============================================================================
# Matchmaking (docs/matchmaking.md; the rules' own constants are in matchmaking/engine/rules.py)
# =============================================================================
# Longest blocked list a player may keep: every pass reads it, for every waiting player.
MATCHMAKING_BLOCKED_MAX = 100
# Most tickets one game server may keep waiting at once (429 too_many_tickets beyond): a leaked or buggy key
# cannot fill the pools. "none" lifts the bound.
_max_waiting = env.str("MATCHMAKING_MAX_WAITING_PER_SERVER", default="10000")
MATCHMAKING_MAX_WAITING_PER_SERVER = None if _max_waiting.lower() == "none" else int(_max_waiting)
# Pushes of formed tables to game servers: attempts, first retry delay (doubling each time) and timeout.
MATCHMAKING_PUSH_ATTEMPTS = env.int("MATCHMAKING_PUSH_ATTEMPTS", default=8)
MATCHMAKING_PUSH_BACKOFF = env.float("MATCHMAKING_PUSH_BACKOFF", default=2.0)
# One deadline per attempt (connect, TLS, send and read together), capped at 10 s (matchmaking/push_net.py).
MATCHMAKING_PUSH_TIMEOUT = min(env.float("MATCHMAKING_PUSH_TIMEOUT", default=5.0), 10.0)
# docs/security.md#pushes-to-game-servers: pushes go to https URLs on public addresses only. Development and tests
# may push to loopback/private receivers (over plain http too) with this; it follows DEBUG, so production is off.
PUSH_ALLOW_PRIVATE_NETWORKS = env.bool("PUSH_ALLOW_PRIVATE_NETWORKS", default=DEBUG)

# =============================================================================
# Operations (issue 18; docs/operations.md): sweeps of work recorded in the database, ticket history, read replica
# =============================================================================
# A void's rebuilds are recorded on its audit entry; the sweep queues again those still pending this long after the
# void (a message lost with a killed worker would otherwise wait for Redis's one-hour visibility timeout).
VOID_REBUILD_SWEEP_SECONDS = env.float("VOID_REBUILD_SWEEP_SECONDS", default=60.0)
VOID_REBUILD_OVERDUE_SECONDS = env.float("VOID_REBUILD_OVERDUE_SECONDS", default=120.0)
# A lost Redis board (its "ready" marker missing) is asked for again this often, whatever became of its message.
LEADERBOARD_SWEEP_SECONDS = env.float("LEADERBOARD_SWEEP_SECONDS", default=60.0)
# Boards that list settled players only (docs/api.md, "Leaderboards"): titles, comma-separated. Empty by default: every
# board lists provisional players too, marked provisional: true (leaderboards/provisional.py).
LEADERBOARD_EXCLUDE_PROVISIONAL = env.list("LEADERBOARD_EXCLUDE_PROVISIONAL", default=[])
# Closed tickets (matched, cancelled, expired) are kept this many days, then deleted by beat in chunks of
# MATCHMAKING_TICKET_PURGE_CHUNK rows, one short transaction each, every MATCHMAKING_TICKET_PURGE_SECONDS.
MATCHMAKING_TICKET_RETENTION_DAYS = env.int("MATCHMAKING_TICKET_RETENTION_DAYS", default=30)
MATCHMAKING_TICKET_PURGE_CHUNK = env.int("MATCHMAKING_TICKET_PURGE_CHUNK", default=5000)
MATCHMAKING_TICKET_PURGE_SECONDS = env.float("MATCHMAKING_TICKET_PURGE_SECONDS", default=3600.0)


# Seasons (docs/seasons.md): length in days (aligned UTC boundaries), placement games; beat closes a season at its
# end (and folds whatever a lost message left) every SEASON_ROLLOVER_SECONDS.
SEASON_LENGTH_DAYS = env.int("SEASON_LENGTH_DAYS", default=91)
SEASON_PLACEMENT_GAMES = env.int("SEASON_PLACEMENT_GAMES", default=3)
SEASON_ROLLOVER_SECONDS = env.float("SEASON_ROLLOVER_SECONDS", default=60.0)
