"""The rating constants: defined once in the rules modules, overridden only by a setting that is set."""

from __future__ import annotations

import os

from ratings import elo, hanabi
from ratings.config import ELO_SETTINGS, elo_config, hanabot_below_rule


def test_with_nothing_set_the_rules_modules_defaults_apply(settings):
    for name in ELO_SETTINGS.values():
        if name not in os.environ:
            assert not hasattr(settings, name), f"{name} restates a default of ratings/elo.py"
    if "ELO_INITIAL" not in os.environ:
        assert elo_config() == elo.EloConfig() == elo.DEFAULT
        assert (elo.DEFAULT.k_new, elo.DEFAULT.k_mid, elo.DEFAULT.k_settled) == (60, 40, 20)  # docs/ratings.md
    if "HANABOT_BELOW_THRESHOLD" not in os.environ:
        assert hanabot_below_rule() == hanabi.TIE_WITH_1000 == "tie_with_1000"


def test_a_setting_overrides_its_constant_and_only_it(settings):
    settings.ELO_K_NEW = 32
    settings.ELO_FLOOR = 100.0
    settings.HANABOT_BELOW_THRESHOLD = hanabi.LOSE_TO_WEAKEST
    config = elo_config()
    assert (config.k_new, config.floor) == (32, 100.0)
    assert (config.k_mid, config.k_settled, config.quit_penalty) == (40, 20, 10.0)
    assert hanabot_below_rule() == "lose_to_weakest"
