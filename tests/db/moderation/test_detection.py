"""Detection over the database: links, suspect pairs and flags, thresholds at their edges (docs/moderation.md)."""

from __future__ import annotations

import math

import pytest

from arena.models import Game, Player
from moderation.models import DetectionState, Flag, FlagFeeder, Link
from moderation.services import flag_dismiss
from tests.db.moderation.helpers import detect, duel, link, record, seen
from tests.db.ratings.helpers import post, rate_all

pytestmark = pytest.mark.django_db


def ring(
    b: str,
    f: str,
    *,
    games: int = 5,
    losses: int = 0,
    days_ago: float = 5,
    title: str = "tokaido",
    older: float | None = None,
) -> list[dict]:
    """``games`` duels B wins against F (``losses`` of them F wins); the last one ``older`` days ago if given."""
    out = []
    for i in range(games):
        age = older if (older is not None and i == games - 1) else days_ago + i * 0.01
        out.append(duel(f, b, days_ago=age, title=title) if i < losses else duel(b, f, days_ago=age, title=title))
    return out


def flags() -> list[tuple[str, str, list[str]]]:
    out = []
    for flag in Flag.objects.filter(status=Flag.Status.OPEN).order_by("pk"):
        feeders = sorted(FlagFeeder.objects.filter(flag=flag).values_list("feeder__handle", flat=True))
        out.append((flag.beneficiary.handle, flag.title, feeders))
    return out


def elo(a: float, b: float) -> float:
    return 1 / (1 + 10 ** ((b - a) / 400))


class TestLinks:
    def test_same_ip_29_days_apart_links_31_does_not(self, api):
        record(api, link("a", "b", apart=29, days_ago=40) + link("c", "d", apart=31, days_ago=40))
        detect()
        pairs = {(lk.player_a.handle, lk.player_b.handle, lk.kind) for lk in Link.objects.all()}
        assert pairs == {("a", "b", "ip")}

    def test_device_links_are_their_own_kind_and_keep_dates_not_values(self, api):
        record(api, link("a", "b", kind="device", apart=3, days_ago=10, key="laptop-1"))
        detect()
        (lk,) = Link.objects.all()
        assert (lk.kind, lk.keys, lk.crowd) == ("device", 1, 2)
        assert (lk.last_seen - lk.first_seen).days == 3
        assert "laptop-1" not in str(lk.key_digests)

    @pytest.mark.parametrize("accounts, crowded", [(50, False), (51, True)])
    def test_a_crowded_address_links_only_accounts_at_one_table(self, api, accounts, crowded):
        """The crowded rule (docs/moderation.md): up to 50 accounts on one address, every pair is linked; from 51,
        only pairs seated together through it. Here: ``accounts`` solo visits of one address within a week, then
        u0 and u1 play each other there, and u2 plays u3 from their own addresses (no table through the hash)."""
        nat = "203.0.113.7"
        bodies = [seen(f"u{i}", days_ago=5 + i / 100, ip=nat) for i in range(accounts)]
        bodies += [duel("u0", "u1", days_ago=1, ips={"u0": nat, "u1": nat}), duel("u2", "u3", days_ago=1)]
        record(api, bodies)
        detect()
        links = {
            (lk.player_a.handle, lk.player_b.handle): lk.crowd
            for lk in Link.objects.select_related("player_a", "player_b")
        }
        if crowded:  # one link: the table; its crowd is every account seen on the address
            assert links == {("u0", "u1"): 51}
        else:  # every pair of the 50: 50 * 49 / 2
            assert len(links) == 1225 and set(links.values()) == {50}

    def test_a_crowded_address_keeps_a_table_met_on_it_in_a_later_pass(self, api):
        """Incremental: the crowd is counted over the window around each pass's new uses, not only the new ones."""
        nat = "203.0.113.8"
        record(api, [seen(f"u{i}", days_ago=5 + i / 100, ip=nat) for i in range(60)])
        detect()
        assert Link.objects.count() == 0  # 60 accounts, nobody seated together: crowded, no link at all
        record(api, [duel("u10", "u20", days_ago=1, ips={"u10": nat, "u20": nat})])
        detect()
        (lk,) = Link.objects.all()
        assert (lk.player_a.handle, lk.player_b.handle, lk.crowd) == ("u10", "u20", 60)

    def test_a_rerun_merges_instead_of_duplicating(self, api):
        record(api, link("a", "b", days_ago=10, key="home"))
        detect()
        record(api, link("a", "b", days_ago=5, key="home") + link("a", "b", days_ago=4, key="work"))
        detect()
        (lk,) = Link.objects.all()
        assert lk.keys == 2


class TestSuspectPairs:
    def test_five_won_games_flag_four_do_not(self, api):
        record(api, link("b", "f") + ring("b", "f", games=5) + link("b2", "f2") + ring("b2", "f2", games=4))
        detect()
        assert flags() == [("b", "tokaido", ["f"])]

    def test_four_wins_of_five_is_80_percent_three_is_not(self, api):
        record(
            api,
            link("b", "f") + ring("b", "f", games=5, losses=1) + link("b2", "f2") + ring("b2", "f2", games=5, losses=2),
        )
        detect()
        assert flags() == [("b", "tokaido", ["f"])]

    def test_ties_are_not_wins(self, api):
        # 3 wins and 2 ties in 5: 60 % above. Counting ties as wins would make it 100 %.
        record(api, link("b", "f") + ring("b", "f", games=3) + [duel("b", "f", tie=True), duel("b", "f", tie=True)])
        detect()
        assert flags() == []

    def test_feeder_with_a_fifth_of_games_elsewhere_is_in_more_is_out(self, api):
        # f: 8 games with b, 2 with strangers = 80 %; g: 8 with c, 3 with strangers = 72.7 %.
        bodies = link("b", "f") + ring("b", "f", games=8) + [duel("x1", "f"), duel("x2", "f")]
        bodies += link("c", "g") + ring("c", "g", games=8) + [duel("y1", "g"), duel("y2", "g"), duel("y3", "g")]
        record(api, bodies)
        detect()
        assert flags() == [("b", "tokaido", ["f"])]

    def test_the_90_day_window_89_counts_91_does_not(self, api):
        record(api, link("b", "f") + ring("b", "f", older=89) + link("c", "g") + ring("c", "g", older=91))
        detect()
        assert flags() == [("b", "tokaido", ["f"])]

    def test_unlinked_pairs_are_never_suspect(self, api):
        record(api, ring("b", "f", games=10))
        detect()
        assert flags() == []

    def test_household_playing_each_other_and_others_is_not_flagged(self, api):
        # Siblings on one address: the older wins 9 of 10 against the younger, who plays 20 other games.
        bodies = link("older", "younger", days_ago=3) + ring("older", "younger", games=10, losses=1)
        bodies += [duel(f"friend{i}", "younger", days_ago=2) for i in range(10)]
        bodies += [duel("younger", f"kid{i}", days_ago=2) for i in range(10)]
        record(api, bodies)
        detect()
        assert flags() == []


class TestFlags:
    def test_one_flag_per_beneficiary_and_title_aggregates_the_ring(self, api):
        bodies = link("main", "alt1") + link("main", "alt2", kind="device") + link("main", "alt3")
        bodies += (
            ring("main", "alt1", games=6) + ring("main", "alt2", games=5) + ring("main", "alt3", games=5, title="nile")
        )
        record(api, bodies)
        detect()
        assert flags() == [("main", "nile", ["alt3"]), ("main", "tokaido", ["alt1", "alt2"])]

    def test_evidence_has_games_shares_elo_links_and_accounts(self, api):
        record(api, link("b", "f", kind="device", apart=2) + ring("b", "f", games=5, losses=1))
        detect()
        flag = Flag.objects.get()
        ev = flag.evidence
        (feeder,) = ev["feeders"]
        assert (feeder["handle"], feeder["shared_games"], feeder["wins"], feeder["win_share"]) == ("f", 5, 4, 0.8)
        assert feeder["concentration"] == 1.0
        assert len(ev["game_ids"]) == 5 == len(flag.game_ids)
        assert feeder["links"][0]["kind"] == "device" and feeder["links"][0]["keys"] == 1
        assert "first_seen" in feeder["links"][0] and "last_seen" in feeder["links"][0]
        assert ev["beneficiary"]["handle"] == "b" and ev["beneficiary"]["games"] == 5
        # Age from the first rated game (issue 27 §3): the ring's oldest duel finished 5.04 days ago, so 5 d,
        # though Arena first saw both accounts in this very test.
        assert feeder["games"] == 5 and feeder["age_days"] == 5 and feeder["first_game_at"]
        # By hand: f wins the first duel (both new, K 60): b 1470, f 1530. Then b wins four.
        b, f = 1500.0, 1500.0
        gained = 0.0
        for b_wins in (False, True, True, True, True):
            delta = 60 * ((1.0 if b_wins else 0.0) - elo(b, f))
            b, f, gained = b + delta, f - delta, gained + delta
        assert ev["elo_gained"] == pytest.approx(round(gained, 2), abs=0.01)
        assert feeder["elo_share"] == pytest.approx(ev["elo_gained"], abs=0.01)  # one feeder: the whole share
        # Score: one feeder through a device (weight 1): 5 games * 0.8 * 1.0, nudged by the Elo gained.
        assert flag.score == pytest.approx(round(4.0 * (1 + math.log1p(max(gained, 0)) / 10), 3), abs=0.01)

    def test_rerun_updates_the_open_flag(self, api):
        record(api, link("b", "f") + ring("b", "f", games=5))
        detect()
        first = Flag.objects.get()
        record(api, ring("b", "f", games=3, days_ago=1))
        detect()
        flag = Flag.objects.get()
        assert flag.pk == first.pk and len(flag.game_ids) == 8
        assert flag.feeders.get().shared_games == 8

    def test_dismissed_stays_dismissed_until_new_evidence(self, api, django_user_model):
        moderator = django_user_model.objects.create_user("mod")
        record(api, link("b", "f") + ring("b", "f", games=5))
        detect()
        flag_dismiss(moderator=moderator, flag=Flag.objects.get(), note="brothers, checked by mail")
        # Nothing new about b and f: detection reruns over other games and leaves the flag dismissed.
        record(api, [duel("b", "stranger")])
        detect()
        assert flags() == []
        assert Flag.objects.get().status == Flag.Status.DISMISSED
        # A new suspect game arrives: raised again, as a new flag.
        record(api, ring("b", "f", games=1, days_ago=0.5))
        detect()
        assert flags() == [("b", "tokaido", ["f"])]
        assert Flag.objects.count() == 2

    def test_crowded_address_weighs_less(self, api):
        # Same ring twice, once linked at home (2 accounts), once only through a café 6 other accounts use: its
        # crowd is counted without the flag's own 2 accounts (moderation.crowds), so 6, not 8.
        bodies = link("b", "f", key="home") + ring("b", "f", games=5)
        bodies += link("c", "g", key="cafe") + ring("c", "g", games=5)
        bodies += [b for i in range(6) for b in link(f"guest{i}", "g", key="cafe")]
        record(api, bodies)
        detect()
        home = Flag.objects.get(beneficiary__handle="b")
        cafe = Flag.objects.get(beneficiary__handle="c")
        assert cafe.feeders.get().weight == pytest.approx(0.8 * 4 / 6)
        assert home.feeders.get().weight == pytest.approx(0.8)
        assert cafe.score == pytest.approx(home.score * 4 / 6, rel=0.01)
        (cafe_link,) = cafe.evidence["feeders"][0]["links"]
        # 6 strangers is a café, not a carrier's NAT: weighed less, not marked widely shared (more than 50).
        assert (cafe_link["crowd"], cafe_link["accounts_on_hash"], cafe_link["crowded"]) == (6, 8, False)
        (home_link,) = home.evidence["feeders"][0]["links"]
        assert (home_link["crowd"], home_link["accounts_on_hash"]) == (0, 2)

    def test_incremental_pass_looks_only_at_new_games(self, api):
        record(api, link("b", "f") + ring("b", "f", games=5))
        first = detect()
        assert first.games == 7
        again = detect()
        assert (again.games, again.pairs_evaluated) == (0, 0)
        record(api, [duel("x", "y")])
        later = detect()
        assert later.games == 1 and later.pairs_evaluated == 0
        assert Player.objects.filter(handle="x").exists()


def test_passes_of_a_few_games_reach_the_same_flags(api):
    from moderation import detection

    record(api, link("b", "f") + ring("b", "f", games=6) + link("c", "g") + ring("c", "g", games=5))
    total = detection.detection_run_all(batch=3)
    from arena.models import Game

    assert total.games == 15 and total.watermark == max(Game.objects.values_list("pk", flat=True))
    assert flags() == [("b", "tokaido", ["f"]), ("c", "tokaido", ["g"])]


def test_a_title_whose_games_stay_pending_holds_no_other_game_back(api):
    """Nile's rating stage is stuck: b2's Nile ring, recorded first, stays pending while Tokaido is rated. The
    Tokaido ring recorded after it is still looked at (one stuck game must not stop detection for everyone), and
    the Nile ring is looked at when its rating finally comes, though the id watermark passed it long before."""
    stuck = post(api, link("b2", "f2") + ring("b2", "f2", title="nile"))
    post(api, link("b", "f") + ring("b", "f"))
    rate_all(titles=["tokaido"])
    first = detect()
    assert flags() == [("b", "tokaido", ["f"])]
    assert first.watermark == max(Game.objects.values_list("pk", flat=True))
    assert Game.objects.filter(pk__in=[g["id"] for g in stuck], status=Game.Status.PENDING).count() == 5
    assert Link.objects.filter(player_a__handle__in=["b2", "f2"]).exists()  # its seats' links: already known
    rate_all(titles=["nile"])
    later = detect()
    assert (later.games, later.rated) == (0, 5)
    assert flags() == [("b", "tokaido", ["f"]), ("b2", "nile", ["f2"])]
    assert (detect().games, detect().rated) == (0, 0)


def test_the_dashboard_lag_counts_games_rated_after_the_watermark_passed_them(api):
    """The panel's "not looked at yet": new games past the id watermark, and games it passed while pending that
    have been rated since (detection will read them), each counted once."""
    from moderation.selectors import detection_lag

    post(api, ring("b2", "f2", title="nile", games=2))
    post(api, ring("b", "f", games=3))
    assert detection_lag() == 5  # nothing looked at: every game is past the watermark (0)
    rate_all(titles=["tokaido"])
    detect()
    assert detection_lag() == 0  # the Nile games are passed by id; nothing rated waits
    rate_all(titles=["nile"])
    assert detection_lag() == 2
    post(api, ring("b", "f", games=1))
    assert detection_lag() == 3
    detect()
    assert detection_lag() == 0


def test_a_first_pass_after_an_old_watermark_takes_up_where_it_stood(api):
    """A watermark kept from before the rating cursors (or set by hand, as the benchmark does): each title's
    cursor starts just below the first game rated above it, so nothing rated after the watermark is skipped."""
    record(api, link("b", "f") + ring("b", "f", games=3))
    detect()
    DetectionState.objects.update(rated_seqs={})  # as the migration leaves a running deployment
    record(api, ring("b", "f", games=3, days_ago=4))
    again = detect()
    assert (again.games, again.rated) == (3, 3)
    assert flags() == [("b", "tokaido", ["f"])]


def test_an_open_flag_whose_pattern_evens_out_is_withdrawn(api):
    record(api, link("b", "f") + ring("b", "f", games=5))
    detect()
    assert flags() == [("b", "tokaido", ["f"])]
    # f then wins 2 of the next 3: b above f in 6 of 8 games, 75 %.
    record(api, [duel("f", "b", days_ago=1), duel("f", "b", days_ago=1), duel("b", "f", days_ago=1)])
    result = detect()
    assert flags() == [] and result.flags_withdrawn == 1
    flag = Flag.objects.get()
    assert flag.status == Flag.Status.WITHDRAWN and flag.resolved_by is None
    # The pattern returns (b wins 4 more: 10 of 12, 83 %): a new flag, the withdrawn one stays as it was.
    record(api, [duel("b", "f", days_ago=0.5) for _ in range(4)])
    detect()
    assert flags() == [("b", "tokaido", ["f"])] and Flag.objects.count() == 2
