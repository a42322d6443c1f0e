"""A web worker freezes its startup heap once its code is loaded (config/wsgi.py; docs/testing.md, the request
path): the views are imported before the freeze, so the cyclic collector never walks them either."""

from __future__ import annotations

import gc

from tests.pure.test_production_settings import GOOD_HASH_KEY, GOOD_SECRET, _run


def test_loading_the_wsgi_application_imports_the_views_then_freezes():
    code = (
        "import gc; assert gc.get_freeze_count() == 0; import config.wsgi; "
        "from doors.games import GameCreateApi; from leaderboards.api import LeaderboardApi; "
        "tracked = [o for o in gc.get_objects() if o is GameCreateApi or o is LeaderboardApi]; "
        "print(gc.get_freeze_count() > 10_000, len(tracked))"
    )
    done = _run(code, SECRET_KEY=GOOD_SECRET, IP_HASH_KEY=GOOD_HASH_KEY, ALLOWED_HOSTS="arena.example.com")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["True", "0"]  # both view classes frozen, so imported before the freeze


def test_a_frozen_object_is_out_of_every_collection_until_unfrozen():
    from infra.gc_pause import startup_heap_freeze

    class Node:
        pass

    kept = Node()
    before = gc.get_freeze_count()
    try:
        startup_heap_freeze()
        assert gc.get_freeze_count() > before
        assert not any(kept is obj for obj in gc.get_objects())  # the permanent generation is not listed
    finally:
        gc.unfreeze()
    assert any(kept is obj for obj in gc.get_objects())
