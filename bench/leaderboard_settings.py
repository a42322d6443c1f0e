"""Arena's settings with the public throttle off: lets the leaderboard benchmark tell the throttle's share of a
request's latency from the rest. Never used outside bench/leaderboard_bench.py."""

from config.settings import *  # noqa: F403
from config.settings import REST_FRAMEWORK

REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": None}}
