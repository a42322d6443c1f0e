"""The rating rules' constants as configured: the defaults are the rules modules' (one definition each, in
``ratings/elo.py`` and ``ratings/hanabi.py``); a Django setting of the names below overrides one.

docs/ratings.md: "every constant is a setting". Settings name only what a deployment changes (``ELO_INITIAL`` and
``HANABOT_BELOW_THRESHOLD`` from the environment), so a default is never written twice.
"""

from __future__ import annotations

from django.conf import settings

from ratings import hanabi
from ratings.elo import EloConfig

# EloConfig field -> the Django setting that overrides it.
ELO_SETTINGS = {
    "initial": "ELO_INITIAL",
    "k_new": "ELO_K_NEW",
    "k_mid": "ELO_K_MID",
    "k_settled": "ELO_K_SETTLED",
    "mid_from": "ELO_MID_FROM",
    "settled_from": "ELO_SETTLED_FROM",
    "quit_penalty": "ELO_QUIT_PENALTY",
    "floor": "ELO_FLOOR",
}


def elo_config() -> EloConfig:
    """``ratings.elo``'s defaults with the settings' overrides (read at each call, so tests may change them)."""
    return EloConfig(
        **{field: getattr(settings, name) for field, name in ELO_SETTINGS.items() if hasattr(settings, name)}
    )


def hanabot_below_rule() -> str:
    """Which rule rates a Hanabi score below the table's threshold (``ratings.hanabi.BELOW_RULES``)."""
    return getattr(settings, "HANABOT_BELOW_THRESHOLD", hanabi.TIE_WITH_1000)
